# The root of registry-installed after a partial (or older) `terraform init`: modules.json
# lists module.db but not the call nested in it (db.db_instance).
module "db" {
  source  = "terraform-aws-modules/rds/aws"
  version = "6.10.0"

  identifier     = "app"
  engine         = "postgres"
  engine_version = var.pg_version
  instance_class = "db.t4g.large"
}

module "cache" {
  source  = "cloudposse/elasticache-redis/aws"
  version = "1.4.1"

  engine = "memcached"
}
