variable "name" {
  type = string
}

variable "engine_version" {
  type = string
}

variable "instance_class" {
  type    = string
  default = "db.t4g.medium"
}
