variable "create_db_instance" {
  type    = bool
  default = true
}

variable "identifier" {
  type = string
}

variable "engine" {
  type    = string
  default = null
}

variable "engine_version" {
  type    = string
  default = null
}

variable "instance_class" {
  type    = string
  default = null
}
