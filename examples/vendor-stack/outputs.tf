output "database_endpoint" {
  value = module.database.endpoint
}

output "engine_version" {
  value = module.database.engine_version
}
