# The parent every unit includes: it writes the variables its inputs set into each module, and
# picks the module from the unit's folder name (envs/<env>/<module>).
generate "common_vars" {
  path      = "common_vars.tf"
  if_exists = "overwrite_terragrunt"
  contents  = <<EOF
variable "environment" {
  type = string
}
EOF
}

terraform {
  source = "${get_parent_terragrunt_dir()}/modules/${basename(path_relative_to_include())}"
}

inputs = {
  environment = basename(dirname(get_terragrunt_dir()))
}
