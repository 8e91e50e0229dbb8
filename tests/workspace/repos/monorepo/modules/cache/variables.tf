variable "groups" {
  type = map(object({
    engine_version = string
  }))
}

variable "node_type" {
  type = string
}
