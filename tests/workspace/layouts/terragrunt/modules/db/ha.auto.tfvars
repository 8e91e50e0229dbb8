# Auto-loaded in the module's directory: wins over every unit's inputs (Terragrunt passes them as TF_VAR_).
multi_az = true
