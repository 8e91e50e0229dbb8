"""Every scope reference of a file (``var.x``, ``module.m.out``, ``aws_s3_bucket.b``), read straight from the tree.

Strict reference checking must look at every expression of the workspace; converting them
all to typed ``Expr`` trees would cost far more than the check. A tree-sitter query finds
each ``variable_expr`` in C, and only the names that follow it are read in Python. The
scope of a reference (``for`` variables, ``dynamic`` iterators, attributes that hold names)
is only worked out for the few references that do not resolve.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from tree_sitter import Node, Query, QueryCursor

from .expr import Span
from .hclfile import HclFile, hcl_language

_POSTFIX = frozenset({"get_attr", "index", "splat"})
# Attributes whose value names things (types, providers, attributes) instead of referring to them.
NAME_ATTRIBUTES = frozenset({"type", "provider", "providers", "ignore_changes", "replace_triggered_by"})
# Blocks whose contents are addresses, not expressions.
ADDRESS_BLOCKS = frozenset({"terraform", "moved", "import", "removed", "lifecycle"})


@dataclass(frozen=True, slots=True)
class Reference:
    """``root`` then the attribute names that follow it (index and splat steps skipped)."""

    root: str
    names: tuple[str, ...]
    span: Span  # the root and every step that follows it
    name_ends: tuple[int, ...]  # end offset of the root, then of each name
    node: Node  # the ``variable_expr``, for the rare scope check
    top: Node | None = None  # the file's root node: ancestors are found from it (see ``_ancestors``)


@lru_cache(maxsize=1)
def _query() -> Query:
    return Query(hcl_language(), "(variable_expr) @ref")


def file_references(hcl: HclFile) -> list[Reference]:
    """Every reference with at least one attribute step, in source order."""
    refs: list[Reference] = []
    source = hcl.source
    for node in QueryCursor(_query()).captures(hcl.tree.root_node).get("ref", ()):
        root = source[node.start_byte : node.end_byte].decode("utf-8", "replace")
        names: list[str] = []
        ends = [node.end_byte]
        end = node.end_byte
        for sibling in _following_siblings(node, source):
            if sibling.type not in _POSTFIX:
                break
            if sibling.type == "get_attr":
                ident = sibling.named_children[-1] if sibling.named_children else None
                if ident is None:
                    break
                names.append(source[ident.start_byte : ident.end_byte].decode("utf-8", "replace"))
                ends.append(sibling.end_byte)
            end = sibling.end_byte
        if names:
            refs.append(Reference(root, tuple(names), Span(hcl.path, node.start_byte, end), tuple(ends), node, hcl.tree.root_node))
    refs.sort(key=lambda r: r.span.start)
    return refs


_POSTFIX_START = re.compile(rb"\s*[.\[/#]")  # a step (or a comment before one) may follow


def _following_siblings(node: Node, source: bytes) -> list[Node]:
    """The nodes after ``node`` under its parent; none when the source shows no step follows.

    ``Node.next_sibling`` and ``Node.parent`` search down from the root each time (O(depth)):
    asking only when a step can follow, and asking the parent once, keeps hostile input
    (``{a = {a = ...}}`` 10,000 deep, ``x[0][0]...`` 10,000 long) linear.
    """
    if not _POSTFIX_START.match(source, node.end_byte):
        return []
    parent = node.parent
    if parent is None:
        return []
    children = parent.children
    for i, child in enumerate(children):
        if child == node:
            return children[i + 1 :]
    return []


def is_bound(ref: Reference) -> bool:
    """True when the reference's root is a name bound around it, or it stands where names are not references."""
    root = ref.root
    for node in _ancestors(ref):
        kind = node.type
        if kind in ("for_tuple_expr", "for_object_expr"):
            intro = next((c for c in node.children if c.type == "for_intro"), None)
            if intro is not None and any(c.type == "identifier" and c.text.decode() == root for c in intro.children):
                return True
        elif kind == "template_for":
            start = node.children[0] if node.children else None
            if start is not None and any(c.type == "identifier" and c.text.decode() == root for c in start.children):
                return True
        elif kind == "attribute":
            name = node.children[0].text.decode() if node.children else ""
            if name in NAME_ATTRIBUTES:
                return True
        elif kind == "block":
            block_type = node.children[0].text.decode() if node.children else ""
            if block_type in ADDRESS_BLOCKS:
                return True
            if block_type == "dynamic" and _dynamic_iterator(node) == root:
                return True
    return False


def _ancestors(ref: Reference) -> list[Node]:
    """The reference's enclosing nodes, innermost first.

    ``Node.parent`` searches down from the root each time, so walking up from a node
    nested N deep costs O(N²) (minutes for a hostile 10,000-level expression); walking
    down once from the root is linear.
    """
    target = ref.node
    chain: list[Node] = []
    node = ref.top
    while node is not None and node != target and len(chain) < 1_000_000:
        chain.append(node)
        node = node.child_with_descendant(target)
    if node != target:  # not found from the root (should not happen): the slow way
        chain, node = [], target.parent
        while node is not None:
            chain.append(node)
            node = node.parent
        return chain
    chain.reverse()
    return chain


def _dynamic_iterator(block: Node) -> str | None:
    """The iterator name of a ``dynamic`` block: its ``iterator`` attribute, else its label."""
    label = None
    for child in block.children:
        if child.type == "string_lit" and label is None:
            label = "".join(c.text.decode() for c in child.children if c.type == "template_literal")
        elif child.type == "body":
            for attr in child.children:
                if attr.type == "attribute" and attr.children and attr.children[0].text == b"iterator":
                    expr = next((c for c in attr.children if c.type == "expression"), None)
                    if expr is not None:
                        return expr.text.decode().strip()
    return label
