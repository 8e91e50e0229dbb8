"""Expressions evaluated by tfphi and by ``terraform console``, compared in value and type.

Terraform's side (``terraform_results``) takes two console runs per batch of expressions (one
line each, up to console's 64 KiB): the values as ``terraform.Console`` reads them (each row
``try({v = jsonencode(e)}, ...)``, numbers kept as Terraform prints them) and the types as the
console-only ``type()`` prints the type of one object holding every row (``try(e, null)``: a row
that fails has no type to compare). tfphi's side (``tfphi_results``) traces each expression as
the ``input`` of one ``terraform_data`` of an in-memory workspace: the concrete core (parser,
tracer, operators, functions) exactly as ``tfphi trace`` runs it.

``compare`` gives one ``Mismatch`` per expression where the two differ: a value (numbers compared
as the decimals Terraform prints), a type (``values.type_of`` of tfphi's value against the type
Terraform printed; what tfphi's value does not say, such as the type of a null, matches
anything), tfphi giving a value where Terraform fails, or tfphi Unbounded where Terraform has a
value (``imprecise``: never wrong, counted apart).
"""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from terraform import ERROR, LINE_LIMIT, TIMEOUT, UNENCODABLE, UNKNOWN, Console
from terraform_cli import run_terraform
from tfphi.analysis import AnalysisHost
from tfphi.values.types import TypeSpec, type_of
from tfphi.values.value import format_number, is_number

UNBOUNDED = "tfphi: unbounded"


@dataclass(frozen=True)
class Mismatch:
    expression: str
    kind: str  # "value", "type", "error" (tfphi has a value, Terraform fails), "imprecise", "crash"
    terraform: str
    tfphi: str

    def __str__(self) -> str:
        return f"[{self.kind}] {self.expression}\n    terraform: {self.terraform}\n    tfphi:     {self.tfphi}"


# --- Terraform ---------------------------------------------------------------------------------


def terraform_results(expressions: list[str], directory: Path, declarations: str = "") -> list[tuple[Any, TypeSpec | None]]:
    """``(value, type)`` per expression: the value as decoded JSON (``ERROR`` where Terraform
    rejects it); ``declarations`` are the configuration console evaluates in."""
    (directory / "main.tf").write_text(declarations, encoding="utf-8")
    values = Console(directory).evaluate(expressions)
    types: list[TypeSpec | None] = [None] * len(expressions)
    batch: list[int] = []
    size = 0
    for i, expression in enumerate(expressions):
        if values[i] in (ERROR, UNENCODABLE, UNKNOWN, TIMEOUT):
            continue
        row = len(expression.encode()) + 30
        if batch and size + row > LINE_LIMIT:
            _types(batch, expressions, types, directory)
            batch, size = [], 0
        batch.append(i)
        size += row
    _types(batch, expressions, types, directory)
    return list(zip(values, types))


def _types(rows: list[int], expressions: list[str], types: list, directory: Path) -> None:
    if not rows:
        return
    attrs = ", ".join(f"r{i} = try({expressions[i]}, null)" for i in rows)
    try:
        done = run_terraform(["console", "-no-color"], directory, stdin=f"type({{{attrs}}})\n", timeout=60)
    except subprocess.TimeoutExpired:
        done = None
    if done is None or done.returncode != 0:
        if len(rows) > 1:
            half = len(rows) // 2
            _types(rows[:half], expressions, types, directory)
            _types(rows[half:], expressions, types, directory)
        return
    parsed = parse_type(done.stdout.strip())
    for name, spec, _optional, _default in parsed.attrs:
        types[int(name[1:])] = spec


_TYPE_WORD = re.compile(r"\s*([A-Za-z]+|[()\[\]{},])")
_TYPE_KEY = re.compile(r"\s*(.*?): ", re.S)


