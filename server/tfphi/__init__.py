"""tfphi: phi tracing for Terraform, as a language server and a CLI."""

__version__ = "0.1.0"
