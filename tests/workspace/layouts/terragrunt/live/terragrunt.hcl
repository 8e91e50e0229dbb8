# The parent that `include { path = find_in_parent_folders() }` finds (no module of its own).
inputs = {
  region         = "us-east-1"
  instance_class = "db.t4g.medium"
}