def parse_type(text: str) -> TypeSpec:
    """A type as ``terraform console`` prints ``type(...)`` (``object({a: list(string), ...})``;
    an attribute name is printed unquoted, whatever it holds: it is what comes before ``: ``)."""
    position = 0

    def peek() -> str:
        match = _TYPE_WORD.match(text, position)
        return match.group(1) if match else ""

    def take(expected: str | None = None) -> str:
        nonlocal position
        match = _TYPE_WORD.match(text, position)
        assert match and (expected is None or match.group(1) == expected), (expected, text[position:position + 100])
        position = match.end()
        return match.group(1)

    def skip_comma() -> None:
        if peek() == ",":
            take()

    def one() -> TypeSpec:
        nonlocal position
        name = take()
        if name in ("string", "number", "bool"):
            return TypeSpec(name)
        if name == "dynamic":
            return TypeSpec("any")
        take("(")
        if name in ("list", "set", "map"):
            element = one()
            skip_comma()
            take(")")
            return TypeSpec(name, element)
        if name == "tuple":
            take("[")
            elements = []
            while peek() != "]":
                elements.append(one())
                skip_comma()
            take("]")
            take(")")
            return TypeSpec("tuple", elements=tuple(elements))
        assert name == "object", (name, text[:300])
        take("{")
        attrs = []
        while peek() != "}":
            key = _TYPE_KEY.match(text, position)
            position = key.end()
            attrs.append((key.group(1), one(), False, None))
            skip_comma()
        take("}")
        take(")")
        return TypeSpec("object", attrs=tuple(sorted(attrs, key=lambda a: a[0])))

    return one()


# --- tfphi -------------------------------------------------------------------------------------


def tfphi_results(expressions: list[str], declarations: str = "") -> list[Any]:
    """tfphi's value per expression (``UNBOUNDED`` where it answers Unbounded, ``CRASH ...`` on a
    Python error). ``declarations`` (variables with defaults) are in the workspace, and the root
    variables take their defaults, as in Terraform's console and ``plan`` without -var."""
    host = AnalysisHost()
    source = declarations + "".join(f'resource "terraform_data" "e{i}" {{\n  input = {text}\n}}\n\n' for i, text in enumerate(expressions))
    host.set_source("main.tf", source.encode("utf-8"))
    analysis = host.snapshot()
    root = analysis.tree.roots[0]
    resources = analysis.modules[root].resources
    results = []
    for i in range(len(expressions)):
        try:
            resource = resources.get(f"terraform_data.e{i}")
            if resource is None:
                results.append("CRASH: no resource (a parse error?)")
                continue
            result, _ = analysis.tracer.trace_field((("", root),), resource, ("input",), (), assignment={})
        except Exception as exc:  # a bug in tfphi, reported as such
            results.append(f"CRASH {type(exc).__name__}: {exc}")
            continue
        results.append(result.branches[0].value if result.kind == "resolved" else UNBOUNDED)
    return results


# --- comparison --------------------------------------------------------------------------------


def canonical(value: Any) -> Any:
    """tfphi's value as Terraform's decoded JSON would hold it (numbers as printed decimals)."""
    if is_number(value):
        return Decimal(format_number(value))
    if isinstance(value, list):
        return [canonical(v) for v in value]
    if isinstance(value, dict):
        return {k: canonical(v) for k, v in value.items()}
    return value


def same_value(ours: Any, theirs: Any) -> bool:
    if isinstance(theirs, Decimal):
        return isinstance(ours, Decimal) and str(ours) == str(theirs)  # the same text, as Terraform prints it
    if isinstance(theirs, list):
        return isinstance(ours, list) and len(ours) == len(theirs) and all(map(same_value, ours, theirs))
    if isinstance(theirs, dict):
        return isinstance(ours, dict) and ours.keys() == theirs.keys() and all(same_value(ours[k], theirs[k]) for k in theirs)
    return type(ours) is type(theirs) and ours == theirs


