variable "pg_version" {
  type = string
}
