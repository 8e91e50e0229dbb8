"""Generated multi-module Terraform workspaces for the soundness property (deterministic per seed).

A workspace is a root module with a few variables of small universes (validation blocks in both
the ``contains`` and the ``==``/``||`` form, a bool, and sometimes an ``any`` with no default),
a chain of locals, one or two calls of child modules (arguments built from root expressions,
sometimes ``count``/``for_each`` on the call), child modules with their own variables, locals,
``terraform_data`` resources (sometimes with ``count``/``for_each``) and outputs the root reads.
Every ``terraform_data.input`` is a traced field (``.tfphi.toml``). Expressions mix conditionals
in both scopes, operators, functions, templates, object ``for`` expressions and ``try``/``can``
over an object nobody knows.

Variable boundaries (issue 22): a child's ``nullable = false`` variable the caller sometimes
passes ``null``; a ``type = string`` variable passed a root ``number`` (``var.num``, no default
and no validation, so that a child's condition on it is lifted into the root) or a bool; a
``set(string)`` variable passed a literal list with duplicates; objects with ``optional``
attributes; an object literal with an apply-time member (``terraform_data.seed.output``)
filtered by a ``for`` and iterated; literal maps compared to ``null``; object literals (values
and ``for_each`` collections) whose computed key may repeat a later literal key; flush heredocs
and ``%{ if }``/``%{ for }`` template directives.

Assignments give every variable without a default one value of its universe (``cfg``, of type
``any``, takes a few object shapes): exactly what a caller may pass and Terraform accepts.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field
from pathlib import Path

from tfphi.values.numbers import parse_number
from tfphi.values.value import hcl_string, to_hcl


POOL = ["a", "prod", "dev", "15.4", "1", "", "A-b", " x "]
CFG_SHAPES = [{}, {"engine": "pg"}, {"engine": None}, {"engine": "mysql", "size": 2}]


@dataclass
class Workspace:
    """Files by relative path, the traced field addresses, and the assignments to check."""

    seed: int
    files: dict[str, str] = field(default_factory=dict)
    fields: list[str] = field(default_factory=list)
    assignments: list[dict] = field(default_factory=list)
    known: list[str] = field(default_factory=list)  # fields that must not be Unbounded
    unblamed: list[str] = field(default_factory=list)  # apply-time values no field's reason may name

    def write(self, directory: Path, extra_root: str = "") -> None:
        for rel, text in self.files.items():
            target = directory / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
        if extra_root:
            (directory / "zz_oracle.tf").write_text(extra_root)


@dataclass
class Scope:
    """Names an expression may use, by type."""

    strings: list[str]
    bools: list[str]
    numbers: list[str]
    cfg: bool = False  # var.cfg (type any, unknown) is in scope


class Gen:
    def __init__(self, rng: random.Random):
        self.r = rng

    def lit(self) -> str:
        return hcl_string(self.r.choice(POOL))

    def string(self, s: Scope, depth: int) -> str:
        r = self.r
        if depth <= 0 or r.random() < 0.25:
            return r.choice(s.strings + [self.lit()])
        sub = lambda: self.string(s, depth - 1)  # noqa: E731
        choice = r.randrange(20 if s.cfg else 18)
        if choice <= 2:
            return f"({self.boolean(s, depth - 1)} ? {sub()} : {sub()})"
        if choice == 3:
            return f"{r.choice(['upper', 'lower', 'trimspace'])}({sub()})"
        if choice == 4:
            return f'format("%s-%s", {sub()}, {sub()})'
        if choice == 5:
            return f'join("-", [{sub()}, {sub()}])'
        if choice == 6:
            return f'"${{{sub()}}}x"'
        if choice == 7:
            return f'coalesce({sub()}, "c")'
        if choice == 8:
            return f'replace({sub()}, "a", "b")'
        if choice == 9:
            return f'lookup({{ a = "x", prod = "y" }}, {sub()}, "z")'
        if choice == 10:
            return f"tostring({self.number(s, depth - 1)})"
        if choice == 11:  # an object for expression, read back by key
            return f'{{ for k, v in {{ a = {sub()}, b = {sub()} }} : k => upper(v) }}["{r.choice("ab")}"]'
        if choice == 12:
            return f'join(",", [for k, v in {{ p = {sub()}, q = {sub()} }} : "${{k}}=${{v}}" if v != "a"])'
        if choice == 13:
            return f"try({sub()}, {sub()})"
        if choice == 14:
            return f"substr({sub()}, 0, 2)"
        if choice == 15:  # a flush heredoc: the indentation removed is the smallest, interpolations included
            return f"(<<-EOT\n    ${{{sub()}}}\n      {r.choice(['x', '%{ if ' + self.boolean(s, 0) + ' }y%{ endif }'])}\n    EOT\n)"
        if choice == 16:  # template directives
            return f'"%{{ if {self.boolean(s, depth - 1)} }}${{{sub()}}}%{{ else }}e%{{ endif }}"'
        if choice == 17:
            return f'"%{{ for i, v in [{sub()}, {sub()}] ~}}${{i}}=${{v}};%{{ endfor }}"'
        if choice == 18:  # try over an object nobody knows
            return f'try(var.cfg.engine, {sub()})'
        return f'(can(var.cfg.engine) ? {sub()} : {sub()})'

    def boolean(self, s: Scope, depth: int) -> str:
        r = self.r
        choice = r.randrange(10 if depth > 0 else 3)
        d = max(depth - 1, 0)
        if choice == 0:
            return f"{self.string(s, 0)} {r.choice(['==', '!='])} {self.lit()}"
        if choice == 1 and s.bools:
            return r.choice(s.bools)
        if choice <= 2:
            return f"{self.string(s, 0)} == {self.string(s, 0)}"
        if choice == 3:
            return f"({self.boolean(s, d)} && {self.boolean(s, d)})"
        if choice == 4:
            return f"({self.boolean(s, d)} || {self.boolean(s, d)})"
        if choice == 5:
            return f"!({self.boolean(s, d)})"
        if choice == 6:
            return f'contains(["a", "prod", "1"], {self.string(s, d)})'
        if choice == 7:
            return f"{self.number(s, d)} > 1"
        return f'startswith({self.string(s, d)}, "a")'

    def number(self, s: Scope, depth: int) -> str:
        r = self.r
        if depth <= 0 or r.random() < 0.3:
            return r.choice(s.numbers + [str(r.randrange(3))])
        choice = r.randrange(4)
        if choice == 0:
            return f"length({self.string(s, depth - 1)})"
        if choice == 1:
            return f"{self.number(s, depth - 1)} + {self.number(s, depth - 1)}"
        if choice == 2:
            return f"max({self.number(s, depth - 1)}, {self.number(s, depth - 1)})"
        return f"({self.boolean(s, depth - 1)} ? {self.number(s, depth - 1)} : {self.number(s, depth - 1)})"

    def value(self, s: Scope, depth: int) -> str:
        """A field's value: mostly a string, sometimes a number, a bool or an object."""
        choice = self.r.randrange(11)
        if choice == 0:
            return self.number(s, depth)
        if choice == 1:
            return self.boolean(s, depth)
        if choice == 2:
            return f"{{ v = {self.string(s, depth - 1)}, n = {self.number(s, 1)} }}"
        if choice == 3:  # a computed key that may repeat the later literal key: the later one wins
            return f'{{ ({self.boolean(s, 1)} ? "a" : "b") = {self.string(s, 1)}, a = "second" }}'
        return self.string(s, depth)


