variable "engine_version" {
  type = string
}

variable "node_type" {
  type = string
}

variable "replicas" {
  type = map(string)
}
