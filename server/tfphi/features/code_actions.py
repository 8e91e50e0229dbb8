"""Quick fixes for ``unbounded-field`` (SPEC section 6): add a validation block, add a default, hardcode the value."""

from __future__ import annotations

from ..addrs import InputVariable
from ..records import record, field

from ..analysis import Analysis, FieldTrace
from .installed import field_address
from ..stir.model import Variable
from ..stir.workspace import module_dir_of
from ..syntax.expr import Span
from ..trace.result import UNBOUNDED, TraceResult
from ..evaluate.type_constraints import parse_type
from ..values.value import Value, hcl_string, to_hcl, value_key
from ..stir.deployments import variable_values

DEFAULT_INDENT = "  "
MAX_VALIDATION_VALUES = 16


@record(frozen=True, slots=True)
class TextEdit:
    """Replace ``span`` (bytes) of ``file`` with ``new_text``."""

    file: str
    span: Span  # byte range replaced by new_text (empty for an insertion)
    new_text: str


@record(frozen=True)
class CodeAction:
    """A quick fix: a title and the edits that apply it."""

    title: str
    kind: str = "quickfix"
    edits: list[TextEdit] = field(default_factory=list)
    is_preferred: bool = False


def quick_fixes(analysis: Analysis, path: str, span: Span, data: dict | None) -> list[CodeAction]:
    """The quick fixes for the ``unbounded-field`` diagnostic at ``span`` of ``path`` (data as the diagnostic carries it).

    Safe by construction (SPEC 6): a fix edits the variable that decides the value, in every root
    module (call path) where the field is unbounded, as one edit; the value is hardcoded into the
    field only in a module that no other module calls, never into one whose callers may pass
    different values.
    """
    trace = _find_trace(analysis, path, span, data) or _installed_trace(analysis, data)
    if trace is None:
        return []
    dir = module_dir_of(trace.resource.span.file)
    same_field = [t for t in analysis.field_traces(dir)
                  if t.resource.address == trace.resource.address and t.field_path == trace.field_path
                  and t.result.kind == UNBOUNDED and t.result.unbounded is not None]
    deciding: dict[tuple[str, str], tuple[str, Variable, str]] = {}  # (dir, name) -> (dir, variable, cause)
    for t in [trace] + same_field:
        found = _blocking_variable(analysis, t, data if t is trace else None)
        if found is not None:
            var_dir, variable = found
            deciding.setdefault((var_dir, variable.name), (var_dir, variable, t.result.unbounded.cause))
    actions: list[CodeAction] = []
    hardcode: list[Value] = []
    if deciding:
        values = field_values(analysis, trace)
        where = f" in {len(deciding)} root modules" if len(deciding) > 1 else ""
        validated = [(d, v) for d, v, cause in deciding.values() if cause == "variable"]
        if validated:
            actions.append(_add_validation(analysis, validated, values, where))
        if values:
            actions.append(_add_default(analysis, [(d, v) for d, v, _ in deciding.values()], values[0], where))
        hardcode = values[:1]
    else:
        hardcode = list(trace.spec.universe[:1])
    expr_span = trace.result.expr_span
    if hardcode and expr_span is not None and not analysis.tree.callers.get(dir):
        actions.append(CodeAction(
            f"Hardcode the value: {trace.field_name} = {to_hcl(hardcode[0])}",
            edits=[TextEdit(expr_span.file, expr_span, to_hcl(hardcode[0]))],
            is_preferred=not deciding,
        ))
    return actions


def deciding_variables(analysis: Analysis, trace: FieldTrace) -> list[tuple[str, Variable]]:
    """The variables that decide an unbounded field, one per root module (call path) where it is unbounded."""
    dir = module_dir_of(trace.resource.span.file)
    out: dict[tuple[str, str], tuple[str, Variable]] = {}
    for t in [trace] + analysis.field_traces(dir):
        if t is not trace and (t.resource.address != trace.resource.address or t.field_path != trace.field_path):
            continue
        found = _blocking_variable(analysis, t, None) if t.result.unbounded is not None else None
        if found is not None:
            out.setdefault((found[0], found[1].name), found)
    return list(out.values())


