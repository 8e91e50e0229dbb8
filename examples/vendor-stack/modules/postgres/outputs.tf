output "endpoint" {
  value = aws_db_instance.app.endpoint
}

output "engine_version" {
  value = var.engine_version
}
