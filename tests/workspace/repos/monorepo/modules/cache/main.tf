resource "aws_elasticache_replication_group" "this" {
  for_each = var.groups

  replication_group_id = each.key
  description          = "${each.key} cache"
  engine               = "redis"
  engine_version       = each.value.engine_version
  node_type            = var.node_type
}
