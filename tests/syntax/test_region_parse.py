"""A keystroke's parse of an open document reads the region the edit touched alone
(``syntax.regions``) and equals a fresh parse of the whole text: on generated edits (any of the
characters that open or close something, ``"``, ``{``, ``}``, ``#``, ``/*``, ``*/``, ``<<EOT``,
``<<-EOT``, a terminator line, line breaks, ``\r``, typed anywhere; deletions across block
boundaries; in texts with heredocs, ``/* */`` comments spanning lines, a ``/*`` in a string, and
CRLF line endings), the top-level items and their
spans, each item's nodes, the blocks with their spans, the syntax errors, each block's
references and the undefined references found in them (``stir.file_findings``, carried from
edit to edit as the host does) are the fresh parse's. The host's own property test
(tests/host/test_host_property.py) checks the analysis of such parses against a fresh one."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tfphi.lsp import documents
from tfphi.lsp.documents import Document, TextChange
from tfphi.stir.file_findings import file_findings
from tfphi.stir.references import NameTable
from tfphi.syntax.hclfile import item_place, new_parser, parse_file
from tfphi.syntax.references import block_references

# Without a heredoc or a ``/* */`` comment (the edits may write them), and with them.
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

# Heredocs (a terminator-looking line inside one, indented terminators), comments spanning lines
# between and inside blocks, and a ``/*`` in a string that the shapes' search takes for a comment
# up to the next ``*/`` (``error_shapes._without_block_comments``): what IAM policies and
# user_data scripts look like.
HEREDOCS = '''variable "arn" {
  default = "arn:aws:s3:::other/*"
}
locals {
  policy = <<EOT
{
  "Resource": "arn:aws:s3:::bucket/*",
  EOT is not the end
}
EOT
  script = <<-EOF
    #!/bin/bash
    echo ${var.a} # }
    EOF
}

/* a comment
   spanning lines } { */
resource "null_resource" "r" {
  triggers = {
    /* inline */ x = local.policy
  }
}

variable "a" {
  description = <<EOT
  # not a comment
  /* not a comment either
  EOT
}
# after <<EOT
output "o" { value = local.script }
data "d" "e" {
  /* two
     lines */
}
'''

# The same without what the shapes' search takes for a comment or a heredoc across blocks (the
# "/*" in a string, the "<<EOT" in a comment): every block's heredocs and comments end in it, and
# the search of a region alone is the search of the text (``regions._strips_local``).
LOCAL = HEREDOCS.replace('variable "arn" {\n  default = "arn:aws:s3:::other/*"\n}\n', "").replace("# after <<EOT\n", "")

# What opens or closes something, typed anywhere; and whole lines that keep a text valid (most
# random places break the syntax, and a text with an error is read whole until it is gone).
FRAGMENTS = ['"', "{", "}", "#", "/*", "*/", "<<EOT\n", "EOT\n", "=", "${", "//", "a = 1\n", "\n", "x", " ", "1", "x {}",
             "<<-EOF\n", "  EOF\n", "\r", "\r\n", "E", "EOT"]
LINES = ["}\n\nlocals {\n", "\n", "# c\n", "\n\n", 'locals {\n  z = "${var.a}"\n}\n', "  y = 2\n", "// c\n",
         "/* c\n */\n", "locals {\n  h = <<EOT\n  x }\nEOT\n}\n", "EOT\n", "  h = <<-EOT\n    y\n    EOT\n", "/*\n",
         "  y = 1\n  + 2\n"]  # (the last: read by tree-sitter, rejected by Terraform)

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
    if draw(st.booleans()):  # (in a CRLF text, what a Windows editor types; else the text's endings get mixed)
        inserted = inserted.replace("\n", "\r\n").replace("\r\r", "\r")
    return where, deleted, inserted, mode


_SEAMS = re.compile(r"(?m)(?<=^\})|^(?=[a-z])")


def _off_crlf(text: str, at: int) -> int:
    """``at``, or the offset after a ``\r\n`` it splits (an editor's position cannot be between them)."""
    return at + 1 if 0 < at < len(text) and text[at - 1] == "\r" and text[at] == "\n" else at


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
        start = min(start, len(text))
        if mode == "seam":
            seams = [m.start() for m in _SEAMS.finditer(text)] or [start]
            start = seams[min(len(seams) - 1, int(where * len(seams)))]
        end = min(len(text), start + deleted)
        if mode == "lines":
            start = text.rfind("\n", 0, start) + 1
            end = max(start, text.find("\n", end) + 1 if deleted and "\n" in text[end:] else start)
        start, end = _off_crlf(text, start), _off_crlf(text, end)
        end = max(start, end)
        doc.apply([TextChange(inserted, (doc.position(start), doc.position(end)))], n + 1)
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
       text=st.sampled_from([PLAIN, TEXT, HEREDOCS, LOCAL, PLAIN.replace("\n", "\r\n"), HEREDOCS.replace("\n", "\r\n"),
                             LOCAL.replace("\n", "\r\n")]))
