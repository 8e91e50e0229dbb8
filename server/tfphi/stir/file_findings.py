"""A file's undefined references, kept per top-level block for the next parse of the file.

A block's findings are a function of its text (its references, relative to its start) and of
the names they look up in the module's ``NameTable``, one reference at a time: a reference's
finding reads the one name it looks up (``name_looked_up``) and whether it is bound in its
block, nothing else (no finding reads the table as a whole). A block the parse took over (the
same object: its text unchanged, wherever it now is) keeps its findings, the same objects: their
spans are relative to the block's anchor (``syntax.expr.Anchor``), so a block an edit moved
needs no finding made again, and the file's findings are its blocks' in their order. When the
names change (a call renamed, a variable added), only the references that look one of the
changed names up are resolved again, in the blocks that hold one (found from the names each
block looks up, not by reading the text), and every other finding of those blocks is kept. So
an edit inside one block of a 200-block root resolves that block alone, and a renamed call the
references to it: each costs a look-up and, when it is undefined, one finding.

JSON files, files with syntax errors or top-level attributes, and files without their tree
(read from disk) keep what they found per top-level item's *text* instead (``_by_text``):
their top-level items are not all native blocks of the body, or their blocks have no node to
read references from.
"""

from __future__ import annotations

from bisect import bisect_right
from operator import itemgetter
from typing import TYPE_CHECKING, Callable, Iterable

from ..addrs import AddressError, parse_referenceable
from ..syntax import is_json_path
from ..syntax.expr import Span
from ..syntax.hclfile import HclFile, TopLevel, item_place
from ..syntax.references import block_references, is_bound_check
from .references import BUILTIN_ROOTS, Finding, NameTable, RelativeFinding, block_findings, changed_names, resolve

if TYPE_CHECKING:
    from tree_sitter import Node


class FileFindings:
    """What one parse of a file found: its findings against one name table and, with a tree at
    hand (an open document's parse), per block of its body by the block's id: its entry (the
    block, its references and the names they look up: ``_entries``), for the blocks with
    findings those findings (``_found``: made once per block, relative to its anchor), and, once
    a change of names asked for it, which blocks look each name up (``_readers``). The next
    answer for the file takes these three tables over (``take_blocks``) and updates them in
    place for the blocks the edit replaced and the names it changed: an edit costs the blocks
    it touched and the references to a changed name, no copy of a table and no look at every
    block."""

    __slots__ = ("hcl", "table", "findings", "_blocks", "_found", "_readers", "_texts", "_gone")

    def __init__(self, hcl: HclFile, table: NameTable, findings: list[Finding], texts: dict | None,
                 blocks: dict | None = None, found: dict | None = None, readers: dict | None = None, gone: dict | None = None):
        self.hcl = hcl
        self.table = table
        self.findings = findings
        self._blocks = blocks  # id(block) -> its entry, for each block of ``hcl.body``; None: none (or taken)
        self._found = found  # id(block) -> (block, relative findings, findings) of the blocks with findings
        self._readers = readers  # name -> {id of a block that looks it up: its references that do, by place}; None: not made
        self._texts = texts  # see ``texts``; None: worked out from ``hcl`` and ``findings`` when asked
        self._gone = gone  # id(block) -> the findings the last change of names let go of it, by relative finding

    def take_blocks(self) -> tuple[dict, dict, dict | None, dict] | None:
        """(entries, found, readers, gone), handed to the next answer for the file, which updates them
        in place for its own blocks; this answer has none after (a second taker, or the next
        answer when the one that took them failed, reads every block again). None when this
        answer has none."""
        if self._blocks is None:
            return None
        held = (self._blocks, self._found if self._found is not None else {}, self._readers, self._gone if self._gone is not None else {})
        self._blocks = self._found = self._readers = self._gone = None
        return held

    @property
    def texts(self) -> dict:
        """hash(text) -> (start, end, relative findings, references[, names looked up]) of each
        top-level item of a file read per text. Kept only for a file whose parse does not hold every item's
        references (``HclFile.tops``); else made again when the next answer asks, from those
        references and ``findings``: a dictionary per file not open in an editor was a tenth of
        the server's memory (docs/memory.md)."""
        if self._texts is not None:
            return self._texts
        hcl, findings = self.hcl, self.findings
        source = hcl.source
        by_text: dict[int, tuple] = {}
        at = 0
        for top in hcl.top_levels():
            base, end = top.start_byte, top.end_byte
            relative: list[RelativeFinding] = []
            while at < len(findings) and findings[at].span.start < end:  # (in the order of the items)
                span = findings[at].span
                relative.append((span.start - base, span.end - base, findings[at].message))
                at += 1
            text = source[base:end]
            digest = hash(text)
            entry = by_text.get(digest)
            if entry is None or source[entry[0] : entry[1]] != text:
                by_text[digest] = (base, end, tuple(relative), top.refs)
        return by_text


