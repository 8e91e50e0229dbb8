module "cache" {
  source   = "../../modules/cache"
  for_each = { eu = "7.1", us = "7.0" }

  groups = {
    jobs     = { engine_version = each.value }
    sessions = { engine_version = "6.2" }
  }
  node_type = "cache.t4g.small"
}
