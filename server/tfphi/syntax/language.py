"""The tree-sitter HCL language, loaded once: what the parser (``hclfile``) and the reference
queries (``references``) are both built on, so neither imports the other for it."""

from __future__ import annotations

from functools import lru_cache

import tree_sitter_hcl
from tree_sitter import Language


@lru_cache(maxsize=1)
def hcl_language() -> Language:
    """The tree-sitter HCL language (loaded once)."""
    return Language(tree_sitter_hcl.language())
