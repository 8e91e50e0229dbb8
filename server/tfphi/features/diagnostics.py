"""Diagnostics (SPEC section 5): plain records built from the analysis, for the CLI and the server."""

from __future__ import annotations

import re
from typing import Any

from ..addrs import InputVariable, LocalValue, ModuleCall
from ..analysis import CONFIG_FILE, Analysis, FieldTrace
from ..diagnostics import SEVERITY_RANK, Diagnostic, Fix, Related, sort_key
from ..lazy_re import lazy_compile
from ..records import record
from ..stir.deployments import root_deployments, undeclared_assignments
from ..stir.roots import describe_call_path
from ..stir.workspace import init_command, is_installed_dir, module_dir_of
from ..syntax.expr import ScopeTraversalExpr, walk
from ..syntax.expr import Span
from ..trace.result import UNBOUNDED, Unbounded
from ..values.value import to_hcl, to_json, value_key
from .deployment_outcomes import deployment_values
from .installed import Handoff, deciding_argument, field_address, foreign, foreign_kind, foreign_module, installed_place, relocated
from .locations import human_position
from .suppress import unsuppressed
from ..syntax.error_shapes import UNCLOSED
from .code_actions import field_values  # code actions build on this module
from .code_actions import known_values  # code actions build on this module

__all__ = ["SEVERITY_RANK", "Diagnostic", "Fix", "Related", "sort_key", "workspace_diagnostics", "dir_diagnostics"]


def workspace_diagnostics(analysis: Analysis) -> dict[str, list[Diagnostic]]:
    """Every diagnostic of the workspace, grouped by file and sorted (SPEC: file, position, code)."""
    by_file: dict[str, list[Diagnostic]] = {}
    for dir in analysis.dirs():
        for diag in dir_diagnostics(analysis, dir):
            by_file.setdefault(diag.file, []).append(diag)
    for diag in config_diagnostics(analysis):
        by_file.setdefault(diag.file, []).append(diag)
    for items in by_file.values():
        items.sort(key=sort_key)
    return dict(sorted(by_file.items()))


def dir_diagnostics(analysis: Analysis, dir: str) -> list[Diagnostic]:
    """Diagnostics of one module directory's files."""
    if foreign(analysis, dir):
        return []  # modules the user does not own: their diagnostics go to the user's call (features.installed)
    out: list[Diagnostic] = []
    for problem in analysis.problems_in(dir):
        out.append(Diagnostic(problem.path, Span(problem.path, 0, 0), "error", problem.code, problem.message))
    for path in analysis.files_in(dir):
        for err in analysis.files[path].errors:
            out.append(Diagnostic(path, err.span, "error", "syntax-error", f"syntax error: {err.message}"))
    broken = _broken_regions(analysis, dir)
    findings = analysis.findings(dir)
    if broken:
        words = _words(broken)
        findings = [finding for finding in findings  # the broken region may declare it: only the syntax error is reported
                    if finding.code != "undefined-reference" or not _declared_in_broken_region(analysis, finding.span, broken, words)]
    out.extend(analysis.finding_diagnostics(dir, findings))  # (each made once per finding, kept by the host)
    out.extend(_unbounded_fields(analysis, dir))
    out.extend(_unsupported_values(analysis, dir))
    out.extend(relocated(analysis, dir, lambda trace, handoff: _about_installed(analysis, trace, handoff)))
    return unsuppressed(analysis, out)


def _broken_regions(analysis: Analysis, dir: str) -> list[bytes]:
    """The text of every syntax error region of a module (an unclosed block: to the end of its file).

    Overlapping regions are merged: a broken file can have thousands of errors whose regions
    run to its end, and their copies added up to hundreds of megabytes."""
    regions = []
    for path in analysis.files_in(dir):
        hcl = analysis.files[path]
        ranges = []
        for err in hcl.errors:
            region = err.region or err.span
            ranges.append((region.start, len(hcl.source) if err.message == UNCLOSED else region.end))
        ranges.sort()
        merged: list[list[int]] = []
        for begin, end in ranges:
            if merged and begin <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([begin, end])
        regions.extend(hcl.source[begin:end] for begin, end in merged)
    return regions


