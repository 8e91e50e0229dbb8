postgres_version = "15.4"
