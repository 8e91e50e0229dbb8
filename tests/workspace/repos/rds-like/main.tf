locals {
  create_db_instance = var.create_db_instance
}

module "db_instance" {
  source = "./modules/db_instance"

  create         = local.create_db_instance
  identifier     = var.identifier
  engine         = var.engine
  engine_version = var.engine_version
  instance_class = var.instance_class
}
