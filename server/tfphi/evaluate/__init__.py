"""The concrete evaluator's pieces: Terraform's built-in functions and type constraints."""
