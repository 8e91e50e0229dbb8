"""Which specialization each deployment activates, and its root-module ``moved`` file (SPEC 7).

Terraform accepts one ``moved`` block per address, and the branch that is active depends on the
variables a deployment sets. So each deployment gets ``moved/<deployment>.tf`` with the move to
the branch its values select; copied into the root with the state of the original
configuration, the first plan shows only moves.

The branch is found as Terraform finds it: the generated ``count = <gate> ? 1 : 0`` expressions
are traced in the specialized configuration with the deployment's values. The field itself is
traced with the same values in the original, and the two must agree: a move is written only
when exactly one gate holds and its module carries the value the original takes. Otherwise the
file says why (which variable is missing, or which value no specialization covers), never a
guess: a move to the wrong branch plans a destroy and a create.
"""

from __future__ import annotations

import json
from ..addrs import InputVariable, ModuleCall
from ..records import record

from ..analysis import Analysis, AnalysisHost, SetParsed, SetSource
from ..stir.model import Resource
from ..trace.result import RESOLVED, TraceResult
from ..trace.env import Env, SourceView
from ..values.value import Value, to_hcl, value_key
from ..features.deployment_outcomes import AssignedTracer, Deployment, Outcome, deployment_values, unassigned
from .fmt import align
from .specializer import COMPILER_VERSION, INDENT, Plan, Specialization


@record(frozen=True)
class DeploymentBranch:
    """One deployment and the specialization it activates (``spec``), or why none is moved to (``problem``)."""

    deployment: Deployment
    outcome: Outcome  # the original field under the deployment
    spec: Specialization | None
    problem: tuple[str, ...] = ()  # comment lines when no move is written
    moves: tuple[tuple[str, str], ...] = ()  # (from, to) root-module addresses, one per module instance


def served_by(named_values: list[tuple[str, Value]], outcomes: list[Outcome]) -> dict[str, list[str]]:
    """Specialization name -> the deployment files whose values give the field its value."""
    by_value = {value_key(value): name for name, value in named_values}
    out: dict[str, list[str]] = {}
    for outcome in outcomes:
        name = by_value.get(value_key(outcome.value)) if outcome.decided else None
        if name is not None:
            out.setdefault(name, []).append(outcome.deployment.file)
    return out


def deployment_branches(analysis: Analysis, plan: Plan, trace: TraceResult, resource: Resource,
                        field_name: str) -> list[DeploymentBranch]:
    """Every deployment of the field's root with the branch whose gate holds under its values."""
    outcomes = deployment_values(analysis, trace, resource, field_name)
    gated = [s for s in plan.specializations if s.gate is not None]
    if not outcomes:
        return []
    if not gated:  # one ungated module: every deployment is served by it, the move is inline
        return [DeploymentBranch(o.deployment, o, plan.specializations[0]) for o in outcomes]
    specialized = _specialized_analysis(analysis, plan)
    return [_branch(specialized, plan, outcome) for outcome in outcomes]


def _specialized_analysis(analysis: Analysis, plan: Plan) -> Analysis:
    """The workspace as it is after specialization (in memory: nothing is written)."""
    out = AnalysisHost(analysis.config)
    out.apply_change([SetParsed(hcl) for path, hcl in analysis.files.items() if path not in plan.files])
    out.apply_change([SetSource(path, text.encode("utf-8")) for path, text in plan.files.items()])
    return out.snapshot()


