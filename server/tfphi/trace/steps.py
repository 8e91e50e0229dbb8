"""Typed trace steps: one small value per hop of a trace path.

Every step prints (``str``) exactly as the seed names it (``NameRef var.engine_version``,
``ModCall module.database argument engine_version``, ``ConditionalExpr true arm``,
``Prim "15.4"``): that text is what ``trace --json`` and specialization provenance carry.
For people, :func:`words` renders a path in plain words, keeping only the path to the value:

    var.engine_version ← module.database passes engine_version (main.tf:6)
      ← true arm of var.customer_env == "prod" ← "15.4"

Two things make that possible without changing the seed text. Operations record how long
each operand's sub-path is (``sizes``), so a path can be split back into operands; and an
attribute or index access on a constructed object or tuple records which element it took
(``Build.picked``), so only that element's path is shown instead of one step per key and
value of a caller's whole object. Steps that only compute an index key are marked ``aside``.
"""

from __future__ import annotations

from typing import Callable, Optional, Sequence

from ..addrs import InputVariable, ModuleCall, ModuleCallOutput
from ..records import record, field, replace
from ..syntax.expr import Span

Where = Callable[[Span], Optional[str]]


@record(frozen=True, slots=True)
class Step:
    """A hop of a trace. ``span`` (where it is declared) and ``aside`` never affect equality."""

    span: Optional[Span] = field(default=None, compare=False, kw_only=True)
    # True for steps that only compute an index key: they are left out of the plain-words path.
    aside: bool = field(default=False, compare=False, kw_only=True)

    def say(self) -> Optional[str]:
        """This step in plain words, or None when people need not see it."""
        return str(self)

    def __repr__(self) -> str:
        return f"<{str(self)}>"


@record(frozen=True, slots=True, repr=False)
class FieldStep(Step):
    address: str

    def __str__(self) -> str:
        return f"Field {self.address}"

    def say(self) -> Optional[str]:
        return None  # the hover or message already names the field


@record(frozen=True, slots=True, repr=False)
class NameRef(Step):
    root: str  # "var" | "local"
    name: str

    def __str__(self) -> str:
        return f"NameRef {self.root}.{self.name}"

    def say(self) -> str:
        return f"{self.root}.{self.name}"


@record(frozen=True, slots=True, repr=False)
class ModCall(Step):
    call: str
    argument: str

    def __str__(self) -> str:
        return f"ModCall {ModuleCall(self.call)} argument {self.argument}"

    def say(self) -> str:
        return f"{ModuleCall(self.call)} passes {self.argument}"


@record(frozen=True, slots=True, repr=False)
class Default(Step):
    variable: str

    def __str__(self) -> str:
        return f"Default {InputVariable(self.variable)}"

    def say(self) -> str:
        return f"default of {InputVariable(self.variable)}"


@record(frozen=True, slots=True, repr=False)
class Validation(Step):
    variable: str

    def __str__(self) -> str:
        return f"Validation {InputVariable(self.variable)}"

    def say(self) -> str:
        return f"a value {InputVariable(self.variable)}'s validation allows"


@record(frozen=True, slots=True, repr=False)
class Universe(Step):
    label: str

    def __str__(self) -> str:
        return f"Universe {self.label}"

    def say(self) -> str:
        return f"a value {self.label} supports"


@record(frozen=True, slots=True, repr=False)
class Deployment(Step):
    """A value a deployment sets: ``var.x`` (the deployment's value of a root variable) or the
    variable file that sets it."""

    source: str

    def __str__(self) -> str:
        return f"Deployment {self.source}"

    def say(self) -> str:
        return f"the deployment's value ({self.source})"


@record(frozen=True, slots=True, repr=False)
class TypeBool(Step):
    def __str__(self) -> str:
        return "Type bool"

    def say(self) -> str:
        return "either bool value"


@record(frozen=True, slots=True, repr=False)
class Prim(Step):
    """A value written in the configuration (``text`` in Terraform's syntax) or ``path.module``."""

    text: str

    def __str__(self) -> str:
        return f"Prim {self.text}"

    def say(self) -> str:
        return self.text


@record(frozen=True, slots=True, repr=False)
class Arm(Step):
    """An arm of ``condition ? a : b``; ``constant`` when the condition always goes one way."""

    true: bool
    constant: bool = False
    condition: str = field(default="", compare=False)

    def __str__(self) -> str:
        return f"ConditionalExpr {'true' if self.true else 'false'} arm" + (" (constant)" if self.constant else "")

    def say(self) -> str:
        arm = "true" if self.true else "false"
        if not self.condition:
            return f"{arm} arm"
        return f"{arm} arm of {self.condition}" + (", always taken" if self.constant else "")


@record(frozen=True, slots=True, repr=False)
class EqualArms(Step):
    """Both arms of a conditional give the same value: the condition does not matter."""

    def __str__(self) -> str:
        return "ConditionalExpr equal arms"

    def say(self) -> None:
        return None


@record(frozen=True, slots=True, repr=False)
class Output(Step):
    call: str
    output: str

    def __str__(self) -> str:
        return f"Output {ModuleCallOutput(self.call, self.output)}"

    def say(self) -> str:
        return str(ModuleCallOutput(self.call, self.output))


