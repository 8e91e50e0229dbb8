module "master" {
  source = "../../"

  identifier     = "replica-postgresql-master"
  engine         = "postgres"
  engine_version = "14"
  instance_class = "db.t4g.large"
}

module "replica" {
  source = "../../"

  identifier     = "replica-postgresql-replica"
  engine         = "postgres"
  engine_version = "14"
  instance_class = var.replica_class
}
