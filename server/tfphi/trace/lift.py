"""Writing an expression of a module instance in the root module's scope.

A gate is a ``count`` in the root module, so it may only name the root's variables, locals,
module outputs and data sources. An expression written inside a child module is rebuilt as an
expression tree (``printer`` prints it) by substituting, for each of the child's references,
what the caller passes (a variable), the definition (a local) or the child's own output
expression (a module output). References that have no root-scope equivalent (``each``,
``count``, a resource attribute, ``path``) make the expression inexpressible: ``lift``
returns None.

A variable's value crosses its boundary as Terraform applies it (SPEC 3, "Type constraints"):
``null`` given to a ``nullable = false`` variable is its default, and the value is converted
to the declared type, so the caller's expression is wrapped in that conversion: a child's
``var.port == "5432"`` (``type = string``) called with a root number reads
``tostring(var.port) == "5432"``. Object attributes are read from a literal object member by
member (an ``optional`` attribute's default filled in); where the conversion cannot be written
exactly, the expression is not lifted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..syntax.expr import (
    AttrStep,
    BinaryOpExpr,
    ConditionalExpr,
    Expr,
    ForExpr,
    FunctionCallExpr,
    IndexStep,
    LiteralExpr,
    ObjectExpr,
    ParenExpr,
    RelativeTraversalExpr,
    ScopeTraversalExpr,
    TemplateExpr,
    TemplateJoinExpr,
    TupleExpr,
    UnaryOpExpr,
    iter_subexpressions,
)
from ..records import replace
from . import printer as P
from ..evaluate.type_constraints import parse_type
from ..values.types import TypeSpec, convert
from ..values.errors import TfEvalError
from ..values.value import is_number

if TYPE_CHECKING:
    from ..stir.model import Variable
    from .env import SourceView

MAX_LIFT_DEPTH = 20
_PER_INSTANCE = ("each", "count", "self")
_KEEP = object()


def lift(view: "SourceView", expr: Expr, path, depth: int = 0, loops: "Loops | None" = None, call=None) -> Expr | None:
    """``expr``, read in the module instance ``path``, as a root-module expression; None when it cannot be.

    With ``loops`` (an existence test, which holds when some instance exists), ``each`` and
    ``count`` in the arguments of an iterated ``call`` become the names of a ``for`` over the
    call's instances (``Loops.some``); anywhere else an iterator differs per instance and no gate
    can hold it.
    """
    instance = loops.binder(view, call, path, depth) if loops is not None and call is not None else None
    if len(path) == 1:
        if instance is None:
            # The root's own names stand; an iterator or self differs per instance: no gate can hold it.
            free = (ref.root for ref, bound in _references(expr, frozenset()) if ref.root not in bound)
            return None if any(root in _PER_INSTANCE for root in free) else expr
        return substitute(expr, frozenset(), lambda ref: instance(ref) if ref.root in ("each", "count") else None if ref.root == "self" else _KEEP)
    if depth > MAX_LIFT_DEPTH:
        return None
    return substitute(expr, frozenset(), lambda ref: instance(ref) if instance is not None and ref.root in ("each", "count")
                      else _lift_reference(view, ref, path, depth, loops))


class Loops:
    """The instances an existence test ranges over: a resource exists when some instance of the
    calls around it gives it a count or a collection that is not empty. Each iterated call whose
    ``each``/``count`` an argument reads is one ``for`` over the call's ``for_each`` (or
    ``range(count)``), written in the root's terms."""

    def __init__(self) -> None:
        self.frames: list[tuple[str, str, Expr]] = []  # key name, value name, collection
        self._bound: dict[int, tuple[str, str, str] | None] = {}

    def binder(self, view: "SourceView", call, path, depth: int):
        """How ``each``/``count`` of ``call`` (made in ``path``) are written, or None when they cannot be."""
        if id(call) not in self._bound:
            self._bound[id(call)] = self._bind(view, call, path, depth)
        bound = self._bound[id(call)]
        if bound is None:
            return None
        kind, key, value = bound

        def instance(ref: ScopeTraversalExpr) -> Expr | None:
            steps = ref.steps
            first = steps[0].name if steps and isinstance(steps[0], AttrStep) else None
            if ref.root == "count" and first == "index" and kind == "count":
                return P.traverse(ScopeTraversalExpr(P.NOWHERE, value, P.NOWHERE, ()), steps[1:])
            if ref.root == "each" and first in ("key", "value") and kind == "for_each":
                return P.traverse(ScopeTraversalExpr(P.NOWHERE, key if first == "key" else value, P.NOWHERE, ()), steps[1:])
            return None

        return instance

    def _bind(self, view: "SourceView", call, path, depth: int) -> tuple[str, str, str] | None:
        kind = "for_each" if "for_each" in call.body.attributes else "count" if "count" in call.body.attributes else None
        if kind is None:
            return None
        collection = lift(view, call.body.attributes[kind].expr, path, depth + 1)  # an outer instance's values: not quantified
        if collection is None:
            return None
        n = len(self.frames)
        key, value = f"tfphi_key{n}", f"tfphi_value{n}"
        self.frames.append((key, value, P.call("range", collection) if kind == "count" else collection))
        return kind, key, value

    def some(self, test: Expr) -> Expr:
        """``test`` holds for some instance: ``length([for k, v in C : 1 if test]) > 0``, nested."""
        body: Expr = ForExpr(P.NOWHERE, self.frames[-1][0], self.frames[-1][1], self.frames[-1][2], None, P.literal(1), test, False)
        for key, value, collection in reversed(self.frames[:-1]):
            body = ForExpr(P.NOWHERE, key, value, collection, None, body, None, False)
        counted = P.call("flatten", body) if len(self.frames) > 1 else body
        return P.binary(">", P.call("length", counted), P.literal(0))


