"""Every scope reference of a file (``var.x``, ``module.m.out``, ``aws_s3_bucket.b``), read straight from the tree.

Strict reference checking must look at every expression of the workspace; converting them
all to typed ``Expr`` trees would cost far more than the check. A tree-sitter query finds
each ``variable_expr`` in C, and only the names that follow it are read in Python, with
``reference_is_bound`` says, for the few references that do not resolve, whether the root
is a name bound around it (``for`` variables, ``dynamic`` iterators) or stands where names
are not references (``type``, ``lifecycle``...).

Everything about a reference depends only on the top-level block it stands in, so the
results are cached per block text, relative to the block's start: an edit to one block of
a large file reads that block again and shifts the others.
"""

from __future__ import annotations

import re
from functools import lru_cache
from operator import attrgetter
from sys import intern
from typing import Callable

from tree_sitter import Node, Query, QueryCursor

from .language import hcl_language
from ..lazy_re import lazy_compile

_POSTFIX = frozenset({"get_attr", "index", "splat"})
# Attributes whose value names things (types, providers, attributes) instead of referring to them.
NAME_ATTRIBUTES = frozenset({"type", "provider", "providers", "ignore_changes", "replace_triggered_by"})
# Blocks whose contents are addresses, not expressions.
ADDRESS_BLOCKS = frozenset({"terraform", "moved", "import", "removed", "lifecycle"})


# One reference relative to the start of its top-level block: root, names, start, and where the
# root and each name end, from ``start`` (``name_ends``). A workspace's references are all kept
# for the undefined-reference check: the ends are None when the reference is written plainly,
# ``root.name.name`` (almost all), and the offsets small integers, which Python shares, when not.
Relative = tuple[str, tuple[str, ...], int, "tuple[int, ...] | None"]
# What the files one host reads together share (``AnalysisHost``: one snapshot's): each block
# text's references (keyed by the text), equal tuples of blocks' offsets and labels (a tuple is
# its own key: ``hclfile.Block``), equal references (``block_references``) and equal files' bytes
# (keyed by a tuple of the bytes: ``parse_file``).
BlockCache = dict[bytes | tuple, list[Relative] | tuple | bytes]
MAX_CACHED_BLOCKS = 50_000


@lru_cache(maxsize=1)
def _query() -> Query:
    return Query(hcl_language(), "(variable_expr) @ref")


# Single-node patterns only (linear in any nesting, see syntax.hclfile._RULES_QUERY): the
# steps are matched to their reference by position, not by a parent-child pattern. The blocks
# and attributes that bind or hold no references are found in the text instead (_region_words):
# a pattern for every block and attribute cost a quarter of the query.
@lru_cache(maxsize=1)
def _steps_query() -> Query:
    return Query(hcl_language(), "(variable_expr) @ref (index) @step (splat) @step "
                 "(for_tuple_expr) @for (for_object_expr) @for (template_for) @for")


# The names that can start such a region: an attribute that names things, a block whose
# contents are addresses, a ``dynamic`` block (its iterator). A place where one is written is
# one only where the tree has it as an attribute's name or a block's type.
_ATTRIBUTE_WORDS = frozenset(w.encode() for w in NAME_ATTRIBUTES)
_BLOCK_WORDS = frozenset(w.encode() for w in ADDRESS_BLOCKS | {"dynamic"})
_REGION_WORDS = _ATTRIBUTE_WORDS | _BLOCK_WORDS
_NAME_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")


def _region_words(source: bytes, start: int, end: int):
    """(start, end, word) of each of those names written as a whole name in ``source[start:end]``
    (by ``bytes.find``: a regular expression of the eleven names was ten times slower)."""
    for word in _REGION_WORDS:
        at = source.find(word, start, end)
        while at >= 0:
            after = at + len(word)
            if (at == 0 or source[at - 1] not in _NAME_BYTES) and (after >= len(source) or source[after] not in _NAME_BYTES):
                yield at, after, word
            at = source.find(word, after, end)


# More binding regions than this in one block (hostile nesting): references are not filtered
# (a reference is tested against each region around it), ``reference_is_bound`` decides later.
# The largest block of the corpus of bench/README.md has 157 (a GKE cluster's dynamic blocks).
MAX_REGIONS = 1024


def top_level_nodes(root: Node) -> list[Node]:
    """The blocks and attributes of the file's body, and any ERROR regions around them."""
    nodes: list[Node] = []
    for child in root.children:
        if child.type == "body":
            nodes.extend(c for c in child.children if c.type != "comment")
        elif child.type != "comment":
            nodes.append(child)
    return nodes


