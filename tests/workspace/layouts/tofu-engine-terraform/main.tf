# Terraform reads this file; OpenTofu reads main.tofu instead.
resource "aws_db_instance" "app" {
  engine         = "postgres"
  engine_version = var.terraform_only
}
