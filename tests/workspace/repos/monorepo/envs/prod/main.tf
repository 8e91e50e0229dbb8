module "db" {
  source = "../../modules/db"

  name           = "prod"
  engine_version = var.postgres_version
  instance_class = "db.r6g.large"
}

module "cache" {
  source = "../../modules/cache"

  groups = {
    jobs     = { engine_version = "7.1" }
    sessions = { engine_version = "7.0" }
  }
  node_type = var.cache_node_type
}
