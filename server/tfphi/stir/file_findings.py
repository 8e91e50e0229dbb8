"""A file's undefined references, kept per top-level block for the next parse of the file.

A block's findings are a function of its text (its references, relative to its start) and of
the names they look up in the module's ``NameTable``. A block the parse took over (the same
object: its text unchanged, wherever it now is) keeps its findings; when the names change
(a call renamed, a variable added), only the blocks that look one of the changed names up are
resolved again. So an edit inside one block of a 200-block root resolves that block alone, and
a renamed call the blocks that name it.

JSON files, files with syntax errors or top-level attributes, and files without their tree
(read from disk) keep what they found per top-level item's *text* instead (``_by_text``):
their top-level items are not all native blocks of the body, or their blocks have no node to
read references from.
"""

from __future__ import annotations

from typing import Iterable

from ..syntax import is_json_path
from ..syntax.expr import Span
from ..syntax.hclfile import HclFile, TopLevel
from ..syntax.references import block_references, is_bound_check
from .references import BUILTIN_ROOTS, Finding, NameTable, RelativeFinding, block_findings

class FileFindings:
    """What one parse of a file found: its findings against one name table, and per block
    (by identity) the block, its relative findings, references and the names they look up."""

    __slots__ = ("hcl", "table", "findings", "blocks", "texts")

    def __init__(self, hcl: HclFile, table: NameTable, findings: list[Finding], blocks: dict, texts: dict):
        self.hcl = hcl
        self.table = table
        self.findings = findings
        self.blocks = blocks  # id(block) -> (block, relative findings, references, names looked up)
        self.texts = texts  # hash(text) -> (start, end, relative findings, references): files read per text


def file_findings(hcl: HclFile, table: NameTable, known: FileFindings | None) -> FileFindings:
    """The undefined references of ``hcl`` against ``table``, from what ``known`` (the last
    answer for the same path) found of the blocks this parse shares with it."""
    if known is not None and known.hcl is hcl and known.table.key == table.key:
        return known  # the same parse against the same names
    tree = hcl.tree
    if tree is None or is_json_path(hcl.path) or hcl.errors or hcl.body.attributes or tree.root_node.has_error:
        return _by_text(hcl, table, known)
    changed = None
    if known is not None and known.blocks:
        changed = changed_names(known.table, table)
    before = known.blocks if known is not None else {}
    path, source = hcl.path, hcl.source
    blocks: dict[int, tuple] = {}
    findings: list[Finding] = []
    for block in hcl.body.blocks:
        key = id(block)
        entry = before.get(key)
        if entry is None or entry[0] is not block:
            span = block.span
            top = TopLevel(source, "block", span.start, span.end, None, None, tree)
            refs = block_references(top.node(), source, {})
            entry = (block, block_findings(refs, table, is_bound_check(refs, top.node)), refs, looked_up(refs))
        elif changed is None or not changed.isdisjoint(entry[3]):
            refs = entry[2]
            top = TopLevel(source, "block", block.span.start, block.span.end, None, None, tree)
            entry = (block, block_findings(refs, table, is_bound_check(refs, top.node)), refs, entry[3])
        blocks[key] = entry
        if entry[1]:
            base = block.span.start
            for start, stop, message in entry[1]:
                findings.append(Finding("undefined-reference", Span(path, base + start, base + stop), message))
    return FileFindings(hcl, table, findings, blocks, {})


def looked_up(refs: Iterable[tuple]) -> frozenset[tuple[str, str]]:
    """The names of a ``NameTable`` that ``resolve`` looks up for these references."""
    names: set[tuple[str, str]] = set()
    for root, parts, *_ in refs:
        if root in BUILTIN_ROOTS or "::" in root:
            continue
        first = parts[0]
        if root in ("var", "local", "module"):
            names.add((root, first))
        elif root == "data":
            if len(parts) > 1:
                names.add(("data", f"{first}.{parts[1]}"))
        else:
            names.add(("resource", f"{root}.{first}"))
    return frozenset(names)


def changed_names(old: NameTable, new: NameTable) -> frozenset[tuple[str, str]]:
    """The names whose look-up differs between two tables (in ``looked_up``'s terms): declared
    in one only, or a call whose target's outputs differ."""
    out: set[tuple[str, str]] = set()
    for kind, before, after in (("var", old.variables, new.variables), ("local", old.locals, new.locals),
                                ("module", old.calls, new.calls), ("data", old.data, new.data),
                                ("resource", old.resources, new.resources)):
        if before != after:
            out.update((kind, name) for name in before ^ after)
    if old.outputs != new.outputs:
        was, now = old.outputs_by_call, new.outputs_by_call
        out.update(("module", call) for call in was.keys() | now.keys() if was.get(call) != now.get(call))
    return frozenset(out)


def _by_text(hcl: HclFile, table: NameTable, known: FileFindings | None) -> FileFindings:
    """Each top-level item by the hash of its text: (start, end, findings, references), the text
    read again from its parse's source when matched; keyed by the text itself, the copies were
    as large as the files. On a hash collision the later item is kept (the other misses).
    Findings carry over only against the same names; references, a function of the text alone,
    carry over when the names change."""
    source, path = hcl.source, hcl.path
    old_source = known.hcl.source if known is not None else b""
    before = known.texts if known is not None else {}
    same_names = known is not None and known.table.key == table.key
    by_text: dict[int, tuple] = {}
    findings: list[Finding] = []
    for top in hcl.top_levels():  # nodes found (or parsed again) on demand
        base, end = top.start_byte, top.end_byte
        text = source[base:end]
        digest = hash(text)
        entry = by_text.get(digest)
        if entry is not None and source[entry[0] : entry[1]] == text:
            relative: list[RelativeFinding] = entry[2]
        else:
            entry = before.get(digest)
            if entry is not None and old_source[entry[0] : entry[1]] != text:
                entry = None
            relative = entry[2] if entry is not None and same_names else None
            refs = top.refs if top.refs is not None else (entry[3] if entry is not None else None)
            if relative is None:
                if refs is None:
                    refs = block_references(top.node(), top.source, {})
                relative = block_findings(refs, table, is_bound_check(refs, top.node))
            by_text[digest] = (base, end, relative, refs)
        for start, stop, message in relative:
            findings.append(Finding("undefined-reference", Span(path, base + start, base + stop), message))
    return FileFindings(hcl, table, findings, {}, by_text)
