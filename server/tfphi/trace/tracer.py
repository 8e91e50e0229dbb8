"""Phi tracing: backward data flow from an expression to every value it can take, with its condition.

The tracer is a pure, read-only function of a workspace snapshot. It follows references
(the RefTo bridge) through variables, locals, module arguments and outputs, forks at
conditionals, expands ``for_each``/``count``/``dynamic`` iterators, and pushes branch sets
through operators, templates and functions. Every limit (depth, branch count, cycle) ends
in ``Unbounded`` with a reason that says which.
"""

from __future__ import annotations

import itertools
import posixpath
from typing import Any, Callable, Mapping, Sequence

from .. import records
from ..syntax.expr import (
    AttrStep,
    BinaryOpExpr,
    ConditionalExpr,
    Expr,
    ForExpr,
    FunctionCallExpr,
    InvalidExpr,
    LiteralExpr,
    ObjectExpr,
    ParenExpr,
    RelativeTraversalExpr,
    ScopeTraversalExpr,
    Span,
    SplatStep,
    TemplateExpr,
    TemplateJoinExpr,
    TupleExpr,
    UnaryOpExpr,
)
from ..addrs import NO_KEY, ROOT_MODULE, FieldAddress, InputVariable, LocalValue, ModuleCall, ModuleInstance, Resource as ResourceAddr
from ..config import Limits
from ..syntax.hclfile import Attribute
from ..stir.model import Module, Resource, Variable
from ..stir.workspace import CallPath
from . import conditions as C
from . import steps as S
from . import printer as P
from .lift import Loops, lift, lift_variable, one_line
from ..evaluate.operators import apply_binary, apply_unary, get_attribute, get_index
from .partial import Unknown, UnknownResult, compare_with_null, first_unknown, known, known_operands
from .env import UNDECIDED, Env, Iteration, SourceView, block_iterators, find_field
from .branches import (aside, convert_all, equal_arms, gated, holds_number_or_bool, mentions, object_keys, prepend,
                       select, tuple_keys, typed_when_failing, unify_arms, wholly_known, with_keys)
from .finish import coalesce, finish, with_existence
from .memo import MemoEntry, MemoStore
from .module_refs import ModuleReferences
from .universe import lift_validation_universe
from .result import UNBOUNDED, Branch, Result, TraceResult, Unbounded
from ..evaluate.type_constraints import parse_type
from ..values.numbers import INT64, Whole
from ..values.types import convert
from ..values.value import TfEvalError, TfSet, TfUnrepresentable, Value, from_python, is_number, nfc, to_bool, to_hcl, to_number, to_string, value_key

# How much larger than the branch limit a raw cross product may be before contradictions are dropped.
CROSS_PRODUCT_SLACK = 8


# Expressions whose value is (one of) their operands' own value: a field's universe reaches a
# variable only through these, since only then does the variable's value become the field's.
_VALUE_PASSING = (LiteralExpr, ParenExpr, ConditionalExpr, ScopeTraversalExpr)


