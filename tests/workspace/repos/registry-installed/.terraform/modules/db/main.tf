module "db_instance" {
  source = "./modules/db_instance"

  create         = var.create_db_instance
  identifier     = var.identifier
  engine         = var.engine
  engine_version = var.engine_version
  instance_class = var.instance_class
}