def block_references(top: Node, source: bytes, cache: BlockCache) -> "Unbound | list[Relative]":
    """The references of one top-level block, relative to its start (cached by the block's text).

    One object per text, never shared by another text: ``hclfile._read_top_block`` finds the
    first block of a text by its identity. An error-free block's are a tuple (``Unbound``): the
    host keeps one per top-level block of every file for the undefined-reference check, and a
    list was 16 bytes and its spare room more (26,000 at 10,000 modules, 2.7 MiB; docs/memory.md,
    "Session 13")."""
    if len(cache) > MAX_CACHED_BLOCKS:
        cache.clear()
    key = source[top.start_byte : top.end_byte]
    relative = cache.get(key)
    if relative is None:
        relative = _block_references(top, source)
        # Equal references are one tuple (a tuple is its own key): a workspace writes the same few
        # (1,712 distinct of 43,281 at 1,000 modules), at the same place in blocks of other texts.
        shared = [cache.setdefault(reference, reference) for reference in relative]
        relative = cache[key] = Unbound(shared) if relative.__class__ is Unbound else shared
    return relative


def _block_references(top: Node, source: bytes) -> "Unbound | list[Relative]":
    if not top.has_error:
        return _block_references_fast(top, source)
    return _block_references_walk(top, source)


_SPACE = re.compile(rb"[ \t\r\n]*")
_WHITE = frozenset(b" \t\r\n")
_START = attrgetter("start_byte")


def _block_references_fast(top: Node, source: bytes) -> "Unbound | list[Relative]":
    """One query for the references and their index and splat steps, in C; a step belongs to
    the reference (or step) it starts right after, with only white space between, and a
    ``.name`` step (a ``get_attr``) is read from the bytes there.

    In tree-sitter-hcl a traversal is flat: ``var.a[0].b`` is one ``expression`` whose
    children are ``variable_expr``, ``get_attr``, ``index``, ``get_attr``, so the steps of a
    reference are its following siblings, and a ``get_attr``/``index``/``splat`` that starts
    where an expression ends can only be the next step of that expression. A ``.`` there that
    starts no index or splat (``.0``, ``.*``) starts a ``get_attr``: nothing else in the
    grammar starts with a dot, and the block is error-free, so its name is the identifier after
    the dot (read from the tree when white space, a comment or a non-ASCII letter makes the
    bytes unsure). Half of what the query captured were those steps, each a node object. A
    comment between two steps is a sibling that is no step (it ends the traversal, as in the
    walk); an error-free block is required, as error recovery could attach a step elsewhere.

    References bound around them (a ``for`` variable, a ``dynamic`` iterator) or standing
    where names are not references (``type``, ``lifecycle``...) are left out: they can never
    be undefined, and deciding it later would mean parsing the block again. The regions that
    bind are found by the same query; a reference is bound by the regions that contain it,
    as ``Scopes`` decides along the chain of its ancestors."""
    base = top.start_byte
    if source.find(b".", base, top.end_byte) < 0:
        return Unbound()  # no "." anywhere: no ``get_attr``, so no reference with a name (a quarter of the blocks)
    captures = QueryCursor(_steps_query()).captures(top)
    nodes = captures.get("ref", [])
    if not nodes:
        return Unbound()
    regions: list | None = []
    enclosing: _Enclosing | None = None
    regions_read = False  # read when a reference with a step needs them (most blocks have none)
    steps = {n.start_byte: n.end_byte for n in captures.get("step", ())}  # index and splat steps
    nodes.sort(key=_START)
    out: list[Relative] = []
    step_at = steps.get
    space, size, attr_name, names_run, each_name = _SPACE.match, len(source), _ATTR_NAME.match, _NAMES_RUN.match, _ATTR_NAME.findall

    for node in nodes:
        end = at = node.end_byte
        if at < size and source[at] in _WHITE:  # white space before a step is rare
            at = space(source, at).end()
        if at >= size or (source[at] != 0x2E and at not in steps):  # no "." and no index or splat
            continue  # no name follows: nothing to report (as the walk)
        start = node.start_byte
        root = intern(source[start:end].decode("utf-8", "replace"))  # shared: "var", "local"... in every block
        if not regions_read:
            regions, regions_read = _binding_regions(captures, top, source), True
            enclosing = _Enclosing(regions) if regions else None
        if enclosing is not None and enclosing.binds(start, end, root):
            continue
        if at == end and end - start == len(root) and root != "resource":
            # The common case, ``root.name.name`` written plainly (ASCII, no white space, no index
            # or splat): the names are read at once, and the reference keeps no ends. It is what
            # the loop below reads when nothing but white space, or the end of the block, follows
            # the last name (no "." or step after it, and no non-ASCII letter continuing it).
            run = names_run(source, at)
            if run is not None:
                stop = after = run.end()
                if after < size and source[after] in _WHITE:
                    after = space(source, after).end()
                if after >= size or (source[after] != 0x2E and after not in steps and source[stop] < 0x80):
                    out.append((root, tuple([intern(name.decode()) for name in each_name(source, at + 1, stop)]),
                                start - base, None))
                    continue
        names: list[str] = []
        ends = [end - start]
        while at < size:
            step_end = step_at(at)
            if step_end is None:
                if source[at] != 0x2E:
                    break
                found = attr_name(source, at + 1)
                if found is not None and (found.end() >= size or source[found.end()] < 0x80):
                    step_end = found.end()  # ".name": the name is the rest (the common case)
                    names.append(intern(found.group().decode()))
                else:  # white space, a comment or a non-ASCII letter after the dot: ask the tree
                    named = _get_attr_name(top, source, at)
                    if named is None:
                        break  # no get_attr, or one without a name: the traversal ends before it
                    name, step_end = named
                    names.append(name)
                ends.append(step_end - start)
            end = at = step_end
            if at < size and source[at] in _WHITE:
                at = space(source, at).end()
        if names:
            out.append(_reference(root, names, start - base, ends))
    return out if regions is None else Unbound(out)  # None: too many regions, nothing was left out


