"""``lazy_compile``: a module-level regular expression compiled when it is first used.

Compiling a pattern runs ``re``'s parser and compiler in Python (0.1–1 ms each on this
project's machine); a small ``tfphi check`` uses about half of the patterns its modules
declare. A ``LazyPattern`` compiles on its first attribute read and then keeps each method
it handed out in its own ``__dict__``, so later calls cost what a compiled pattern's do.
"""

from __future__ import annotations

import re
from typing import Any


class LazyPattern:
    """Stands for ``re.compile(pattern, flags)``; compiles it on first use."""

    def __init__(self, pattern: str | bytes, flags: int = 0):
        self._args = (pattern, flags)

    def __getattr__(self, name: str) -> Any:  # only for names not yet in __dict__
        if name.startswith("__"):
            raise AttributeError(name)
        compiled = self.__dict__.get("_compiled")
        if compiled is None:
            compiled = self.__dict__["_compiled"] = re.compile(*self._args)
        value = self.__dict__[name] = getattr(compiled, name)
        return value

    def __repr__(self) -> str:
        return f"lazy_compile({self._args[0]!r}, {self._args[1]!r})"


def lazy_compile(pattern: str | bytes, flags: int = 0) -> Any:
    """What ``re.compile`` returns, compiled the first time it is used (start-up)."""
    return LazyPattern(pattern, flags)
