"""The ``tfphi`` command: ``serve``, ``check``, ``trace`` and ``specialize`` (SPEC section 1)."""

from __future__ import annotations

import gc
import json
import os
import sys
from typing import TYPE_CHECKING, Sequence

from .addrs import FieldAddress, InputVariable
from . import __version__
from .analysis import Analysis
from .retention import BATCH, EDITOR, Retention
from .check_scope import RootsKey, ShardError, check_diagnostics, parse_shard, selected_roots
from .features.diagnostics import SEVERITY_RANK, fix_texts, suggested_values
from .features.locations import location
from .loader import load_workspace, not_a_directory, nothing_to_analyse
from .output import FORMATS, CheckReport, formatter
from .output.paths import repository_root
from .output.progress import Progress
from .output.text import summary
from .workspace_output import root_label, trace_json_document
from .trace.conditions import NotExpressible, atoms, root_gate
from .trace.result import RESOLVED, UNBOUNDED, TraceResult, instance_of
from .trace.steps import phrases
from .values.value import json_text, to_display

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    pass


if TYPE_CHECKING:
    import argparse


def build_parser() -> argparse.ArgumentParser:
    import argparse  # not for the plain `check` (see _plain_check): it and what it loads were a tenth of a small check

    class _Parser(argparse.ArgumentParser):
        def error(self, message: str):  # argparse exits 2 on usage errors, as SPEC wants
            self.print_usage(sys.stderr)
            self.exit(EXIT_USAGE, f"tfphi: error: {message}\n")

    parser = _Parser(prog="tfphi", description="Phi tracing for Terraform: which values can each field take, and when?")
    parser.add_argument("--version", action="version", version=f"tfphi {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    serve = sub.add_parser("serve", help="run the language server (stdio by default)")
    serve.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio")
    serve.add_argument("--stdio", action="store_true", help="use stdio (the default; accepted for editor clients)")

    check = sub.add_parser("check", help="analyse a workspace and print every diagnostic")
    check.add_argument("paths", nargs="*", metavar="PATH", default=["."],
                       help="workspace directories, or files that stand for the root configurations containing them (default: .)")
    check.add_argument("--format", choices=FORMATS, default="text")
    check.add_argument("--fail-on", choices=("error", "warning", "never"), default="error")
    check.add_argument("--output", metavar="FILE", help="write the report to FILE instead of stdout")
    check.add_argument("--shard", metavar="K/N", help="analyse only the K-th of N deterministic parts of the roots (a CI job matrix)")
    check.add_argument("--quiet", "-q", action="store_true", help="no progress line and no summary on stderr")

    trace = sub.add_parser("trace", help="trace one field and print its phi branches")
    trace.add_argument("dir")
    trace.add_argument("address", help="e.g. module.database.aws_db_instance.app.engine_version")
    trace.add_argument("--json", action="store_true", help="print the result as JSON")
    trace.add_argument("--dot", action="store_true", help="print the trace graph in Graphviz DOT (dot -Tsvg draws it)")
    trace.add_argument("--universe", help="comma-separated values the field may take (V1,V2,...)")

    spec = sub.add_parser("specialize", help="preview the count-gated specialization of a field")
    spec.add_argument("dir")
    spec.add_argument("address")
    spec.add_argument("--out", metavar="OUTDIR", help="write the whole specialized configuration (a copy of the root configuration, "
                      "the generated modules, moved/<deployment>.tf, provenance.json) into this new or empty directory")
    spec.add_argument("--json", action="store_true", help="print the provenance records as JSON")
    return parser


def entry() -> None:
    """The console script: ``main``, then a fast exit for the batch commands.

    A batch run builds one large, short-lived object graph: the cyclic garbage collector
    would walk it again and again for nothing, and freeing it object by object at exit costs
    as much again: the graph is kept referenced until ``os._exit``, so that the operating system
    reclaims it in one go. Measured again for issue 23
    (bench/README.md): a check of 1,000 modules takes 3.1-3.3 s of CPU with the collector off,
    4.7-5.0 s with it on, the same peak memory (132 MiB).
    """
    argv = sys.argv[1:]
    batch = bool(argv) and argv[0] in ("check", "trace", "specialize")
    if batch:
        gc.disable()
    # What the command made stays referenced here until the exit: let go when ``run_check``
    # returned, it was freed object by object (0.10 s of a 5.9 s check of 3,000 modules).
    kept: list[object] = []
    code = main(argv, kept if batch else None)
    if batch:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    raise SystemExit(code)


class _CheckArgs:
    command = "check"
    output = shard = None
    quiet = False

    def __init__(self, paths: list[str], format: str, fail_on: str):
        self.paths, self.format, self.fail_on = paths, format, fail_on


_CHECK_CHOICES = {"--format": FORMATS, "--fail-on": ("error", "warning", "never")}


def _plain_check(argv: Sequence[str]) -> _CheckArgs | None:
    """``check [DIR] [--format F] [--fail-on L]`` spelled out in full with valid values (what
    scripts and CI run), read without argparse; None for anything else (help, abbreviations,
    ``--opt=value``, errors...), which argparse reads as before. The values are the ones
    argparse would give: build_parser declares the same options and defaults."""
    if not argv or argv[0] != "check":
        return None
    values = {"--format": "text", "--fail-on": "error"}
    dirs: list[str] = []
    rest = list(argv[1:])
    while rest:
        item = rest.pop(0)
        if item in _CHECK_CHOICES and rest and rest[0] in _CHECK_CHOICES[item]:
            values[item] = rest.pop(0)
        elif item.startswith("-") or dirs:
            return None
        else:
            dirs.append(item)
    return _CheckArgs(dirs or ["."], values["--format"], values["--fail-on"])


def main(argv: Sequence[str] | None = None, kept: list[object] | None = None) -> int:
    """Runs one command; returns its exit code. ``kept``: a list the command appends what it
    made to (the analysis, the diagnostics), for a caller that exits without freeing them (``entry``)."""
    args = _plain_check(sys.argv[1:] if argv is None else argv) or build_parser().parse_args(argv)
    try:
        if args.command == "serve":
            from .lsp.main import run_server  # the server (pygls, every feature): never for a command

            return run_server(tcp=args.tcp)
        if args.command == "check":
            return run_check(args, kept)
        if args.command == "trace":
            return run_trace(args, kept)
        return run_specialize(args, kept)
    except UsageError as exc:
        print(f"tfphi: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return EXIT_OK


def _load(dir: str, progress: Progress | None = None, retention: Retention = EDITOR,
          kept: list[object] | None = None) -> Analysis:
    unreadable = not_a_directory(dir)
    if unreadable is not None:
        raise UsageError(unreadable)
    analysis = load_workspace(dir, progress=progress.files if progress is not None else None, retention=retention)
    if kept is not None:
        kept.append(analysis)
    empty = nothing_to_analyse(analysis, dir)
    if empty is not None:
        raise UsageError(empty)
    return analysis


# ---- check ------------------------------------------------------------------------------


def run_check(args, kept: list[object] | None = None) -> int:
    try:
        shard = parse_shard(args.shard) if args.shard else None
    except ShardError as exc:
        raise UsageError(str(exc)) from exc
    progress = Progress(enabled=not args.quiet)
    paths = args.paths or ["."]
    # A batch host: a check edits nothing, so each module's derived data is released once its
    # diagnostics are taken (check_scope.batch_schedule); the output is the same.
    if len(paths) == 1 and not os.path.isfile(paths[0]):  # one directory (or nothing there: _load says so)
        base, roots, files = paths[0], None, []
        analysis = _load(base, progress, BATCH, kept)
    else:
        base, selection = _check_scope(paths)
        analysis = load_workspace(base, progress=progress.files, retention=BATCH)
        if kept is not None:
            kept.append(analysis)
        roots = selected_roots(analysis, selection)
        files = [rel for rel, is_file in selection if is_file]
        if not roots and not any(rel in analysis.files or rel in analysis.tfvars or rel in analysis.problems for rel in files):
            raise UsageError(f"{', '.join(paths)}: nothing to analyse (no root configuration contains it)")
    known_roots: dict[RootsKey, list[str]] = {}  # each diagnostic's roots, worked out while its module's traces are at hand
    diagnostics = check_diagnostics(analysis, roots, shard, on_dir=progress.modules, files=files, known_roots=known_roots)
    progress.close()
    report = formatter(args.format)(CheckReport(analysis, diagnostics, base, shard, known_roots))
    if kept is not None:
        kept.append(diagnostics)
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as handle:
                handle.write(report)
        except OSError as exc:
            raise UsageError(f"cannot write {args.output}: {exc.strerror or exc}") from exc
    else:
        sys.stdout.write(report)
    if args.format == "text" and not args.quiet:
        print(summary(diagnostics), file=sys.stderr)
    if args.fail_on == "never":
        return EXIT_OK
    threshold = SEVERITY_RANK[args.fail_on]
    return EXIT_FINDINGS if any(SEVERITY_RANK.get(d.severity, 9) <= threshold for d in diagnostics) else EXIT_OK


def _check_scope(paths: list[str]) -> tuple[str, list[tuple[str, bool]]]:
    """The directory to load for several PATHs or for files, and each PATH relative to it (POSIX)
    with whether it is a file: the current directory when every PATH is inside it (pre-commit
    passes the changed files from the repository root), else the git work tree around their
    common directory (that directory itself outside one)."""
    for path in paths:
        if not os.path.exists(path):
            raise UsageError(f"{path} does not exist")
    real = [(os.path.realpath(p), os.path.isfile(p)) for p in paths]
    cwd = os.path.realpath(".")
    if all(os.path.commonpath([cwd, p]) == cwd for p, _ in real):
        base, base_real = ".", cwd
    else:  # the enclosing repository: the roots that call a module in it are found there
        base_real = repository_root(os.path.commonpath([os.path.dirname(p) if is_file else p for p, is_file in real]))
        base = os.path.relpath(base_real)
    selection = []
    for p, is_file in real:
        rel = os.path.relpath(p, base_real).replace(os.sep, "/")
        selection.append(("" if rel == "." else rel, is_file))
    return base, selection


# ---- trace --------------------------------------------------------------------------------


def run_trace(args, kept: list[object] | None = None) -> int:
    # What only trace reads: a check never loads the field lookup nor the JSON of a trace (start-up).
    from .features.trace_json import trace_to_json
    from .field_lookup import FieldLookupError, deployments_json, lookup, trace_match

    analysis = _load(args.dir, kept=kept)
    universe = [v.strip() for v in args.universe.split(",") if v.strip()] if args.universe else None
    try:
        match = lookup(analysis, args.address, args.dir, lambda root: root_label(args.dir, root))
    except FieldLookupError as exc:
        print(f"tfphi: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    result = trace_match(analysis, match, universe)
    if args.json:
        document = trace_json_document(analysis, match, result, trace_to_json(analysis, result), args.dir,
                                       deployments_json(analysis, match))
        print(json_text(document, indent=2))  # numbers as Terraform prints them
    elif args.dot:
        from .features.trace_graph import to_dot, trace_graph  # only --dot draws the graph

        print(to_dot(trace_graph(analysis, [result])), end="")
    else:
        if match.root:
            print(f"root: {root_label(args.dir, match.root)}")
        print(render_trace_text(analysis, result, match.address))
        print("\n".join(_deployments_text(deployments_json(analysis, match))), end="")
    return EXIT_OK


def _deployments_text(deployments: list[dict]) -> list[str]:
    """What the field is under each deployment (they do not narrow the trace, SPEC 2)."""
    if not deployments:
        return []
    rows = [(d["file"], to_display(d["value"]) if d["value"] is not None else "not decided by its values")
            for d in deployments]
    width = max(len(file) for file, _ in rows)
    return ["", "deployments (each sets the root's variables; they do not narrow the trace):"] + [
        f"  {file.ljust(width)}  {value}" for file, value in rows] + [""]


def render_trace_text(analysis: Analysis, result: TraceResult, address: FieldAddress) -> str:
    """The trace for people: a value/gate table, each branch's path, or the reason and the fixes."""
    lines: list[str] = []
    count = len(result.branches)
    if result.kind == UNBOUNDED:
        lines.append(f"{result.address}: unbounded")
        lines.append(f"  why: {result.reason}")
        blocked = result.unbounded
        if blocked is not None and blocked.variable is not None:
            lines.append(f"  blocked by: {InputVariable(blocked.variable[1])} (declared at {location(analysis, blocked.span)})")
        elif blocked is not None and blocked.span is not None:
            lines.append(f"  blocked by: {analysis.text(blocked.span)} ({location(analysis, blocked.span)})")
        fixes = _fixes_for(analysis, result, address)
        if fixes:
            lines.append("  fix (any one works):")
            lines.extend(f"    {i}. {fix}" for i, fix in enumerate(fixes, 1))
        return "\n".join(lines)
    header = f"{result.address}: {result.kind}, {count} value{'s' if count != 1 else ''}"
    if result.selector:
        header += f" (selector: {result.selector})"
    lines.append(header)
    lines.append("")
    lines.extend(_branch_table(result))
    for branch in result.branches:
        lines.append("")
        lines.append(f"trace of {to_display(branch.value)} (from {location(analysis, branch.source) or 'configuration'}):")
        hops = phrases(branch.path, where=lambda span: location(analysis, span))
        lines.extend(f"  {'← ' if i else ''}{hop}" for i, hop in enumerate(hops))
    return "\n".join(lines)


def _branch_table(result: TraceResult) -> list[str]:
    """VALUE, then INSTANCE when the iteration decides, then WHEN: the gate in the root's scope."""
    rows = []
    for b in result.branches:
        instance = instance_of(b.cond, result.call_path, result.resource) if result.kind != RESOLVED else None
        try:
            gate = None if result.kind == RESOLVED else root_gate(b.cond)
        except NotExpressible:
            gate = str(b.cond)
        if instance is None and result.kind != RESOLVED and any(getattr(a, "iteration", False) for a in atoms(b.cond)):
            instance = "several instances (see --json)"
        rows.append((to_display(b.value), instance or "", gate or ("always" if not instance else "")))
    headers = ("VALUE", "INSTANCE", "WHEN") if any(r[1] for r in rows) else ("VALUE", "WHEN")
    table = [headers] + [r if len(headers) == 3 else (r[0], r[2]) for r in rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(headers) - 1)]
    return [("  " + "  ".join(c.ljust(w) for c, w in zip(row, widths)) + "  " + row[-1]).rstrip() for row in table]


def _fixes_for(analysis: Analysis, result: TraceResult, address: FieldAddress) -> list[str]:
    if result.unbounded is None:
        return []
    field = ".".join(address.field)  # (the field's name as the settings key it)
    return fix_texts(address.type, field, result.unbounded, suggested_values(analysis, address.type, field, result.unbounded))


# ---- specialize -----------------------------------------------------------------------------


def run_specialize(args, kept: list[object] | None = None) -> int:
    # What only specialize reads: the field lookup and the specializer (a check never loads them).
    from .field_lookup import FieldLookupError, lookup, trace_match
    from .specialize.preview import specialize_field

    analysis = _load(args.dir, kept=kept)
    from pathlib import Path  # not for a plain check (a tenth of its start-up with argparse)

    try:  # DIR picks the root as for trace (SPEC 1)
        match = lookup(analysis, args.address, args.dir, lambda root: root_label(args.dir, root))
    except FieldLookupError as exc:
        print(f"tfphi: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    preview = specialize_field(analysis, trace_match(analysis, match), match.resource, ".".join(match.address.field),
                               Path(os.path.abspath(args.dir)).parts)
    if args.out:
        from .specialize.outdir import OutdirError, write_outdir  # only --out writes files

        if getattr(preview, "blocked", False):
            print(preview.hcl, end="")
            return EXIT_FINDINGS
        try:
            written = write_outdir(Path(args.dir), preview, Path(args.out))
        except OutdirError as exc:
            raise UsageError(str(exc)) from exc
        print(f"wrote {args.out}: a copy of the configuration with {len(written)} files rewritten or generated:")
        for rel in written:
            print(f"  {rel}")
    elif args.json:
        print(json.dumps(preview.provenance, indent=2, ensure_ascii=False))
    else:
        print(preview.hcl, end="" if preview.hcl.endswith("\n") else "\n")
    return EXIT_FINDINGS if getattr(preview, "blocked", False) else EXIT_OK  # nothing to specialize
