"""A module's tables updated for the blocks an edit changed (``stir.model.assemble_module``
with the last build) equal the tables assembled afresh: every table in its order, the
declaration that won each address, the duplicates; and the addresses ``declared_addresses``
names cover every declaration that differs (with the declarations read by position where the
parse spliced the last one's blocks, ``HclFile.splice``). Edits are the host property test's (any text
anywhere, the keystroke shapes among them), typed into every file of a module as open documents."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import pytest

from host_support import LAYOUTS, declarations
from test_host_property import EXAMPLES, apply, edit

from tfphi.lsp.documents import Document
from tfphi.stir.model import assemble_module, read_declarations
from tfphi.stir.module_changes import declared_addresses
from tfphi.stir.workspace import module_dir_of
from tfphi.syntax.hclfile import new_parser, parse_file


def _tables(module, winners) -> tuple:
    """The module as plain data (its declarations in table order), and each address's winner by its spans."""
    return declarations(module), {address: (type(decl).__name__, decl.span) for address, decl in winners.items()}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@settings(max_examples=EXAMPLES, deadline=None)
@given(edits=st.lists(edit(), min_size=1, max_size=12))
def test_updated_tables_equal_fresh_ones(layout: str, edits):
    texts = {p: t for p, t in LAYOUTS[layout].items() if p.endswith(".tf")}
    dir = module_dir_of(sorted(texts)[0])
    paths = sorted(p for p in texts if module_dir_of(p) == dir)
    parser = new_parser()
    docs = {p: Document(p, 0, texts[p].encode()) for p in paths}
    decls = {p: read_declarations(docs[p].parse(p, parser).body) for p in paths}
    module, winners = assemble_module(dir, decls)
    for n, (index, where, kind, inserted, length, _read, _opened) in enumerate(edits):
        path = paths[index % len(paths)]
        texts[path], change = apply(texts[path], where, kind, inserted, length)
        docs[path].apply([change], n + 1)
        new_decls = dict(decls)
        hcl = docs[path].parse(path, parser)
        new_decls[path] = read_declarations(hcl.body, decls[path], hcl.splice)  # by position when the parse spliced
        new_module, new_winners = assemble_module(dir, new_decls, (module, winners, decls))
        fresh_decls = {p: read_declarations(parse_file(p, texts[p].encode(), parser).body) for p in paths}
        assert _tables(new_module, new_winners) == _tables(*assemble_module(dir, fresh_decls))
        named = declared_addresses(decls, new_decls)
        differs = {a for a in winners.keys() | new_winners.keys() if winners.get(a) is not new_winners.get(a)}
        assert differs <= named
        module, winners, decls = new_module, new_winners, new_decls
