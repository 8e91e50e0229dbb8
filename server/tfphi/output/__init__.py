"""The formats of ``tfphi check`` (SPEC section 1), one module per format.

Each format module has ``render(report) -> str``: the whole output of a run, which the CLI
prints or writes to ``--output FILE``. ``text`` and ``json`` are for people and scripts,
``sarif`` for code-scanning UIs, ``github`` for GitHub Actions annotations, ``gitlab`` for
GitLab's Code Quality widget. ``progress`` is the terminal's progress line, never part of
an output.

The format modules are imported only when asked for (``formatter``): ``sarif`` and what it
loads (pathlib, importlib.resources) are not a plain check's start-up.
"""

from __future__ import annotations

import importlib
from typing import Callable

from .report import CheckReport

FORMATS = ("text", "json", "sarif", "github", "gitlab")

_MODULES = {"text": "text", "json": "json_report", "sarif": "sarif", "github": "github", "gitlab": "gitlab"}


def formatter(name: str) -> Callable[[CheckReport], str]:
    """The ``render`` function of the format ``name`` (one of ``FORMATS``)."""
    return importlib.import_module(f"{__name__}.{_MODULES[name]}").render
