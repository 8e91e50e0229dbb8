customer_env         = "prod"
cache_engine_version = "7.1"
cache_node_type      = "cache.r6g.large"