_WORD = lazy_compile(rb"[\w-]+")


def _words(regions: list[bytes]) -> frozenset[bytes]:
    """The names (maximal runs of ``[\\w-]``) in the broken regions, found once per module: a search
    of every region per undefined reference was quadratic (minutes for a 100 KB binary file)."""
    return frozenset(word for region in regions for word in _WORD.findall(region))


def _declared_in_broken_region(analysis: Analysis, span: Span, regions: list[bytes], words: frozenset[bytes]) -> bool:
    """Whether the name a reference needs (``app`` of ``aws_db_instance.app``) appears in a broken region."""
    parts = analysis.text(span).split(".")
    index = 2 if parts[0] == "data" else 1
    if len(parts) <= index:
        return False
    name = parts[index].split("[")[0].encode()
    if _WORD.fullmatch(name):
        return name in words  # a whole name, neither preceded nor followed by a name character
    pattern = re.compile(rb"(?<![\w-])" + re.escape(name) + rb"(?![\w-])")
    return any(pattern.search(region) for region in regions)


def tfvars_diagnostics(analysis: Analysis) -> list[Diagnostic]:
    out = [
        Diagnostic(path, err.span, "error", "syntax-error", f"syntax error: {err.message}")
        for path, hcl in sorted(analysis.tfvars.items())
        for err in hcl.errors
    ]
    for path, name, span, root in undeclared_assignments(analysis):
        out.append(Diagnostic(path, span, "warning", "undeclared-variable",
                              f"{name} is assigned here, but the root module in {root or '.'} declares no variable {name!r}"))
    return unsuppressed(analysis, out)


def config_diagnostics(analysis: Analysis) -> list[Diagnostic]:
    out = [
        Diagnostic(CONFIG_FILE, Span(CONFIG_FILE, 0, 0), "error", "config-error", f"configuration problem: {p.message}",
                   position=(p.line or 1, p.column or 1))
        for p in analysis.config_problems
    ]
    for path, message in sorted(analysis.manifest_problems.items()):
        out.append(Diagnostic(path, Span(path, 0, 0), "error", "config-error", message))
    return out + tfvars_diagnostics(analysis) + unit_diagnostics(analysis)


def unit_diagnostics(analysis: Analysis) -> list[Diagnostic]:
    """Terragrunt units (SPEC 2): a file or include that cannot be read, a unit whose source is opaque."""
    out = []
    for unit in analysis.units:
        out.extend(Diagnostic(span.file, span, "error", "config-error", message) for span, message in unit.problems)
        if unit.module_dir is not None and unit.module_dir not in analysis.modules:
            span = unit.source_span or Span(unit.path, 0, 0)
            out.append(Diagnostic(span.file, span, "error", "config-error",
                                  f"{unit.path} deploys {unit.module_dir or '.'}, which holds no Terraform or OpenTofu files"))
        if unit.opaque_reason is not None and not unit.problems:  # (a unit that cannot be read has its config-error)
            span = unit.source_span or Span(unit.path, 0, 0)
            out.append(Diagnostic(span.file, span, "information", "module-not-installed", unit.opaque_reason))
    return out


def _unbounded_fields(analysis: Analysis, dir: str) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    reported: set[tuple[str, tuple[str, ...]]] = set()
    for trace in analysis.field_traces(dir):
        result = trace.result
        key = (trace.resource.address, trace.field_path)
        if result.kind != UNBOUNDED or result.exists is None or key in reported or trace.spec.severity == "off" or result.expr_span is None:
            continue
        reported.add(key)
        if result.unbounded is not None and result.unbounded.cause == "undefined":
            continue  # the undefined-reference error says it; an unbounded-field on top is a cascade
        if result.unbounded is not None and result.unbounded.cause == "empty":
            continue  # no value under any condition: the field is never set (a dynamic block never generated)
        out.append(unbounded_diagnostic(analysis, trace))
    return out


