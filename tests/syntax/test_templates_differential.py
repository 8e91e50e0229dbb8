"""Generated differential test of HCL's literals and templates: tfphi against ``terraform console``.

A seeded generator writes number literals (exponents with and without sign and fraction),
quoted strings (every escape, ``$${``/``%%{``, lone ``$``/``%``, Unicode, strip markers),
heredocs (flush and not; spaces and tabs; interpolations and directives at line starts;
blank and whitespace-only lines) and ``%{ if }``/``%{ for }`` directives (nested, with strip
markers, on known conditions and on a root variable without a default), each one local of one
``main.tf``. Terraform evaluates every local in one console run per value of the variable
(``terraform.tfvars`` sets it); tfphi traces ``terraform_data.e<i>.input = local.e<i>`` with
the same assignments, and without one (then each branch must be one of Terraform's values).
Templates that Terraform rejects (invalid escapes, unbalanced directives, null) are each
evaluated alone: tfphi must report a syntax error or give no value for them.

``TFPHI_TEMPLATE_CASES`` sets how many expressions (default 1,500, about 15 s; the long run in
docs/hcl-syntax.md: 6,000, about 2 min) and ``TFPHI_TEMPLATE_SEED`` the seed.
"""

from __future__ import annotations

import json
import os
import random
import shutil
from pathlib import Path

from terraform import ERROR, Console, scratch_dir
from terraform_cli import run_terraform
from test_soundness_terraform import same
from tfphi.features.trace_json import to_json
from tfphi.field_lookup import lookup, trace_match
from tfphi.loader import load_workspace

CASES = int(os.environ.get("TFPHI_TEMPLATE_CASES", "1500"))
SEED = int(os.environ.get("TFPHI_TEMPLATE_SEED", "22"))

PRELUDE = '''variable "flag" {
  type = bool
}

variable "env" {
  default = "prod"
}

variable "names" {
  default = ["p", "q"]
}

locals {
  base = "b"
}
'''

CONDITIONS = ["true", "false", "var.flag", "!var.flag", 'var.env == "prod"', "var.flag && true", "1e1 > 5", 'local.base != "b"']
COLLECTIONS = ['["a", "b"]', "[1, 2e1]", "[]", "var.names", '{ k = "v", j = "w" }', '["x"]', 'toset(["b", "a", "b"])', "toset([10, 9, 1e2])"]
QUOTED_TEXT = ["a", "b c", "é", "😀", " ", "  ", "\t", "x-y", "$", "$ ", "%", "% ", "$$", "%%", "$x", "%d", "$${x}", "%%{y}",
               "\\n", "\\r", "\\t", '\\"', "\\\\", "\\u00e9", "\\u0041", "\\U0001F600", " \\n ", "e\\u0301",
               "\u00a0", "\u2003 ", "\\u00a0"]
HEREDOC_TEXT = ["a", "b c", "x $ y", "%", "$${x}", "%%{y}", "back\\slash", "é", "tab\tin", "EOTX", "  trailing  ", "nbsp\u00a0", "a $", "b $ ", "c %\t", "d $  ", "e $$ "]


