"""Diagnostics (SPEC section 5): plain records built from the analysis, for the CLI and the server."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..analysis import CONFIG_FILE, Analysis, FieldTrace
from ..stir.deployments import undeclared_assignments
from ..stir.roots import describe_call_path
from ..stir.workspace import is_installed_dir
from ..syntax.expr import Span
from ..trace.result import UNBOUNDED, Unbounded
from ..trace.values import to_hcl

SEVERITY_RANK = {"error": 0, "warning": 1, "information": 2, "hint": 3}


@dataclass(frozen=True, slots=True)
class Related:
    span: Span
    message: str


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """``span`` is a byte range; ``line``/``column`` (0-based, code points) stand in when there is no span."""

    file: str
    span: Span
    severity: str
    code: str
    message: str
    related: tuple[Related, ...] = ()
    data: dict[str, Any] | None = field(default=None, compare=False, hash=False)
    position: tuple[int, int] | None = None  # (line, column), 1-based, for config problems without spans


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


def sort_key(d: Diagnostic):
    return (d.file, d.position or (0, 0), d.span.start, d.span.end, d.code, d.message)


def dir_diagnostics(analysis: Analysis, dir: str) -> list[Diagnostic]:
    """Diagnostics of one module directory's files."""
    if is_installed_dir(dir):
        return []  # modules that terraform init installed are not the user's to fix
    out: list[Diagnostic] = []
    for problem in analysis.problems_in(dir):
        out.append(Diagnostic(problem.path, Span(problem.path, 0, 0), "error", "syntax-error", problem.message))
    for path in analysis.files_in(dir):
        for err in analysis.files[path].errors:
            out.append(Diagnostic(path, err.span, "error", "syntax-error", f"syntax error: {err.message}"))
    for finding in analysis.findings(dir):
        related = tuple(Related(span, message) for span, message in finding.related)
        out.append(Diagnostic(finding.span.file, finding.span, finding.severity, finding.code, finding.message, related))
    out.extend(_unbounded_fields(analysis, dir))
    return out


def tfvars_diagnostics(analysis: Analysis) -> list[Diagnostic]:
    out = [
        Diagnostic(path, err.span, "error", "syntax-error", f"syntax error: {err.message}")
        for path, hcl in sorted(analysis.tfvars.items())
        for err in hcl.errors
    ]
    for path, name, span, root in undeclared_assignments(analysis):
        out.append(Diagnostic(path, span, "warning", "undeclared-variable",
                              f"{name} is assigned here, but the root module in {root or '.'} declares no variable {name!r}"))
    return out


def config_diagnostics(analysis: Analysis) -> list[Diagnostic]:
    out = [
        Diagnostic(CONFIG_FILE, Span(CONFIG_FILE, 0, 0), "error", "config-error", f"configuration problem: {p.message}",
                   position=(p.line or 1, p.column or 1))
        for p in analysis.config_problems
    ]
    for path, message in sorted(analysis.manifest_problems.items()):
        out.append(Diagnostic(path, Span(path, 0, 0), "error", "config-error", message))
    return out + tfvars_diagnostics(analysis)


def _unbounded_fields(analysis: Analysis, dir: str) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    reported: set[tuple[str, tuple[str, ...]]] = set()
    for trace in analysis.field_traces(dir):
        result = trace.result
        key = (trace.resource.address, trace.field_path)
        if result.kind != UNBOUNDED or result.exists is None or key in reported or trace.spec.severity == "off" or result.expr_span is None:
            continue
        reported.add(key)
        out.append(unbounded_diagnostic(analysis, trace))
    return out


def unbounded_diagnostic(analysis: Analysis, trace: FieldTrace) -> Diagnostic:
    result = trace.result
    blocked = result.unbounded
    assert blocked is not None and result.expr_span is not None
    related: list[Related] = []
    data: dict[str, Any] = {"field": f"{trace.resource.address}.{trace.field_name}", "resource_type": trace.resource.type}
    if blocked.variable is not None:
        var_dir, var_name = blocked.variable
        var = analysis.modules.get(var_dir).variables.get(var_name) if var_dir in analysis.modules else None
        if var is not None:
            related.append(Related(var.label_span, f"var.{var_name} is declared here"))
            data["variable"] = [var_dir, var_name]
    elif blocked.span is not None and blocked.span != result.expr_span:
        related.append(Related(blocked.span, "the trace stops here"))
    message = unbounded_message(analysis, trace)
    return Diagnostic(result.expr_span.file, result.expr_span, trace.spec.severity, "unbounded-field", message, tuple(related), data)


def unbounded_message(analysis: Analysis, trace: FieldTrace) -> str:
    """The seed's "Blocking: can't determine the value of ..." text, in our words."""
    result = trace.result
    blocked: Unbounded = result.unbounded  # type: ignore[assignment]
    expr_text = analysis.text(result.expr_span) if result.expr_span else "?"
    field = trace.field_name
    lines = [f"can't determine the value of {field}: {trace.resource.address}.{field} is set to {_short(expr_text)}, "
             f"and the trace stops because {blocked.reason}."]
    if len(result.call_path) > 1:
        lines.append(f"Call path: {describe_call_path(result.call_path)}.")
    kind = trace.resource.type
    fixes = fix_texts(kind, field, blocked, suggested_values(analysis, kind, field, blocked))
    if fixes:
        lines.append("Fix (any one works): " + " ".join(f"{i}. {f}" for i, f in enumerate(fixes, 1)))
    return "\n".join(lines)


def suggested_values(analysis: Analysis, resource_type: str, field_name: str, blocked: Unbounded) -> list:
    """Values worth offering for the blocking variable: the field's universe, else tfvars and callers."""
    spec = analysis.config.field_spec(resource_type, field_name)
    universe = list(spec.universe) if spec is not None else []
    if blocked.variable is None:
        return universe
    from .code_actions import known_values  # code actions build on this module

    var_dir, name = blocked.variable
    module = analysis.modules.get(var_dir)
    var = module.variables.get(name) if module else None
    return known_values(analysis, resource_type, field_name, var_dir, var) if var is not None else universe


def fix_texts(resource_type: str, field: str, blocked: Unbounded, values: list | tuple = ()) -> list[str]:
    """The fixes for an Unbounded field, in the seed's order (default, validation, hardcode)."""
    values = list(values)
    if blocked.variable is not None:
        name = blocked.variable[1]
        listed = ", ".join(to_hcl(v) for v in values[:4]) or '"value1", "value2"'
        default = f" (for example {to_hcl(values[0])})" if values else ""
        return [
            f"give var.{name} a default{default};",
            f"constrain var.{name} with a validation block: condition = contains([{listed}], var.{name}) "
            "(usually the right choice: every listed value gets its own specialization);",
            f"hardcode {field} if it does not need to be configurable.",
        ]
    if blocked.cause == "data":
        return [f'list the values in .tfphi.toml: [fields."{resource_type}.{field}"] universe = [...];', f"hardcode {field}."]
    if blocked.cause == "apply-time":
        return [f"set {field} from a variable or a literal instead of another resource's attribute."]
    if blocked.cause == "opaque":
        return ["run `terraform init` so the module is installed under .terraform/modules, or use a local source."]
    if blocked.cause in ("depth", "size"):
        return ["raise the limit under [limits] in .tfphi.toml, or simplify the expression."]
    return []


def _short(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
