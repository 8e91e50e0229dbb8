# A root that uses registry modules, after `terraform init` (.terraform/modules/modules.json
# as Terraform 1.11 writes it: the nested local call is listed under its own key).
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