# A `#` typed at the start of a block's header comments it out: the block is in the region, though
# the edit ends where it starts (found by hypothesis with the region ending at the first block that
# starts at or after the edit, rather than after it with an unchanged byte before).
@example(edits=[(0.0, 0, "", "lines"), (0.0, 0, "#", "seam")], together=1, text=PLAIN)
# In a text with a "/*" in a string: an argument Terraform rejects ("+ 2" on its own line), hidden
# from the shapes' search by the "/*" taken for a comment up to the next "*/"; the lines deleted
# hold the "*/", and the search of the region alone finds nothing where the whole text's finds
# the shape (found by hypothesis with the region path searching its region alone in such texts).
@example(edits=[(0.953125, 0, "  y = 1\n  + 2\n", "lines"), (0.25, 20, "", "lines"), (0.0, 60, "", "seam")], together=1,
         text=HEREDOCS.replace("\n", "\r\n"))
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
    assert _check(edits) == len(edits)
    assert regions[0] is None and len(regions) == 1 + len(edits) and None not in regions[1:]  # (the opening parse is whole)


def _typed(text: str, strokes) -> list:
    """Edits (offset, deleted, inserted, "any") of ``strokes``: (anchor, shift from it, deleted, inserted)."""
    edits = []
    for anchor, shift, deleted, inserted in strokes:
        at = text.index(anchor) + shift
        edits.append((at, deleted, inserted, "any"))
        text = text[:at] + inserted + text[at + deleted :]
    return edits


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_keystrokes_in_a_text_with_heredocs_and_comments_read_their_region_alone(newline: str):
    """A text with heredocs, ``/* */`` comments and a ``/*`` in a string, with LF or CRLF line
    endings: keystrokes inside blocks, in heredocs, in comments and between blocks read their
    region alone, the first edit too."""
    for text in (HEREDOCS.replace("\n", newline), LOCAL.replace("\n", newline)):
        edits = _typed(text, [('"r"', 1, 0, "x"), ("echo", 0, 0, "x"), ("bin/bash", 3, 0, "h"), ("lines }", 6, 0, "x"),
                              ("not the end", 4, 0, "x"), (newline + "output", len(newline), 0, newline),
                              ("arn:aws:s3:::bucket/*", 5, 0, "y"), ("inline", 0, 0, "an "), ("/* two", 3, 0, "x"),
                              (newline + "variable", len(newline), 0, "# c" + newline)])
        assert _check(edits, text=text) == len(edits)