def field_values(analysis: Analysis, trace: FieldTrace) -> list[Value]:
    """The values suggested for a field everywhere (diagnostic, quick fixes, hover): its universe,
    else the values its deciding variables get from variable files and callers, in every root."""
    if trace.spec.universe:
        return list(trace.spec.universe)[:MAX_VALIDATION_VALUES]
    seen: dict[str, Value] = {}
    for var_dir, var in deciding_variables(analysis, trace):
        for value in known_values(analysis, trace.resource.type, trace.field_name, var_dir, var):
            seen.setdefault(value_key(value), value)
    return list(seen.values())[:MAX_VALIDATION_VALUES]


def _find_trace(analysis: Analysis, path: str, span: Span, data: dict | None) -> FieldTrace | None:
    """The unbounded field trace the diagnostic stands for (by its field name, else by its range)."""
    wanted = data.get("field") if isinstance(data, dict) else None
    fallback = None
    for trace in analysis.field_traces(module_dir_of(path)):
        result = trace.result
        if result.kind != UNBOUNDED or result.expr_span is None or result.expr_span.file != path:
            continue
        name = f"{trace.resource.address}.{trace.field_name}"
        overlaps = result.expr_span.start <= span.end and span.start <= result.expr_span.end
        if wanted is not None and name == wanted and overlaps:
            return trace
        if fallback is None and overlaps and (wanted is None or name == wanted):
            fallback = trace
    return fallback


def _installed_trace(analysis: Analysis, data: dict | None) -> FieldTrace | None:
    """The field of an installed module that a diagnostic on the user's call into it stands for
    (``features.installed``: its data names the installed file and the field's address)."""
    if not isinstance(data, dict) or not isinstance(data.get("installed"), str):
        return None
    for trace in analysis.field_traces(module_dir_of(data["installed"])):
        if trace.result.kind == UNBOUNDED and field_address(trace) == data.get("field"):
            return trace
    return None


def _blocking_variable(analysis: Analysis, trace: FieldTrace, data: dict | None) -> tuple[str, Variable] | None:
    ref = (data or {}).get("variable") or (list(trace.result.unbounded.variable) if trace.result.unbounded and trace.result.unbounded.variable else None)
    if not ref or len(ref) != 2:
        return None
    var_dir, name = ref
    module = analysis.modules.get(var_dir)
    var = module.variables.get(name) if module else None
    return (var_dir, var) if var is not None else None


def known_values(analysis: Analysis, resource_type: str, field_name: str, var_dir: str, var: Variable) -> list[Value]:
    """Candidate values for a variable (SPEC 6): the field's universe, else the values the root's
    deployments give it (every variable file, env/ subfolders included, as Terraform layers them),
    then what callers pass."""
    spec = analysis.config.field_spec(resource_type, field_name)
    if spec is not None and spec.universe:
        return list(spec.universe)[:MAX_VALIDATION_VALUES]
    seen: dict[str, Value] = {}
    for value in variable_values(analysis, var_dir, var.name):
        if isinstance(value, (str, int, float, bool)):
            seen.setdefault(value_key(value), value)
    for caller_dir, call_name in analysis.tree.callers.get(var_dir, ()):
        call = analysis.modules[caller_dir].calls.get(call_name)
        argument = call.arguments.get(var.name) if call else None
        if argument is not None:
            for result in analysis.trace_expression(argument, caller_dir, [call.body]):
                _collect(result, seen)
    return list(seen.values())[:MAX_VALIDATION_VALUES]


def _collect(result: TraceResult, seen: dict[str, Value]) -> None:
    for branch in result.branches:
        if isinstance(branch.value, (str, int, float, bool)):
            seen.setdefault(value_key(branch.value), branch.value)


# ---- edits into the variable block ----------------------------------------------------------


