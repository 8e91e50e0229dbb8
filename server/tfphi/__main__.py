"""``python -m tfphi``: the same as the ``tfphi`` command."""

from .cli import entry

entry()
