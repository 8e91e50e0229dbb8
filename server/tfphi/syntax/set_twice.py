"""An argument set twice in one body: Terraform rejects the file ("Attribute redefined"), and
tree-sitter-hcl reads it without an error (``hclfile.build_file`` asks)."""

from __future__ import annotations

import re
from bisect import bisect_left
from functools import lru_cache

from tree_sitter import Node, Tree

from .error_shapes import SyntaxProblem, syntax_checker, terraform_placed
from .expr import Span
from .language import hcl_language
from .parsers import exact_node
from .searches import CleanSources


# ---- an argument set twice in one body ------------------------------------------------------
#
# Terraform rejects a file that sets an argument twice in one body ("Attribute redefined"), and
# tree-sitter-hcl reads it without an error. The bodies this module reads anyway (the top-level
# body; variable, locals, module and output bodies of files read without their tree) say so as
# they are read (``ExprConverter.set_twice``); the bodies of other blocks are looked at here,
# while the tree is at hand. In a body that Terraform and tree-sitter both read without an error
# (the only files asked), an argument of a body with two or more items starts a line: a body's
# first item follows its "{" on the next line (on the same line, the body holds one argument),
# and each item ends with a newline. So a block with no name written twice at the start of a line
# before "=" sets nothing twice, unless a "/* */" comment comes before a name on its line. A block
# that has one (nested blocks repeat their arguments' names, as do objects' keys, and heredoc
# lines may look like arguments) is walked in the tree. The answer is a function of the block's
# text: the texts found clean are remembered by the host's ``CleanSources`` (a generated
# workspace repeats its blocks).
_ARGUMENT_LINE = re.compile(rb"\n[ \t]*+([\w\-\x80-\xff]++)[ \t]*+=(?![=>])")


def first_set_twice(source: bytes, tree: Tree, ranges, clean: "CleanSources | None" = None,
                    remember: bool = True) -> int | None:
    """The offset of the second name of an argument set twice in one body of the top-level blocks
    of ``tree`` at ``ranges`` ((start, end) each), or None when none is; ``clean``: the blocks'
    texts found to set nothing twice before, and (``remember``) where to note those found now."""
    find = _ARGUMENT_LINE.findall
    for start, end in ranges:
        text = source[start:end]
        if clean is not None and clean.block_checked(text):
            continue
        names = find(text)
        comments = b"/*" in text
        if (len(names) > 1 and len(set(names)) < len(names)) or comments:
            node = exact_node(tree, start, end, "block")
            twice = _set_twice_in(node, source, comments) if node is not None else None
            if twice is not None:
                return twice
        if clean is not None and remember:
            clean.add_block(text)
    return None


@lru_cache(maxsize=1)
def _item_kinds() -> tuple[int, int, int]:
    language = hcl_language()
    return tuple(language.id_for_node_kind(kind, True) for kind in ("body", "attribute", "block"))


def _set_twice_in(block: Node, source: bytes, comments: bool) -> int | None:
    """The offset of the second name of an argument set twice in one body in ``block``. Without
    ``/*`` in the block (``comments``), only the arguments on the lines whose name repeats can be,
    and a nested block with fewer than two of those lines is not entered (found by bisection:
    linear in the block, however deep it nests). Kinds are compared by number: a node's type is a
    new string each time it is asked."""
    body_kind, attribute_kind, block_kind = _item_kinds()
    lines: dict[int, bytes] | None = None
    starts: list[int] = []
    if not comments:
        where: dict[bytes, list[int]] = {}
        for found in _ARGUMENT_LINE.finditer(source, block.start_byte, block.end_byte):
            where.setdefault(found.group(1), []).append(found.start(1))
        lines = {at: name for name, ats in where.items() if len(ats) > 1 for at in ats}
        starts = sorted(lines)
    stack = [block]
    while stack:
        node = stack.pop()
        body = node.child(node.child_count - 2)  # before the closing brace, unless a comment is
        if body is None or body.kind_id != body_kind:
            body = next((c for c in node.children if c.kind_id == body_kind), None)
            if body is None:
                continue  # an empty block
        seen: set[bytes] = set()
        for item in body.children:
            kind = item.kind_id
            if kind == attribute_kind:
                at = item.start_byte
                if lines is None:
                    name = source[at : item.child(0).end_byte]
                else:
                    name = lines.get(at)
                    if name is None:
                        continue  # its name is on no other argument line
                if name in seen:
                    return at
                seen.add(name)
            elif kind == block_kind and (lines is None or bisect_left(starts, item.end_byte) - bisect_left(starts, item.start_byte) > 1):
                stack.append(item)
    return None


def argument_set_twice_in(block: Node, source: bytes) -> int | None:
    """The offset of the second name of an argument set twice in one body of ``block`` (a block
    node read without an error), or None."""
    return _set_twice_in(block, source, b"/*" in source[block.start_byte : block.end_byte])


def redefined_errors(path: str, source: bytes, root: Node, twice: int) -> list[SyntaxProblem]:
    """Terraform's errors for a file that sets an argument twice (the second name at ``twice``):
    the whole check's (``terraform_placed``), or that error alone when the check cannot say."""
    placed = terraform_placed(path, source, [], root, force=True)
    if placed:
        return placed
    name = _NAME_AT.match(source, twice)
    end = name.end() if name is not None else twice
    checker = syntax_checker()
    error = checker.HclError(*checker.attribute_redefined(source[twice:end].decode("utf-8", "replace"), twice, end))
    return [SyntaxProblem(Span(path, twice, end), error.message)]


_NAME_AT = re.compile(rb"[\w\-\x80-\xff]++")
