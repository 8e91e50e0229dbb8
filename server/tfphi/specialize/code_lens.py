"""Code lenses: "N specializations: a (env/prod.tfvars), b (terraform.tfvars)" above each registered
field whose trace is Bounded: the modules the specializer would generate, each with the deployments
whose values activate it."""

from __future__ import annotations

from ..addrs import NO_KEY, FieldAddress, ModuleInstance
from ..records import record

from ..analysis import Analysis
from ..features.deployment_outcomes import deployment_values
from ..stir.workspace import module_dir_of
from ..syntax.expr import Span
from ..trace.env import find_field
from ..trace.result import BOUNDED
from .moves import served_by
from .specializer import group_branches, names_for


@record(frozen=True, slots=True)
class CodeLens:
    span: Span  # the field's attribute (name through value)
    title: str
    address: FieldAddress  # full configuration address from a root, for tfphi.previewSpecialization


def code_lenses(analysis: Analysis, path: str) -> list[CodeLens]:
    dir = module_dir_of(path)
    if dir not in analysis.modules:
        return []
    lenses: list[CodeLens] = []
    seen: set[FieldAddress] = set()
    for trace in analysis.field_traces(dir):
        result = trace.result
        if result.kind != BOUNDED or result.expr_span is None or result.expr_span.file != path:
            continue
        module = ModuleInstance.of_calls(call for call, _ in result.call_path[1:])
        resource = trace.resource
        address = FieldAddress(module, resource.mode, resource.type, resource.name, NO_KEY, tuple(trace.field_path))
        if address in seen:
            continue
        seen.add(address)
        found = find_field(trace.resource, trace.field_path)
        span = found[0].span if found else result.expr_span
        names = names_for(analysis, result, trace.resource)
        values = [value for value, _, _ in group_branches(result)]
        served = served_by(list(zip(names, values)), deployment_values(analysis, result, trace.resource, trace.field_name))
        listed = [f"{name} ({', '.join(served[name])})" if served.get(name) else name for name in names]
        title = f"{len(names)} specialization{'s' if len(names) != 1 else ''}: {', '.join(listed)}"
        if not module.is_root:
            title += f" ({module})"
        lenses.append(CodeLens(span, title, address))
    lenses.sort(key=lambda lens: (lens.span.start, str(lens.address)))
    return lenses