@record(frozen=True, slots=True)
class Blocker:
    """What stops a trace, for people: the expression, where it is declared, and why.

    ``subject`` is the sentence's subject (``var.engine``, ``its condition local.is_replica``),
    ``declared`` the declaration of the blocking name (not the place that uses it).
    """

    expression: str
    declared: Span | None
    why: str
    subject: str
    declared_name: str = ""  # what ``declared`` declares (``local.is_replica``, ``aws_s3_bucket.b``)

    @property
    def name(self) -> str:
        return self.declared_name or self.expression


def blocker_of(analysis: Analysis, blocked: Unbounded) -> Blocker:
    """Names what blocks a trace from the structured Unbounded (never from its reason text)."""
    if blocked.variable is not None:
        var_dir, name = blocked.variable
        module = analysis.modules.get(var_dir)
        var = module.variables.get(name) if module else None
        declared = var.label_span if var is not None else blocked.span
        if blocked.cause == "missing":
            why = "is not passed by the module call and has no default value"
        else:
            why = "has no default value, and no validation block lists the allowed values"
        return Blocker(str(InputVariable(name)), declared, why, str(InputVariable(name)), str(InputVariable(name)))
    if blocked.cause == "apply-time":
        value = _apply_time_value(analysis, blocked)
        if blocked.condition is not None and blocked.span is not None:
            condition = " ".join(analysis.text(blocked.span).split())
            declared, name = _declaration_in(analysis, blocked.condition, blocked.span.file) or (blocked.span, condition)
            return Blocker(condition, declared, f"depends on {value}, which is only known after apply", f"its condition {condition}", name)
        text = " ".join(analysis.text(blocked.span).split()) if blocked.span is not None else "an attribute"
        declared, name = (_resource_declaration(analysis, blocked.span) if blocked.span is not None else None) or (blocked.span, text)
        if blocked.through is not None:
            return Blocker(text, declared, f"comes from {value}, which is only known after apply", text, name)
        return Blocker(text, declared, "is only known after apply", text, name)
    text = " ".join(analysis.text(blocked.span).split()) if blocked.span is not None else ""
    if blocked.cause == "data" and blocked.span is not None:
        declared, name = _resource_declaration(analysis, blocked.span, data=True) or (blocked.span, text)
        return Blocker(text, declared, "is read from the provider when Terraform plans, and no universe is configured for this field",
                       text, name)
    return Blocker(text, blocked.span, blocked.reason, text)


def _apply_time_value(analysis: Analysis, blocked: Unbounded) -> str:
    """The apply-time value as the traced module sees it: ``module.master.arn`` (main.tf:9), else the attribute."""
    if blocked.through is not None:
        label, span = blocked.through
        return f"{label} ({_where(analysis, span)})"
    inner = blocked.blocker or blocked.span
    if inner is None:
        return "an apply-time value"
    return f"{' '.join(analysis.text(inner).split())} ({_where(analysis, inner)})"


def _declaration_in(analysis: Analysis, expr, file: str) -> tuple[Span, str] | None:
    """Where the first ``var.x`` or ``local.x`` that ``expr`` reads is declared."""
    module = analysis.modules.get(module_dir_of(file))
    if module is None:
        return None
    for node in walk(expr):
        if not isinstance(node, ScopeTraversalExpr) or not node.steps:
            continue
        name = getattr(node.steps[0], "name", None)
        if node.root == "local" and name in module.locals:
            return module.locals[name].attribute.name_span, str(LocalValue(name))
        if node.root == "var" and name in module.variables:
            return module.variables[name].label_span, str(InputVariable(name))
    return None


def _resource_declaration(analysis: Analysis, span: Span, data: bool = False) -> tuple[Span, str] | None:
    """The resource block an apply-time reference (``aws_db_instance.this.arn``) reads."""
    module = analysis.modules.get(module_dir_of(span.file))
    parts = analysis.text(span).split(".")
    if module is None or len(parts) < 2:
        return None
    if data or parts[0] == "resource":  # data.<type>.<name>; resource.<type>.<name> is <type>.<name>
        parts = parts[1:]
        if len(parts) < 2:
            return None
    table = module.data if data else module.resources
    resource = table.get(f"{parts[0]}.{parts[1].split('[')[0]}")
    if resource is None or not resource.label_spans:
        return None
    return resource.label_spans[-1], resource.address