def file_findings(hcl: HclFile, table: NameTable, known: FileFindings | None) -> FileFindings:
    """The undefined references of ``hcl`` against ``table``, from what ``known`` (the last
    answer for the same path) found of the blocks this parse shares with it: the blocks the
    parse replaced (``HclFile.splice``, when it spliced ``known``'s body) are read, every other
    one is known's by identity, its findings the same objects. When the names changed, only the
    references that look one of them up are resolved again (``_readers``)."""
    if known is not None and known.hcl is hcl and not changed_names(known.table, table):
        return known  # the same parse against the same names
    tree = hcl.tree  # (None for an open document's parse of an edited region: nodes parsed again when asked)
    if ((tree is None and hcl.items is None) or is_json_path(hcl.path) or hcl.errors or hcl.body.attributes
            or (tree is not None and tree.root_node.has_error)):
        return _by_text(hcl, table, known)
    blocks = hcl.body.blocks
    source, path = hcl.source, hcl.path
    held = known.take_blocks() if known is not None else None
    splice = hcl.splice
    readers: dict | None = None
    gone: dict[int, dict] = {}
    if held is not None and known.hcl is hcl:  # the same blocks against other names
        entries, found, readers, gone = held
    elif held is not None and splice is not None and splice[0]() is known.hcl.body:
        entries, found, readers, gone = held
        _, first, last, count = splice
        # (read before the replaced blocks are let go: some of the new ones are old ones taken over)
        new = [(entry, entry is entries.get(id(entry[0]))) for entry in _entries(blocks[first : first + count], entries, source, tree)]
        kept = {id(entry[0]): found.get(id(entry[0])) for entry, taken in new if taken}
        for block in known.hcl.body.blocks[first:last]:
            key = id(block)
            entry = entries.pop(key)
            found.pop(key, None)
            gone.pop(key, None)
            if readers is not None:
                for name in entry[2]:
                    held_by = readers[name]
                    del held_by[key]
                    if not held_by:
                        del readers[name]
        for entry, taken in new:
            key = id(entry[0])
            entries[key] = entry
            mine = kept[key] if taken else _block_found(entry, entry[1], table, source, tree, path)
            if mine is not None:
                found[key] = mine
            if readers is not None:
                _add_readers(readers, key, entry)
    else:  # read afresh; the blocks ``known`` had (taken over by text) keep their entries and findings
        before, found_before = (held[0], held[1]) if held is not None else ({}, {})
        entries, found = {}, {}
        for entry in _entries(blocks, before, source, tree):
            key = id(entry[0])
            entries[key] = entry
            mine = found_before.get(key) if before.get(key) is entry else _block_found(entry, entry[1], table, source, tree, path)
            if mine is not None:
                found[key] = mine
    changed = changed_names(known.table, table) if held is not None else None
    if changed:  # resolved again: the references that look a changed name up, in the blocks that hold one
        if readers is None:
            readers = _readers_of(entries)
        resolved: dict[tuple, tuple | None] = {}  # (a name's references in many blocks resolve alike)
        hits: dict[int, list[int]] = {}  # block id -> its references that look a changed name up
        for name in changed:
            for key, at in readers.get(name, _NO_READERS).items():
                hits.setdefault(key, []).extend(at)
        defined: dict[tuple, bool] = {}  # reference path -> whether it resolves against ``table``
        for key, at in hits.items():
            prior = found.get(key)
            refs = entries[key][1]
            for i in at:
                if not _resolves(refs[i], table, defined):
                    break
            else:  # (each resolves, the common answer: no finding to make)
                if prior is not None:
                    mine, let_go = _without(prior, {refs[i][2] for i in at})
                    if let_go:
                        gone[key] = let_go
                    if mine is None:
                        del found[key]
                    elif mine is not prior:
                        found[key] = mine
                continue
            mine, let_go = _refreshed(entries[key], prior, sorted(at) if len(at) > 1 else at, table, source, tree, path,
                                      resolved, gone.get(key, _NO_GONE))
            if let_go is not None:
                if let_go:
                    gone[key] = let_go
                else:
                    gone.pop(key, None)
            if mine is not prior:
                if mine is None:
                    del found[key]
                else:
                    found[key] = mine
    return FileFindings(hcl, table, _in_order(found), {}, entries, found, readers, gone)


