postgres_version = "16.2"
cache_node_type  = "cache.r6g.large"
