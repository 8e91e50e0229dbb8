variable "terraform_only" {
  type    = string
  default = "15.4"
}