def _add_validation(analysis: Analysis, variables: list[tuple[str, Variable]], values: list[Value], where: str = "") -> CodeAction:
    """One validation block per deciding variable, all with the same values (one WorkspaceEdit)."""
    var = variables[0][1]
    placeholders = not values
    if placeholders:
        kind = parse_type(var.type_expr).kind
        values = [1, 2] if kind == "number" else ["value1", "value2"]
    listed = ", ".join(to_hcl(v) for v in values)
    readable = ", ".join(str(v) for v in values)
    edits = []
    for _, variable in variables:
        message = f"The {variable.name} value must be one of: {readable}."
        lines = [
            "validation {",
            f"{{unit}}condition     = contains([{listed}], {InputVariable(variable.name)})",
            f"{{unit}}error_message = {hcl_string(message)}",
            "}",
        ]
        edits.append(insert_into_block(analysis, variable, lines))
    title = f"Add validation block to {_names(variables)}{where}" + (" (placeholder values: edit them)" if placeholders else f" ({listed})")
    return CodeAction(title, edits=edits, is_preferred=True)


def _add_default(analysis: Analysis, variables: list[tuple[str, Variable]], value: Value, where: str = "") -> CodeAction:
    return CodeAction(f"Add default to {_names(variables)}{where}: {to_hcl(value)}",
                      edits=[insert_into_block(analysis, variable, [f"default = {to_hcl(value)}"]) for _, variable in variables])


def _names(variables: list[tuple[str, Variable]]) -> str:
    names = sorted({str(InputVariable(v.name)) for _, v in variables})
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def insert_into_block(analysis: Analysis, var: Variable, lines: list[str]) -> TextEdit:
    """An edit that adds ``lines`` (``{unit}`` = one indentation level) before the block's closing brace."""
    path = var.span.file
    source = analysis.files[path].source
    newline = "\r\n" if b"\r\n" in source else "\n"
    close = var.span.end - 1
    while close > var.span.start and source[close : close + 1] != b"}":
        close -= 1
    base = _line_indent(source, var.span.start)
    inner, unit = _body_indent(source, var, base)
    rendered = [inner + line.replace("{unit}", unit) if line else "" for line in lines]
    line_start = source.rfind(b"\n", 0, close) + 1
    before_brace = source[line_start:close]
    if before_brace.strip() == b"":
        # The brace has its own line: insert whole lines above it, after a blank line when the body has content.
        has_content = bool(var.body.attributes or var.body.blocks)
        text = (newline if has_content else "") + newline.join(rendered) + newline
        return TextEdit(path, Span(path, line_start, line_start), text)
    # A one-line block (``variable "x" { type = string }``): reopen it as a multi-line block.
    open_brace = source.index(b"{", var.label_span.end)
    existing = source[open_brace + 1 : close].decode("utf-8").strip()
    body = ([inner + existing, ""] if existing else []) + rendered
    text = newline + newline.join(body) + newline + base
    return TextEdit(path, Span(path, open_brace + 1, close), text)


def _line_indent(source: bytes, offset: int) -> str:
    line_start = source.rfind(b"\n", 0, offset) + 1
    prefix = source[line_start:offset].decode("utf-8", "replace")
    return prefix if prefix.strip() == "" else ""


def _body_indent(source: bytes, var: Variable, base: str) -> tuple[str, str]:
    """The indentation of the block's own attributes and nested blocks, and one level of it."""
    starts = [a.span.start for a in var.body.attributes.values()] + [b.span.start for b in var.body.blocks]
    for start in sorted(starts):
        line_start = source.rfind(b"\n", 0, start) + 1
        if line_start <= var.label_span.start:
            continue  # on the block's first line
        indent = _line_indent(source, start)
        if indent and indent.startswith(base) and len(indent) > len(base):
            return indent, indent[len(base):]
    unit = "\t" if base.startswith("\t") else DEFAULT_INDENT
    return base + unit, unit