def _where(analysis: Analysis, span: Span) -> str:
    line, _ = human_position(analysis, span.file, span.start)
    return f"{span.file}:{line}"


@record(frozen=True)
class Outside:
    """A value a field can take that its universe does not list, and where it comes from."""

    value: Any
    source: Span | None  # the literal, default or validation value; a variable file's assignment
    deployment: str | None = None  # the variable file (relative to DIR) whose deployment gives it


def _unsupported_values(analysis: Analysis, dir: str) -> list[Diagnostic]:
    """``unsupported-value``: a field with a universe can take a value outside it (SPEC 5): a
    branch of its trace, or its value under one of the root's deployments."""
    out: list[Diagnostic] = []
    reported: set[tuple[str, tuple[str, ...]]] = set()
    for trace in analysis.field_traces(dir):
        result, spec = trace.result, trace.spec
        key = (trace.resource.address, trace.field_path)
        if (not spec.universe or result.kind == UNBOUNDED or result.exists is None or spec.severity == "off"
                or result.expr_span is None or key in reported):
            continue
        outside = _outside_values(analysis, trace)
        if not outside:
            continue
        reported.add(key)
        out.append(unsupported_diagnostic(analysis, trace, outside))
    return out


def _outside_values(analysis: Analysis, trace: FieldTrace) -> list[Outside]:
    """The values a field with a universe can take that the universe does not list."""
    supported = {value_key(v) for v in trace.spec.universe}
    outside = [Outside(b.value, b.source) for b in trace.result.branches
               if b.value is not None and value_key(b.value) not in supported]
    return outside + _deployments_outside(analysis, trace, supported, {value_key(o.value) for o in outside})


def _about_installed(analysis: Analysis, trace: FieldTrace, handoff: Handoff) -> list[Diagnostic]:
    """The diagnostics of a field of an installed module, placed on the user's call into it (SPEC 2)."""
    result, spec = trace.result, trace.spec
    if result.exists is None or spec.severity == "off" or result.expr_span is None:
        return []
    if result.kind == UNBOUNDED:
        blocked = result.unbounded
        if blocked is None or blocked.cause in ("undefined", "empty"):
            return []
        if blocked.cause == "missing" and blocked.variable is not None and blocked.variable[0] == handoff.dir:
            return []  # the call omits a required argument: its missing-argument error says it
        return [unbounded_diagnostic(analysis, trace, handoff)]
    if not spec.universe:
        return []
    outside = _outside_values(analysis, trace)
    return [unsupported_diagnostic(analysis, trace, outside, handoff)] if outside else []


def _deployments_outside(analysis: Analysis, trace: FieldTrace, supported: set[str], known: set[str]) -> list[Outside]:
    """The values the root's deployments give the field that its universe does not list: a
    variable file can hand the compiler a value no branch of the configuration shows."""
    if not trace.result.exists:
        return []  # a resource that never exists takes no value
    root = trace.result.call_path[0][1] if trace.result.call_path else ""
    found = {d.name: d for d in root_deployments(analysis, root)}
    out: list[Outside] = []
    for outcome in deployment_values(analysis, trace.result, trace.resource, trace.field_name):
        if not outcome.decided or outcome.value is None or value_key(outcome.value) in supported | known:
            continue
        known.add(value_key(outcome.value))
        deployment = found.get(outcome.deployment.file)
        out.append(Outside(outcome.value, _assignment_of(analysis, deployment, outcome.value), deployment.file if deployment else None))
    return out


def _assignment_of(analysis: Analysis, deployment, value: Any) -> Span | None:
    """The assignment in the deployment's variable files that sets ``value`` (the winning one)."""
    if deployment is None:
        return None
    for name, file in deployment.set_by.items():
        if name in deployment.assignment and value_key(deployment.assignment[name]) == value_key(value):
            attribute = analysis.tfvars[file].body.attributes.get(name) if file in analysis.tfvars else None
            if attribute is not None:
                return attribute.expr.span
    return None


