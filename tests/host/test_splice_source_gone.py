"""A parse spliced from a body that is gone is never taken for a splice of another body.

A document's region parse says which body it was spliced from (``HclFile.splice``), and a
declarations build spliced from an earlier one says which (``FileDecls.changes``). The host
may never have seen that body: the document's opening parse, replaced by its first edit's. Once
it is gone, Python may give a later body its address; an ``id`` remembered would then take the
later body (the host's own parse of the file, made again) for the one spliced from, and the
declarations of the wrong blocks would be kept. Found by hypothesis
(``test_host_property``'s duplicate-label example failed one run in a hundred).
"""

from __future__ import annotations

import gc

from tfphi.lsp.documents import Document, TextChange
from tfphi.stir.model import read_declarations
from tfphi.syntax.hclfile import new_parser, parse_file

TEXT = "".join(f'variable "v{n}" {{\n  default = {n}\n}}\n\n' for n in range(6))


def _names(decls) -> list:
    return [name for info in decls.blocks for name in info.names]


def test_declarations_spliced_from_a_body_gone_read_the_blocks_afresh():
    parser = new_parser()
    for attempt in range(20):  # (an address given again is likely, not certain: tried until it is)
        doc = Document("main.tf", 0, TEXT.encode())
        doc.parse("main.tf", parser)  # the opening parse: never given to the host
        at = TEXT.index('"v0"') + 2
        doc.apply([TextChange("x", (doc.position(at), doc.position(at)))], 1)
        edited = doc.parse("main.tf", parser)  # spliced from the opening parse's body, now gone
        gc.collect()
        # The host's own parse of the file, made after the opening parse's body is gone: its
        # first (and last) blocks differ from the edited text's.
        other = TEXT.replace('"v5"', '"w5"')
        host_file = parse_file("main.tf", other.encode(), parser)
        previous = read_declarations(host_file.body)
        spliced = read_declarations(edited.body, previous, edited.splice)
        assert _names(spliced) == _names(read_declarations(edited.body)), f"attempt {attempt}"
