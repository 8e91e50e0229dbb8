module "db" {
  source = "../../modules/db"

  name           = "dev"
  engine_version = var.postgres_version
  instance_class = "db.t4g.micro"
}

module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "5.8.1"

  name = "dev"
}
