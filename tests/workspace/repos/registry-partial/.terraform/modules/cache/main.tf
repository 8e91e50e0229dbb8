variable "engine" {
  type    = string
  default = "redis"
}

resource "aws_elasticache_replication_group" "default" {
  replication_group_id = "cache"
  description          = "cache"
  engine               = var.engine
  engine_version       = aws_elasticache_parameter_group.default.family
  node_type            = "cache.t4g.small"
}

resource "aws_elasticache_parameter_group" "default" {
  name   = "cache"
  family = "redis7"
}
