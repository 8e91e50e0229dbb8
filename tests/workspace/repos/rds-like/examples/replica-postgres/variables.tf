variable "replica_class" {
  description = "The replica's instance class"
  type        = string

  validation {
    condition     = contains(["db.t4g.large", "db.r6g.large"], var.replica_class)
    error_message = "The replica class must be db.t4g.large or db.r6g.large."
  }
}