def unsupported_diagnostic(analysis: Analysis, trace: FieldTrace, outside: list[Outside], handoff: Handoff | None = None) -> Diagnostic:
    """``unsupported-value`` on the field's value; with ``handoff`` (a field of an installed module),
    on the argument of the user's module call that gives the value, else on that call's label."""
    result, spec = trace.result, trace.spec
    field = f"{trace.resource.address}.{trace.field_name}"
    values = ", ".join(to_hcl(o.value) for o in outside)
    listed = ", ".join(to_hcl(v) for v in spec.universe)
    one = len(outside) == 1
    origins = []
    related: list[Related] = []
    for o in outside:
        if o.deployment is not None:
            where = _where(analysis, o.source) if o.source is not None else o.deployment
            origins.append(f"{to_hcl(o.value)} comes from the deployment {where}")
        elif o.source is not None:
            origins.append(f"{to_hcl(o.value)} comes from {_where(analysis, o.source)}")
        if o.source is not None and o.source != result.expr_span:
            origin = f"set by the deployment {o.deployment}" if o.deployment is not None else "comes from here"
            related.append(Related(o.source, f"{to_hcl(o.value)} {origin}"))
    named = trace.field_name
    span = result.expr_span
    detail = f"{field} is set to {_short(analysis.text(result.expr_span))}" + (f"; {'; '.join(origins)}." if origins else ".")
    if handoff is not None:
        kind = foreign_kind(module_dir_of(result.expr_span.file))
        named = f"{field_address(trace)} (set in {kind} at {installed_place(analysis, trace)})"
        argument = deciding_argument(analysis, trace, handoff, frozenset(value_key(o.value) for o in outside))
        span = argument[1].expr.span if argument is not None else handoff.call.label_span
        call = str(ModuleCall(handoff.call.name))
        detail += (f" {call} passes it as {argument[0]} here." if argument is not None
                   else f" {kind[0].upper()}{kind[1:]} decides it: no argument of {call} does.")
        related = [Related(result.expr_span, f"{field} is set here, in {foreign_module(module_dir_of(result.expr_span.file))}")] + [
            r for r in related if r.span != span]
    message = (f"{named} can take {values}, which the service compiler does not support: "
               f"{'it is' if one else 'they are'} not among the supported values of {trace.resource.type}.{trace.field_name} ({listed}).")
    key = f"{trace.resource.type}.{trace.field_name}"
    fixes = (
        Fix("change", f"use one of the supported values ({listed}) instead of {values}{_in_files(outside)}."),
        Fix("universe", f'or, once the compiler supports {"it" if one else "them"}, add {values} to [fields."{key}"] universe in .tfphi.toml.'),
    )
    data = {"field": field_address(trace) if handoff is not None else field, "resource_type": trace.resource.type,
            "values": [to_json(o.value) for o in outside]}
    return Diagnostic(span.file, span, spec.severity, "unsupported-value", message,
                      tuple(related), data, detail=detail, fixes=fixes)


def _in_files(outside: list[Outside]) -> str:
    files = sorted({o.deployment for o in outside if o.deployment is not None})
    return f" (in {', '.join(files)})" if files and all(o.deployment is not None for o in outside) else ""