def _iteration(gen: Gen, scope: Scope, allow: bool) -> tuple[str, Scope]:
    """A count/for_each meta-argument (or none) and the scope it adds (each/count)."""
    r = gen.r
    if not allow:
        return "", scope
    choice = r.randrange(7)
    if choice == 0:
        return f"  count = {gen.boolean(scope, 1)} ? 1 : 0\n", scope
    counted = Scope(scope.strings + ["tostring(count.index)"], scope.bools, scope.numbers + ["count.index"], scope.cfg)
    each = Scope(scope.strings + ["each.value", "each.key"], scope.bools, scope.numbers, scope.cfg)
    if choice == 1:
        return "  count = 2\n", counted
    if choice == 2:
        collection = f'{{ k1 = {gen.string(scope, 1)}, k2 = "lit" }}'
        return f"  for_each = {collection}\n", each
    if choice == 3:
        collection = f'({gen.boolean(scope, 1)} ? {{ only = "o" }} : {{}})'
        return f"  for_each = {collection}\n", each
    if choice == 4:  # a computed key that may repeat a later literal key: one instance, the later value
        selector = r.choice(scope.bools) if scope.bools else gen.boolean(scope, 1)
        collection = f'{{ ({selector} ? "k1" : "k2") = {gen.string(scope, 1)}, k1 = "second" }}'
        return f"  for_each = {collection}\n", Scope(["each.value"] * 4 + each.strings, each.bools, each.numbers, each.cfg)
    return "", scope


