# Cloud SQL for PostgreSQL and a Memorystore cache, as in
# terraform-google-modules/sql-db's postgresql module and memorystore's examples.
variable "database_version" {
  type    = string
  default = "POSTGRES_16"
}

variable "tier" {
  description = "The machine type of the database, e.g. db-custom-2-7680."
  type        = string
}

variable "redis_tier" {
  type = string

  validation {
    condition     = contains(["BASIC", "STANDARD_HA"], var.redis_tier)
    error_message = "BASIC or STANDARD_HA."
  }
}

resource "google_sql_database_instance" "main" {
  name             = "main"
  database_version = var.database_version
  region           = "europe-west1"

  settings {
    tier              = var.tier
    availability_type = "REGIONAL"
  }
}

resource "google_redis_instance" "cache" {
  name           = "cache"
  memory_size_gb = 1
  tier           = var.redis_tier
  redis_version  = "REDIS_7_2"
}
