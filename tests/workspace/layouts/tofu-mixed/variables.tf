variable "engine_version" {
  type    = string
  default = "16.2"
}