def lift_variable(view: "SourceView", name: str, path) -> Expr | None:
    """``var.<name>`` of the module instance ``path`` (its value after the boundary) in the root's terms."""
    reference = ScopeTraversalExpr(P.NOWHERE, "var", P.NOWHERE, (AttrStep(name, P.NOWHERE),))
    return lift(view, reference, path)


def one_line(text: str, collapse_spaces: bool = False) -> str:
    """Multi-line expression text on one line, as atoms (the ``condition`` notation) and trace steps
    name it (trace steps also collapse runs of spaces on one line: ``a  ==  b`` is said ``a == b``)."""
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


def substitute(expr: Expr, bound: frozenset[str], lift_ref) -> Expr | None:
    """``expr`` rebuilt with every free reference replaced by ``lift_ref(ref)`` (an expression, or
    ``_KEEP``; None: not expressible, and then the whole is None)."""
    def sub(e: Expr, names: frozenset[str] = bound) -> Expr:
        out = substitute(e, names, lift_ref)
        if out is None:
            raise _Inexpressible
        return out

    try:
        if isinstance(expr, ScopeTraversalExpr):
            if expr.root in bound:
                return expr
            replaced = lift_ref(expr)
            return expr if replaced is _KEEP else replaced
        if isinstance(expr, LiteralExpr):
            return expr
        if isinstance(expr, TemplateExpr):
            return replace(expr, parts=tuple(p if isinstance(p, str) else sub(p) for p in expr.parts))
        if isinstance(expr, TemplateJoinExpr):
            return replace(expr, loop=sub(expr.loop))
        if isinstance(expr, ParenExpr):
            return replace(expr, inner=sub(expr.inner))
        if isinstance(expr, RelativeTraversalExpr):
            steps = tuple(replace(s, key=sub(s.key)) if isinstance(s, IndexStep) else s for s in expr.steps)
            return replace(expr, source=P.paren(sub(expr.source)), steps=steps)
        if isinstance(expr, FunctionCallExpr):
            return replace(expr, args=tuple(sub(a) for a in expr.args))
        if isinstance(expr, ConditionalExpr):
            return replace(expr, condition=sub(expr.condition), true_result=sub(expr.true_result), false_result=sub(expr.false_result))
        if isinstance(expr, BinaryOpExpr):
            return replace(expr, left=sub(expr.left), right=sub(expr.right))
        if isinstance(expr, UnaryOpExpr):
            return replace(expr, operand=sub(expr.operand))
        if isinstance(expr, TupleExpr):
            return replace(expr, items=tuple(sub(i) for i in expr.items))
        if isinstance(expr, ObjectExpr):
            return replace(expr, items=tuple((sub(k), sub(v)) for k, v in expr.items))
        if isinstance(expr, ForExpr):
            inner = bound | {expr.value_var} | ({expr.key_var} if expr.key_var else set())
            return replace(
                expr,
                collection=sub(expr.collection),
                key_result=sub(expr.key_result, inner) if expr.key_result is not None else None,
                value_result=sub(expr.value_result, inner),
                condition=sub(expr.condition, inner) if expr.condition is not None else None,
            )
    except _Inexpressible:
        return None
    return None  # a syntax error or a construct the printer cannot write


class _Inexpressible(Exception):
    pass


def _rest_is_literal(steps) -> bool:
    return all(isinstance(s, AttrStep) or (isinstance(s, IndexStep) and isinstance(s.key, LiteralExpr)) for s in steps)