def _resolves(ref: tuple, table: NameTable, defined: dict[tuple, bool]) -> bool:
    """Whether ``ref`` resolves against ``table`` (``resolve``, once per reference path)."""
    path = (ref[0], ref[1])
    known = defined.get(path)
    if known is None:
        known = defined[path] = resolve(ref[0], ref[1], table) is None
    return known


def _without(prior: tuple, starts: set[int]) -> tuple[tuple | None, dict]:
    """A block's findings (``prior``) but those of the references starting at ``starts`` (the
    same tuple when there are none, None when no finding is left), and the findings let go."""
    block, relative, placed = prior
    kept = []
    let_go = {}
    for i, finding in enumerate(relative):
        if finding[0] in starts:
            let_go[finding] = placed[i]
        else:
            kept.append(i)
    if not let_go:
        return prior, let_go
    if not kept:
        return None, let_go
    return (block, tuple([relative[i] for i in kept]), tuple([placed[i] for i in kept])), let_go


def _in_order(found: dict) -> list[Finding]:
    """The findings of the blocks in ``found``, in the file's order: each block's are in order
    (its references'), and the blocks are ordered by where their anchors now are."""
    if len(found) <= 1:
        return [finding for _, _, placed in found.values() for finding in placed]
    findings: list[Finding] = []
    for _, _, placed in sorted(found.values(), key=_block_start):
        findings.extend(placed)
    return findings


def _block_start(item: tuple) -> int:
    return item_place(item[0])[1]


def _readers_of(entries: dict) -> dict[tuple[str, str], dict[int, tuple[int, ...]]]:
    """Which blocks (by id) look each name up, and with which of their references (by place)."""
    readers: dict[tuple[str, str], dict[int, tuple[int, ...]]] = {}
    for key, entry in entries.items():
        _add_readers(readers, key, entry)
    return readers


def _add_readers(readers: dict, key: int, entry: tuple) -> None:
    """Adds the references of one block's ``entry`` (``key``: the block's id) to ``readers``."""
    for i, name in enumerate(entry[3]):
        if name is not None:
            held = readers.get(name)
            if held is None:
                readers[name] = {key: (i,)}
            else:
                held[key] = held.get(key, ()) + (i,)


_NO_READERS: dict = {}  # (never written)


# An entry of ``FileFindings._blocks``: the block, its references (``syntax.references``: in
# source order, no two at one offset), the names they look up (a set: which blocks a change of
# names concerns) and per reference the name it looks up, or None (which of its references a
# change concerns). A function of the block's text alone: a change of names keeps it.
#
# A block's findings (``FileFindings._found``, for the blocks that have some): the block, its
# relative findings (start, end, message; in the order of its references) and the same as
# ``Finding``s whose spans are relative to the block's anchor.
#
# The findings a block's last change of names let go (``FileFindings._gone``), by relative
# finding: when the names come back (a call's label typed into, then taken back) the references'
# findings are those objects again, so what was made of them downstream (their diagnostics,
# ``stir.finding_diagnostics``, converted and serialized in ``lsp.publish``) is found again, not
# made again. Only the last change's: a block keeps at most as many as it has references, and
# lets them go with itself.


def _entries(blocks: list, before: dict, source: bytes, tree) -> list:
    """The entries of ``blocks``: those of ``before`` (by id) for the same block objects, else read."""
    out = []
    for block in blocks:
        entry = before.get(id(block))
        if entry is None or entry[0] is not block:
            span = block.span
            top = TopLevel(source, "block", span.start, span.end, None, None, tree)
            refs = block_references(top.node(), source, {})
            keys = tuple(map(name_looked_up, refs))
            entry = (block, refs, frozenset(filter(None, keys)), keys)
        out.append(entry)
    return out


def _block_found(entry: tuple, refs: list, table: NameTable, source: bytes, tree, path: str,
                 resolved: dict | None = None, gone: dict | None = None) -> tuple | None:
    """The findings of ``refs`` (some of ``entry``'s references, in order) against ``table``, as
    an item of ``FileFindings._found``; None when none is undefined. ``gone``: findings the
    block let go before, by relative finding, taken again for the same ones."""
    block, all_refs = entry[0], entry[1]
    relative = block_findings(refs, table, is_bound_check(all_refs, _node_of(block, source, tree)), resolved)
    if not relative:
        return None
    return block, relative, _findings_of(block, relative, path, gone)


