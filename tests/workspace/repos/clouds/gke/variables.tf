variable "project_id" {
  type = string
}

variable "name" {
  type    = string
  default = "apps"
}

variable "region" {
  type    = string
  default = "europe-west1"
}

variable "kubernetes_version" {
  type    = string
  default = "latest"
}

variable "release_channel" {
  type    = string
  default = "REGULAR"
}

variable "highmem_machine_type" {
  type = string
}
