include "root" {
  path   = find_in_parent_folders("root.hcl")
  expose = true
}

locals {
  size = "large"
}

terraform {
  source = "../../modules//db"
}

inputs = {
  engine_version = "15.4"
  instance_class = "db.r6g.${local.size}"
  region         = include.root.locals.region
}
