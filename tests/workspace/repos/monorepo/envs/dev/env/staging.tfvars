postgres_version = "16.2"
replicas         = 2