def type_matches(ours: TypeSpec | None, theirs: TypeSpec | None) -> bool:
    """tfphi's type (None: unknown, as the type of a null) is Terraform's."""
    if ours is None or theirs is None:
        return True
    if ours.kind != theirs.kind:
        return False
    if ours.kind in ("list", "set", "map"):
        return type_matches(ours.element, theirs.element)
    if ours.kind == "tuple":
        return len(ours.elements) == len(theirs.elements) and all(map(type_matches, ours.elements, theirs.elements))
    if ours.kind == "object":
        mine = {a[0].strip(): a[1] for a in ours.attrs}  # console prints names unquoted: spaces around them are lost
        their = {a[0].strip(): a[1] for a in theirs.attrs}
        return mine.keys() == their.keys() and all(type_matches(mine[k], their[k]) for k in their)
    return True


def only_unification_differs(ours: TypeSpec | None, theirs: TypeSpec | None) -> bool:
    """tfphi kept a tuple or object where Terraform's conditional unified it into a list or map:
    the other arm failed or was Unbounded, so tfphi could not see its type (a known gap)."""
    if ours is None or theirs is None or ours.kind == "any" or type_matches(ours, theirs):
        return True
    if theirs.kind in ("list", "map") and ours.kind in ("tuple", "object", theirs.kind):
        members = ours.elements if ours.kind == "tuple" else [a[1] for a in ours.attrs] if ours.kind == "object" else [ours.element]
        return all(only_unification_differs(m, theirs.element) for m in members)
    if ours.kind == theirs.kind == "object":
        mine = {a[0]: a[1] for a in ours.attrs}
        return all(only_unification_differs(mine.get(name), attr) for name, attr, *_ in theirs.attrs)
    if ours.kind == theirs.kind == "tuple" and len(ours.elements) == len(theirs.elements):
        return all(map(only_unification_differs, ours.elements, theirs.elements))
    return ours.kind == theirs.kind and ours.kind in ("list", "set", "map") and only_unification_differs(ours.element, theirs.element)


def show_type(spec: TypeSpec | None) -> str:
    if spec is None:
        return "?"
    if spec.kind in ("list", "set", "map"):
        return f"{spec.kind}({show_type(spec.element)})"
    if spec.kind == "tuple":
        return "tuple([" + ", ".join(map(show_type, spec.elements)) + "])"
    if spec.kind == "object":
        return "object({" + ", ".join(f"{a[0]}: {show_type(a[1])}" for a in spec.attrs) + "})"
    return "dynamic" if spec.kind == "any" else spec.kind


def compare(expressions: list[str], theirs: list[tuple[Any, TypeSpec | None]], ours: list[Any]) -> list[Mismatch]:
    mismatches = []
    for expression, (value, spec), mine in zip(expressions, theirs, ours):
        if isinstance(mine, str) and mine.startswith("CRASH"):
            mismatches.append(Mismatch(expression, "crash", repr(value), mine))
            continue
        if value in (UNKNOWN, TIMEOUT):
            continue
        if mine == UNBOUNDED:
            if value not in (ERROR, UNENCODABLE):
                mismatches.append(Mismatch(expression, "imprecise", _show(value), "Unbounded"))
            continue
        if value in (ERROR, UNENCODABLE):
            mismatches.append(Mismatch(expression, "error", value, _show(canonical(mine))))
            continue
        if not same_value(canonical(mine), value):
            mismatches.append(Mismatch(expression, "value", _show(value), _show(canonical(mine))))
            continue
        mine_type = type_of(mine)
        if not type_matches(mine_type, spec):
            kind = "arm-type" if "?" in expression and only_unification_differs(mine_type, spec) else "type"
            mismatches.append(Mismatch(expression, kind, show_type(spec), show_type(mine_type)))
    return mismatches


def _show(value: Any) -> str:
    return json.dumps(value, default=str, ensure_ascii=False)[:400]
