module "db" {
  source = "../../"

  identifier     = "complete-mysql"
  engine         = "mysql"
  engine_version = var.mysql_version
  instance_class = "db.t4g.large"
}
