"""Instance keys: ``[0]`` for ``count``, ``["jobs"]`` for ``for_each``, nothing for a single instance."""

from __future__ import annotations

import json
from typing import Union

InstanceKey = Union[int, str, None]
NO_KEY: InstanceKey = None


def format_key(key: InstanceKey) -> str:
    """The key as Terraform prints it after an address: ``[0]``, ``["jobs"]`` or nothing."""
    if key is None:
        return ""
    if isinstance(key, bool):  # bool is an int in Python; Terraform has no bool keys
        raise TypeError("an instance key is a number or a string")
    if isinstance(key, int):
        return f"[{key}]"
    return f"[{json.dumps(key, ensure_ascii=False)}]"