def _variable(name: str, kind: str, universe: list) -> str:
    if kind == "bool":
        return f'variable "{name}" {{\n  type = bool\n}}\n'
    if kind == "any":
        return f'variable "{name}" {{\n  type = any\n}}\n'
    values = ", ".join(to_hcl(v) for v in universe)
    if kind == "number":
        condition = " || ".join(f"var.{name} == {to_hcl(v)}" for v in universe)
    else:
        condition = f"contains([{values}], var.{name})"
    return (
        f'variable "{name}" {{\n  type = {kind}\n  validation {{\n    condition     = {condition}\n'
        f'    error_message = "not allowed"\n  }}\n}}\n'
    )


def child_module(gen: Gen, name: str) -> tuple[str, list[str]]:
    """(main.tf, its resources, whether a resource's existence depends on a condition)."""
    r = gen.r
    parts = [
        'variable "x" {\n  type = string\n}\n',
        'variable "y" {\n  type    = bool\n  default = false\n}\n',
        'variable "z" {\n  type    = string\n  default = "zd"\n}\n',
        # optional attributes with and without defaults: filled at the boundary, as Terraform does
        'variable "o" {\n  type    = object({ engine = optional(string, "mysql"), size = optional(number) })\n'
        '  default = {}\n}\n',
        # null passed to a non-nullable variable is its default
        'variable "n" {\n  type     = string\n  nullable = false\n  default  = "nd"\n}\n',
        # a number or a bool passed to a string: converted before anything reads it
        'variable "p" {\n  type    = string\n  default = "pd"\n}\n',
        'variable "s" {\n  type    = set(string)\n  default = []\n}\n',
        # objects with an apply-time member, filtered and iterated
        'variable "pools" {\n  type    = any\n  default = {}\n}\n',
        'resource "terraform_data" "pool" {\n  for_each = { for k, p in var.pools : k => p if p.on }\n'
        '  input    = each.value.size\n}\n',
        'resource "terraform_data" "pools" {\n  count = var.pools != null ? 1 : 0\n  input = length(var.pools)\n}\n',
    ]
    scope = Scope(["var.x", "var.z", "var.o.engine", "var.n", "var.p", 'join(",", var.s)'],
                  ["var.y", "var.o.size == null", 'var.p == "1"', 'contains(var.s, "a")'], ["coalesce(var.o.size, 1)"])
    parts.append(f"locals {{\n  c0 = {gen.string(scope, 2)}\n}}\n")
    scope = Scope(scope.strings + ["local.c0"], scope.bools, scope.numbers)
    parts.append(f"locals {{\n  c1 = {gen.boolean(scope, 1)} ? local.c0 : {gen.string(scope, 1)}\n}}\n")
    scope = Scope(scope.strings + ["local.c1"], scope.bools, scope.numbers)
    resources = ["terraform_data.pool", "terraform_data.pools"]
    for i in range(r.randint(1, 2)):
        meta, inner = _iteration(gen, scope, allow=True)
        parts.append(f'resource "terraform_data" "r{i}" {{\n{meta}  input = {gen.value(inner, 3)}\n}}\n')
        resources.append(f"terraform_data.r{i}")
    parts.append(f'output "out" {{\n  value = {gen.string(scope, 2)}\n}}\n')
    return "\n".join(parts), resources


