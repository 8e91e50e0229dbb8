resource "aws_elasticache_replication_group" "this" {
  for_each = var.replicas

  replication_group_id = each.key
  description          = each.value
  engine               = "redis"
  engine_version       = var.engine_version
  node_type            = var.node_type
}
