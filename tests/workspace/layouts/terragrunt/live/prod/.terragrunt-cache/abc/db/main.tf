# Terragrunt's working copy: never read (it would be a second, false root).
resource "aws_db_instance" "this" {
  engine_version = var.nope
}