_ATTR_NAME = re.compile(rb"[A-Za-z_][\w-]*+")
_NAMES_RUN = re.compile(rb"(?:\.[A-Za-z_][\w-]*+)++")  # ".name.name...": each name as _ATTR_NAME reads it


def _get_attr_name(top: Node, source: bytes, at: int) -> tuple[str, int] | None:
    """(name, end) of the ``get_attr`` whose dot is at ``at``; None when there is none or it has no name."""
    dot = top.descendant_for_byte_range(at, at + 1)
    step = dot.parent if dot is not None else None
    if step is None or step.type != "get_attr" or step.start_byte != at:
        return None
    ident = step.child(step.child_count - 1)
    if ident is None or not ident.is_named:
        named = step.named_children
        if not named:
            return None
        ident = named[-1]
    return source[ident.start_byte : ident.end_byte].decode("utf-8", "replace"), step.end_byte


class Unbound(tuple):
    """References of an error-free block of which none is bound around it or stands where names
    are no references (``_block_references_fast`` left those out): the undefined-reference
    check need not ask ``reference_is_bound``, which parses the block again once the file's
    tree is gone."""

    __slots__ = ()


def is_bound_check(refs: "Unbound | list[Relative]", top_node: Callable[[], Node]) -> Callable[[Relative], bool]:
    """What decides whether one of ``refs`` (a block's references) is bound: nothing for
    ``Unbound`` lists, else ``reference_is_bound`` on the block's node (``top_node()``, asked
    only then)."""
    if isinstance(refs, Unbound):
        return _never
    return lambda ref: reference_is_bound(top_node(), ref)


def _never(ref: Relative) -> bool:
    return False


def _binding_regions(captures: dict, top: Node, source: bytes) -> list[tuple[int, int, frozenset[str], bool]] | None:
    """(start, end, names bound, names are no references) of each node that binds; None when too many."""
    regions = []
    for node in captures.get("for", ()):
        bound, not_refs = _binding(node)
        if bound or not_refs:
            regions.append((node.start_byte, node.end_byte, bound, not_refs))
    for start, end, word in _region_words(source, top.start_byte, top.end_byte):
        ident = top.descendant_for_byte_range(start, end)
        if ident is None or ident.type != "identifier" or ident.start_byte != start or ident.end_byte != end:
            continue  # in a string, a comment, a longer name...
        parent = ident.parent
        if parent is None:
            continue
        if parent.type == "attribute" and word in _ATTRIBUTE_WORDS:
            regions.append((parent.start_byte, parent.end_byte, frozenset(), True))
        elif parent.type == "block" and parent.start_byte == start and word in _BLOCK_WORDS:
            bound, not_refs = _binding(parent)
            if bound or not_refs:
                regions.append((parent.start_byte, parent.end_byte, bound, not_refs))
    return regions if len(regions) <= MAX_REGIONS else None