def _lift_reference(view: "SourceView", ref: ScopeTraversalExpr, path, depth: int, loops: Loops | None = None):
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
        if var is None or call is None or not _rest_is_literal(rest_steps):
            return None
        argument = call.arguments.get(name)
        if argument is not None:
            lifted = lift(view, argument.expr, path[:-1], depth + 1, loops, call)
        elif var.default is not None:
            lifted = lift(view, var.default.expr, path, depth + 1)
        else:
            return None
        if lifted is None:
            return None
        return _across_boundary(view, lifted, var, tuple(rest_steps), path, depth)
    if ref.root == "local":
        rest_steps = steps[1:]
        local = module.locals.get(name)
        if local is None:
            return None
        lifted = lift(view, local.attribute.expr, path, depth + 1, loops)
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
        lifted = lift(view, output.value.expr, path + ((name, target.dir),), depth + 1, loops)
    else:
        return None  # each, count, self, path, terraform, data and resources have no root-scope equivalent
    if lifted is None or not _rest_is_literal(rest_steps):
        return None
    return P.traverse(P.paren(lifted), rest_steps) if rest_steps else P.paren(lifted)


class _NotConstant(Exception):
    pass


def _constant(expr: Expr):
    """An ``optional(T, default)`` default written as a literal (anything else: not lifted)."""
    if isinstance(expr, LiteralExpr):
        return expr.value
    if isinstance(expr, TemplateExpr) and all(isinstance(p, str) for p in expr.parts):
        return "".join(expr.parts)  # type: ignore[arg-type]
    if isinstance(expr, TupleExpr):
        return [_constant(i) for i in expr.items]
    if isinstance(expr, ObjectExpr):
        return {str(_constant(k)): _constant(v) for k, v in expr.items}
    raise _NotConstant


def _across_boundary(view: "SourceView", value: Expr, var: "Variable", rest: tuple, path, depth: int) -> Expr | None:
    """``var.<name><rest>`` in the root's terms, the caller's ``value`` having crossed the boundary."""
    try:
        spec = parse_type(var.type_expr, _constant)
    except _NotConstant:
        return None
    if not var.nullable and var.default is not None:
        default = lift(view, var.default.expr, path, depth + 1)
        if default is None:
            return None
        if _is_null(value):
            value = default
        elif _may_be_null(value):
            value = P.conditional(P.binary("==", P.paren(value), P.literal(None)), P.paren(default), P.paren(value))
    return _converted(value, spec, rest, view.modules.get(path[0][1]))


def _is_null(expr: Expr) -> bool:
    expr = _bare(expr)
    return isinstance(expr, LiteralExpr) and expr.value is None


def _may_be_null(expr: Expr) -> bool:
    bare = _bare(expr)
    if isinstance(bare, TemplateExpr) and static_type(bare) != "string":
        return True  # "${x}" is x
    return not isinstance(bare, (LiteralExpr, TemplateExpr, TemplateJoinExpr, TupleExpr, ObjectExpr, ForExpr))


def _bare(expr: Expr) -> Expr:
    while isinstance(expr, ParenExpr):
        expr = expr.inner
    return expr


_CONVERSIONS = {"string": "tostring", "number": "tonumber", "bool": "tobool"}


def _converted(value: Expr, spec: TypeSpec, rest: tuple, root=None) -> Expr | None:
    """``value`` (a root-module expression) converted to ``spec`` as Terraform converts at a
    boundary, then ``rest`` read from it. ``root`` (the root module) tells the types of its variables."""
    kind = spec.kind
    bare = _bare(value)
    if kind == "any":
        return P.traverse(P.paren(value), rest) if rest else P.paren(value)
    if kind in _CONVERSIONS:
        if rest:
            return None
        if isinstance(bare, LiteralExpr):
            try:
                return P.literal(convert(bare.value, spec))
            except TfEvalError:
                return None
        if static_type(bare, root) == kind:
            return bare  # already of that type (or null, which converts to null)
        return P.call(_CONVERSIONS[kind], bare)
    if kind == "object":
        if not rest or not isinstance(rest[0], AttrStep):
            return None
        name = rest[0].name
        attr = next((a for a in spec.attrs if a[0] == name), None)
        if attr is None:
            return None
        _, attr_type, optional, default = attr
        if isinstance(bare, ObjectExpr):
            member = _member(bare, name)
            if member is _DYNAMIC:
                return None
            if member is None or _is_null(member):
                if optional and default is not None:
                    return _converted(P.literal(default), attr_type, rest[1:], root)
                if member is None and not optional:
                    return None  # Terraform rejects the call
                return None if rest[1:] else P.literal(None)
            return _converted(member, attr_type, rest[1:], root)
        if optional:
            return None  # absent or null here takes the default: not written exactly
        return _converted(P.traverse(P.paren(value), rest[:1]), attr_type, rest[1:], root)
    if kind in ("list", "map", "set"):
        element = spec.element or TypeSpec("any")
        if element.kind == "any":
            return None  # the elements are unified to one type: not written exactly
        if rest:
            if kind == "set" or not isinstance(rest[0], IndexStep):
                return None
            return _converted(P.traverse(P.paren(value), rest[:1]), element, rest[1:], root)
        if element.kind not in _CONVERSIONS:
            return None
        return _collection(value, kind, element, root)
    return None


