"""A keystroke's parse of an open document reads the region the edit touched alone
(``syntax.regions``) and equals a fresh parse of the whole text: on generated edits (any of the
characters that open or close something, ``"``, ``{``, ``}``, ``#``, ``/*``, ``<<EOT``, line
breaks, typed anywhere; deletions across block boundaries), the top-level items and their
spans, each item's nodes, the blocks with their spans, the syntax errors, each block's
references and the undefined references found in them (``stir.file_findings``, carried from
edit to edit as the host does) are the fresh parse's. The host's own property test
(tests/host/test_host_property.py) checks the analysis of such parses against a fresh one."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tfphi.lsp import documents
from tfphi.lsp.documents import Document, TextChange
from tfphi.stir.file_findings import file_findings
from tfphi.stir.references import NameTable
from tfphi.syntax.hclfile import item_place, new_parser, parse_file
from tfphi.syntax.references import block_references

# Without a heredoc or a ``/* */`` comment (a text with one is parsed whole, ``syntax.regions``;
# the edits may write them), and with them.
PLAIN = '''variable "a" {
  default = 1
}

locals {
  b = var.a # a comment
  c = "${local.b}-${var.missing}"
}
// a comment
resource "null_resource" "r" {
  triggers = {
    x = local.c
  }
  lifecycle {
    ignore_changes = [triggers]
  }
}
module "m" {
  source = "./m"
  text   = "hello ${local.b}"
}

output "o" { value = module.m.x }
data "d" "e" {}
'''

TEXT = '''variable "a" {
  default = 1
}

locals {
  b = var.a # a comment
  c = "${local.b}-${var.missing}"
}

/* a comment
   between blocks */
resource "null_resource" "r" {
  triggers = {
    x = local.c
  }
  lifecycle {
    ignore_changes = [triggers]
  }
}

module "m" {
  source = "./m"
  text   = <<EOT
hello ${local.b}
EOT
}
output "o" { value = module.m.x }
data "d" "e" {}
'''

# What opens or closes something, typed anywhere; and whole lines that keep a text valid (most
# random places break the syntax, and a text with an error is read whole until it is gone).
FRAGMENTS = ['"', "{", "}", "#", "/*", "*/", "<<EOT\n", "EOT\n", "=", "${", "//", "a = 1\n", "\n", "x", " ", "1", "x {}"]
LINES = ["}\n\nlocals {\n", "\n", "# c\n", "\n\n", 'locals {\n  z = "${var.a}"\n}\n', "  y = 2\n", "// c\n"]

TABLE = NameTable(variables=frozenset({"a"}), locals=frozenset({"b", "c"}), resources=frozenset({"null_resource.r"}),
                  data=frozenset(), calls=frozenset({"m"}), outputs=())


@st.composite
def edit(draw):
    where = draw(st.floats(min_value=0, max_value=1))
    # "lines": at a line's start, a deletion to a line's end; "seam": where a top-level block ends
    # or starts (a deletion from there, of any length); "any": anywhere.
    mode = draw(st.sampled_from(["lines"] * 5 + ["seam"] * 2 + ["any"]))
    deleted = draw(st.sampled_from([0] * 8 + [1, 2, 5, 20, 60]))  # (a deletion may span block boundaries)
    inserted = draw(st.sampled_from(["", *LINES[1:] * 3, LINES[0]] if mode == "lines" else ["", *FRAGMENTS]))
    return where, deleted, inserted, mode


_SEAMS = re.compile(r"(?m)(?<=^\})|^(?=[a-z])")


def _position(text: str, at: int) -> tuple[int, int]:
    line_start = text.rfind("\n", 0, at) + 1
    return text.count("\n", 0, at), len(text[line_start:at].encode("utf-16-le")) // 2


def _tree(node) -> list:
    out, stack = [], [node]
    while stack:
        node = stack.pop()
        out.append((node.type, node.start_byte, node.end_byte, node.is_missing))
        stack.extend(reversed(node.children))
    return out


def _reading(hcl) -> dict:
    """What a parse reads of its text, every span absolute."""
    source = hcl.source
    tops = hcl.top_levels()
    return {
        "items": hcl.top_ranges(),
        "nodes": [_tree(top.node()) for top in tops] if hcl.tree is None else [_tree(hcl.tree.root_node)],
        "blocks": [(b.type, b.labels, b.span, b.type_span, b.label_spans, b.text, sorted(b.body.attributes),
                    [(n.type, n.labels, n.span) for n in b.body.blocks]) for b in hcl.body.blocks],
        "attributes": sorted((name, a.name_span, a.span) for name, a in hcl.body.attributes.items()),
        "errors": [(e.span, e.message) for e in hcl.errors],
        "references": [block_references(top.node(), source, {}) for top in tops if top.type == "block"],
    }


def _findings(found) -> list:
    return [(f.span.start, f.span.end, f.message) for f in found.findings]


def _check(edits, together: int = 1, text: str = PLAIN) -> int:
    """Applies ``edits`` to an open document of ``text`` (parsed after every ``together``),
    comparing each parse with a fresh one; how many parses read a region alone."""
    parser = new_parser()
    doc = Document("main.tf", 0, text.encode())
    doc.parse("main.tf", parser)
    known = file_findings(doc.hcl, TABLE, None)
    regions = 0
    for n, (where, deleted, inserted, mode) in enumerate(edits):
        start = where if isinstance(where, int) else int(where * len(text))  # (an offset, or a fraction of the text)
        if mode == "seam":
            seams = [m.start() for m in _SEAMS.finditer(text)] or [start]
            start = seams[min(len(seams) - 1, int(where * len(seams)))]
        end = min(len(text), start + deleted)
        if mode == "lines":
            start = text.rfind("\n", 0, start) + 1
            end = max(start, text.find("\n", end) + 1 if deleted and "\n" in text[end:] else start)
        doc.apply([TextChange(inserted, (_position(text, start), _position(text, end)))], n + 1)
        text = text[:start] + inserted + text[end:]
        if n % together:
            continue
        hcl = doc.parse("main.tf", parser)
        regions += hcl.tree is None and hcl.items is not None
        fresh = parse_file("main.tf", text.encode(), new_parser())
        assert hcl.source == fresh.source
        ours, theirs = _reading(hcl), _reading(fresh)
        if hcl.tree is not None and fresh.tree is not None:  # (both whole trees: compared whole)
            ours["nodes"], theirs["nodes"] = [_tree(hcl.tree.root_node)], [_tree(fresh.tree.root_node)]
        elif hcl.tree is None and fresh.tree is not None:  # (a region's parse: item by item)
            theirs["nodes"] = [_tree(top.node()) for top in fresh.top_levels()]
        assert ours == theirs
        if hcl.items is not None:
            assert [item_place(i)[:3] for i in hcl.items] == [r for r in fresh.top_ranges() if r[0] != "comment"]
        known = file_findings(hcl, TABLE, known)
        assert _findings(known) == _findings(file_findings(fresh, TABLE, None))
    return regions


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits=st.lists(edit(), min_size=1, max_size=14), together=st.integers(min_value=1, max_value=2),
       text=st.sampled_from([PLAIN, TEXT]))
# A `#` typed at the start of a block's header comments it out: the block is in the region, though
# the edit ends where it starts (found by hypothesis with the region ending at the first block that
# starts at or after the edit, rather than after it with an unchanged byte before).
@example(edits=[(0.0, 0, "", "lines"), (0.0, 0, "#", "seam")], together=1, text=PLAIN)
def test_a_keystroke_s_region_parse_equals_a_fresh_parse(edits, together: int, text: str):
    _check(edits, together, text)


def test_keystrokes_in_an_error_free_text_read_their_region_alone(monkeypatch):
    """Typed characters and line breaks inside blocks, between them and in labels read their
    region alone, the first edit too (the opening parse, whose whole tree is not kept, keeps its
    items to take over: ``hclfile.drop_whole_tree``)."""
    regions = []
    real = documents.parse_edit
    monkeypatch.setattr(documents, "parse_edit", lambda *args: regions.append(real(*args)) or regions[-1])
    text, edits = PLAIN, []
    for anchor, shift, deleted, inserted in [("default = 1", 10, 0, "2"), ('"r"', 1, 0, "x"), ("\nlocals", 1, 0, "\n"),
                                              ("default = 21", 11, 0, "3"), ("\nlocals", 1, 0, "# c\n"),
                                              ("default = 231", 11, 1, ""), ("\noutput", 1, 0, "\n")]:
        at = text.index(anchor) + shift
        edits.append((at, deleted, inserted, "any"))
        text = text[:at] + inserted + text[at + deleted :]
    _check(edits)
    assert regions[0] is None and len(regions) == 1 + len(edits) and None not in regions[1:]  # (the opening parse is whole)