def _findings_of(block, relative: Iterable[RelativeFinding], path: str, gone: dict | None = None) -> tuple[Finding, ...]:
    """``relative`` as ``Finding``s whose spans are relative to the block's anchor (absolute for a
    block without one: a block built with its spans); those in ``gone`` (let go by the block
    before) are those objects again."""
    place = block.place  # (made once per block: its anchor, without a span made to read it)
    anchor = place.anchor if place is not None else None
    if gone and anchor is not None:  # (a span without an anchor does not move with its block: made again)
        return tuple([gone.get(finding) or Finding("undefined-reference", Span(path, finding[0], finding[1], anchor), finding[2])
                      for finding in relative])
    base = 0 if anchor is not None else block.span.start
    return tuple([Finding("undefined-reference", Span(path, base + start, base + stop, anchor), message)
                  for start, stop, message in relative])


_NO_GONE: dict = {}  # (never written)


def _refreshed(entry: tuple, prior: tuple | None, positions: list[int], table: NameTable, source: bytes, tree,
               path: str, resolved: dict | None = None, gone: dict = _NO_GONE) -> tuple[tuple | None, dict | None]:
    """The findings of the block of ``entry`` (``prior``: those it had, or None) against
    ``table``, whose names differ from those they were made with for the references at
    ``positions`` (in order): those are resolved again, and the block's other findings are kept,
    the same objects (a finding starts where its reference does; the references are in source
    order, so findings sorted by their start are in the references' order). ``resolved``: what
    ``block_findings`` resolved in this pass, by reference path. ``prior`` itself when nothing
    changed. ``gone``: the findings the block let go before (taken again for the same ones);
    with the findings, those let go now (None: ``gone`` stays as it is)."""
    refs = entry[1]
    again = [refs[i] for i in positions]
    if prior is None:
        return _block_found(entry, again, table, source, tree, path, resolved, gone), None
    starts = {ref[2] for ref in again}
    mine, let_go = _without(prior, starts)
    made = _block_found(entry, again, table, source, tree, path, resolved, {**gone, **let_go} if let_go else gone)
    if made is None:
        return mine, let_go or None  # (prior itself when none of them was undefined, and none is)
    if let_go:
        let_go = {finding: held for finding, held in let_go.items() if finding not in made[1]}
    if mine is None:
        return made, let_go
    pairs = list(zip(mine[1], mine[2]))
    pairs.extend(zip(made[1], made[2]))
    pairs.sort(key=_first)
    return (prior[0], tuple([pair[0] for pair in pairs]), tuple([pair[1] for pair in pairs])), let_go


_first = itemgetter(0)


def _node_of(block, source: bytes, tree) -> "Callable[[], Node]":
    """The tree's node of a top-level block, found when first asked (a block whose references
    none can bind, ``syntax.references.Unbound``, never asks)."""
    top: list[TopLevel] = []

    def node() -> "Node":
        if not top:
            _, start, end, _ = item_place(block)
            top.append(TopLevel(source, "block", start, end, None, None, tree))
        return top[0].node()
    return node


def name_looked_up(ref: tuple) -> tuple[str, str] | None:
    """The name of a ``NameTable`` that ``resolve`` looks up for a reference, as
    ``changed_names`` names it; None for a reference that reads no name of the table."""
    root, parts = ref[0], ref[1]
    if root in BUILTIN_ROOTS or "::" in root:
        return None
    first = parts[0]
    if root in ("var", "local", "module"):
        return root, first
    if root == "data":
        return ("data", f"{first}.{parts[1]}") if len(parts) > 1 else None
    return "resource", f"{root}.{first}"


def looked_up(refs: Iterable[tuple]) -> frozenset[tuple[str, str]]:
    """The names of a ``NameTable`` that ``resolve`` looks up for these references."""
    return frozenset(filter(None, map(name_looked_up, refs)))


