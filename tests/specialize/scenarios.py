"""The seed's scenarios as small workspaces: address to specialize, files, selector variables."""

NESTED = {
    "variables.tf": 'variable "env" {\n  type = string\n}\n\nvariable "region" {\n  type = string\n}\n',
    "main.tf": '''resource "aws_db_instance" "app" {
  engine         = "postgres"
  instance_class = var.env == "prod" ? "m5.xlarge" : (var.region == "us-east-1" ? "m5.xlarge" : "t3.small")
}

output "arn" {
  value = aws_db_instance.app.arn
}
''',
}

UNIVERSE = {
    "variables.tf": '''variable "instance_size" {
  type = string

  validation {
    condition     = contains(["small", "medium", "large"], var.instance_size)
    error_message = "instance_size must be small, medium or large."
  }
}
''',
    "main.tf": '''module "db" {
  source        = "./modules/db"
  instance_size = var.instance_size
}
''',
    "modules/db/main.tf": '''variable "instance_size" {
  type = string
}

resource "aws_db_instance" "db" {
  engine         = "postgres"
  engine_version = "16.2"
  instance_class = var.instance_size
}

output "id" {
  value = aws_db_instance.db.id
}
''',
}

RESOLVED = {
    "main.tf": '''variable "postgres_version" {
  type    = string
  default = "15.4"
}

resource "aws_db_instance" "app" {
  engine         = "postgres"
  engine_version = var.postgres_version
}

output "endpoint" {
  value = aws_db_instance.app.endpoint
}
''',
}

# depends_on, [0]/one() splicing of references, provider alias, moved blocks.
REFERENCES = {
    "main.tf": '''variable "env" {
  type = string
}

provider "aws" {
  alias  = "west"
  region = "us-west-2"
}

locals {
  versions = { prod = "15.4", dev = "14.9" }
  team     = "data"
}

resource "aws_iam_role" "monitoring" {
  name = "rds-monitoring"
}

resource "aws_db_instance" "app" {
  provider       = aws.west
  engine         = "postgres"
  engine_version = var.env == "prod" ? local.versions["prod"] : local.versions["dev"]
  monitoring_role_arn = aws_iam_role.monitoring.arn
  tags = { team = local.team }

  depends_on = [aws_iam_role.monitoring]
}

resource "aws_route53_record" "db" {
  name    = "db"
  records = [aws_db_instance.app.address]
  ttl     = aws_db_instance.app.tags["ttl"]

  depends_on = [aws_db_instance.app, aws_iam_role.monitoring]
}

locals {
  endpoint = aws_db_instance.app.endpoint
  whole    = aws_db_instance.app
}

output "endpoint" {
  value = local.endpoint
}
''',
}

# Sub-module fallback: a resource that already has for_each (the inner for_each stays inside).
WRAPPED = {
    "main.tf": '''variable "cache_version" {
  type = string

  validation {
    condition     = var.cache_version == "7.0" || var.cache_version == "7.1"
    error_message = "7.0 or 7.1"
  }
}

variable "groups" {
  type    = map(string)
  default = { sessions = "s", jobs = "j" }
}

resource "aws_elasticache_replication_group" "this" {
  for_each             = var.groups
  replication_group_id = each.key
  description          = each.value
  engine_version       = var.cache_version
}

output "ids" {
  value = { for k, g in aws_elasticache_replication_group.this : k => g.id }
}

output "one" {
  value = aws_elasticache_replication_group.this["jobs"].arn
}
''',
}

# name: (files or None for the example workspace, address, {selector variable: possible values})
SCENARIOS = {
    "conditional": (None, "module.database.aws_db_instance.app.engine_version", {"customer_env": ["prod", "dev", "staging"]}),
    "nested_coalesced": (NESTED, "aws_db_instance.app.instance_class", {"env": ["prod", "dev"], "region": ["us-east-1", "eu-west-1"]}),
    "universe": (UNIVERSE, "module.db.aws_db_instance.db.instance_class", {"instance_size": ["small", "medium", "large"]}),
    "resolved": (RESOLVED, "aws_db_instance.app.engine_version", {}),
    "references": (REFERENCES, "aws_db_instance.app.engine_version", {"env": ["prod", "dev"]}),
    "wrapped": (WRAPPED, "aws_elasticache_replication_group.this.engine_version", {"cache_version": ["7.0", "7.1"]}),
}