class _Enclosing:
    """Whether a reference is bound by the regions around it, for references asked in source
    order: it keeps the regions that started before the last reference and have not ended
    (tree nodes are nested or apart, so they are the chain of regions around it), and a
    reference looks at those only, not at every region of the block."""

    def __init__(self, regions: list[tuple[int, int, frozenset[str], bool]]):
        self._order = sorted(regions, key=lambda r: (r[0], -r[1]))
        self._next = 0
        self._chain: list[tuple[int, int, frozenset[str], bool]] = []

    def binds(self, start: int, end: int, root: str) -> bool:
        order, chain = self._order, self._chain
        while self._next < len(order) and order[self._next][0] <= start:
            region = order[self._next]
            self._next += 1
            while chain and chain[-1][1] <= region[0]:
                chain.pop()  # ended before this region starts: around no later reference
            chain.append(region)
        while chain and chain[-1][1] <= start:
            chain.pop()
        for r_start, r_end, names, not_refs in chain:
            if r_start <= start and end <= r_end and (not_refs or root in names):
                return True
        return False


def _block_references_walk(top: Node, source: bytes) -> list[Relative]:
    """The references of a block with syntax errors: each step found as a sibling in the tree."""
    base = top.start_byte
    scopes = Scopes()
    nodes = QueryCursor(_query()).captures(top).get("ref", [])
    nodes.sort(key=lambda n: n.start_byte)  # captures are not in source order; ``scopes`` wants them so
    out: list[Relative] = []
    for node in nodes:
        root = source[node.start_byte : node.end_byte].decode("utf-8", "replace")
        names: list[str] = []
        ends = [node.end_byte - node.start_byte]
        for sibling in _following_siblings(node, source, top, scopes):
            if sibling.type not in _POSTFIX:
                break
            if sibling.type == "get_attr":
                ident = sibling.named_children[-1] if sibling.named_children else None
                if ident is None:
                    break
                names.append(source[ident.start_byte : ident.end_byte].decode("utf-8", "replace"))
                ends.append(sibling.end_byte - node.start_byte)
        if names:
            out.append(_reference(root, names, node.start_byte - base, ends))
    return out


def _reference(root: str, names: list[str], start: int, ends: list[int]) -> Relative:
    """One reference; ``resource.<type>.<name>`` (Terraform 1.4+) is read as ``<type>.<name>``,
    the same resource, so it resolves and is reported as the plain form is."""
    if root == "resource" and len(names) >= 2:
        return (names[0], tuple(names[1:]), start, tuple(ends[1:]))
    at = len(root)
    plain = ends[0] == at
    if plain:
        for i, name in enumerate(names, 1):
            at += 1 + len(name)
            if ends[i] != at:
                plain = False
                break
    return (root, tuple(names), start, None if plain else tuple(ends))


def _plain_ends(root: str, names) -> tuple[int, ...]:
    """The ends of ``root.name.name...`` written without spaces or index steps (lengths in code
    points: a non-ASCII name's ends, in bytes, differ, so they are kept)."""
    at = len(root)
    ends = [at]
    for name in names:
        at += 1 + len(name)
        ends.append(at)
    return tuple(ends)


def name_ends(ref: Relative) -> tuple[int, ...]:
    """Where the root and each name of ``ref`` end, from its start."""
    ends = ref[3]
    return ends if ends is not None else _plain_ends(ref[0], ref[1])


def reference_is_bound(top: Node, ref: Relative) -> bool:
    """True when the reference's root is bound around it, or it stands where names are not references."""
    root, start = ref[0], ref[2]
    target = top.descendant_for_byte_range(top.start_byte + start, top.start_byte + start + name_ends(ref)[0])
    if target is None:
        return False
    return Scopes().is_bound(top, target, root)


_POSTFIX_START = lazy_compile(rb"\s*[.\[/#]")  # a step (or a comment before one) may follow


def _following_siblings(node: Node, source: bytes, top: Node, scopes: "Scopes") -> list[Node]:
    """The nodes after ``node`` under its parent; none when the source shows no step follows.

    ``Node.next_sibling`` and ``Node.parent`` search down from the root each time (O(depth)):
    asking only when a step can follow, finding the parent with the shared walk of ``Scopes``
    and listing its children once keeps hostile input (``{a = {a = ...}}`` 10,000 deep,
    ``x[0][0]...`` 10,000 long) linear.
    """
    if not _POSTFIX_START.match(source, node.end_byte):
        return []
    parent = scopes.parent_of(top, node)
    if parent is None:
        return []
    children = parent.children
    for i, child in enumerate(children):
        if child == node:
            return children[i + 1 :]
    return []


