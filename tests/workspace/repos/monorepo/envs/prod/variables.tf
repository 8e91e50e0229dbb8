variable "postgres_version" {
  type = string

  validation {
    condition     = contains(["15.4", "16.2"], var.postgres_version)
    error_message = "Supported versions: 15.4, 16.2."
  }
}

variable "cache_node_type" {
  type = string
}
