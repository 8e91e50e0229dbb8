resource "aws_db_instance" "this" {
  count = var.create ? 1 : 0

  identifier     = var.identifier
  engine         = var.engine
  engine_version = var.engine_version
  instance_class = var.instance_class
}
