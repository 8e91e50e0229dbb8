"""The tracer's rule for ``module.<call>.<output>``: the output traced in the called module's
instance, for one instance (``module.x[0]``, ``module.x["k"]``), every instance (``module.x[*]``),
or the call itself. A part of ``Tracer`` (its base class), kept apart for the size of the whole."""

from __future__ import annotations

from ..addrs import ModuleCall, ModuleCallOutput, OutputValue
from ..records import replace
from ..stir.model import Module
from ..stir.workspace import CallPath
from ..syntax.expr import AttrStep, Expr, IndexStep, SplatStep, Step
from ..values.value import TfEvalError, is_number, to_hcl
from . import conditions as C
from . import steps as S
from .branches import instance_key, prepend
from .env import Env
from .result import Branch, Result, Unbounded


class ModuleReferences:
    """``Tracer``'s module-reference rules; they use its ``hop``, ``trace`` and ``apply_steps``."""

    def trace_module_ref(self, module: Module, call_name: str, steps: tuple[Step, ...], env: Env, depth, stack, expr) -> Result:
        self._touched.add((env.dir, str(ModuleCall(call_name))))
        call = module.calls.get(call_name)
        if call is None:
            return Unbounded(f"{ModuleCall(call_name)} is not declared", "undefined", expr.span)
        target = self.view.tree.targets.get((env.dir, call_name))
        if target is None or target.dir is None:
            return Unbounded(target.opaque_reason if target else f"{ModuleCall(call_name)} cannot be resolved", "opaque", call.label_span)
        iterated = "count" if "count" in call.body.attributes else "for_each" if "for_each" in call.body.attributes else None
        rest = list(steps)
        key_step = None
        splat = bool(rest) and isinstance(rest[0], SplatStep)
        if splat:
            rest.pop(0)
        elif iterated is None and rest and isinstance(rest[0], IndexStep):
            return Unbounded(f"{ModuleCall(call_name)} has no count or for_each: it has no instance keys", "error", expr.span)
        elif iterated is not None:
            if not rest or not isinstance(rest[0], IndexStep):
                return Unbounded(f"{ModuleCall(call_name)} as a whole object is not traced; reference one instance's output", "invalid", expr.span)
            key_step = rest.pop(0)
        if not rest or not isinstance(rest[0], AttrStep):
            return Unbounded(f"{ModuleCall(call_name)} as a whole object is not traced; reference one of its outputs", "invalid", expr.span)
        output_name = rest[0].name
        self._touched.add((target.dir, str(OutputValue(output_name))))
        child = self.view.modules.get(target.dir)
        output = child.outputs.get(output_name) if child else None
        if output is None or output.value is None:
            return Unbounded(f"{ModuleCall(call_name)} has no output {output_name!r}", "undefined", expr.span)
        child_path = env.path + ((call_name, target.dir),)
        if any(frame[1] == target.dir for frame in env.path):
            return Unbounded(f"cycle through {ModuleCall(call_name)} ({target.dir} calls itself)", "cycle", expr.span)
        label = str(ModuleCallOutput(call_name, output_name))
        result = self._value_of(rest, lambda: self.hop(("output", child_path, output_name, self._universe_key()), label, depth, stack, expr.span,
                                                       lambda d, s: self._trace_output(output.value.expr, child_path, d, s)))
        if splat:
            result = self._every_instance(call, iterated, result, tuple(rest[1:]), env, depth, stack, expr)
            rest = rest[:1]  # the steps after the output's name applied to each instance's value
        elif key_step is not None:
            result = self._one_instance(call, iterated, key_step, result, env, depth, stack, expr)
        if isinstance(result, Unbounded) and result.cause == "apply-time":
            # Name the apply-time value as this module sees it (module.master.arn), not only as
            # the child declares it (aws_db_instance.this.arn).
            result = replace(result, through=(label, expr.span))
        result = prepend(result, S.Output(call_name, output_name, span=output.label_span))
        return self.apply_steps(result, tuple(rest[1:]), env, depth, stack, expr.span)

    def _every_instance(self, call, iterated: str | None, output: Result, steps, env: Env, depth, stack, expr) -> Result:
        """``module.m[*].out``: the list of every instance's output, in index order, one branch per
        instance count (``count``'s branches); the steps after ``out`` apply to each instance's
        value, as a splat's do. A call without count or for_each is one instance: ``[out]``."""
        if isinstance(output, Unbounded):
            return output
        if iterated is None:
            one = self.apply_steps(output, steps, env, depth, stack, expr.span)
            return self.combine([one], lambda v: [v[0]], S.Op("Splat"), expr.span, keep_source=True)
        if iterated == "for_each":
            return Unbounded(f"{ModuleCall(call.name)} has for_each: {ModuleCall(call.name)}[*] is not a list of its instances; "
                             f"reference one instance ({ModuleCall(call.name)}[\"key\"])", "invalid", expr.span)
        counts = self.without_universe(lambda: self.trace(call.body.attributes["count"].expr, env, depth, stack))
        if isinstance(counts, Unbounded):
            return counts
        out: list[Branch] = []
        for count in counts:
            n = count.value
            if isinstance(n, bool) or not is_number(n) or n < 0 or n != int(n):
                return Unbounded(f"the count of {ModuleCall(call.name)} is not a whole number ({to_hcl(n)})", "error", expr.span)
            instances: list[Result] = []
            for index in range(int(n)):
                branches = []
                for branch in output:  # type: ignore[union-attr]
                    fixed = C.fix_iteration(branch.cond, env.scope, "count.index", index)
                    joined = C.conjoin(count.cond, fixed) if fixed is not None else None
                    if joined is not None:
                        branches.append(Branch(branch.value, joined, branch.path, branch.source))
                instances.append(self.apply_steps(tuple(branches), steps, env, depth, stack, expr.span))
            listed = self.combine(instances, list, S.Op("Splat"), expr.span) if instances else (Branch([], count.cond, (S.Op("Splat"),), expr.span),)
            if isinstance(listed, Unbounded):
                return listed
            out.extend(listed)
        return self.limit(tuple(out), expr.span)

    def _one_instance(self, call, iterated: str, key_step: IndexStep, output: Result, env: Env, depth, stack, expr) -> Result:
        """``module.m[key].out``: the output of that instance, where it exists (elsewhere Terraform fails).

        The instance set comes from the call's ``count``/``for_each``; the output's branches that
        belong to another instance (its ``each.key``/``count.index`` atoms) are left out.
        """
        if isinstance(output, Unbounded):
            return output
        instances = self.without_universe(lambda: self.trace(call.body.attributes[iterated].expr, env, depth, stack))
        keys = self.without_universe(lambda: self.trace(key_step.key, env, depth, stack))
        for part in (instances, keys):
            if isinstance(part, Unbounded):
                return part
        selector = "count.index" if iterated == "count" else "each.key"
        out: list[Branch] = []
        for inst in instances:  # type: ignore[union-attr]
            for key in keys:  # type: ignore[union-attr]
                cond = C.conjoin(inst.cond, key.cond)
                if cond is None:
                    continue
                try:
                    present, key_value = instance_key(iterated, inst.value, key.value)
                except TfEvalError:
                    present = False
                if not present:
                    self._may_fail = True  # the instance does not exist: Terraform fails to index it
                    continue
                for branch in output:
                    fixed = C.fix_iteration(branch.cond, env.scope, selector, key_value)
                    joined = C.conjoin(cond, fixed) if fixed is not None else None
                    if joined is not None:
                        out.append(Branch(branch.value, joined, branch.path, branch.source))
        if not out:
            return Unbounded(f"{ModuleCall(call.name)}[{self.view.text(key_step.key.span)}] never exists", "error", expr.span)
        return self.limit(tuple(out), expr.span)

    def _trace_output(self, expr: Expr, path: CallPath, depth, stack) -> Result:
        return self.trace(expr, Env(path), depth, stack)
