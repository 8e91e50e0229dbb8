variable "app_name" {
  type    = string
  default = "acme"
}

variable "customer_env" {
  type        = string
  description = "Which kind of customer environment this deployment is for."
}

variable "cache_engine_version" {
  type = string

  validation {
    condition     = contains(["7.0", "7.1"], var.cache_engine_version)
    error_message = "cache_engine_version must be 7.0 or 7.1."
  }
}

variable "cache_node_type" {
  type        = string
  description = "Set by the customer at deployment time."
}

variable "lambda_runtime" {
  type    = string
  default = "Python3.12"
}
