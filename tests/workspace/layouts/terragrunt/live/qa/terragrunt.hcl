include "root" {
  path = find_in_parent_folders("root.hcl")
}

terraform {
  source = "../../modules/db"
}

inputs = {
  instance_class = get_env("QA_INSTANCE_CLASS")
}