_DYNAMIC = object()


def _member(obj: ObjectExpr, name: str):
    """The value an object literal gives ``name`` (the last such key wins); None when absent,
    ``_DYNAMIC`` when a computed key could be it."""
    found = None
    for key, value in obj.items:
        key = _bare(key)
        if isinstance(key, LiteralExpr) and isinstance(key.value, str):
            if key.value == name:
                found = value
        elif isinstance(key, TemplateExpr) and all(isinstance(p, str) for p in key.parts):
            if "".join(key.parts) == name:  # type: ignore[arg-type]
                found = value
        else:
            return _DYNAMIC
    return found


def _collection(value: Expr, kind: str, element: TypeSpec, root) -> Expr | None:
    """A list, set or map of primitives converted element by element."""
    bare = _bare(value)
    if isinstance(bare, TupleExpr) and kind in ("list", "set"):
        items = [_converted(i, element, (), root) for i in bare.items]
        if any(i is None for i in items):
            return None
        converted: Expr = TupleExpr(P.NOWHERE, tuple(items))  # type: ignore[arg-type]
        return P.call("toset", converted) if kind == "set" else P.call("tolist", converted)
    if isinstance(bare, ObjectExpr) and kind == "map":
        items = [(k, _converted(v, element, (), root)) for k, v in bare.items]
        if any(v is None for _, v in items):
            return None
        return P.call("tomap", ObjectExpr(P.NOWHERE, tuple(items)))  # type: ignore[arg-type]
    item = ScopeTraversalExpr(P.NOWHERE, "v", P.NOWHERE, ())
    each = _converted(item, element, ())
    if each is None:
        return None
    if kind == "map":
        key = ScopeTraversalExpr(P.NOWHERE, "k", P.NOWHERE, ())
        converted = P.call("tomap", P.for_object("k", "v", P.paren(value), key, each))
    else:
        converted = P.for_list("v", P.paren(value), each)
        converted = P.call("toset" if kind == "set" else "tolist", converted)
    if _may_be_null(value):
        return P.conditional(P.binary("==", P.paren(value), P.literal(None)), P.literal(None), converted)
    return converted


_STRING_FUNCTIONS = frozenset({
    "lower", "upper", "title", "format", "join", "replace", "substr", "trimspace", "trim", "trimprefix",
    "trimsuffix", "tostring", "jsonencode", "chomp", "indent", "base64encode", "md5", "sha1", "sha256",
})
_NUMBER_FUNCTIONS = frozenset({"length", "tonumber", "max", "min", "abs", "ceil", "floor", "parseint", "pow", "signum"})
_BOOL_FUNCTIONS = frozenset({"tobool", "contains", "startswith", "endswith", "can", "alltrue", "anytrue"})
_PRIMITIVE_TYPES = ("string", "number", "bool")


def static_type(expr: Expr, root=None) -> str | None:
    """The primitive type a root-module expression always has (or null), when its form says so."""
    expr = _bare(expr)
    if isinstance(expr, LiteralExpr):
        value = expr.value
        if isinstance(value, bool):
            return "bool"
        if isinstance(value, str):
            return "string"
        return "number" if is_number(value) else None
    if isinstance(expr, TemplateExpr):
        # "${x}" alone is x itself, unconverted (hclsyntax's TemplateWrapExpr)
        single = len(expr.parts) == 1 and not isinstance(expr.parts[0], str) and not expr.always_string
        return static_type(expr.parts[0], root) if single else "string"
    if isinstance(expr, TemplateJoinExpr):
        return "string"
    if isinstance(expr, UnaryOpExpr):
        return "bool" if expr.op == "!" else "number"
    if isinstance(expr, BinaryOpExpr):
        return "bool" if expr.op in ("==", "!=", "<", ">", "<=", ">=", "&&", "||") else "number"
    if isinstance(expr, ConditionalExpr):
        arms = static_type(expr.true_result, root), static_type(expr.false_result, root)
        return arms[0] if arms[0] == arms[1] else None
    if isinstance(expr, FunctionCallExpr):
        if expr.name in _STRING_FUNCTIONS:
            return "string"
        if expr.name in _NUMBER_FUNCTIONS:
            return "number"
        return "bool" if expr.name in _BOOL_FUNCTIONS else None
    if isinstance(expr, ScopeTraversalExpr) and expr.root == "var" and root is not None and len(expr.steps) == 1:
        step = expr.steps[0]
        var = root.variables.get(step.name) if isinstance(step, AttrStep) else None
        if var is not None:
            kind = parse_type(var.type_expr).kind
            return kind if kind in _PRIMITIVE_TYPES else None
    return None