def _branch(specialized: Analysis, plan: Plan, outcome: Outcome) -> DeploymentBranch:
    deployment = outcome.deployment
    tracer = AssignedTracer(SourceView(specialized.modules, specialized.tree, specialized.text), specialized.config.limits, deployment)
    host = specialized.modules[plan.host_dir]
    active: list[Specialization] = []
    missing: set[str] = set()
    for spec in plan.specializations:
        count = host.calls[spec.name].body.attributes["count"]
        result, _ = tracer.trace_attribute(f"{ModuleCall(spec.name)}.count", count, Env(plan.call_path))
        if result.kind == RESOLVED and result.branches[0].value in (0, 1):
            if result.branches[0].value == 1:
                active.append(spec)
        else:
            missing |= set(unassigned(tracer, result)) or {"?"}
    file = deployment.file
    if missing:
        names = sorted(missing - {"?"}) or sorted(outcome.missing)
        unset = [n for n in names if n not in deployment.unreadable]
        unreadable = [n for n in names if n in deployment.unreadable]
        lines = [f"No moved block: which specialization of {plan.address} is active depends on"]
        if unset:
            lines.append(f"{', '.join(f'{InputVariable(n)}' for n in unset)}, which {file} does not set.")
        if unreadable:
            lines.append(f"{', '.join(f'{InputVariable(n)}' for n in unreadable)}, which {file} sets to a value tfphi cannot evaluate.")
        if not names:
            lines.append(f"values {file} does not decide ({outcome.reason or 'unknown'}).")
        lines.append("Set a literal value there and run tfphi specialize again.")
        return DeploymentBranch(deployment, outcome, None, tuple(lines))
    if not active:
        value = f"the value {to_hcl(outcome.value)}" if outcome.decided else "values"
        return DeploymentBranch(deployment, outcome, None, (
            f"No moved block: no specialization's gate holds for {file}: it gives {plan.address}",
            f"{value} outside the ones the trace found.",
        ))
    if len(active) > 1 or (outcome.decided and value_key(outcome.value) != value_key(active[0].value)):
        names = ", ".join(str(ModuleCall(s.name)) for s in active)
        took = f"{plan.address} is {to_hcl(outcome.value)} there" if outcome.decided else "the field is undecided there"
        return DeploymentBranch(deployment, outcome, None, (
            f"No moved block: with {file}'s values the gates activate {names}, but {took}.",
            "This is a tfphi bug (please report it); moving to the wrong branch would destroy and recreate.",
        ))
    spec = active[0]
    if spec.moved_from is None:
        return DeploymentBranch(deployment, outcome, spec, (f"{plan.address} is in a data source: there is no state to move.",))
    prefixes = _instance_prefixes(specialized, tracer, plan)
    if isinstance(prefixes, str):
        return DeploymentBranch(deployment, outcome, None, (f"No moved block: {prefixes}.",
                                                             "Set a literal value there and run tfphi specialize again."))
    unkeyed = "".join(f"{ModuleCall(call)}." for call, _ in plan.call_path[1:])
    local_from, local_to = spec.moved_from[len(unkeyed):], spec.moved_to[len(unkeyed):]
    moves = tuple((prefix + local_from, prefix + local_to) for prefix in prefixes)
    if not moves:
        return DeploymentBranch(deployment, outcome, spec, (f"No moved block: {file} creates no instance of "
                                                            f"{unkeyed.rstrip('.')}, so there is no state to move.",))
    return DeploymentBranch(deployment, outcome, spec, moves=moves)


def _instance_prefixes(specialized: Analysis, tracer: AssignedTracer, plan: Plan) -> list[str] | str:
    """``module.a[0].module.b["x"].`` for every module instance on the call path under the deployment.

    Terraform ignores a ``moved`` block whose module path lacks the instance keys of a module
    called with ``count``/``for_each`` (the plan then destroys and creates), so each instance gets
    its own block. Returns why not when the deployment does not decide the instances."""
    prefixes = [""]
    for i in range(1, len(plan.call_path)):
        call_name = plan.call_path[i][0]
        call = specialized.modules[plan.call_path[i - 1][1]].calls[call_name]
        attr = call.count or call.for_each
        if attr is None:
            prefixes = [p + f"{ModuleCall(call_name)}." for p in prefixes]
            continue
        result, _ = tracer.trace_attribute(f"{ModuleCall(call_name)}.{attr.name}", attr, Env(plan.call_path[:i]))
        if result.kind != RESOLVED:
            missing = unassigned(tracer, result)
            what = f"{', '.join(str(InputVariable(name)) for name in sorted(set(missing)))}, which {tracer.deployment.file} does not set" if missing else result.reason
            return f"the instances of {ModuleCall(call_name)} depend on {what}"
        value = result.branches[0].value
        if call.count is not None:
            keys = [f"[{n}]" for n in range(int(value))]
        else:
            items = value.keys() if isinstance(value, dict) else value
            keys = [f"[{json.dumps(k)}]" for k in sorted(items)]
        prefixes = [p + f"{ModuleCall(call_name)}{k}." for p in prefixes for k in keys]
    return prefixes


def moved_file(plan: Plan, branch: DeploymentBranch) -> str:
    """The text of ``moved/<deployment>.tf``: the move to the active branch, or why there is none."""
    file = branch.deployment.file
    command = "terraform plan" if branch.deployment.auto_loaded else f"terraform plan -var-file={file}"
    head = f"# Generated by {COMPILER_VERSION} for {file} ({command}).\n"
    spec = branch.spec
    if not branch.moves:
        return head + "".join(f"# {line}\n" for line in branch.problem)
    blocks = "\n".join(f"moved {{\n{INDENT}from = {old}\n{INDENT}to = {new}\n}}\n" for old, new in branch.moves)
    return align(
        head
        + f"# {plan.address} is {to_hcl(spec.value)} there, so {ModuleCall(spec.name)} is the active branch. Copy this\n"
        + "# file into the root module before the first plan: the state moves, nothing is destroyed.\n"
        + blocks
    )
