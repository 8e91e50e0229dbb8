variable "postgres_version" {
  type = string
}

variable "region" {
  type    = string
  default = "eu-west-1"
}

variable "region" {
  type    = string
  default = "us-east-1"
}
