"""Every registered function against ``terraform console``, on a table of arguments, errors included.

The whole table is one ``terraform console`` run (see ``terraform.Console``). For each row,
tfphi's ``call_function`` must give Terraform's value (numbers compared as Terraform's exact
decimals rounded to a float, tfphi's precision), or raise ``TfEvalError`` exactly where Terraform
rejects the call. Any other exception is a programming error in tfphi and fails the test as such.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import pytest

from function_table import ROWS, T
from terraform import ERROR, UNENCODABLE, UNKNOWN, Console, scratch_dir
from tfphi.evaluate.functions import FUNCTIONS, MACHINE_DEPENDENT, call_function
from tfphi.values.value import TfEvalError, TfUnrepresentable, format_number, from_python, is_number, to_hcl

# Functions whose result is not a function of the arguments: checked for shape, not value.
UNREPRESENTABLE = "tfphi: unrepresentable"

NONDETERMINISTIC = {"timestamp", "plantimestamp", "uuid", "bcrypt"}


def _hcl(arg: Any) -> str:
    return arg.hcl if isinstance(arg, T) else to_hcl(from_python(arg))


def _value(arg: Any) -> Any:
    """The value tfphi receives: a float in the table is the decimal it prints."""
    return from_python(arg.value if isinstance(arg, T) else arg)


def _ours(name: str, args: list[Any]) -> Any:
    try:
        return call_function(name, [_value(a) for a in args])
    except TfEvalError:
        return ERROR
    except TfUnrepresentable:
        return UNREPRESENTABLE
    except Exception as exc:  # a programming error in tfphi: reported as such, never as a Terraform error
        return f"CRASH {type(exc).__name__}: {exc}"


def _same(ours: Any, theirs: Any) -> bool:
    """tfphi's value equals Terraform's decoded JSON (numbers as the decimals Terraform prints)."""
    if isinstance(theirs, Decimal):
        return is_number(ours) and str(Decimal(format_number(ours))) == str(theirs)
    if isinstance(theirs, list):
        return isinstance(ours, list) and len(ours) == len(theirs) and all(map(_same, ours, theirs))
    if isinstance(theirs, dict):
        return isinstance(ours, dict) and ours.keys() == theirs.keys() and all(_same(ours[k], theirs[k]) for k in theirs)
    if ours == UNREPRESENTABLE:  # tfphi says it cannot know: sound, counted as imprecise
        return True
    if theirs in (UNENCODABLE, UNKNOWN):  # an infinity, or unknown until apply
        return False
    return type(ours) is type(theirs) and ours == theirs


@pytest.fixture(scope="module")
def oracle():
    scratch = scratch_dir()
    rows = list(ROWS)
    console = Console(scratch)
    expressions = [f"{name}({', '.join(_hcl(a) for a in args)})" for name, args in rows]
    # A batch whose value is unknown is split down to its unknown rows: the rows tfphi calls
    # unrepresentable (where Terraform's unknowns are) go in batches of their own, so that the
    # rest of the table stays one console run per 60 KiB. (Only the batching uses tfphi's answer.)
    apart = [i for i, (name, args) in enumerate(rows) if _ours(name, args) == UNREPRESENTABLE]
    rest = [i for i in range(len(rows)) if i not in set(apart)]
    results: list = [None] * len(rows)
    for group in (rest, apart):
        for i, value in zip(group, console.evaluate([expressions[i] for i in group])):
            results[i] = value
    return rows, expressions, results, console


def test_every_registered_function_is_in_the_table():
    covered = {name for name, _ in ROWS} | MACHINE_DEPENDENT  # never evaluated: traced as Unbounded
    assert sorted(set(FUNCTIONS) - covered - NONDETERMINISTIC) == []


def test_functions_agree_with_terraform_console(oracle):
    rows, expressions, results, console = oracle
    mismatches, imprecise = [], []
    for (name, args), expression, theirs in zip(rows, expressions, results):
        ours = _ours(name, args)
        if not _same(ours, theirs):
            mismatches.append(f"{expression}\n    terraform: {theirs!r}\n    tfphi:     {ours!r}")
        elif ours == UNREPRESENTABLE and theirs not in (UNENCODABLE, UNKNOWN):
            imprecise.append(f"{expression} (terraform: {theirs!r})")
    print(f"\n{len(rows)} rows over {len({n for n, _ in rows})} functions, {console.runs} terraform console run(s)")
    print("tfphi cannot know (Unbounded) where Terraform knows:", *imprecise, sep="\n  ")
    # The known imprecisions: sensitivity is not tracked; a negative cidrsubnet netnum.
    assert len(imprecise) <= 4, imprecise
    assert mismatches == [], f"{len(mismatches)} of {len(rows)} rows differ:\n" + "\n".join(mismatches)


def test_nondeterministic_functions_have_terraforms_shape():
    """timestamp/uuid/bcrypt change on every run: same type and format as Terraform's.

    (plantimestamp() exists only while Terraform plans: console rejects it; the tracer never
    calls these four, they are Unbounded "only known when Terraform runs".)"""
    scratch = scratch_dir()
    shapes = {
        "timestamp()": r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ",
        "uuid()": r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
    }
    theirs = Console(scratch).evaluate(list(shapes))
    for (expression, shape), value in zip(shapes.items(), theirs):
        name, args = expression.split("(")[0], [a for a in re.findall(r'"x"|\d+', expression)]
        ours = call_function(name, ["x" if a == '"x"' else int(a) for a in args])
        assert isinstance(value, str) and re.fullmatch(shape, value), (expression, value)
        assert isinstance(ours, str) and re.fullmatch(shape, ours), (expression, ours)
    # bcrypt's salt is random: tfphi does not pretend to know its value, but rejects what Terraform rejects
    calls = [["x"], ["x", 4], ["x", 3], ["x", 32], [None]]
    bcrypts = Console(scratch).evaluate([f"bcrypt({', '.join(to_hcl(a) for a in args)})" for args in calls])
    hashed = [isinstance(v, str) and re.fullmatch(r"\$2a\$(10|04)\$[./A-Za-z0-9]{53}", v) is not None for v in bcrypts]
    assert hashed == [True, True, True, False, False] and bcrypts[3:] == [ERROR, ERROR]
    assert [_ours("bcrypt", args) for args in calls] == [UNREPRESENTABLE] * 3 + [ERROR] * 2
