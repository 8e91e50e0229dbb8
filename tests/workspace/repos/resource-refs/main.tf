# `resource.<type>.<name>` (Terraform 1.4+) names the same resource as `<type>.<name>`
# (as in terraform-aws-eks-blueprints' patterns/privatelink-access).
resource "aws_vpc_endpoint" "this" {
  vpc_id       = "vpc-0123"
  service_name = "com.amazonaws.eu-west-1.rds"
}

resource "aws_db_instance" "this" {
  identifier     = "app"
  engine         = "postgres"
  engine_version = "16.4"
  instance_class = resource.aws_vpc_endpoint.this.id
}

output "endpoint" {
  value = resource.aws_vpc_endpoint.this.dns_entry[0].dns_name
}

output "missing" {
  value = resource.aws_vpc_endpoint.nope.id
}
