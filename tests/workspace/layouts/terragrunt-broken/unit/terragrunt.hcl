include "root" {
  path = find_in_parent_folders("root.hcl")
}

terraform {
  source = "../modules/db"
}

inputs = {
  engine_version = "15.4"