def unbounded_diagnostic(analysis: Analysis, trace: FieldTrace, handoff: Handoff | None = None) -> Diagnostic:
    """``unbounded-field`` on the field's value; with ``handoff`` (a field of an installed module),
    on the argument of the user's module call that decides it, else on that call's label."""
    result = trace.result
    blocked = result.unbounded
    assert blocked is not None and result.expr_span is not None
    field = f"{trace.resource.address}.{trace.field_name}"
    data: dict[str, Any] = {"field": field, "resource_type": trace.resource.type}
    if blocked.variable is not None:
        data["variable"] = list(blocked.variable)
    block = blocker_of(analysis, blocked)
    span = result.expr_span
    argument = deciding_argument(analysis, trace, handoff) if handoff is not None else None
    related: list[Related] = []
    if handoff is not None:
        span = argument[1].expr.span if argument is not None else handoff.call.label_span
        data["field"] = field_address(trace)
        data["installed"] = result.expr_span.file
        related.append(Related(result.expr_span, f"{field} is set here, in {foreign_module(module_dir_of(result.expr_span.file))}"))
    if block.declared is not None and block.declared not in (result.expr_span, span):
        related.append(Related(block.declared, f"{block.name} is declared here"))
    if blocked.cause == "apply-time":
        inner = blocked.through[1] if blocked.through is not None else (blocked.blocker or blocked.span)
        if inner is not None and inner not in (block.declared, result.expr_span):
            related.append(Related(inner, "this value is only known after apply"))
    message, detail = unbounded_text(analysis, trace, block, handoff, argument)
    fixes = unbounded_fixes(analysis, trace.resource.type, trace.field_name, blocked, block, values=field_values(analysis, trace),
                            hardcode=handoff is None and may_hardcode(analysis, trace.resource.span.file))
    if handoff is not None and argument is None and (blocked.variable is None or foreign(analysis, blocked.variable[0])):
        if is_installed_dir(handoff.dir):
            fixes = [Fix("upstream", f"the installed module decides {field} itself, where you cannot change it: use a version of "
                         f"{handoff.call.source or 'it'} that takes it as an input, or silence this diagnostic with "
                         "`# tfphi:ignore unbounded-field` above this call.")]
        else:
            fixes = [Fix("upstream", f"the module {handoff.dir} decides {field} itself: change it there (open it to see "
                         "its own diagnostics and fixes), or silence this diagnostic with `# tfphi:ignore unbounded-field` "
                         "above this call.")]
    return Diagnostic(span.file, span, trace.spec.severity, "unbounded-field", message,
                      tuple(related), data, detail=detail, fixes=tuple(fixes))


def unbounded_text(analysis: Analysis, trace: FieldTrace, block: Blocker | None = None, handoff: Handoff | None = None,
                   argument: tuple[str, Any] | None = None) -> tuple[str, str]:
    """The summary sentence and the detail of an ``unbounded-field`` diagnostic (``handoff``: of
    a field of an installed module, reported on the user's call into it)."""
    result = trace.result
    blocked: Unbounded = result.unbounded  # type: ignore[assignment]
    block = block or blocker_of(analysis, blocked)
    field = f"{trace.resource.address}.{trace.field_name}"
    named = trace.field_name
    kind = foreign_kind(module_dir_of(result.expr_span.file)) if handoff is not None and result.expr_span else ""
    if handoff is not None:
        named = f"{field_address(trace)} (set in {kind} at {installed_place(analysis, trace)})"
    declared = f"; {block.name} is declared at {_where(analysis, block.declared)}" if block.declared is not None else ""
    if blocked.cause in ("variable", "missing", "apply-time", "data"):
        summary = f"can't determine the value of {named}: {block.subject} {block.why}{declared}."
    elif block.expression and block.declared is not None:
        summary = (f"can't determine the value of {named}: the trace stops at {block.expression} "
                   f"({_where(analysis, block.declared)}) because {blocked.reason}.")
    else:
        summary = f"can't determine the value of {named}: {blocked.reason}."
    expr_text = analysis.text(result.expr_span) if result.expr_span else "?"
    detail = [f"{field} is set to {_short(expr_text)}" + (f" in {kind}." if handoff is not None else ".")]
    if handoff is not None:
        call = str(ModuleCall(handoff.call.name))
        detail.append(f"{call} passes it as {argument[0]} here." if argument is not None
                      else f"{kind[0].upper()}{kind[1:]} decides it: no argument of {call} does.")
    if len(result.call_path) > 1:
        detail.append(f"Call path: {describe_call_path(result.call_path)}.")
    return summary, " ".join(detail)


