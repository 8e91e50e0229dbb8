"""Writing an expression of a module instance in the root module's scope.

A gate is a ``count`` in the root module, so it may only name the root's variables, locals,
module outputs and data sources. An expression written inside a child module is rewritten
by substituting, for each of the child's references, what the caller passes (a variable),
the definition (a local) or the child's own output expression (a module output), each
parenthesized. References that have no root-scope equivalent (``each``, ``count``, a
resource attribute, ``path``) make the expression inexpressible: ``lift`` returns None.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..syntax.expr import AttrStep, Expr, ForExpr, IndexStep, LiteralExpr, ScopeTraversalExpr, Span, iter_subexpressions
from . import conditions as C

if TYPE_CHECKING:
    from .tracer import SourceView

MAX_LIFT_DEPTH = 20
_PER_INSTANCE = ("each", "count", "self")
_KEEP = object()


def lift(view: "SourceView", expr: Expr, path, depth: int = 0) -> str | None:
    """``expr``, read in the module instance ``path``, as root-module text; None when it cannot be."""
    text = view.text(expr.span)
    if len(path) == 1:
        # The root's own names stand; an iterator or self differs per instance: no gate can hold it.
        free = (ref.root for ref, bound in _references(expr, frozenset()) if ref.root not in bound)
        return None if any(root in _PER_INSTANCE for root in free) else one_line(text)
    if depth > MAX_LIFT_DEPTH:
        return None
    raw = text.encode("utf-8")
    base = expr.span.start
    edits: list[tuple[int, int, str]] = []
    for ref, bound in _references(expr, frozenset()):
        if ref.root in bound:
            continue
        replacement = _lift_reference(view, ref, path, depth)
        if replacement is None:
            return None
        if replacement is not _KEEP:
            edits.append((ref.span.start - base, ref.span.end - base, replacement))
    if len(edits) == 1 and edits[0][:2] == (0, len(raw)):
        return _unwrapped(edits[0][2])  # the whole expression is one reference
    for start, end, replacement in sorted(edits, reverse=True):
        raw = raw[:start] + replacement.encode("utf-8") + raw[end:]
    return one_line(raw.decode("utf-8"))


def _unwrapped(text: str) -> str:
    """``(x)`` as ``x`` when the parentheses enclose the whole text."""
    if not (text.startswith("(") and text.endswith(")")):
        return text
    depth = 0
    for i, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and i < len(text) - 1:
            return text  # "(a) + (b)": the first parenthesis closes early
    return text[1:-1]


def one_line(text: str, collapse_spaces: bool = False) -> str:
    """Multi-line expression text on one line, as atoms and gates print it (trace steps also
    collapse runs of spaces on one line: ``a  ==  b`` is said ``a == b``)."""
    return " ".join(text.split()) if collapse_spaces or "\n" in text else text


def _references(expr: Expr, bound: frozenset[str]):
    """The scope traversals of ``expr`` (not those inside a traversal's own index keys), with the names ``for`` binds there."""
    if isinstance(expr, ScopeTraversalExpr):
        yield expr, bound
        return
    inner = bound
    if isinstance(expr, ForExpr):
        yield from _references(expr.collection, bound)
        inner = bound | {expr.value_var} | ({expr.key_var} if expr.key_var else set())
        for sub in (expr.key_result, expr.value_result, expr.condition):
            if sub is not None:
                yield from _references(sub, inner)
        return
    for sub in iter_subexpressions(expr):
        yield from _references(sub, inner)


def _rest_is_literal(steps) -> bool:
    return all(isinstance(s, AttrStep) or (isinstance(s, IndexStep) and isinstance(s.key, LiteralExpr)) for s in steps)


def _wrapped(text: str) -> str:
    return text if C._text_precedence(text) >= C.PREC_ATOM else f"({text})"


def _lift_reference(view: "SourceView", ref: ScopeTraversalExpr, path, depth: int):
    steps = ref.steps
    name = steps[0].name if steps and isinstance(steps[0], AttrStep) else None
    module = view.modules.get(path[-1][1])
    if module is None or name is None:
        return None
    if ref.root == "var":
        rest_steps = steps[1:]
        var = module.variables.get(name)
        call_name, caller_dir = path[-1][0], path[-2][1]
        caller = view.modules.get(caller_dir)
        call = caller.calls.get(call_name) if caller else None
        if var is None or call is None:
            return None
        argument = call.arguments.get(name)
        if argument is not None:
            lifted = lift(view, argument.expr, path[:-1], depth + 1)
        elif var.default is not None:
            lifted = lift(view, var.default.expr, path, depth + 1)
        else:
            return None
    elif ref.root == "local":
        rest_steps = steps[1:]
        local = module.locals.get(name)
        if local is None:
            return None
        lifted = lift(view, local.attribute.expr, path, depth + 1)
    elif ref.root == "module":
        if len(steps) < 2 or not isinstance(steps[1], AttrStep):
            return None
        rest_steps = steps[2:]
        target = view.tree.targets.get((path[-1][1], name))
        call = module.calls.get(name)
        child = view.modules.get(target.dir) if target and target.dir is not None else None
        output = child.outputs.get(steps[1].name) if child else None
        if call is None or output is None or output.value is None or "count" in call.body.attributes or "for_each" in call.body.attributes:
            return None  # module.m.out of an iterated call is a list or map of instances, not one value
        lifted = lift(view, output.value.expr, path + ((name, target.dir),), depth + 1)
    else:
        return None  # each, count, self, path, terraform, data and resources have no root-scope equivalent
    if lifted is None or not _rest_is_literal(rest_steps):
        return None
    if not rest_steps:
        return _wrapped(lifted)
    rest = view.text(Span(ref.span.file, rest_steps[0].span.start, ref.span.end))
    if isinstance(rest_steps[0], AttrStep) and not rest.startswith("."):
        rest = "." + rest
    return _wrapped(lifted) + rest