def _by_text(hcl: HclFile, table: NameTable, known: FileFindings | None) -> FileFindings:
    """Each top-level item by the hash of its text: (start, end, findings, references[, names]), the
    text read again from its parse's source when matched; keyed by the text itself, the copies
    were as large as the files. On a hash collision the later item is kept (the other misses).
    Findings carry over against the same names, or when none of the names the item looks up
    changed; references, a function of the text alone, always.

    The first answer for a file keeps neither the names each item looks up nor, when the parse
    holds every item's references, the dictionary (``FileFindings.texts`` makes it again): these
    are the files not open in an editor, most never read again, and their sets of names were a
    tenth of the server's memory (docs/memory.md). An answer after an edit (``known``) keeps both,
    so that the next change of names costs the items that look one of them up."""
    if known is not None and known.hcl is hcl and known._texts is None and not is_json_path(hcl.path):
        return _names_changed(hcl, table, known)  # (the same parse, every item's references held)
    source, path = hcl.source, hcl.path
    old_source = known.hcl.source if known is not None else b""
    before = known.texts if known is not None else {}
    changed = changed_names(known.table, table) if known is not None else None
    same_names = known is not None and not changed
    by_text: dict[int, tuple] = {}
    findings: list[Finding] = []
    edited = known is not None
    held = bool(hcl.tops)  # every item's references are in ``hcl.tops``: ``texts`` can be made again
    # Nodes found (or parsed again) on demand, each let go with its item: a ``TopLevel`` keeps the
    # node it parsed (and so its tree), and the list of a broken root file's 204 items held every
    # one until the last, 3.8 MiB of tree-sitter's nodes in Python's arenas at 1,000 modules, among
    # them the entries and findings that live on (bench/README.md, "Issue 23: the soak's other
    # transients, session 15").
    tops = hcl.top_levels()
    tops.reverse()
    while tops:
        top = tops.pop()
        held = held and top.refs is not None
        base, end = top.start_byte, top.end_byte
        text = source[base:end]
        digest = hash(text)
        # An ERROR item's references are not a function of its text: what tree-sitter made of
        # it depends on the piece it was parsed in (``tree_errors.parse_in_pieces``). Read anew.
        carried = top.type != "ERROR"
        entry = by_text.get(digest) if carried else None
        if entry is not None and source[entry[0] : entry[1]] == text:
            relative: list[RelativeFinding] = entry[2]
        else:
            entry = before.get(digest) if carried else None
            if entry is not None and old_source[entry[0] : entry[1]] != text:
                entry = None
            refs = top.refs if top.refs is not None else (entry[3] if entry is not None else None)
            if refs is None:
                refs = block_references(top.node(), top.source, {})
            names = entry[4] if entry is not None and len(entry) > 4 else None
            if names is None and edited:
                names = looked_up(refs)
            relative = None
            if entry is not None and (same_names or changed.isdisjoint(names)):
                relative = entry[2]  # (the names it looks up resolve as before)
            if relative is None:
                relative = block_findings(refs, table, is_bound_check(refs, top.node))
            by_text[digest] = (base, end, relative, refs, names) if edited else (base, end, relative, refs)
        for start, stop, message in relative:
            findings.append(Finding("undefined-reference", Span(path, base + start, base + stop), message))
    return FileFindings(hcl, table, findings, None if held and not edited else by_text)


def _last_identifier(kind: str, name: str) -> bytes | None:
    """The identifier a reference to the table's ``name`` ends with: the name itself, or a
    resource's or data source's own name (the table knows them as ``type.name``, read back
    through ``addrs``); None when ``name`` is no address."""
    if kind not in ("resource", "data"):
        return name.encode()
    try:
        return parse_referenceable(name).name.encode()
    except AddressError:
        return None


def _names_changed(hcl: HclFile, table: NameTable, known: FileFindings) -> FileFindings:
    """The same parse (every item's references held, ``HclFile.tops``) against other names: only
    the items whose text holds a changed name's identifier (an identifier is written as it is
    in native syntax, never escaped) can look it up; those are resolved again, found in C
    (``bytes.find``) and by bisection, and every other item keeps its findings. A label typed in
    the root renames one call, and ``outputs.tf``'s 200 outputs are not looked at one by one."""
    source, flat = hcl.source, hcl.tops
    starts = flat[1::4]
    again: set[int] = set()
    for kind, name in changed_names(known.table, table):
        word = _last_identifier(kind, name)
        if not word:  # (a name that is no address, an empty label: every item)
            again.update(range(len(starts)))
            continue
        at = source.find(word)
        while at >= 0:
            i = bisect_right(starts, at) - 1
            if i >= 0 and at < flat[4 * i + 2]:
                again.add(i)
            at = source.find(word, at + 1)
    if not again:
        return FileFindings(hcl, table, known.findings, None)
    findings = [f for f in known.findings if bisect_right(starts, f.span.start) - 1 not in again]  # (each in its item)
    tree, path = hcl.tree, hcl.path
    for i in again:
        kind, base, end, refs = flat[4 * i : 4 * i + 4]
        top = TopLevel(source, kind, base, end, refs, None, tree)
        for start, stop, message in block_findings(refs, table, is_bound_check(refs, top.node)):
            findings.append(Finding("undefined-reference", Span(path, base + start, base + stop), message))
    findings.sort(key=lambda f: bisect_right(starts, f.span.start))  # in the items' order (stable within one)
    return FileFindings(hcl, table, findings, None)
