"""Standard modules imported when a function first needs one."""

from __future__ import annotations

import importlib
from typing import Any


class _Deferred:
    """A module imported when one of its names is first read: most checks call none of the
    functions that need these, and importing them (PyYAML compiles large regular expressions)
    was most of this module's import, which every traced function call pays."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        value = getattr(importlib.import_module(self._name), attr)
        setattr(self, attr, value)  # read from the instance from now on
        return value


base64 = _Deferred("base64")
csv = _Deferred("csv")
datetime_module = _Deferred("datetime")
decimal = _Deferred("decimal")  # durations (timeadd); 2.4 ms with numbers
hashlib = _Deferred("hashlib")
ipaddress = _Deferred("ipaddress")
uuid_module = _Deferred("uuid")
yaml = _Deferred("yaml")  # PyYAML, a declared dependency: yamldecode
re2 = _Deferred("re2")  # google-re2, a declared dependency: the regex functions; 5.7 ms to import
urllib_parse = _Deferred("urllib.parse")
_DEFERRED = (base64, csv, datetime_module, decimal, hashlib, ipaddress, uuid_module, yaml, re2, urllib_parse)


def import_deferred() -> None:
    """Imports every module this one defers (for a process that would rather pay it up front: the server)."""
    for module in _DEFERRED:
        importlib.import_module(module._name)