def generate(seed: int, max_assignments: int = 8) -> Workspace:
    r = random.Random(seed)
    gen = Gen(r)
    ws = Workspace(seed)
    env_universe = r.sample(POOL, r.randint(1, 3))
    size_universe = sorted(r.sample([0, 1, 2, 3], r.randint(1, 2)))
    has_cfg = r.random() < 0.35
    root = [_variable("env", "string", env_universe), _variable("flag", "bool", []), _variable("size", "number", size_universe)]
    if has_cfg:
        root.append(_variable("cfg", "any", []))
    root.append('variable "opt" {\n  type    = string\n  default = "d"\n}\n')
    # a number with no default and no validation: a child's condition on it is lifted into the root
    root.append('variable "num" {\n  type = number\n}\n')
    root.append('resource "terraform_data" "seed" {\n  input = "s"\n}\n')
    scope = Scope(["var.env", "var.opt"], ["var.flag"], ["var.size"], has_cfg)
    # a locals chain
    for i in range(r.randint(1, 3)):
        root.append(f"locals {{\n  l{i} = {gen.string(scope, 2)}\n}}\n")
        scope = Scope(scope.strings + [f"local.l{i}"], scope.bools, scope.numbers, has_cfg)
    # module calls
    outputs: list[str] = []
    for m, source in enumerate(r.sample(["a", "b"], r.randint(1, 2))):
        if f"modules/{source}/main.tf" not in ws.files:
            text, resources = child_module(gen, source)
            ws.files[f"modules/{source}/main.tf"] = text
            ws.files.setdefault("_resources", "")
            ws.files[f"_resources:{source}"] = " ".join(resources)
        meta, inner = _iteration(gen, scope, allow=r.random() < 0.5)
        # x is a string: sometimes a number is passed and converted at the boundary
        args = f"  x = {gen.string(inner, 2) if r.random() < 0.8 else gen.number(inner, 1)}\n"
        if r.random() < 0.6:
            args += f"  y = {gen.boolean(inner, 1)}\n"
        if r.random() < 0.3:
            args += f"  z = {gen.string(inner, 1)}\n"
        if r.random() < 0.5:
            attrs = r.choice(["", f"engine = {gen.string(inner, 1)}", "engine = null", f"size = {gen.number(inner, 1)}"])
            args += f"  o = {{ {attrs} }}\n"
        if r.random() < 0.5:
            args += f"  n = {r.choice(['null', f'{gen.boolean(inner, 1)} ? null : {gen.string(inner, 1)}'])}\n"
        if r.random() < 0.6:
            args += f"  p = {r.choice(['var.num', 'var.num + 1', 'var.flag', gen.number(inner, 1)])}\n"
        if r.random() < 0.4:
            args += f'  s = [{gen.string(inner, 1)}, "a", {gen.string(inner, 0)}]\n'
        if r.random() < 0.5:
            args += (
                f'  pools = {{\n    one = {{ name = "w${{terraform_data.seed.output}}", size = {gen.string(inner, 1)}, on = {gen.boolean(inner, 1)} }}\n'
                f'    two = {{ name = "z", size = {gen.string(inner, 0)}, on = true }}\n  }}\n'
            )
        root.append(f'module "m{m}" {{\n  source = "./modules/{source}"\n{meta}{args}}}\n')
        for resource in ws.files[f"_resources:{source}"].split():
            ws.fields.append(f"module.m{m}.{resource}.input")
        # the root reads the call's output: directly, by instance, or over every instance
        if not meta:
            outputs.append(f"module.m{m}.out")
        elif "count = 2" in meta:
            outputs += [f"module.m{m}[1].out", f'join("+", module.m{m}[*].out)']
        elif "k1" in meta:
            outputs += [f'module.m{m}["k1"].out', f'join("+", [for k, m in module.m{m} : "${{k}}:${{m.out}}"])']
        else:  # an instance that may not exist: try falls back where it does not (CE-3)
            outputs.append(f'try(module.m{m}[0].out, "none")' if "count" in meta else f'try(module.m{m}["only"].out, "none")')
    scope = Scope(scope.strings + outputs, scope.bools, scope.numbers, has_cfg)
    if outputs:
        root.append(f"locals {{\n  from_module = {gen.string(scope, 1)}\n}}\n")
        scope = Scope(scope.strings + ["local.from_module"], scope.bools, scope.numbers, has_cfg)
    for i in range(r.randint(1, 2)):
        meta, inner = _iteration(gen, scope, allow=True)
        root.append(f'resource "terraform_data" "t{i}" {{\n{meta}  input = {gen.value(inner, 3)}\n}}\n')
        ws.fields.append(f"terraform_data.t{i}.input")
    for key in [k for k in ws.files if k.startswith("_resources")]:
        del ws.files[key]
    ws.files["main.tf"] = "\n".join(root)
    ws.files[".tfphi.toml"] = '[fields."terraform_data.input"]\nseverity = "warning"\n'
    ws.unblamed = ["terraform_data.seed"]  # only ever an object member nobody reads
    universes = [env_universe, [True, False], size_universe, [1, parse_number("15.4"), 5432]] + ([CFG_SHAPES] if has_cfg else [])
    names = ["env", "flag", "size", "num"] + (["cfg"] if has_cfg else [])
    combos = list(itertools.product(*universes))
    r.shuffle(combos)
    ws.assignments = [dict(zip(names, combo)) for combo in combos[:max_assignments]]
    return ws


