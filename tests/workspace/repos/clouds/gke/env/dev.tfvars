project_id           = "acme-dev"
release_channel      = "RAPID"
highmem_machine_type = "e2-highmem-2"