def unbounded_message(analysis: Analysis, trace: FieldTrace) -> str:
    """The whole text of the ``unbounded-field`` diagnostic (summary, detail, fixes)."""
    return unbounded_diagnostic(analysis, trace).text


def suggested_values(analysis: Analysis, resource_type: str, field_name: str, blocked: Unbounded) -> list:
    """Values worth offering for the blocking variable: the field's universe, else deployments and callers."""
    spec = analysis.config.field_spec(resource_type, field_name)
    universe = list(spec.universe) if spec is not None else []
    if blocked.variable is None:
        return universe

    var_dir, name = blocked.variable
    module = analysis.modules.get(var_dir)
    var = module.variables.get(name) if module else None
    return known_values(analysis, resource_type, field_name, var_dir, var) if var is not None else universe


def may_hardcode(analysis: Analysis, file: str) -> bool:
    """A value may be hardcoded only into a module no other module calls (SPEC 6): callers may pass different values."""
    return not analysis.tree.callers.get(module_dir_of(file))


def unbounded_fixes(analysis: Analysis | None, resource_type: str, field: str, blocked: Unbounded,
                    block: Blocker | None = None, values: list | None = None, hardcode: bool = True) -> list[Fix]:
    """The fixes for an Unbounded field, in the seed's order (validation, default, hardcode), as data."""
    if values is None:
        values = suggested_values(analysis, resource_type, field, blocked) if analysis is not None else []
    values = list(values)
    key = f"{resource_type}.{field}" if resource_type else field
    if blocked.variable is not None:
        name = blocked.variable[1]
        listed = ", ".join(to_hcl(v) for v in values[:4]) + (", ..." if len(values) > 4 else "") or '"value1", "value2"'
        fixes = [
            Fix("validation", f"constrain {InputVariable(name)} with a validation block: condition = contains([{listed}], {InputVariable(name)}) "
                "(usually the right choice: every listed value gets its own specialization)."),
            Fix("default", f"give {InputVariable(name)} a default" + (f", for example {to_hcl(values[0])}." if values else ".")),
        ]
        if blocked.cause == "missing":
            fixes.insert(0, Fix("pass", f"pass {name} in the module block that calls this module."))
        if hardcode:
            fixes.append(Fix("hardcode", f"hardcode {field} if it does not need to be configurable."))
        return fixes
    if blocked.cause == "data":
        return [Fix("universe", f'list the values in .tfphi.toml: [fields."{key}"] universe = [...].')] + (
            [Fix("hardcode", f"hardcode {field}.")] if hardcode else [])
    if blocked.cause == "apply-time":
        if blocked.condition is not None:
            subject = block.expression if block is not None else "the condition"
            return [Fix("plan-time", f"decide {subject} from a variable or a literal known at plan time "
                         "(for example a bool variable the caller sets), not from a value that only exists after apply.")]
        return [Fix("plan-time", f"set {field} from a variable or a literal instead of an attribute that only exists after apply.")]
    if blocked.cause == "opaque":
        caller = analysis.modules.get(module_dir_of(blocked.span.file)) if analysis is not None and blocked.span else None
        command = init_command(caller.files if caller is not None else ())
        return [Fix("init", f"run `{command}` so the module is installed under .terraform/modules, or use a local source.")]
    if blocked.cause == "size":
        return [
            Fix("narrow", "narrow the set: constrain the root variable that decides it with a validation block "
                "listing only the values the service compiler supports (condition = contains([...], var.x))."),
            Fix("universe", f'or list the supported values in .tfphi.toml: [fields."{key}"] universe = [...].'),
            Fix("limit", "or raise branches under [limits] in .tfphi.toml if every value needs its own specialization."),
        ]
    if blocked.cause == "depth":
        return [Fix("limit", "raise depth under [limits] in .tfphi.toml.")]
    return []


def fix_texts(resource_type: str, field: str, blocked: Unbounded, values: list | tuple = ()) -> list[str]:
    """The fixes as sentences (the trace command and hovers list them)."""
    return [f.text for f in unbounded_fixes(None, resource_type, field, blocked, values=list(values))]


def _short(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