class Generator:
    """Random HCL expressions over literals and templates whose value Terraform knows."""

    def __init__(self, seed: int, nested_templates: bool = True):
        self.rng = random.Random(seed)
        self.nested_templates = nested_templates  # strings with interpolations inside interpolations

    def pick(self, items):
        return self.rng.choice(items)

    def number(self, integral: bool = False) -> str:
        r = self.rng
        digits = str(r.randint(0, 999)) if r.random() < 0.85 else "0" + str(r.randint(0, 99))
        if integral:
            return digits + (r.choice("eE") + r.choice(["", "+"]) + str(r.randint(0, 6)) if r.random() < 0.6 else "")
        exponent = r.choice("eE") + r.choice(["", "+", "-"]) + str(r.randint(0, 12)) if r.random() < 0.6 else ""
        fraction = "." + str(r.randint(0, 999)) if r.random() < 0.3 else ""
        if exponent and r.random() < 0.1:
            fraction = "."  # 1.e3 is a number (1000) for HCL's scanner
        return digits + fraction + exponent

    def atom(self, loop_vars: tuple[str, ...]) -> str:
        """A value to interpolate (known, or decided by var.flag)."""
        choices = ['"s"', "number", "var.env", "local.base", 'var.flag ? "t" : "f"', "true"] + ["quoted"] * self.nested_templates
        choice = self.pick(choices + list(loop_vars) * 3)
        if choice == "number":
            return self.number(integral=True)
        if choice == "quoted":
            return self.quoted(1, loop_vars)
        return choice

    def strip(self) -> str:
        return "~" if self.rng.random() < 0.35 else ""

    def interpolation(self, loop_vars) -> str:
        return "${" + self.strip() + self.pick(["", " "]) + self.atom(loop_vars) + self.pick(["", " "]) + self.strip() + "}"

    def quoted_body(self, depth: int, loop_vars) -> str:
        r = self.rng
        out = []
        for _ in range(r.randint(0, 5)):
            roll = r.random()
            if roll < 0.45:
                out.append(self.pick(QUOTED_TEXT))
            elif roll < 0.7 or depth <= 0:
                out.append(self.interpolation(loop_vars))
            elif roll < 0.85:
                out.append(self.if_directive(depth - 1, loop_vars, self.quoted_body))
            else:
                out.append(self.for_directive(depth - 1, loop_vars, self.quoted_body))
        return joined(out)

    def quoted(self, depth: int, loop_vars=()) -> str:
        return '"' + self.quoted_body(depth, loop_vars) + '"'

    def marker(self, words: str) -> str:
        return "%{" + self.strip() + " " + words + " " + self.strip() + "}"

    def if_directive(self, depth, loop_vars, body) -> str:
        pieces = [self.marker(f"if {self.pick(CONDITIONS)}"), body(depth, loop_vars)]
        if self.rng.random() < 0.5:
            pieces += [self.marker("else"), body(depth, loop_vars)]
        return joined(pieces + [self.marker("endif")])

    def for_directive(self, depth, loop_vars, body) -> str:
        collection = self.pick(COLLECTIONS)
        names = ("k", "v") if collection.startswith("{") or self.rng.random() < 0.3 else ("x",)
        intro = f"for {', '.join(names)} in {collection}"
        return joined([self.marker(intro), body(depth, loop_vars + names), self.marker("endfor")])

    def heredoc(self) -> str:
        flush = self.rng.random() < 0.7
        lines = self.heredoc_lines(2, ())
        closing = " " * self.rng.randint(0, 4)
        return f"<<{'-' if flush else ''}EOT\n" + "".join(line + "\n" for line in lines) + closing + "EOT"

    def indent(self) -> str:
        return "".join(self.pick([" ", " ", " ", " ", " ", "\t", "\u00a0", "\u3000"]) for _ in range(self.rng.randint(0, 6)))

    def heredoc_lines(self, depth: int, loop_vars) -> list[str]:
        r = self.rng
        lines: list[str] = []
        for _ in range(r.randint(1, 4)):
            roll = r.random()
            if roll < 0.1:
                lines.append(self.pick(["", "   ", "\t"]))  # blank, whitespace only
            elif roll < 0.25:
                lines.append(joined([self.interpolation(loop_vars), self.pick(["", " tail", self.interpolation(loop_vars)])]))
            elif roll < 0.7 or depth <= 0:
                pieces = [self.pick(HEREDOC_TEXT)]
                if r.random() < 0.4:
                    pieces.append(self.interpolation(loop_vars))
                if r.random() < 0.2:
                    pieces.append(self.if_directive(0, loop_vars, lambda d, lv: self.pick(HEREDOC_TEXT)))
                lines.append(self.indent() + joined(pieces))
            else:
                ind = self.indent()
                names: tuple[str, ...] = ()
                if r.random() < 0.6:
                    opening = f"if {self.pick(CONDITIONS)}"
                    closing = "endif"
                else:
                    collection = self.pick(COLLECTIONS)
                    names = ("k", "v") if collection.startswith("{") else ("x",)
                    opening, closing = f"for {', '.join(names)} in {collection}", "endfor"
                lines.append(ind + self.marker(opening))
                lines.extend(self.heredoc_lines(depth - 1, loop_vars + names))
                if closing == "endif" and r.random() < 0.4:
                    lines.append(self.indent() + self.marker("else"))
                    lines.extend(self.heredoc_lines(depth - 1, loop_vars))
                lines.append(self.indent() + self.marker(closing))
        return lines

    def expression(self) -> str:
        roll = self.rng.random()
        if roll < 0.15:
            return self.pick(["", "-"]) + self.number()
        if roll < 0.22:
            return f"var.flag ? {self.number()} : {self.number()}"
        if roll < 0.27:
            return f"{self.number(integral=True)} + {self.number(integral=True)}"
        if roll < 0.6:
            return self.quoted(2)
        return self.heredoc()


def joined(pieces: list[str]) -> str:
    """Pieces side by side, kept apart where a ``$``/``%`` would make the next piece's ``${``/``%{``
    an escape (``$${``): the mostly valid batch stays valid (such escapes are pieces of their own)."""
    out = ""
    for piece in pieces:
        if out.endswith(("$", "%")) and piece.startswith(("${", "%{")):
            out += "-"
        out += piece
    return out