@record(frozen=True, slots=True, repr=False)
class Iter(Step):
    label: str  # each.value, count.index, a dynamic block's iterator
    key: str  # the instance key in Terraform's syntax

    def __str__(self) -> str:
        return f"Iter {self.label} [{self.key}]"

    def say(self) -> str:
        return f"{self.label} of instance [{self.key}]"


@record(frozen=True, slots=True, repr=False)
class Data(Step):
    text: str

    def __str__(self) -> str:
        return f"Data {self.text}"

    def say(self) -> str:
        return f"{self.text}, read at plan time"


@record(frozen=True, slots=True, repr=False)
class Op(Step):
    """An operation over operand branches: ``BinaryOp +``, ``Call lower``, ``TemplateExpr``...

    ``sizes`` holds the length of each operand's sub-path that follows this step in a path.
    """

    text: str
    sizes: tuple[int, ...] = field(default=(), compare=False)

    def __str__(self) -> str:
        return self.text

    def say(self) -> str:
        kind, _, rest = self.text.partition(" ")
        if kind == "Call":
            return f"{rest.split(' ')[0]}(…)" + (" (first arm)" if "(first arm)" in rest else "")
        if kind == "BinaryOp":
            return f"the {rest} operation"
        if kind == "UnaryOp":
            return f"the {rest} operation"
        return {"TemplateExpr": "string template", "TemplateJoinExpr": "template for directive", "ForExpr": "for expression", "Splat": "splat [*]"}.get(self.text, self.text)

    def with_sizes(self, sizes: tuple[int, ...]) -> "Op":
        return replace(self, sizes=sizes)

    def operands(self, path: Sequence[Step], start: int) -> tuple[list[tuple[Step, ...]], int]:
        """The operands' sub-paths that follow this step in ``path`` from ``start``, and the index after them."""
        parts, offset = [], start
        for size in self.sizes:
            parts.append(tuple(path[offset:offset + size]))
            offset += size
        return parts, offset


@record(frozen=True, slots=True, repr=False)
class Build(Op):
    """An object or tuple constructor; ``keys`` names each operand, ``picked`` the element read."""

    keys: tuple[str, ...] = field(default=(), compare=False)
    picked: Optional[str] = field(default=None, compare=False)

    def say(self) -> str:
        return "object" if self.text == "ObjectExpr" else "tuple"


def seed_texts(path: Sequence[Step]) -> list[str]:
    """The path in the seed's step names (``trace --json``, provenance)."""
    return [str(step) for step in path]


# Steps a value passes through unchanged: an access on the value looks past them.
_TRANSPARENT = (NameRef, ModCall, Default, Output, Arm, EqualArms, FieldStep)


def select(path: tuple[Step, ...], key: str) -> tuple[Step, ...]:
    """``path`` after reading element ``key`` of its value: records the pick on the constructor."""
    for i, step in enumerate(path):
        if step.aside or isinstance(step, _TRANSPARENT):
            continue
        if not isinstance(step, Build) or not step.sizes:
            return path
        if step.picked is None:
            if key not in step.keys:
                return path
            return path[:i] + (replace(step, picked=key),) + path[i + 1:]
        index = step.keys.index(step.picked)
        start = i + 1 + sum(step.sizes[:index])
        end = start + step.sizes[index]
        return path[:start] + select(path[start:end], key) + path[end:]
    return path


def aside(path: tuple[Step, ...]) -> tuple[Step, ...]:
    return tuple(replace(step, aside=True) for step in path)


def words(path: Sequence[Step], where: Where | None = None) -> str:
    """The path in plain words, from the reference to the value, joined by ``←``."""
    return " ← ".join(_chain(tuple(path), where))


def phrases(path: Sequence[Step], where: Where | None = None) -> list[str]:
    """The path in plain words, one phrase per hop (what ``words`` joins)."""
    return _chain(tuple(path), where)


def _chain(path: tuple[Step, ...], where: Where | None) -> list[str]:
    out: list[str] = []
    iters: list[str] = []
    i = 0
    while i < len(path):
        step = path[i]
        i += 1
        if step.aside:
            continue
        said = step.say()
        if said is not None and where is not None and step.span is not None and isinstance(step, (ModCall, Default, Output)):
            location = where(step.span)
            if location:
                said += f" ({location})"
        if isinstance(step, Iter):
            iters.append(said)  # the instance is chosen before its collection is read
            continue
        if isinstance(step, Op) and step.sizes:
            parts, i = step.operands(path, i)
            if isinstance(step, Build) and step.picked is not None and step.picked in step.keys:
                out.extend(_chain(parts[step.keys.index(step.picked)], where))
                continue
            if isinstance(step, Build):
                out.append(said)
                continue
            shown = [p for p in parts if any(not s.aside and s.say() is not None for s in p)]
            if len(shown) == 1 and len(parts) == 1:
                out.append(said)
                out.extend(_chain(shown[0], where))
            else:
                chains = [_chain(p, where) for p in shown]
                inner = ["(" + " ← ".join(chain) + ")" for chain in chains if chain]
                out.append(said + (" of " + ", ".join(inner) if inner else ""))
            continue
        if said is not None:
            out.append(said)
    return iters + out
