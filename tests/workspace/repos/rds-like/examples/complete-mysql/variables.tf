variable "mysql_version" {
  description = "The MySQL engine version"
  type        = string
}