_NOTHING: tuple[frozenset[str], bool] = (frozenset(), False)


class Scopes:
    """``is_bound`` for many references of a file, asked in source order, in linear total time.

    It keeps the chain of enclosing nodes of the last reference (root first) with, for each,
    the names bound so far and whether names there are not references. The next reference
    pops the nodes that do not enclose it and pushes the ones that do: each node is pushed
    once per file. (``Node.parent`` searches down from the root each time, so walking up
    from every reference was O(depth²): minutes for a hostile 10,000-level expression.)
    """

    def __init__(self) -> None:
        self._chain: list[Node] = []
        self._state: list[tuple[frozenset[str], bool]] = []

    def is_bound(self, top: Node, target: Node, root: str) -> bool:
        """True when ``root`` (the name ``target`` starts with) is bound around it, or is no reference there."""
        if not self._enter(top, target):
            return _is_bound_slow(target, root)
        names, flag = self._state[-1]
        return flag or root in names

    def parent_of(self, top: Node, target: Node) -> Node | None:
        """The parent of ``target``, a descendant of ``top``."""
        if self._enter(top, target):
            return self._chain[-1]
        return target.parent

    def _enter(self, top: Node, target: Node) -> bool:
        chain, state = self._chain, self._state
        if not chain or chain[0] != top:
            chain.clear()
            state.clear()
            self._push(top)
        while len(chain) > 1 and not (chain[-1].start_byte <= target.start_byte and target.end_byte <= chain[-1].end_byte):
            chain.pop()
            state.pop()
        node = chain[-1].child_with_descendant(target)
        while node is not None and node != target:
            self._push(node)
            node = node.child_with_descendant(target)
        if node is None:  # the chain was wrong after all: start again from the root
            chain.clear()
            state.clear()
            return False
        return True

    def _push(self, node: Node) -> None:
        names, flag = self._state[-1] if self._state else _NOTHING
        bound, not_refs = _binding(node)
        if bound:
            names = names | bound
        self._chain.append(node)
        self._state.append((names, flag or not_refs))


def _binding(node: Node) -> tuple[frozenset[str], bool]:
    """The names ``node`` binds for what it encloses, and whether names inside it are not references."""
    kind = node.type
    if kind in ("for_tuple_expr", "for_object_expr"):
        intro = next((c for c in node.children if c.type == "for_intro"), None)
        if intro is not None:
            return frozenset(c.text.decode() for c in intro.children if c.type == "identifier"), False
    elif kind == "template_for":
        start = node.children[0] if node.children else None
        if start is not None:
            return frozenset(c.text.decode() for c in start.children if c.type == "identifier"), False
    elif kind == "attribute":
        name = node.children[0].text.decode() if node.children else ""
        return frozenset(), name in NAME_ATTRIBUTES
    elif kind == "block":
        block_type = node.children[0].text.decode() if node.children else ""
        if block_type in ADDRESS_BLOCKS:
            return frozenset(), True
        if block_type == "dynamic":
            iterator = _dynamic_iterator(node)
            return (frozenset((iterator,)) if iterator else frozenset()), False
    return _NOTHING


def _is_bound_slow(target: Node, root: str) -> bool:
    node = target.parent
    while node is not None:
        bound, not_refs = _binding(node)
        if not_refs or root in bound:
            return True
        node = node.parent
    return False


def _dynamic_iterator(block: Node) -> str | None:
    """The iterator name of a ``dynamic`` block: its ``iterator`` attribute, else its label."""
    label = None
    for child in block.children[1:]:  # the first is the block type, ``dynamic``
        if child.type == "string_lit" and label is None:
            label = "".join(c.text.decode() for c in child.children if c.type == "template_literal")
        elif child.type == "identifier" and label is None:  # ``dynamic option {``: a label need not be quoted
            label = child.text.decode()
        elif child.type == "body":
            for attr in child.children:
                if attr.type == "attribute" and attr.children and attr.children[0].text == b"iterator":
                    expr = next((c for c in attr.children if c.type == "expression"), None)
                    if expr is not None:
                        return expr.text.decode().strip()
    return label
