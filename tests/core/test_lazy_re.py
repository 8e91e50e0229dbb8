"""``lazy_compile`` answers as the compiled pattern does, compiling it once, on first use."""

from __future__ import annotations

import re

from tfphi.lazy_re import LazyPattern, lazy_compile


def test_a_lazy_pattern_answers_as_the_compiled_one():
    lazy, compiled = lazy_compile(rb"(?<!\$)(?:\$\$)*[$%]\{", re.S), re.compile(rb"(?<!\$)(?:\$\$)*[$%]\{", re.S)
    assert isinstance(lazy, LazyPattern) and "search" not in lazy.__dict__  # nothing compiled yet
    text = b'a = "${x} $${y} %{if}"'
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in compiled.finditer(text)]
    assert lazy.search(text).span() == compiled.search(text).span()
    assert lazy.sub(b"!", text) == compiled.sub(b"!", text)
    assert (lazy.pattern, lazy.flags, lazy.groups) == (compiled.pattern, compiled.flags, compiled.groups)
    assert lazy.__dict__["search"].__self__ is lazy.__dict__["sub"].__self__  # one compilation, kept