def _fixed(seed: int, files: dict[str, str], fields: list[str], universes: dict[str, list]) -> Workspace:
    ws = Workspace(seed, dict(files), list(fields))
    ws.files[".tfphi.toml"] = '[fields."terraform_data.input"]\nseverity = "warning"\n'
    names = list(universes)
    ws.assignments = [dict(zip(names, combo)) for combo in itertools.product(*universes.values())]
    return ws


# Expressions the evaluator-based property once found unsound (they are kept, now against Terraform).
REGRESSIONS = [
    "var.region",  # string literals kept their edge whitespace (" x ")
    '"${var.region}-${var.env} "',
    'var.env == "a" ? "a" : var.env == "1" ? "b" : "c"',  # right-associative conditionals
    'join(",", [for s in ["1", "a"] : s == var.env ? "y" : "n"])',  # a condition on a for binding
    'can(tonumber(var.env)) ? "num" : "str"',
    'try(tonumber(var.env), "str")',
    'var.env == "1" ? 5 : "x"',
    'var.flag ? [1] : ["a"]',  # tuple arms unify
    "var.flag ? local.l0 : upper(local.l0)",
]


def fixed_workspaces() -> list[Workspace]:
    """Hand-written workspaces: the regressions above and the defects of issue 10."""
    variables = "".join(
        _variable(name, "string", universe) for name, universe in (("env", ["1", "a"]), ("region", ["prod", " x "]))
    ) + _variable("flag", "bool", [])
    regressions = _fixed(
        1,
        {"main.tf": variables + 'locals {\n  l0 = var.flag ? var.env : "l"\n}\n'
         + "".join(f'resource "terraform_data" "e{i}" {{\n  input = {e}\n}}\n' for i, e in enumerate(REGRESSIONS))},
        [f"terraform_data.e{i}.input" for i in range(len(REGRESSIONS))],
        {"env": ["1", "a"], "region": ["prod", " x "], "flag": [True, False]},
    )
    # Defect 1: a child's var.on is whatever the caller passes, not the root's var.on.
    scoping = _fixed(
        2,
        {
            "main.tf": _variable("on", "bool", [])
            + 'module "settings" {\n  source = "./modules/settings"\n  on     = !var.on\n'
            '  v      = var.on ? "a" : "b"\n}\n',
            "modules/settings/main.tf": 'variable "on" {\n  type = bool\n}\nvariable "v" {\n  type = string\n}\n'
            'locals {\n  premium = var.on\n}\n'
            'resource "terraform_data" "db" {\n  input = var.on ? var.v : "c"\n}\n'
            'resource "terraform_data" "premium" {\n  count = local.premium ? 1 : 0\n  input = "p"\n}\n',
        },
        ["module.settings.terraform_data.db.input", "module.settings.terraform_data.premium.input"],
        {"on": [True, False]},
    )
    # Defects 2 and 3: a fallback over an unknown object; count = 0 and a create flag.
    unknowns = _fixed(
        3,
        {
            "main.tf": 'variable "cfg" {\n  type = any\n}\n' + _variable("create", "bool", [])
            + 'variable "items" {\n  type = any\n}\n'
            'resource "terraform_data" "a" {\n  input = try(var.cfg.engine, "mysql")\n}\n'
            'resource "terraform_data" "b" {\n  for_each = var.items\n  input = try(each.value.engine, "mysql")\n}\n'
            'resource "terraform_data" "c" {\n  count = 0\n  input = "never"\n}\n'
            'resource "terraform_data" "d" {\n  count = var.create ? 1 : 0\n  input = var.create ? "on" : "off"\n}\n'
            'resource "terraform_data" "e" {\n  input = coalesce(try(var.cfg.engine, null), "db.r8g.large")\n}\n',
        },
        [f"terraform_data.{r}.input" for r in "abcde"],
        {
            "cfg": [{}, {"engine": "pg"}, {"engine": None}],
            "create": [True, False],
            "items": [{}, {"x": {"engine": "pg"}}, {"x": {}, "y": {"engine": "mysql"}}],
        },
    )
    # Defect 5: a duplicate key is a Terraform error (under env = "a"), not a value.
    duplicate = _fixed(
        4,
        {"main.tf": _variable("env", "string", ["1", "a"])
         + 'resource "terraform_data" "k" {\n  input = { for k in [var.env, "a"] : k => 1 }\n}\n'},
        ["terraform_data.k.input"],
        {"env": ["1", "a"]},
    )
    # Issue 22, defects 6 to 8: boundaries, keys decided twice, an object with an apply-time member.
    boundaries = _fixed(
        5,
        {
            "main.tf": 'variable "port" {\n  type = number\n}\n' + _variable("b", "bool", [])
            + 'resource "terraform_data" "id" {\n  input = "i"\n}\n'
            'module "c" {\n  source = "./modules/c"\n  port   = var.port\n  nn     = var.b ? null : "given"\n'
            '  pools = {\n    # on demand\n    one = { name = "w${terraform_data.id.output}", vm_size = "Standard_D2s_v3", cbd = true }\n'
            '    two = { name = "z", vm_size = "Standard_B2", cbd = false }\n  }\n}\n'
            'resource "terraform_data" "k" {\n  input = { (var.b ? "b" : "a") = "first", b = "second" }\n}\n'
            'resource "terraform_data" "f" {\n  for_each = { (var.b ? "b" : "a") = "first", b = "second" }\n  input    = each.value\n}\n',
            "modules/c/main.tf": 'variable "port" {\n  type = string\n}\n'
            'variable "nn" {\n  type     = string\n  nullable = false\n  default  = "child"\n}\n'
            'variable "pools" {\n  type = any\n}\n'
            'resource "terraform_data" "x" {\n  input = var.port == "5432" ? "pg" : "other"\n}\n'
            'resource "terraform_data" "n" {\n  input = var.nn\n}\n'
            'resource "terraform_data" "p" {\n  for_each = { for k, p in var.pools : k => p if p.cbd }\n  input    = each.value.vm_size\n}\n'
            'resource "terraform_data" "q" {\n  count = var.pools != null ? 1 : 0\n  input = "q"\n}\n',
        },
        ["module.c.terraform_data.x.input", "module.c.terraform_data.n.input", "module.c.terraform_data.p.input",
         "module.c.terraform_data.q.input", "terraform_data.k.input", "terraform_data.f.input"],
        {"port": [5432, 3306], "b": [True, False]},
    )
    # exists in the root's terms when a count depends on each instance of an unknown collection
    instances = _fixed(
        6,
        {
            "main.tf": 'variable "items" {\n  type = map(object({ on = bool }))\n}\n' + 'variable "n" {\n  type = number\n}\n'
            + 'variable "names" {\n  type = set(string)\n}\n'
            'module "m" {\n  source   = "./c"\n  for_each = var.items\n  on       = each.value.on\n}\n'
            'module "k" {\n  source = "./c"\n  count  = var.n\n  on     = count.index == 1\n}\n'
            'module "s" {\n  source   = "./c"\n  for_each = var.names\n  on       = each.key != "off"\n}\n',
            "c/main.tf": 'variable "on" {\n  type = bool\n}\n'
            'resource "terraform_data" "r" {\n  count = var.on ? 1 : 0\n  input = "x"\n}\n',
        },
        ["module.m.terraform_data.r.input", "module.k.terraform_data.r.input", "module.s.terraform_data.r.input"],
        {"items": [{}, {"a": {"on": False}}, {"a": {"on": False}, "b": {"on": True}}], "n": [0, 1, 2],
         "names": [[], ["off"], ["off", "x"]]},
    )
    # Terraform plans these; tfphi must too (an unrelated apply-time member is no excuse).
    boundaries.known = ["module.c.terraform_data.p.input", "module.c.terraform_data.q.input", "module.c.terraform_data.x.input"]
    return [regressions, scoping, unknowns, duplicate, boundaries, instances]
