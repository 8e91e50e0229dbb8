"""The diagnostics of an edited file, worked out from the last ones before its module is built again.

A keystroke in a file of a large module costs the module's whole build: its declarations are
read again, and every one below the edit gets new spans (a 2,858-line root with 200 module
calls: ~10 ms). Most keystrokes change one value inside one top-level block, and then nothing
a diagnostic of the file depends on changed but that block's references and where the text
below it now is. ``diagnostics_after_edit`` answers for such an edit, from the diagnostics
published for the module and the last parse of the file; for anything else it answers None,
and the caller builds the module (the result is then the same, which a property test checks
against the full analysis: ``tests/host/test_edit_diagnostics.py``).

The edit is taken when all of these hold; each rules out a way the module's diagnostics could
change beyond the edited block's references and the positions after it:
- the last parse has no syntax error and the new text differs from it only inside the value of
  one argument of one top-level block (``module``, ``resource``, ``data``, ``output``,
  ``variable``, ``locals``), not a meta-argument, with the same argument names before and after:
  the module declares the same names, calls the same modules with the same arguments;
- that block alone parses without errors, sets no argument twice in a body, and the text
  searches that place Terraform's own syntax errors find nothing in it (the rest of the text
  is unchanged and was clean, the block stands on lines of its own, and every shape those
  searches look for lies within a line; a heredoc or block comment in the block, which reaches
  across lines, is not taken);
- no traced field of the module reads the block's declaration (its traces, and their
  diagnostics, are unchanged), and the module's fields are all traced;
- no suppression comment in the block, before or after;
- every diagnostic that points at or after the edit, or has a related location there, is an
  undefined reference of the edited block (worked out again) or lies below the block (it only
  moves) and belongs to this file;
- messages name places as ``file:line``: an edit that adds or removes lines is taken only when
  every diagnostic of the module is of a kind whose message names no place (undefined
  references, missing arguments, uninstalled modules, duplicates).
"""

from __future__ import annotations

from bisect import bisect_right

from ..analysis import Snapshot
from ..diagnostics import Diagnostic, Related, sort_key
from ..records import replace
from ..stir.model import META_ARGUMENTS
from ..stir.workspace import is_foreign_dir
from ..syntax.error_shapes import suspicious
from ..syntax.expr import Span
from ..syntax.hclfile import Block, HclFile, TopLevel, argument_set_twice_in, node_of_range, read_block, rules_candidate
from .diagnostics import finding_diagnostic
from .suppress import suppressed_in

# Codes whose message names no position and depends on nothing an argument's value changes.
MOVABLE_CODES = frozenset({"undefined-reference", "missing-argument", "module-not-installed", "duplicate-declaration"})
_SUPPRESS = b"tfphi:ignore"
_STEP = 4096


def diagnostics_after_edit(snapshot: Snapshot, dir: str, published: list[Diagnostic], path: str,
                           source: bytes) -> list[Diagnostic] | None:
    """The diagnostics of ``path`` (a ``.tf`` file of module ``dir``) once its text is ``source``.

    ``published`` are the module's diagnostics as ``dir_diagnostics(snapshot, dir)`` gave them;
    ``snapshot.files[path]`` is the parse they were worked out from. None: the module must be
    built again to know."""
    old_parse = snapshot.files.get(path)
    if old_parse is None or old_parse.errors or not snapshot.traced(dir):
        return None
    old = old_parse.source
    if old.startswith(b"\xef\xbb\xbf") or source.startswith(b"\xef\xbb\xbf"):
        return None
    if old == source:  # the text is back to what the module was built from
        return sorted((d for d in published if d.file == path), key=sort_key)
    first = _common_prefix(old, source)
    same_tail = _common_suffix(old, source, min(len(old), len(source)) - first)
    old_end, new_end = len(old) - same_tail, len(source) - same_tail
    delta = new_end - old_end

    item = _item_around(old_parse, first, old_end)
    if item is None:
        return None
    start, end, block = item
    new_block_end = end + delta
    if (start and source[start - 1] != 0x0A) or source[new_block_end : new_block_end + 1] not in (b"", b"\n", b"\r"):
        return None  # a block that does not stand on lines of its own
    old_text, new_text = old[start:end], source[start:new_block_end]
    if b"\x00" in new_text or not _utf8(new_text):
        return None  # what the host refuses to parse (the rest of the text was parsed)
    if b"<<" in old_text or b"/*" in old_text or b"<<" in new_text or b"/*" in new_text:
        return None  # heredocs and block comments reach across lines: the searches below read lines
    if _SUPPRESS in old_text or _SUPPRESS in new_text or suspicious(new_text) or rules_candidate(new_text):
        return None
    node = node_of_range(source, start, new_block_end, "block")
    if node is None or node.has_error or argument_set_twice_in(node, source) is not None:
        return None
    edited = read_block(node, source, path)
    argument = _edited_argument(block, edited, first, old_end, new_end) if edited is not None else None
    if argument is None:
        return None
    address = _address(block, argument)
    if address is None:
        return None
    readers = snapshot.dirs_reading(dir, address)
    if dir in readers or any(is_foreign_dir(d, snapshot.config.owned_outside) for d in readers):
        return None  # (an installed module's fields are diagnosed in this module: features.installed)

    old_findings = snapshot.block_findings(dir, path, TopLevel(old, "block", start, end, None, None))
    new_findings = snapshot.block_findings(dir, path, TopLevel(source, "block", start, new_block_end, None, node))
    if old_findings is None or new_findings is None:
        return None
    # Messages name places as ``file:line``: with as many lines as before, every one still holds.
    same_lines = old.count(b"\n", first, old_end) == source.count(b"\n", first, new_end)
    movable = None if same_lines else MOVABLE_CODES
    recomputed = {(f.span.start, f.span.end, f.message) for f in old_findings}

    def before(span: Span) -> bool:  # wholly before the edit (an empty span at it is not)
        return span.start < first and span.end <= first

    out: list[Diagnostic] = []
    for d in published:
        if d.code == "undefined-reference" and start <= d.span.start < end and (d.span.start, d.span.end, d.message) in recomputed:
            continue  # the edited block's own references: worked out again below
        if movable is not None and d.code not in movable:
            return None  # its message may name a line that moved
        places = [s for s in [d.span, *(r.span for r in d.related)] if s.file == path]
        if all(before(s) for s in places):
            if d.file == path:
                out.append(d)  # before the edit: unchanged
            continue
        if d.file != path or any(s.start < end and not before(s) for s in places):
            return None  # another file's diagnostic would move, or one in the edited block
        out.append(_moved(d, end, delta))
    for finding in new_findings:
        if not suppressed_in(source, finding.span.start, finding.code):
            out.append(finding_diagnostic(finding))
    out.sort(key=sort_key)
    return out


