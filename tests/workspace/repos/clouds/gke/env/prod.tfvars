project_id           = "acme-prod"
release_channel      = "LTS"
highmem_machine_type = "n2-highmem-8"