class Tracer(ModuleReferences):
    """Traces expressions of one workspace snapshot; memoizes declaration-level results."""

    def __init__(self, view: SourceView, limits: Limits = Limits(), assignment: Mapping[str, Value] | None = None,
                 store: MemoStore | None = None, check: Callable[[], None] = lambda: None):
        self.view = view
        self.limits = limits
        # Root variables set by a deployment's variable files: traced as their assigned value.
        self.assignment = dict(assignment) if assignment is not None else None
        self._assigned: dict[tuple, "Tracer"] = {}
        # Set when a combination was dropped because it fails to evaluate: inside try()/can()
        # such a failure is a fallback, not a rejected configuration.
        self._may_fail = False
        # Declaration-level results; with a ``store``, shared with the next snapshots' tracers
        # (iterator entries stay here: their keys hold an attribute's id, which only this
        # snapshot's objects keep unique).
        self._store = store
        self._memo: dict[tuple, MemoEntry] = store.memo if store is not None else {}
        self._local_memo: dict[tuple, MemoEntry] = {}
        # Called at every expression traced and every reference followed: the snapshot's
        # cancellation check, which raises when the work is stale or must give way
        # (``cancellation.Cancelled``); the trace is abandoned then, the declarations it finished
        # stay memoized.
        self.check = check
        # References this tracer finished and memoized: work that gave way and resumes asks
        # whether its last attempt finished any (``Snapshot.field_steps``, ``cancellation.Interrupt``).
        self.memoized = 0
        self._deepest = 0
        self._cycle_hits = 0
        # Declarations a trace read, as (module dir, address) pairs: an edit re-traces a field
        # only when it changes one of these.
        self._touched: set[tuple[str, str]] = set()
        # Each resource's ``existence`` in a call path, with the resource it is of: its registered
        # fields ask the same (106 distinct of 255 asked in the corpus check, session 13).
        self._existence: dict[tuple[CallPath, str], tuple[Resource, tuple]] = {}
        self.universe: tuple[Value, ...] = ()
        self.universe_label = ""

    # ---- entry points -----------------------------------------------------------------

    def trace_field(
        self,
        path: CallPath,
        resource: Resource,
        field_path: Sequence[str],
        universe: Sequence[Value] = (),
        label: str | None = None,
        assignment: Mapping[str, Value] | None = None,
    ) -> tuple[TraceResult, frozenset[tuple[str, str]]]:
        """Traces ``resource.<field_path>`` in the module instance ``path``; returns the result and the declarations it read.

        With ``assignment`` (a deployment's root variable values), those root variables are
        known: a Resolved answer is the value the field takes in that deployment.
        """
        if assignment is not None:
            return self.under(assignment).trace_field(path, resource, field_path, universe, label)
        address = str(FieldAddress(ROOT_MODULE, resource.mode, resource.type, resource.name, NO_KEY, tuple(field_path)))
        found = find_field(resource, field_path)
        if found is None:
            missing = Unbounded(f"{address} is not set", "undefined")
            return TraceResult(address, UNBOUNDED, (), None, missing, None, path), frozenset({(path[-1][1], resource.address)})
        attribute, iterators_of = found
        env = Env(path)
        env = env.with_iterators(iterators_of(env))
        result, touched = self.trace_attribute(address, attribute, env, universe, label or address, owner=resource.address)
        exists, exists_touched, absent_because = self.existence(path, resource)
        result = records.replace(with_existence(result, exists, self.limits, resource.address, absent_because), resource=resource.address)
        return result, touched | exists_touched

    def under(self, assignment: Mapping[str, Value]) -> "Tracer":
        """The tracer with the root variables set to a deployment's values (kept per assignment)."""
        key = tuple(sorted((k, "?" if v is UNDECIDED else value_key(v)) for k, v in assignment.items()))
        tracer = self._assigned.get(key)
        if tracer is None:
            tracer = self._assigned[key] = Tracer(self.view, self.limits, assignment, check=self.check)
        return tracer

    def trace_attribute(
        self, address: str, attribute: Attribute, env: Env, universe: Sequence[Value] = (), label: str = "", owner: str | None = None
    ) -> tuple[TraceResult, frozenset[tuple[str, str]]]:
        """Traces one attribute; ``owner`` is the address of the declaration that holds it."""
        self.universe = tuple(from_python(v) for v in universe)  # a float from a TOML file is the decimal it prints
        self.universe_label = label
        self._touched = {(env.dir, owner)} if owner else set()
        self._deepest = 0
        self._may_fail = False
        result = wholly_known(self.trace(attribute.expr, env, 0, ()))
        result = prepend(result, S.FieldStep(address))
        return finish(address, result, self.limits, attribute.expr.span, env.path), frozenset(self._touched)

    def existence(self, path: CallPath, resource: Resource) -> tuple["C.Cond | None", frozenset[tuple[str, str]], str]:
        """When the resource has at least one instance: its own ``count``/``for_each`` and those of every call around it.

        None means never (a count or collection that is empty for every assignment); the
        text then says which one rules it out.
        """
        key = (path, resource.address)
        known = self._existence.get(key)
        if known is not None and known[0] is resource:  # (a snapshot's resources never change)
            return known[1]
        found = self._existence_of(path, resource)
        self._existence[key] = (resource, found)
        return found

    def _existence_of(self, path: CallPath, resource: Resource) -> tuple["C.Cond | None", frozenset[tuple[str, str]], str]:
        self._touched = set()
        self.universe = ()
        frames = [(resource.body, Env(path), resource.address)]
        for i in range(len(path) - 1, 0, -1):
            caller = self.view.modules.get(path[i - 1][1])
            call = caller.calls.get(path[i][0]) if caller else None
            if call is not None:
                frames.append((call.body, Env(path[:i]), str(ModuleCall(path[i][0]))))
        exists: C.Cond | None = C.TRUE
        absent_because = ""
        for body, env, declaration in frames:
            for kind in ("count", "for_each"):
                attribute = body.attributes.get(kind)
                if attribute is None:
                    continue
                self._touched.add((env.dir, declaration))
                some = self._some_instance(kind, attribute, env)
                if some is None and not absent_because:
                    owner = "its" if declaration == resource.address else f"{declaration}'s"
                    absent_because = f"{owner} {kind} is {'0' if kind == 'count' else 'empty'} for every assignment"
                exists = None if some is None or exists is None else C.conjoin(exists, some)
        if exists is None and not absent_because:
            absent_because = "its count and for_each never hold together"
        return exists, frozenset(self._touched), absent_because

    def _some_instance(self, kind: str, attribute: Attribute, env: Env) -> "C.Cond | None":
        """The condition under which a ``count``/``for_each`` gives at least one instance (None: never)."""
        values = self.trace(attribute.expr, env, 0, ())
        if isinstance(values, Unbounded):
            def test(expr: Expr) -> Expr:
                return P.binary(">", P.paren(expr) if kind == "count" else P.call("length", expr), P.literal(0))

            text = one_line(self.view.text(attribute.expr.span))
            text = f"{C.wrap_operand(text, P.precedence(attribute.expr), C.PREC_CMP)} > 0" if kind == "count" else f"length({text}) > 0"
            loops = Loops()
            lifted = lift(self.view, attribute.expr, env.path, loops=loops)
            root_expr = test(lifted) if lifted is not None else None
            if root_expr is not None and loops.frames:
                root_expr = loops.some(root_expr)  # per instance of the calls around it: some instance has one
            return C.Existing(text, None, C.PREC_CMP, env.scope, root_expr)
        holding = []
        for branch in values:
            value = branch.value
            if kind == "count":
                try:
                    some = to_number(value) > 0
                except TfEvalError:
                    some = True  # Terraform rejects such a count; do not claim the resource is absent
            else:
                # A for_each that is not a collection is rejected by Terraform: not "absent" either.
                some = len(value) > 0 if isinstance(value, (dict, list)) else True
            if some:
                holding.append(branch.cond)
        return C.disjoin(holding) if holding else None

    # ---- the walk ---------------------------------------------------------------------

    def trace(self, expr: Expr, env: Env, depth: int, stack: tuple[str, ...]) -> Result:
        """Every value ``expr`` can take in ``env``; ``depth`` counts reference hops so far.

        A value may be partly known (an object with an unknown member: ``partial``), never unknown.
        """
        result = self._trace_raw(expr, env, depth, stack)
        if not isinstance(result, Unbounded):
            for branch in result:
                if type(branch.value) is Unknown:
                    return branch.value.unbounded
        return result

    def member(self, expr: Expr, env: Env, depth: int, stack: tuple[str, ...]) -> Result:
        """A member of a constructed object, tuple or ``for`` result: when it cannot be known it is
        one ``Unknown`` branch, so that the other members stay known (``partial``)."""
        result = self._trace_raw(expr, env, depth, stack)
        # An evaluation error fails the whole value; a depth limit or a cycle depends on where the
        # trace started, so it must stay an Unbounded the memo sees (never kept inside a value).
        if isinstance(result, Unbounded) and result.cause not in ("error", "depth", "cycle"):
            return (Branch(Unknown(result), C.TRUE, (), expr.span),)
        return result

    def _trace_raw(self, expr: Expr, env: Env, depth: int, stack: tuple[str, ...]) -> Result:
        self.check()
        method = _DISPATCH.get(type(expr))
        if method is None:
            return Unbounded(f"cannot trace {type(expr).__name__}", "invalid", expr.span)
        if self.universe and not _passes_value(expr):
            return self.without_universe(lambda: method(self, expr, env, depth, stack))
        return method(self, expr, env, depth, stack)

    def _universe_key(self) -> tuple:
        """What a hop's result depends on of the field being traced: its configured values and
        their label, which the result's steps and messages print (two fields with the same values
        give different results; an edit of the field's header changes the label)."""
        return (self.universe, self.universe_label) if self.universe else ()

    def without_universe(self, compute: Callable[[], Result]) -> Result:
        """Traces with the field's universe set aside: it describes the field's value, not its operands'."""
        saved = self.universe
        self.universe = ()
        try:
            return compute()
        finally:
            self.universe = saved

    def _literal(self, expr: LiteralExpr, env, depth, stack) -> Result:
        return (Branch(expr.value, C.TRUE, (S.Prim(to_hcl(expr.value)),), expr.span),)

    def _invalid(self, expr: InvalidExpr, env, depth, stack) -> Result:
        return Unbounded(f"{expr.reason}", "invalid", expr.span)

    def _paren(self, expr: ParenExpr, env, depth, stack) -> Result:
        return self.trace(expr.inner, env, depth, stack)

    def _template(self, expr: TemplateExpr, env, depth, stack) -> Result:
        exprs = [p for p in expr.parts if isinstance(p, Expr)]
        if len(expr.parts) == 1 and exprs and not expr.always_string:
            return self.trace(exprs[0], env, depth, stack)  # "${x}" is x, unconverted
        results = [self.trace(e, env, depth, stack) for e in exprs]

        def render(values: list[Value]) -> Value:
            it = iter(values)
            return nfc("".join(p if isinstance(p, str) else to_string(next(it)) for p in expr.parts))

        return self.combine(results, render, S.Op("TemplateExpr"), expr.span)

    def _template_join(self, expr: TemplateJoinExpr, env, depth, stack) -> Result:
        """``%{ for }``: the loop's strings (its body is a string template), joined."""
        loop = self.trace(expr.loop, env, depth, stack)
        return self.combine([loop], lambda v: nfc("".join(map(to_string, v[0]))), S.Op("TemplateJoinExpr"), expr.span)

    def _binary(self, expr: BinaryOpExpr, env, depth, stack) -> Result:
        left = self.trace(expr.left, env, depth, stack)
        right = self.trace(expr.right, env, depth, stack)

        def apply(values: list[Value]) -> Value:
            if expr.op in ("==", "!="):
                with_null = compare_with_null(expr.op, values[0], values[1])
                if with_null is not None:
                    return with_null  # a constructed object is never null, whatever its members
            known(values)
            return apply_binary(expr.op, values[0], values[1])

        return self.combine([left, right], apply, S.Op(f"BinaryOp {expr.op}"), expr.span, partial=True)

    def _unary(self, expr: UnaryOpExpr, env, depth, stack) -> Result:
        operand = self.trace(expr.operand, env, depth, stack)
        return self.combine([operand], lambda v: apply_unary(expr.op, v[0]), S.Op(f"UnaryOp {expr.op}"), expr.span, keep_source=True)

    def _tuple(self, expr: TupleExpr, env, depth, stack) -> Result:
        results = [self.member(item, env, depth, stack) for item in expr.items]
        return self.combine(results, list, S.Build("TupleExpr"), expr.span, keys_of=tuple_keys, partial=True)

    def _object(self, expr: ObjectExpr, env, depth, stack) -> Result:
        results: list[Result] = []
        for key, value in expr.items:
            results.append(self.trace(key, env, depth, stack))
            results.append(self.member(value, env, depth, stack))

        def build(values: list[Value]) -> Value:
            # A key given twice: the later one wins (a conditional key may repeat a literal one).
            return {to_string(values[i]): values[i + 1] for i in range(0, len(values), 2)}

        return self.combine(results, build, S.Build("ObjectExpr"), expr.span, keys_of=object_keys, partial=True)

    def _conditional(self, expr: ConditionalExpr, env, depth, stack) -> Result:
        cond = self.without_universe(lambda: self.trace(expr.condition, env, depth, stack))
        cond_text = self.view.text(expr.condition.span)
        traced: dict[bool, Result] = {}

        def arm(truth: bool) -> Result:
            # Each arm is traced once: nested conditionals would otherwise cost 2^depth.
            if truth not in traced:
                traced[truth] = prepend(self.trace(expr.true_result if truth else expr.false_result, env, depth, stack), S.Arm(truth, condition=one_line(cond_text, collapse_spaces=True)))
            return traced[truth]

        if isinstance(cond, Unbounded):
            if cond.cause == "error":
                return cond  # Terraform fails on the condition, whatever the arms hold
            same = equal_arms(wholly_known(arm(True)), wholly_known(arm(False)))
            if same is not None:
                return same  # every arm gives one value: the selector does not matter
            blocking = self.view.text(cond.span) if cond.span is not None else cond_text
            if cond.cause == "apply-time":
                return Unbounded(f"the selector {cond_text} depends on an apply-time value ({blocking})", "apply-time", expr.condition.span,
                                 condition=expr.condition, blocker=cond.blocker or cond.span, through=cond.through)
            if cond.cause in ("nondeterministic", "plan-stability"):
                return Unbounded(f"plan-stability violation: the selector {cond_text} changes on every plan ({cond.reason})", "plan-stability", expr.condition.span)
            if cond.cause in ("depth", "cycle", "size", "error"):
                return cond
        else:
            try:
                truths = {to_bool(b.value) for b in cond}
            except TfEvalError as exc:
                return Unbounded(f"the condition {cond_text} is not a bool: {exc}", "error", expr.condition.span)
            if len(truths) == 1:
                taken_true = truths.pop()
                taken = expr.true_result if taken_true else expr.false_result
                result = prepend(self.trace(taken, env, depth, stack), S.Arm(taken_true, True, one_line(cond_text, collapse_spaces=True)))
                if isinstance(result, Unbounded) or first_unknown([b.value for b in result]) is not None:
                    return result  # the arm's own value: HCL unifies known types only
                # HCL still unifies the result with the other arm's type ("1" for `true ? 1 : "s"`).
                other_result = arm(not taken_true)
                other_expr = expr.false_result if taken_true else expr.true_result
                if isinstance(other_result, Unbounded) and other_result.cause == "error" and typed_when_failing(other_expr) \
                        and any(holds_number_or_bool(b.value) for b in result):
                    # a constructor or a template keeps its type when a member fails, and HCL unifies
                    # this arm with it (numbers and bools may become strings): tfphi cannot see that type
                    return Unbounded(f"the other arm of {cond_text} fails, and its type decides this arm's value", "opaque", expr.span)
                other_values = [] if isinstance(other_result, Unbounded) else [b.value for b in other_result]
                return unify_arms(result, other_values, expr.span)
            # The condition's own branches already say when it holds, in the root's terms and
            # per instance. An Existing atom is kept for conditions nothing else describes: one
            # over the same variables would not be seen to contradict their Eq atoms.
            return self._join_arms(expr, [(arm(to_bool(cb.value)), cb.cond) for cb in cond])
        if mentions(expr.condition, {**env.bindings, **env.iterators}):
            return cond  # unknown, and different in every iteration
        root_expr = lift(self.view, expr.condition, env.path)
        if _printed(root_expr) is None:  # not in the root's terms, or not printable as a gate
            return Unbounded(
                f"the selector {cond_text} in {env.scope} cannot be written in the root module "
                f"(it depends on {cond.reason})", cond.cause, expr.condition.span, cond.variable,
            )
        existing = existing_cond(expr.condition, cond_text, env.scope, root_expr)
        return self._join_arms(expr, [(arm(True), existing), (arm(False), C.Not(existing))])

    def _join_arms(self, expr: ConditionalExpr, arms: list[tuple[Result, C.Cond]]) -> Result:
        """The arms' branches under their gates. An arm that always fails is dropped: Terraform rejects the configurations that take it."""
        failed = [arm for arm, _ in arms if isinstance(arm, Unbounded) and arm.cause == "error"]
        if failed and len(failed) < len(arms):
            self._may_fail = True
            arms = [(arm, gate) for arm, gate in arms if not (isinstance(arm, Unbounded) and arm.cause == "error")]
        for arm, _ in arms:
            arm = wholly_known(arm)  # arms are compared and unified: every member must be known
            if isinstance(arm, Unbounded):
                return arm
        branches: tuple[Branch, ...] = ()
        for arm, gate in arms:
            branches += gated(arm, gate)  # type: ignore[arg-type]
        if not failed and len({value_key(b.value) for b in branches}) == 1:
            # One value under gates that cover every case: the selector does not matter.
            first = branches[0]
            branches = (Branch(first.value, C.TRUE, first.path, first.source),)
        unified = unify_arms(branches, [], expr.span)
        if isinstance(unified, Unbounded):
            return unified
        if len(unified) > self.limits.branches:
            unified = coalesce(unified)  # a fork on many selector values often gives few distinct values
        return self.limit(unified, expr.span)

    def _call(self, expr: FunctionCallExpr, env, depth, stack) -> Result:
        from .strategies import strategy_for  # the function library (a tenth of a small check's start-up): once a call is traced

        return strategy_for(expr.name)(self, expr, env, depth, stack)

    def _for(self, expr: ForExpr, env, depth, stack) -> Result:
        collection = self.trace(expr.collection, env, depth, stack)
        if isinstance(collection, Unbounded):
            return collection
        out: list[Branch] = []
        for branch in collection:
            value = branch.value
            if isinstance(value, dict):
                entries = sorted(value.items())
            elif isinstance(value, TfSet):
                entries = [(item, item) for item in value]  # a set's elements are their own keys
            elif isinstance(value, list):
                entries = [(Whole(i, INT64), item) for i, item in enumerate(value)]  # HCL's index is a Go int64
            else:
                continue
            element_results: list[Result] = []
            for key, element in entries:
                bound: dict[str, Result] = {expr.value_var: (Branch(element, C.TRUE, (), branch.source),)}
                if expr.key_var:
                    bound[expr.key_var] = (Branch(key, C.TRUE, (), branch.source),)
                inner = env.with_bindings(bound)
                if expr.condition is not None:
                    keep = self.trace(expr.condition, inner, depth, stack)
                    if isinstance(keep, Unbounded):
                        return keep
                    try:
                        truths = {to_bool(b.value) for b in keep}
                    except TfEvalError as exc:
                        return Unbounded(f"the filter of a for expression is not a bool: {exc}", "error", expr.condition.span)
                    if len(truths) != 1:
                        return Unbounded("the filter of a for expression is not known", "invalid", expr.condition.span)
                    if not truths.pop():
                        continue
                if expr.key_result is not None:
                    element_results.append(self.trace(expr.key_result, inner, depth, stack))
                element_results.append(self.member(expr.value_result, inner, depth, stack))
            is_object, grouping = expr.key_result is not None, expr.grouping

            def build(values: list[Value]) -> Value:
                if not is_object:
                    return list(values)
                result: dict[str, Any] = {}
                for i in range(0, len(values), 2):
                    k = to_string(values[i])
                    if grouping:
                        result.setdefault(k, []).append(values[i + 1])
                    elif k in result:
                        raise TfEvalError(f'duplicate object key "{k}" (use the ... grouping mode to collect values)')
                    else:
                        result[k] = values[i + 1]
                return result

            combined = self.combine(element_results, build, S.Op("ForExpr"), expr.span, partial=True)
            if isinstance(combined, Unbounded):
                return combined
            out.extend(gated(combined, branch.cond))
        return self.limit(tuple(out), expr.span)

    def _relative(self, expr: RelativeTraversalExpr, env, depth, stack) -> Result:
        source = self.trace(expr.source, env, depth, stack)
        return self.apply_steps(source, expr.steps, env, depth, stack, expr.span)

    def _scope(self, expr: ScopeTraversalExpr, env: Env, depth: int, stack) -> Result:
        root, steps = expr.root, expr.steps
        if root in env.bindings:
            return self.apply_steps(env.bindings[root], steps, env, depth, stack, expr.span)
        if root == "resource" and len(steps) >= 2 and isinstance(steps[0], AttrStep):
            root, steps = steps[0].name, steps[1:]  # resource.<type>.<name> (Terraform 1.4+) is <type>.<name>
        module = self.view.modules.get(env.dir)
        if module is None:
            return Unbounded(f"module {env.dir or '.'} is not in the workspace", "invalid", expr.span)
        text = self.view.text(expr.span)
        name = steps[0].name if steps and isinstance(steps[0], AttrStep) else None
        if name and root in ("var", "local"):
            self._touched.add((env.dir, f"{root}.{name}"))
        if root == "var" and name:
            var = module.variables.get(name)
            if var is None:
                return Unbounded(f"{InputVariable(name)} is not declared", "undefined", expr.span)
            result = self._value_of(steps, lambda: self.hop(("var", env.path, name, self._universe_key()), str(InputVariable(name)), depth, stack, expr.span,
                                                           lambda d, s: self.trace_variable(var, env, d, s)))
            return self.apply_steps(prepend(result, S.NameRef("var", name, span=var.label_span)), steps[1:], env, depth, stack, expr.span)
        if root == "local" and name:
            local = module.locals.get(name)
            if local is None:
                return Unbounded(f"{LocalValue(name)} is not declared", "undefined", expr.span)
            plain_env = Env(env.path)
            result = self._value_of(steps, lambda: self.hop(("local", env.path, name, self._universe_key()), str(LocalValue(name)), depth, stack, expr.span,
                                                           lambda d, s: self.trace(local.attribute.expr, plain_env, d, s)))
            return self.apply_steps(prepend(result, S.NameRef("local", name, span=local.attribute.name_span)), steps[1:], env, depth, stack, expr.span)
        if root == "module" and name:
            return self.trace_module_ref(module, name, steps[1:], env, depth, stack, expr)
        if root in env.iterators:
            return self.trace_iterator(root, steps, env, depth, stack, expr)
        if root in ("each", "count"):
            return Unbounded(f"{text} is used outside a block with {'for_each' if root == 'each' else 'count'}", "invalid", expr.span)
        if root == "data":
            return self.trace_data(module, steps, env, text, expr)
        if root == "path":
            if name == "module":
                relative = posixpath.relpath(env.dir or ".", env.path[0][1] or ".")
                return (Branch(relative, C.TRUE, (S.Prim("path.module"),), expr.span),)
            if name == "root":
                return (Branch(".", C.TRUE, (S.Prim("path.root"),), expr.span),)
            return Unbounded(f"{text} depends on where Terraform runs", "invalid", expr.span)
        if root == "terraform":
            return Unbounded(f"{text} is chosen when Terraform runs", "invalid", expr.span)
        if root == "self":
            return Unbounded(f"depends on an apply-time value ({text})", "apply-time", expr.span)
        if name:
            self._touched.add((env.dir, f"{root}.{name}"))
        if name and f"{root}.{name}" in module.resources:
            return Unbounded(f"depends on an apply-time value ({text})", "apply-time", expr.span)
        return Unbounded(f"{text} is not declared", "undefined", expr.span)

    def _value_of(self, steps, lookup: Callable[[], Result]) -> Result:
        """A declaration's values; when attributes or indexes are read from it, not its own value: no universe."""
        return self.without_universe(lookup) if len(steps) > 1 else lookup()

    # ---- references -------------------------------------------------------------------

    def hop(self, key: tuple, label: str, depth: int, stack: tuple[str, ...], span: Span, compute) -> Result:
        """Follows one reference: depth and cycle checks, memoized per declaration and instance."""
        self.check()
        # The stack holds (memo key, label) pairs: a cycle is the same declaration in the same
        # module instance, not merely the same name (every module has its own var.engine_version).
        keys = [k for k, _ in stack]
        if key in keys:
            cycle = [lbl for _, lbl in stack[keys.index(key):]] + [label]
            self._cycle_hits += 1
            return Unbounded(f"cycle through {' -> '.join(cycle)}", "cycle", span)
        depth += 1
        if depth > self.limits.depth:
            self._deepest = max(self._deepest, depth)
            return Unbounded(f"depth limit {self.limits.depth} reached at {label}", "depth", span)
        shared = key[0] != "iter"
        entry = (self._memo if shared else self._local_memo).get(key)
        if entry is not None and depth + entry.depth_needed <= self.limits.depth:
            self._touched |= entry.touched
            self._deepest = max(self._deepest, depth + entry.depth_needed)
            self._may_fail = self._may_fail or entry.may_fail
            return entry.result
        outer_deepest, outer_cycles, outer_touched, outer_may_fail = self._deepest, self._cycle_hits, self._touched, self._may_fail
        self._deepest, self._touched, self._may_fail = depth, set(), False
        result = compute(depth, stack + ((key, label),))
        needed = self._deepest - depth
        touched = frozenset(self._touched)
        may_fail = self._may_fail
        if self._cycle_hits == outer_cycles and not (isinstance(result, Unbounded) and result.cause == "depth"):
            entry = MemoEntry(result, needed, touched, may_fail)
            self.memoized += 1
            if not shared:
                self._local_memo[key] = entry
            elif self._store is not None and self._store.memo is self._memo:
                self._store.keep(key, entry)
            else:
                self._memo[key] = entry
        self._deepest = max(outer_deepest, self._deepest)
        self._touched = outer_touched | touched
        self._may_fail = outer_may_fail or may_fail
        return result

    def trace_may_fail(self, expr: Expr, env: Env, depth: int, stack) -> tuple[Result, bool]:
        """Traces ``expr`` and says whether a failing combination was dropped on the way (for ``try``/``can``)."""
        outer = self._may_fail
        self._may_fail = False
        result = wholly_known(self.trace(expr, env, depth, stack))  # try and can wait for every member
        may_fail = self._may_fail
        self._may_fail = outer or may_fail
        return result, may_fail

    def trace_variable(self, var: Variable, env: Env, depth: int, stack) -> Result:
        """A variable's values: the caller's argument in a child module, else the root rules."""
        var_type = parse_type(var.type_expr, self._constant)
        if len(env.path) > 1:
            call_name, _ = env.path[-1]
            caller_dir = env.path[-2][1]
            self._touched.add((caller_dir, str(ModuleCall(call_name))))
            caller = self.view.modules.get(caller_dir)
            call = caller.calls.get(call_name) if caller else None
            argument = call.arguments.get(var.name) if call else None
            if argument is not None:
                caller_env = Env(env.path[:-1])
                caller_env = caller_env.with_iterators(block_iterators(call.body, caller_env))
                result = prepend(
                    self.trace(argument.expr, caller_env, depth, stack), S.ModCall(call_name, var.name, span=argument.name_span)
                )
                if isinstance(result, Unbounded) and result.cause in ("variable", "data", "function", "opaque"):
                    # Terraform checks a child's validation block too: only the values it lists pass.
                    selector = lift_variable(self.view, var.name, env.path)  # the value after the boundary
                    universe = self.validation_universe(var, env, var_type, selector) if _printed(selector) is not None else None
                    if universe is not None:
                        return universe
                return self._boundary(result, var, var_type, env, depth, stack, argument.expr.span)
            if var.default is not None:
                return convert_all(prepend(self.trace(var.default.expr, Env(env.path), depth, stack), S.Default(var.name, span=var.default.name_span)), var_type, str(InputVariable(var.name)), var.default.expr.span)
            return Unbounded(
                f"{ModuleCall(call_name)} does not pass {var.name}, and {InputVariable(var.name)} has no default value",
                "missing",
                call.label_span if call else var.label_span,
                (env.dir, var.name),
            )
        if self.assignment is not None and var.name in self.assignment:
            if self.assignment[var.name] is UNDECIDED:
                return Unbounded(f"the deployment sets {InputVariable(var.name)} to a value tfphi cannot evaluate", "unassigned",
                                 var.label_span, (env.dir, var.name))
            assigned = (Branch(self.assignment[var.name], C.TRUE, (S.Deployment(str(InputVariable(var.name))),), var.label_span),)
            return self._boundary(assigned, var, var_type, env, depth, stack, var.label_span)
        # Under a deployment, a variable its files leave unset takes its default, as in
        # `terraform plan -var-file=...`; otherwise a validation's values are what a caller may pass.
        universe = self.validation_universe(var, env, var_type, None) if self.assignment is None or var.default is None else None
        if universe is not None:
            return universe
        if var.default is not None:
            return convert_all(prepend(self.trace(var.default.expr, Env(env.path), depth, stack), S.Default(var.name, span=var.default.name_span)), var_type, str(InputVariable(var.name)), var.default.expr.span)
        if self.universe:
            try:
                values = [convert(v, var_type) for v in self.universe]
            except TfEvalError as exc:
                return Unbounded(
                    f"{InputVariable(var.name)} has no default value, and the values configured for {self.universe_label} "
                    f"do not fit its type ({exc})", "variable", var.label_span, (env.dir, var.name),
                )
            return tuple(
                Branch(v, C.eq(str(InputVariable(var.name)), v, _var_expr(var)), (S.Universe(self.universe_label), S.Prim(to_hcl(v))), var.label_span)
                for v in values
            )
        if var_type.kind == "bool":
            return tuple(
                Branch(v, C.eq(str(InputVariable(var.name)), v, _var_expr(var)), (S.TypeBool(span=var.label_span), S.Prim(to_hcl(v))), var.label_span)
                for v in (True, False)
            )
        return Unbounded(
            f"{InputVariable(var.name)} has no default value, and no validation block lists the allowed values",
            "variable",
            var.label_span,
            (env.dir, var.name),
        )

    def _boundary(self, result: Result, var: Variable, var_type, env: Env, depth: int, stack, span: Span) -> Result:
        """A value crossing a variable boundary, as Terraform applies it: ``null`` given to a
        ``nullable = false`` variable is its default (an error without one), then the value is
        converted to the declared type."""
        if isinstance(result, Unbounded) or var.nullable or not any(b.value is None for b in result):
            return convert_all(result, var_type, str(InputVariable(var.name)), span)
        default: Result = ()
        if var.default is not None:
            default = prepend(self.trace(var.default.expr, Env(env.path), depth, stack), S.Default(var.name, span=var.default.name_span))
            if isinstance(default, Unbounded):
                return default
        out: list[Branch] = []
        for branch in result:
            if branch.value is not None:
                out.append(branch)
            elif not default:
                self._may_fail = True  # Terraform rejects null for a non-nullable variable without a default
            else:
                out.extend(Branch(d.value, d.cond, branch.path + d.path, d.source) for d in gated(default, branch.cond))
        if not out:
            return Unbounded(f"{InputVariable(var.name)} is not nullable and has no default, but is given null", "error", span)
        return convert_all(tuple(out), var_type, str(InputVariable(var.name)), span)

    def validation_universe(self, var: Variable, env: Env, var_type, root_selector: Expr | None) -> Result | None:
        """One branch per value a validation block allows, gated ``Eq(var.x, v)``; ``root_selector`` is var.x in
        the root's terms (a tree; None in the root module, where it is var.x itself)."""
        lifted = lift_validation_universe(var)
        if lifted is None:
            return None
        branches = []
        for value, span in lifted:
            try:
                value = convert(value, var_type)
            except TfEvalError:
                continue
            atom = C.eq(str(InputVariable(var.name)), value, _var_expr(var), env.scope, root_selector=root_selector)
            branches.append(Branch(value, atom, (S.Validation(var.name, span=var.label_span), S.Prim(to_hcl(value))), span))
        return self.limit(tuple(branches), var.label_span)

    def trace_iterator(self, root: str, steps, env: Env, depth, stack, expr) -> Result:
        iteration = env.iterators[root]
        attr = steps[0].name if steps and isinstance(steps[0], AttrStep) else None
        allowed = ("index",) if iteration.kind == "count" else ("key", "value")
        if attr not in allowed:
            return Unbounded(f"{self.view.text(expr.span)} is not an iterator attribute", "invalid", expr.span)
        label = f"{root}.{attr}"
        result = self.hop(("iter", root, id(iteration.attribute), env.path), f"{root}.{'key' if attr == 'value' else attr}", depth, stack, expr.span,
                          lambda d, s: self.without_universe(lambda: self._iterate(iteration, root, d, s)))
        if isinstance(result, Unbounded):
            return result
        if attr == "value":
            picked = tuple(Branch(value, cond, path + (S.Iter(label, to_hcl(key)),), source)
                           for key, value, cond, path, source in result)  # type: ignore[misc]
        else:  # the key or index is the instance's own: the element's path and source are not its
            where = iteration.attribute.expr.span
            picked = tuple(Branch(key, cond, (S.Iter(label, to_hcl(key)),), where)
                           for key, value, cond, path, source in result)  # type: ignore[misc]
        return self.apply_steps(picked, steps[1:], env, depth, stack, expr.span)

    def _iterate(self, iteration: Iteration, root: str, depth, stack):
        """The entries of an iterated collection: (key, value, condition, path, source) per instance."""
        collection_expr = iteration.attribute.expr
        selector = f"{root}.index" if iteration.kind == "count" else f"{root}.key"
        entries: list[tuple] = []
        if iteration.kind == "count":
            counts = self.trace(collection_expr, iteration.env, depth, stack)
            if isinstance(counts, Unbounded):
                return counts
            for branch in counts:
                try:
                    n = int(to_number(branch.value))
                except TfEvalError as exc:
                    return Unbounded(f"count is not a number: {exc}", "error", collection_expr.span)
                for i in range(n):
                    entries.append((i, i, branch.cond, branch.path, branch.source))
        elif isinstance(collection_expr, ObjectExpr) and self._static_keys(collection_expr, iteration.env, depth, stack):
            for key_expr, value_expr in collection_expr.items:
                keys = self.trace(key_expr, iteration.env, depth, stack)
                values = self.trace(value_expr, iteration.env, depth, stack)
                for part in (keys, values):
                    if isinstance(part, Unbounded):
                        return part
                for k in keys:  # type: ignore[union-attr]
                    for v in values:  # type: ignore[union-attr]
                        cond = C.conjoin(k.cond, v.cond)
                        if cond is not None:
                            entries.append((to_string(k.value), v.value, cond, v.path, v.source))
        else:
            collections = self.trace(collection_expr, iteration.env, depth, stack)
            if isinstance(collections, Unbounded):
                return collections
            for branch in collections:
                value = branch.value
                if isinstance(value, dict):  # each element's path is its own part of the collection's
                    entries.extend((k, v, branch.cond, S.select(branch.path, k), branch.source) for k, v in sorted(value.items()))
                elif isinstance(value, list):
                    entries.extend((v if iteration.kind == "each" else i, v, branch.cond, S.select(branch.path, str(i)), branch.source)
                                   for i, v in enumerate(value))
                else:
                    return Unbounded("for_each needs a map or a set of strings", "error", collection_expr.span)
        gated = []
        for key, value, cond, path, source in entries:
            full = C.conjoin(cond, C.eq(selector, key, None, iteration.env.scope, iteration=True))
            if full is not None:
                gated.append((key, value, full, path, source))
        if len(gated) > self.limits.branches:
            return Unbounded(f"bounded, but too large to specialize: {len(gated)} values > {self.limits.branches}", "size", collection_expr.span)
        return tuple(gated)

    def _static_keys(self, expr: ObjectExpr, env: Env, depth: int, stack) -> bool:
        """Whether an object constructor's keys are each one known value, all different: then its
        entries are its items. Otherwise a key decided by a condition may repeat a later key, and
        the later one wins: only the whole object, per branch, says which entries there are."""
        seen: set[str] = set()
        for key_expr, _ in expr.items:
            keys = self.trace(key_expr, env, depth, stack)
            if isinstance(keys, Unbounded):
                return True  # the entry-wise walk reports it
            if len(keys) != 1 or not isinstance(keys[0].cond, C.TrueCond):
                return False
            try:
                key = to_string(keys[0].value)
            except TfEvalError:
                return True
            if key in seen:
                return False
            seen.add(key)
        return True

    def trace_data(self, module: Module, steps, env: Env, text: str, expr) -> Result:
        names = [s.name for s in steps[:2] if isinstance(s, AttrStep)]
        if len(names) == 2:
            self._touched.add((env.dir, str(ResourceAddr('data', names[0], names[1]))))
        if len(names) < 2 or f"{names[0]}.{names[1]}" not in module.data:
            return Unbounded(f"{text} is not declared", "undefined", expr.span)
        if self.universe and env.in_root:
            return tuple(
                Branch(v, C.eq(text, v, expr), (S.Data(text), S.Universe(self.universe_label), S.Prim(to_hcl(v))), expr.span)
                for v in self.universe
            )
        if self.universe:
            return Unbounded(
                f"{text} is read from the provider inside {env.scope}, where a gate in the root module cannot read it",
                "data",
                expr.span,
            )
        return Unbounded(
            f"{text} is read from the provider at plan time; configure a universe for this field to trace it",
            "data",
            expr.span,
        )

    # ---- combining branch sets ----------------------------------------------------------

    def apply_steps(self, result: Result, steps, env: Env, depth, stack, span: Span) -> Result:
        """Attribute access, indexing and splats applied to every branch."""
        if not steps or isinstance(result, Unbounded):
            return result
        step, rest = steps[0], tuple(steps[1:])
        if isinstance(step, SplatStep):
            def splat(values: list[Value]) -> Value:
                value = values[0]
                items = [] if value is None else value if isinstance(value, list) else [value]
                out = []
                for item in items:
                    sub = self.apply_steps((Branch(item, C.TRUE, (), None),), rest, env, depth, stack, span)
                    if isinstance(sub, Unbounded) or len(sub) != 1:
                        raise TfEvalError("splat over a value that is not fully known")
                    out.append(sub[0].value)
                return out

            return self.combine([result], splat, S.Op("Splat"), span, keep_source=True)
        if isinstance(step, AttrStep):
            name = step.name
            def attribute(v: list[Value]) -> Value:
                known_operands(v)
                return get_attribute(v[0], name)

            stepped = self.combine([result], attribute, S.Op(f"GetAttr {name}"), span, keep_source=True, silent=True, partial=True)
            stepped = select(stepped, name)
        else:
            key = self.trace(step.key, env, depth, stack)
            def index(v: list[Value]) -> Value:
                known_operands(v)
                return get_index(v[0], v[1])

            stepped = self.combine([result, aside(key)], index, S.Op("Index"), span, keep_source=True, silent=True, partial=True)
            if isinstance(step.key, LiteralExpr) and (isinstance(step.key.value, str) or is_number(step.key.value)):
                stepped = select(stepped, to_string(step.key.value))
        return self.apply_steps(stepped, rest, env, depth, stack, span)

    def combine(
        self,
        results: Sequence[Result],
        fn: Callable[[list[Value]], Value],
        label: S.Op,
        span: Span,
        keep_source: bool = False,
        silent: bool = False,
        keys_of: Callable[[list[Value]], tuple] | None = None,
        partial: bool = False,
    ) -> Result:
        """The cross product of operand branch sets, each combination mapped through ``fn``.

        Contradictory combinations are dropped; combinations that fail to evaluate are dropped
        too (Terraform would reject them); if all fail the result is an evaluation error. Only a
        ``partial`` ``fn`` is given partly known values (``partial``); for any other, an unknown
        member makes the result Unbounded.
        """
        for result in results:
            if isinstance(result, Unbounded):
                return result
        sets: list[tuple[Branch, ...]] = list(results)  # type: ignore[arg-type]
        raw = 1
        for s in sets:
            raw *= len(s)
        if raw > self.limits.branches * CROSS_PRODUCT_SLACK:
            return Unbounded(f"bounded, but too large to specialize: {raw} values > {self.limits.branches}", "size", span)
        out: list[Branch] = []
        error: str | None = None
        for combo in itertools.product(*sets):
            cond: C.Cond | None = C.TRUE
            for b in combo:
                cond = C.conjoin(cond, b.cond)
                if cond is None:
                    break
            if cond is None:
                continue
            try:
                values = [b.value for b in combo]
                if not partial:
                    known(values)
                value = fn(values)
            except UnknownResult as unknown:
                return unknown.unknown.unbounded
            except TfEvalError as exc:
                # Terraform rejects this combination; other exceptions are our bugs and reach the guard.
                error = error or str(exc)
                self._may_fail = True
                continue
            except TfUnrepresentable as exc:
                return Unbounded(f"{label} gives a value tfphi cannot hold: {exc}", "invalid", span)
            except (RecursionError, OverflowError) as exc:
                return Unbounded(f"{label} cannot be evaluated here ({type(exc).__name__})", "invalid", span)
            path: tuple[S.Step, ...] = ()
            for b in combo:
                path += b.path
            if not silent:
                step = label.with_sizes(tuple(len(b.path) for b in combo))
                if keys_of is not None:
                    step = with_keys(step, keys_of([b.value for b in combo]))
                path = (step,) + path
            source = combo[0].source if keep_source and combo else span
            out.append(Branch(value, cond, path, source))
        if not out and error is not None:
            return Unbounded(f"{label} fails: {error}", "error", span)
        return self.limit(tuple(out), span)

    def limit(self, branches: tuple[Branch, ...], span: Span) -> Result:
        if len(branches) > self.limits.branches:
            return Unbounded(f"bounded, but too large to specialize: {len(branches)} values > {self.limits.branches}", "size", span)
        return branches

    def _constant(self, expr: Expr) -> Value:
        """Evaluates a constant expression (``optional(T, default)``'s default), or None."""
        result = Tracer(self.view, self.limits).trace(expr, Env((("", ""),)), 0, ())
        if isinstance(result, Unbounded) or len(result) != 1:
            return None
        return result[0].value


