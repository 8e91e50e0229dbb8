variable "engine_version" {
  type = string
}

variable "instance_class" {
  type    = string
  default = "db.t3.micro"
}

variable "region" {
  type = string
}

variable "multi_az" {
  type    = bool
  default = false
}

resource "aws_db_instance" "this" {
  engine         = "postgres"
  engine_version = var.engine_version
  instance_class = var.instance_class
  multi_az       = var.multi_az
}

output "region" {
  value = var.region
}