def _utf8(text: bytes) -> bool:
    try:
        text.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _common_prefix(a: bytes, b: bytes) -> int:
    """The length of the longest common prefix of ``a`` and ``b`` (compared a page at a time, in C)."""
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i : i + _STEP] == b[i : i + _STEP]:
        i += _STEP
    lo, hi = min(i, n), min(i + _STEP, n)  # equal up to lo; the first difference is before hi, if any
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: bytes, b: bytes, limit: int) -> int:
    """The length of the longest common suffix of ``a`` and ``b``, ``limit`` at most."""
    la, lb = len(a), len(b)
    n = 0
    while n < limit:
        step = min(_STEP, limit - n)
        if a[la - n - step : la - n] != b[lb - n - step : lb - n]:
            break
        n += step
    lo, hi = n, min(n + _STEP, limit)  # the last lo bytes are equal; a difference is within hi of the end
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[la - mid : la - lo] == b[lb - mid : lb - lo]:
            lo = mid
        else:
            hi = mid - 1
    return lo


# The last parse's text and its top-level items' (start, end, index among its blocks, or -1): a
# burst of keystrokes is answered from one parse (the text, not the parse: it would hold the tree).
_last_items: list = [None, None]


def _item_around(hcl: HclFile, first: int, old_end: int) -> tuple[int, int, Block] | None:
    """The top-level block whose body holds ``[first, old_end)``, with its range."""
    if _last_items[0] is not hcl.source:
        ranges = hcl.top_ranges()
        items, count = [], 0
        for kind, start, end in ranges:
            items.append((start, end, count if kind == "block" else -1))
            count += kind == "block"
        _last_items[:] = [hcl.source, items]
    items = _last_items[1]
    i = bisect_right(items, (first, float("inf"), 0)) - 1
    if i < 0:
        return None
    start, end, index = items[i]
    if index < 0 or not (start < first and old_end < end) or index >= len(hcl.body.blocks):
        return None
    block = hcl.body.blocks[index]
    if (block.span.start, block.span.end) != (start, end):
        return None
    return start, end, block


def _edited_argument(before: Block, after: Block, first: int, old_end: int, new_end: int) -> str | None:
    """The name of the argument whose value holds the edit, before (``before``) and after it
    (``after``, the block's new parse), when the block sets the same arguments both times."""
    old, new = before.body.attributes, after.body.attributes
    if old.keys() != new.keys():
        return None
    for name, attribute in new.items():
        value = attribute.value_range
        if value is not None and value[0] <= first and new_end <= value[1]:
            value = old[name].value_range
            if name in META_ARGUMENTS or value is None or not (value[0] <= first and old_end <= value[1]):
                return None
            return name
    return None


def _address(block: Block, argument: str) -> str | None:
    """The address of the declaration whose text the edit changed (what traces record reading)."""
    kind, labels = block.type, block.labels
    if kind == "locals" and not labels:
        return f"local.{argument}"
    if len(labels) == 1 and kind in ("module", "output", "variable"):
        return f"{'var' if kind == 'variable' else kind}.{labels[0]}"
    if len(labels) == 2 and kind in ("resource", "data"):
        return f"{'data.' if kind == 'data' else ''}{labels[0]}.{labels[1]}"
    return None


def _moved(d: Diagnostic, end: int, delta: int) -> Diagnostic:
    """``d`` with its places in the edited file after the edited block (which ended at ``end``) moved."""
    path = d.file

    def move(span: Span) -> Span:
        return Span(path, span.start + delta, span.end + delta) if span.file == path and span.start >= end else span

    return replace(d, span=move(d.span), related=tuple(Related(move(r.span), r.message) for r in d.related))
