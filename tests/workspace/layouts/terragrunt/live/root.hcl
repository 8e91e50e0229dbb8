locals {
  region          = "eu-west-1"
  default_version = "14.9"
}

inputs = {
  region         = local.region
  engine_version = local.default_version
  multi_az       = false
}
