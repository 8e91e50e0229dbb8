"""Filesystem functions (lang/funcs/filesystem.go): path text only; file contents are never read."""

from __future__ import annotations

import posixpath

from ...values.value import TfUnrepresentable, Value
from .spec import builtin
from .arguments import str_arg


# ---------------------------------------------------------------------------------------------
# Files and the machine: the result depends on what Terraform's machine holds, not only on the
# arguments. tfphi never reads them (the core does no I/O): the tracer answers Unbounded.

MACHINE_DEPENDENT = frozenset({
    "file", "fileexists", "filebase64", "fileset", "abspath", "pathexpand",
    "filemd5", "filesha1", "filesha256", "filesha512", "filebase64sha256", "filebase64sha512",
})


def _machine_dependent(args: list[Value]) -> Value:
    raise TfUnrepresentable("the result depends on files or the machine Terraform runs on, which tfphi never reads")


_MACHINE_DEPENDENT_SPECS = tuple(builtin(name, 2 if name == "fileset" else 1, elementwise=False)(_machine_dependent)
                                 for name in sorted(MACHINE_DEPENDENT))


@builtin("basename", 1, params=("path: string",))
def _basename(args: list[Value]) -> Value:
    path = str_arg(args[0], "path")
    stripped = path.rstrip("/")
    if not stripped:
        return "/" if path else "."
    return stripped.rsplit("/", 1)[-1]


@builtin("dirname", 1, params=("path: string",))
def _dirname(args: list[Value]) -> Value:
    path = str_arg(args[0], "path")
    head = path.rsplit("/", 1)[0] if "/" in path else "."
    if path.startswith("/") and head == "":
        return "/"
    return posixpath.normpath(head) if head else "."


SPECS = (*_MACHINE_DEPENDENT_SPECS, _basename, _dirname)
