"""Parsing Terraform files: ``hclfile`` (native syntax, tree-sitter) and ``jsonfile`` (JSON syntax)."""


def is_json_path(path: str) -> bool:
    """Whether ``path`` is in Terraform's JSON syntax (read by ``jsonfile``, imported only then)."""
    return path.endswith((".tf.json", ".tofu.json", ".tfvars.json"))