# Templates Terraform rejects: each must get no value from tfphi either.
REJECTED = [
    '"\\q"', '"a\\u12"', '"\\ud800"', '"\\U00110000"', '"\\"', '"%{ if true }x"', '"%{ endif }"',
    '"%{ for x in [1] }x%{ else }y%{ endfor }"', '"%{ if true }a%{ else }b%{ else }c%{ endif }"', '"a${null}"',
    '"%{ for x in [null] }${x}%{ endfor }"', '"%{ if null }a%{ endif }"', '"a${[1]}"', '"%{ for x in 1 }a%{ endfor }"',
    "<<-EOT\n  %{ if true }\n  a\nEOT", '"%{ for x in ["a"] }${x}%{ endif }"', "1e", "1.2.3",
]


LOCALS_PER_FILE = 1000  # files stay far below tfphi's size limit (2 MiB) in a long run


def write_locals(directory: Path, expressions: list[str]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for stale in directory.glob("locals_*.tf"):
        stale.unlink()
    (directory / "main.tf").write_text(PRELUDE, encoding="utf-8")
    for first in range(0, len(expressions), LOCALS_PER_FILE):
        body = "".join(f"  e{i} = {expressions[i]}\n" for i in range(first, min(first + LOCALS_PER_FILE, len(expressions))))
        (directory / f"locals_{first // LOCALS_PER_FILE}.tf").write_text("locals {\n" + body + "}\n", encoding="utf-8")


def terraform_values(expressions: list[str], flag: bool) -> list:
    """Terraform's value of each expression (``ERROR`` where it rejects it). A configuration with
    one rejected local fails whatever the console is asked, so such a batch is split in halves,
    each its own configuration, down to the rejected expressions alone."""
    directory = scratch_dir()
    try:
        return _values(directory, expressions, flag)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _values(directory: Path, expressions: list[str], flag: bool) -> list:
    if not expressions:
        return []
    write_locals(directory, expressions)
    (directory / "terraform.tfvars").write_text(f"flag = {str(flag).lower()}\n")
    # A local Terraform cannot evaluate is reported on stderr, and console still answers (exit 0).
    done = run_terraform(["console", "-no-color"], directory, stdin="1\n", timeout=60)
    if done.returncode == 0 and "Error:" not in done.stderr:
        return Console(directory).evaluate([f"local.e{i}" for i in range(len(expressions))])
    if len(expressions) == 1:
        return [ERROR]
    half = len(expressions) // 2
    return _values(directory, expressions[:half], flag) + _values(directory, expressions[half:], flag)


def tfphi_traces(expressions: list[str]) -> tuple[list, bool]:
    """For each expression, tfphi's traces without an assignment, with flag = true and with
    flag = false; and whether tfphi finds a syntax error in the locals."""
    directory = scratch_dir() / "ws"
    write_locals(directory, expressions)
    (directory / "fields.tf").write_text(
        "".join(f'resource "terraform_data" "e{i}" {{\n  input = local.e{i}\n}}\n' for i in range(len(expressions))))
    analysis = load_workspace(directory)
    out = []
    for i in range(len(expressions)):
        match = lookup(analysis, f"terraform_data.e{i}.input", ".")
        out.append(tuple(trace_match(analysis, match, assignment=a) for a in (None, {"flag": True}, {"flag": False})))
    shutil.rmtree(directory.parent, ignore_errors=True)
    return out, any(hcl.errors for path, hcl in analysis.files.items() if path.startswith("locals_"))


def compare(text: str, theirs: dict[bool, object], traces) -> list[str]:
    """Why tfphi's traces of ``text`` disagree with Terraform's values (none when they agree)."""
    problems = []
    free, *assigned = traces
    for flag, traced in zip((True, False), assigned):
        value = theirs[flag]
        if value == ERROR:
            if traced.kind != "unbounded":
                problems.append(f"flag={flag}: Terraform rejects it, tfphi {traced.kind} {[to_json(b.value) for b in traced.branches]!r}")
        elif traced.kind != "resolved" or not same(to_json(traced.branches[0].value), value):
            got = traced.reason if traced.kind == "unbounded" else [to_json(b.value) for b in traced.branches]
            problems.append(f"flag={flag}: Terraform {value!r}, tfphi {traced.kind} {got!r}")
    if free.kind != "unbounded":
        known = [v for v in theirs.values() if v != ERROR]
        for branch in free.branches:
            if not any(same(to_json(branch.value), v) for v in known):
                problems.append(f"unassigned: branch {to_json(branch.value)!r} is not one of Terraform's {known!r}")
    return problems


def test_generated_literals_and_templates_agree_with_terraform():
    generator = Generator(SEED)
    expressions = [generator.expression() for _ in range(CASES)]
    theirs = {flag: terraform_values(expressions, flag) for flag in (True, False)}
    mismatches = []
    traced, syntax_errors = tfphi_traces(expressions)
    assert not syntax_errors
    for i, (text, traces) in enumerate(zip(expressions, traced)):
        problems = compare(text, {True: theirs[True][i], False: theirs[False][i]}, traces)
        if problems:
            mismatches.append(f"e{i} = {text}\n    " + "\n    ".join(problems))
    quoted, heredocs = (sum(1 for e in expressions if e.startswith(start)) for start in ('"', "<<"))
    print(f"\n{CASES} expressions (seed {SEED}; {quoted} quoted, {heredocs} heredocs); mismatches: {len(mismatches)}")
    assert mismatches == [], "\n".join(mismatches[:20])


def test_templates_terraform_rejects_get_no_value():
    wrong = []
    for text in REJECTED:
        theirs = terraform_values([text], True)[0]
        assert theirs == ERROR, (text, theirs)
        [traced], syntax_errors = tfphi_traces([text])
        # Either tfphi reports the syntax error (its value is then that of tree-sitter's recovery), or no value.
        if not syntax_errors and any(t.kind != "unbounded" for t in traced):
            wrong.append(f"{text}: tfphi {[(t.kind, [to_json(b.value) for b in t.branches]) for t in traced]}")
    assert wrong == []


def test_heredoc_lines_ending_in_crlf_keep_their_carriage_returns():
    expressions = ["<<-EOT\r\n    x\r\n      y ${var.env}\r\n    EOT", "<<EOT\r\na %{ if true ~}\r\n  b\r\n%{~ endif }\r\nEOT"]
    theirs = terraform_values(expressions, True)
    traced, syntax_errors = tfphi_traces(expressions)
    assert theirs == ["x\r\n  y prod\r\n", "a   b\r\n"] and not syntax_errors
    assert [compare(text, {True: value, False: value}, traces) for text, value, traces in zip(expressions, theirs, traced)] == [[], []]


JSON_CASES = 150
JSON_STRINGS = ['"x\\/y"', '"q\\u00e9\\ud83d\\ude00"', '"a\\bb\\fc"', '"$${x} %%{y} \\\\n"', '"${\\"a\\\\nb\\"}"',
                '"%{ if var.flag ~} y\\n %{~ endif }"']


def test_json_strings_agree_with_terraform():
    """``.tf.json`` strings are JSON-decoded, then read as templates (a backslash is then plain
    text, but in a nested string of an interpolation): generated templates, JSON-encoded. (A
    string nested in an interpolation of a string nested in an interpolation is not read:
    ``jsonfile`` spells one level of nested strings for tree-sitter.)"""
    generator = Generator(SEED, nested_templates=False)
    values = list(JSON_STRINGS)
    for i in range(JSON_CASES):
        # Decoded, a JSON string may hold newlines: a bare template's literal tokens end there.
        text = joined([generator.quoted_body(2, ()), generator.pick(["", "\n", " \n  ", "\n\t", "\r\n "]), generator.quoted_body(1, ())])
        values.append(json.dumps(text, ensure_ascii=i % 2 == 0))
    locals_json = "{" + ", ".join(f'"e{i}": {v}' for i, v in enumerate(values)) + "}"
    config = f'{{"variable": {{"flag": {{"type": "bool"}}, "env": {{"default": "prod"}}, "names": {{"default": ["p", "q"]}}}}, ' \
             f'"locals": {{"base": "b"}}}}\n'
    theirs = {}
    for flag in (True, False):
        directory = scratch_dir()
        (directory / "main.tf.json").write_text(config)
        (directory / "strings.tf.json").write_text(f'{{"locals": {locals_json}}}\n')
        (directory / "terraform.tfvars").write_text(f"flag = {str(flag).lower()}\n")
        done = run_terraform(["console", "-no-color"], directory, stdin="1\n", timeout=60)
        assert done.returncode == 0 and "Error:" not in done.stderr, done.stderr
        theirs[flag] = Console(directory).evaluate([f"local.e{i}" for i in range(len(values))])
        shutil.rmtree(directory, ignore_errors=True)
    directory = scratch_dir() / "ws"
    directory.mkdir()
    (directory / "main.tf.json").write_text(config)
    (directory / "strings.tf.json").write_text(f'{{"locals": {locals_json}}}\n')
    (directory / "fields.tf").write_text("".join(f'resource "terraform_data" "e{i}" {{\n  input = local.e{i}\n}}\n' for i in range(len(values))))
    analysis = load_workspace(directory)
    assert not [e for f in analysis.files.values() for e in f.errors]
    mismatches = []
    for i, value in enumerate(values):
        match = lookup(analysis, f"terraform_data.e{i}.input", ".")
        traces = tuple(trace_match(analysis, match, assignment=a) for a in (None, {"flag": True}, {"flag": False}))
        problems = compare(value, {True: theirs[True][i], False: theirs[False][i]}, traces)
        if problems:
            mismatches.append(f"e{i} = {value}\n    " + "\n    ".join(problems))
    assert mismatches == [], "\n".join(mismatches[:20])
