"""The specialization preview behind ``tfphi specialize`` and the editor's *Preview specialization*."""

from __future__ import annotations

import json
import posixpath
from ..addrs import AddressError, FieldAddress, parse_field_address
from ..records import record, field

from ..analysis import Analysis, FieldTrace
from ..config import FieldSpec
from ..features.diagnostics import unbounded_diagnostic
from ..stir.model import Resource
from ..trace.result import UNBOUNDED, TraceResult
from .moves import DeploymentBranch, deployment_branches, moved_file, served_by
from .specializer import COMPILER_VERSION, Plan, specialize


@record
class Preview:
    """What ``specialize --out`` writes over a copy of the root configuration, and its listing.

    ``files``: every rewritten or generated file, the ``moved/<deployment>.tf`` files and
    ``provenance.json``, by path in OUTDIR; ``hcl``: the same files one after the other, each
    under a ``# ==== path ====`` header (what ``specialize`` prints and the editor previews);
    ``base``: the workspace directory OUTDIR mirrors (the root's, unless the root calls modules
    outside it); ``provenance``: one JSON record per specialization."""

    hcl: str
    provenance: list[dict]
    title: str
    files: dict[str, str] = field(default_factory=dict)
    blocked: bool = False
    base: str = ""
    root: str = ""  # the root module's directory in OUTDIR ("" when it is OUTDIR itself)
    copies: dict[str, str] = field(default_factory=dict)  # workspace dir -> OUTDIR dir: the root configuration


def resolve_address(analysis: Analysis, address: FieldAddress | str) -> tuple[TraceResult, Resource, str] | None:
    """The trace, resource and field name an address names, or None (text is parsed once here)."""
    if isinstance(address, str):
        try:
            address = parse_field_address(address)
        except AddressError:
            return None
    result = analysis.trace_address(address)
    if result is None:
        return None
    module = analysis.modules.get(result.call_path[-1][1]) if result.call_path else None
    if module is None:
        return None
    table = module.data if address.mode == "data" else module.resources
    resource = table.get(address.resource_key)
    if resource is None:
        return None
    return result, resource, ".".join(address.field)


def specialize_address(analysis: Analysis, address: FieldAddress | str, anchor: tuple[str, ...] = ()) -> Preview | None:
    """The specialization of the field ``address`` names, or None when it names none.

    ``anchor``: the workspace directory's absolute path as names (``Path.resolve().parts``), so
    that a root calling modules above the workspace gets its files named inside OUTDIR."""
    if isinstance(address, str):  # a caller's text, read once here
        try:
            address = parse_field_address(address)
        except AddressError:
            return None
    found = resolve_address(analysis, address)
    return None if found is None else specialize_field(analysis, *found, anchor)


def specialize_field(analysis: Analysis, result: TraceResult, resource: Resource, field_name: str,
                     anchor: tuple[str, ...] = ()) -> Preview:
    """The specialization of one traced field (``anchor``: as for ``specialize_address``)."""
    plan = specialize(analysis, result, resource, field_name)
    if plan.blocked is not None:
        return _blocked_preview(analysis, plan, result, resource, field_name)
    branches = deployment_branches(analysis, plan, result, resource, field_name) if plan.call_path else []
    return render(plan, branches, anchor, configuration_dirs(analysis, plan.call_path[0][1]) if plan.call_path else [])


def _parts(anchor: tuple[str, ...], path: str) -> tuple[str, ...]:
    """A workspace-relative path (``../`` allowed) as names below the filesystem root."""
    parts = list(anchor)
    for name in path.split("/") if path else ():
        if name == "..":
            parts = parts[:-1]
        elif name not in ("", "."):
            parts.append(name)
    return tuple(parts)


def configuration_dirs(analysis: Analysis, root: str) -> list[str]:
    """The root's directory and every module directory its calls reach, outermost first (no nesting)."""
    reached, todo = {root}, [root]
    while todo:
        dir = todo.pop()
        for (caller, _), target in analysis.tree.targets.items():
            if caller == dir and target.dir is not None and target.dir not in reached:
                reached.add(target.dir)
                todo.append(target.dir)
    ordered = sorted(reached, key=lambda d: (d.count("/") if d else -1, d))
    return [d for d in ordered if not any(_inside(d, other) for other in ordered if other != d)]


def _inside(dir: str, other: str) -> bool:
    if other.startswith("..") != dir.startswith(".."):
        return False
    return other == "" and not dir.startswith("..") or dir.startswith(other + "/")


