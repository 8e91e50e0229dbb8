"""A root's deployments, and the value a field takes under each (SPEC section 2).

A deployment is a variable assignment: Terraform applies ``terraform.tfvars`` and
``*.auto.tfvars`` (in lexical order), then the ``-var-file`` on top. The specializer needs two
things from it: which branch a deployment activates (its ``moved`` blocks, the code lens) and,
when its values do not decide that, which variable is missing.

Discovery and layering are ``stir.deployments``'; this module adds what the specializer (and the
diagnostics about values a deployment gives a field) need:
the deployment's ``moved/<name>.tf`` name, and tracing a field with the root's variables set
exactly as Terraform sets them (the file's value, else the default, else *unset*: a deployment
that leaves a variable unset does not decide what depends on it).
"""

from __future__ import annotations

import re
from typing import Mapping

from ..addrs import InputVariable
from ..analysis import Analysis
from ..records import record, field
from ..stir.deployments import is_auto_loaded
from ..stir.deployments import root_deployments as discovered_deployments
from ..stir.model import Resource, Variable
from ..trace import conditions as C
from ..trace import steps as S
from ..trace.result import UNBOUNDED, Branch, TraceResult, Unbounded
from ..trace.branches import convert_all, prepend
from ..trace.env import Env, SourceView
from ..trace.result import Result
from ..trace.tracer import Tracer
from ..evaluate.type_constraints import parse_type
from ..values.types import convert
from ..values.value import TfEvalError, Value, to_hcl

@record(frozen=True)
class Deployment:
    """One way the root is planned: ``terraform plan -var-file=<file>`` (or a plain plan)."""

    file: str  # relative to the root module's directory
    values: Mapping[str, Value] = field(default_factory=dict)
    unreadable: tuple[str, ...] = ()  # variables the files set to something tfphi cannot evaluate

    @property
    def auto_loaded(self) -> bool:
        """Whether a plain ``terraform plan`` is this deployment (``terraform.tfvars``, ``*.auto.tfvars``)."""
        return "/" not in self.file and is_auto_loaded(self.file)

    @property
    def name(self) -> str:
        """``env/prod.tfvars`` -> ``env_prod`` (the name of its ``moved/<name>.tf``)."""
        stem = re.sub(r"\.tfvars(\.json)?$", "", self.file)
        return stem.replace("/", "_") if stem != "." else "terragrunt"  # "." : the Terragrunt unit in DIR itself


def root_deployments(analysis: Analysis, root: str) -> list[Deployment]:
    """The root's deployments (``stir.deployments``: its variable files, layered as Terraform layers them)."""
    out = []
    for found in discovered_deployments(analysis, root):
        unreadable = tuple(sorted(name for name in found.set_by if name not in found.assignment))
        out.append(Deployment(found.name, dict(found.assignment), unreadable))
    return out


# ---- tracing under a deployment ---------------------------------------------------------------


class AssignedTracer(Tracer):
    """The tracer with the root module's variables set as Terraform sets them for one deployment:
    the file's value, else the default, else nothing (the deployment does not decide)."""

    def __init__(self, view: SourceView, limits, deployment: Deployment):
        super().__init__(view, limits)
        self.deployment = deployment

    def trace_variable(self, var: Variable, env: Env, depth: int, stack) -> Result:
        if len(env.path) > 1:
            return super().trace_variable(var, env, depth, stack)
        var_type = parse_type(var.type_expr, self._constant)
        if var.name in self.deployment.values:
            value = self.deployment.values[var.name]
            try:
                value = convert(value, var_type)
            except TfEvalError as exc:
                return Unbounded(f"{self.deployment.file} sets {InputVariable(var.name)} to {to_hcl(value)}: {exc}", "invalid", var.label_span)
            return (Branch(value, C.TRUE, (S.Deployment(self.deployment.file), S.Prim(to_hcl(value))), var.label_span),)
        if var.default is not None:
            result = prepend(self.trace(var.default.expr, Env(env.path), depth, stack), S.Default(var.name, span=var.default.name_span))
            return convert_all(result, var_type, str(InputVariable(var.name)), var.default.expr.span)
        if var.name in self.deployment.unreadable:
            return Unbounded(f"{self.deployment.file} sets {InputVariable(var.name)} to a value tfphi cannot evaluate", "unassigned",
                             var.label_span, (env.dir, var.name))
        return Unbounded(f"{self.deployment.file} does not set {InputVariable(var.name)}", "unassigned", var.label_span, (env.dir, var.name))


@record(frozen=True)
class Outcome:
    """What a field is under one deployment: its value, or why the deployment does not decide it."""

    deployment: Deployment
    decided: bool
    value: Value = None
    missing: tuple[str, ...] = ()  # root variables the deployment would have to set
    reason: str | None = None


def field_under(analysis: Analysis, trace: TraceResult, resource: Resource, field_path: tuple[str, ...],
                deployment: Deployment) -> Outcome:
    """The value ``trace``'s field takes when the root is planned with ``deployment``."""
    tracer = AssignedTracer(SourceView(analysis.modules, analysis.tree, analysis.text), analysis.config.limits, deployment)
    result, _ = tracer.trace_field(trace.call_path, resource, field_path)
    values = {to_hcl(b.value): b.value for b in result.branches}
    if result.kind != UNBOUNDED and len(values) == 1:
        return Outcome(deployment, True, next(iter(values.values())))
    missing = tuple(sorted(set(unassigned(tracer, result))))
    reason = result.reason if result.kind == UNBOUNDED else f"the value still depends on {result.selector or 'a condition'}"
    return Outcome(deployment, False, missing=missing, reason=reason)


def unassigned(tracer: AssignedTracer, result: TraceResult) -> list[str]:
    """Every root variable the trace met that the deployment leaves unset (not only the first)."""
    found = [result.unbounded] + [entry.result for memo in (tracer._memo, tracer._local_memo) for entry in memo.values()]
    return [u.variable[1] for u in found if isinstance(u, Unbounded) and u.cause == "unassigned" and u.variable]


def deployment_values(analysis: Analysis, trace: TraceResult, resource: Resource, field_name: str) -> list[Outcome]:
    """The field's value under every deployment of its root (what the code lens shows)."""
    root = trace.call_path[0][1] if trace.call_path else ""
    path = tuple(field_name.split("."))
    return [field_under(analysis, trace, resource, path, d) for d in root_deployments(analysis, root)]