_DISPATCH: dict[type, Callable] = {
    LiteralExpr: Tracer._literal,
    InvalidExpr: Tracer._invalid,
    ParenExpr: Tracer._paren,
    TemplateExpr: Tracer._template,
    TemplateJoinExpr: Tracer._template_join,
    BinaryOpExpr: Tracer._binary,
    UnaryOpExpr: Tracer._unary,
    TupleExpr: Tracer._tuple,
    ObjectExpr: Tracer._object,
    ConditionalExpr: Tracer._conditional,
    FunctionCallExpr: Tracer._call,
    ForExpr: Tracer._for,
    RelativeTraversalExpr: Tracer._relative,
    ScopeTraversalExpr: Tracer._scope,
}


# ---- helpers ------------------------------------------------------------------------------


def _var_expr(var: Variable) -> Any:
    return ("var", var.name)


def _passes_value(expr: Expr) -> bool:
    """Whether ``expr``'s value is one of its operands' own values (``"${x}"`` included)."""
    if isinstance(expr, _VALUE_PASSING):
        return True
    return isinstance(expr, TemplateExpr) and len(expr.parts) == 1 and isinstance(expr.parts[0], Expr) and not expr.always_string


def _printed(expr: Expr | None) -> str | None:
    try:
        return P.print_expr(expr) if expr is not None else None
    except P.NotPrintable:
        return None


def existing_cond(expr: Expr, text: str, scope: ModuleInstance, root_expr: Expr | None) -> C.Existing:
    """``Existing(expr)`` in ``scope``, remembering how tightly the expression binds for materialization."""
    return C.Existing(one_line(text), expr, P.precedence(expr), scope, root_expr)
