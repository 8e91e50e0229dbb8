# var.environment is declared by the file Terragrunt generates (common_vars.tf).
resource "aws_db_instance" "app" {
  engine         = "postgres"
  engine_version = var.environment == "prod" ? "15.4" : "14.9"
  identifier     = "app-${var.environment}"
}