def test_a_text_whose_blocks_end_their_heredocs_and_comments_searches_its_region_alone():
    """In LOCAL every block's heredocs and comments end in it: after the first edit, a
    keystroke's parse shows that the whole text's search finds nothing from its region alone
    (``strips_local``); HEREDOCS has a "/*" in a string: the whole text is searched, and the
    next parses know it without scanning the pieces again."""
    for text, local in ((LOCAL, True), (HEREDOCS, False)):
        doc = Document("main.tf", 0, text.encode())
        parser = new_parser()
        doc.parse("main.tf", parser)
        for version, (at, inserted) in enumerate([(text.index('"r"') + 1, "x"), (text.index("echo"), "x")], 1):
            doc.apply([TextChange(inserted, (doc.position(at), doc.position(at)))], version)
            hcl = doc.parse("main.tf", parser)
        assert hcl.tree is None and hcl.strips_local is local


@pytest.mark.parametrize("typed", ["<<EOT" + "\n", "/*", "*/", "\r"])
def test_what_opens_or_ends_a_heredoc_or_a_comment_reads_as_a_fresh_parse(typed: str):
    """Typed inside a block, a heredoc's or a comment's opener swallows the blocks below in a
    fresh parse (an error), a ``*/`` ends a comment early, a lone ``\\r`` is a line break: each
    reads as the fresh parse does, whichever way it is read."""
    text = HEREDOCS
    edits = _typed(text, [('"r"', 1, 0, "x"), ("= local.policy", 2, 0, typed), ("lines }", 6, 0, typed),
                          ("EOT is not", 0, 4, ""), ("bin/bash", 8, 0, typed)])
    _check(edits, text=text)


def test_an_error_item_s_findings_are_not_carried_by_text():
    """Found by the generator above on HEREDOCS. ``*/`` typed into a comment (after a block was
    deleted) leaves an ERROR item holding ``x = local.policy``, found bound in the piece it was
    parsed in; ``/*`` typed at the start comments the first blocks out, and the same ERROR text,
    now parsed in another piece, holds an undefined reference. Carried by its text
    (``stir.file_findings._by_text``), its findings were the old piece's: none."""
    text = HEREDOCS
    parser = new_parser()
    doc = Document("main.tf", 0, text.encode())
    known = file_findings(doc.parse("main.tf", parser), TABLE, None)
    gone = text.index('variable "a"')  # (the generator's first edit: a block's first lines deleted)
    edits = [(gone, text.index("  EOT\n}\n# after"), ""), (text.index("a comment") + 3, None, "*/"), (0, None, "/*")]
    for version, (at, end, inserted) in enumerate(edits, 1):
        end = at if end is None else end
        doc.apply([TextChange(inserted, (doc.position(at), doc.position(end)))], version)
        text = text[:at] + inserted + text[end:]
        known = file_findings(doc.parse("main.tf", parser), TABLE, known)
    fresh = file_findings(parse_file("main.tf", text.encode(), new_parser()), TABLE, None)
    assert [m for _, _, m in _findings(fresh)] == ["undefined reference to local.policy: no locals block declares it",
                                                   "undefined reference to local.script: no locals block declares it"]
    assert _findings(known) == _findings(fresh)


def test_a_comment_opener_deleted_shows_a_shape_it_hid_below():
    """HEREDOCS's ``"arn:aws:s3:::other/*"`` is taken by the shapes' search for a comment up to
    the ``*/`` below the locals block: an argument Terraform rejects typed in that block (``+ 2``
    on its own line) is hidden from it, and no error is reported, as a fresh parse reports none.
    Deleting the ``*`` of the string shows it: the parse after the edit, which reads the first
    block alone, searches the whole text (on main before session 14 the whole parse's search of
    its region alone found nothing: ``searches.searched`` looked for openers in the region only)."""
    text = HEREDOCS
    edits = [(0, 0, "", "lines"), (text.index("  script"), 0, "  y = 1\n  + 2\n", "lines"), (text.index("other/*") + 6, 1, "", "any")]
    _check(edits, text=text)
    after = text.replace("  script", "  y = 1\n  + 2\n  script").replace("other/*", "other/")
    assert [e.message for e in parse_file("main.tf", after.encode(), new_parser()).errors] == [
        "argument or block definition required: an argument or block definition is required here"]