def output_layout(plan: Plan, anchor: tuple[str, ...], dirs: list[str] = ()) -> tuple[str, str, dict[str, str]]:
    """Where OUTDIR's copy starts and what each file is called in it.

    OUTDIR mirrors the deepest directory that holds the root and every file the plan changes: the
    root's own directory, unless it calls a module outside it (``../../modules/db``). Returns that
    directory relative to the workspace (``../..`` when above it), the root's place in OUTDIR, and
    workspace path -> OUTDIR path. ``anchor`` is the workspace's absolute path as names (only
    names: nothing is read), needed to name directories above it.
    """
    root = plan.call_path[0][1] if plan.call_path else ""
    if not anchor:
        depth = max([p.split("/").count("..") for p in [root, *plan.files, *dirs]] + [0])
        anchor = tuple(f"<up{i}>" for i in range(depth))  # stand-in names, never shown in practice
    root_parts = _parts(anchor, root)
    base = list(root_parts)
    for path in [*plan.files, *(f"{d}/x" if d else "x" for d in dirs)]:
        dir_parts = _parts(anchor, path)[:-1]
        n = 0
        while n < min(len(base), len(dir_parts)) and base[n] == dir_parts[n]:
            n += 1
        base = base[:n]
    base_parts = tuple(base)
    up = len(anchor) - len(base_parts)
    if up > 0:
        base_rel = "/".join([".."] * up)
    else:
        base_rel = "/".join(base_parts[len(anchor):])
    names = {path: "/".join(_parts(anchor, path)[len(base_parts):]) for path in [*plan.files, *dirs]}
    return base_rel, "/".join(root_parts[len(base_parts):]), names


def render(plan: Plan, branches: list[DeploymentBranch], anchor: tuple[str, ...] = (), dirs: list[str] = ()) -> Preview:
    """The preview of a plan: OUTDIR's files (rewritten, generated, moves, provenance) and their listing."""
    base, root, placed = output_layout(plan, anchor, dirs)
    files = {placed[path]: text for path, text in plan.files.items()}
    gated = any(s.gate is not None for s in plan.specializations)
    for branch in branches if gated else ():  # ungated: the one move is inline, the same everywhere
        files[posixpath.join(root, "moved", f"{branch.deployment.name}.tf")] = moved_file(plan, branch)
    served = served_by([(s.name, s.value) for s in plan.specializations], [b.outcome for b in branches])
    provenance = [{**record, "deployments": served.get(record["module"], [])} for record in plan.provenance]
    files["provenance.json"] = json.dumps(provenance, indent=2, ensure_ascii=False) + "\n"
    names = [s.name for s in plan.specializations]
    count = len(names)
    title = f"{plan.address}: {count} specialization{'s' if count != 1 else ''} ({', '.join(names)})"
    out = [f"# tfphi specialize {plan.address}", f"# {count} specialization{'s' if count != 1 else ''}: {', '.join(names)} - {COMPILER_VERSION}"]
    if branches:
        out.append("# deployments: " + ", ".join(
            f"{b.deployment.file} -> {b.spec.name if b.spec else 'no move'}" for b in branches))
    elif gated:
        out.append("# deployments: none (no variable files in the root), so no moved/<deployment>.tf is written")
    out += [f"# note: {n}" for n in plan.notes]
    for path, text in files.items():
        out.append("")
        out.append(f"# ==== {path} ====")
        out.append(text.rstrip("\n"))
    return Preview("\n".join(out) + "\n", provenance, title, files, base=base, root=root,
                   copies={d: placed[d] for d in dirs})


def _blocked_preview(analysis: Analysis, plan: Plan, result: TraceResult, resource: Resource, field_name: str) -> Preview:
    lines = [f"# tfphi specialize {plan.address}", "# No specialization: " + (
        f"can't determine the value of {field_name}." if result.kind == UNBOUNDED else f"{field_name} cannot be count-gated.")]
    if result.kind == UNBOUNDED and result.unbounded is not None:
        spec = analysis.config.field_spec(resource.type, field_name) or FieldSpec()
        diagnostic = unbounded_diagnostic(analysis, FieldTrace(resource, tuple(field_name.split(".")), spec, result))
        lines += [f"# {line}" for line in diagnostic.text.split("\n")]
    else:
        lines.append(f"# Why: {plan.blocked}")
    return Preview("\n".join(lines) + "\n", [], f"{plan.address}: no specialization", {}, blocked=True)
