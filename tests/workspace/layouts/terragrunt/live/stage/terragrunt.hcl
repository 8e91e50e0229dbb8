include {
  path = find_in_parent_folders()
}

terraform {
  source = "${get_terragrunt_dir()}/../../modules/db"
}

inputs = {
  engine_version = get_env("PG_VERSION", "16.2")
  region         = run_cmd("./region.sh")
}
