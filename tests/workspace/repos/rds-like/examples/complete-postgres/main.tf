locals {
  name = "complete-postgresql"
}

module "db" {
  source = "../../"

  identifier     = local.name
  engine         = "postgres"
  engine_version = "14"
  instance_class = "db.t4g.large"
}
