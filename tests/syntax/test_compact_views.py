"""The compact views of a file read without its tree (a file not open in an editor) read the same
as the views of a parse that keeps its tree and every offset (bench/README.md, "Issue 23: server
memory at 10,000 modules, session 11"): a top-level block reads its bytes through its file's
converter and is the place its attributes and nested blocks read theirs through (no converter
per block), and a regular argument keeps only its start and end (where its name ends and its
value starts are read from its bytes when asked, ``hclfile._regular``). Compared on the
benchmark's generated workspace and on generated argument spellings (spaces, tabs, comments
around ``=``, names that are not ASCII, values of every kind), every view as read first, again
after the file forgets what it derived (``forget_derived``), as a copy under another path
(``copy_under_path``), and taken over by a parse of the text with a line added above
(``take_over_blocks``: each block then reads its own text)."""

from __future__ import annotations

import sys
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from tfphi.syntax.copies import copy_under_path
from tfphi.syntax.attributes import Attribute, SpelledAttribute, TreeAttribute
from tfphi.syntax.hclfile import forget_derived, parse_file, take_over_blocks

sys.path.insert(0, str(Path(__file__).parents[2] / "bench"))
from generate import generate  # noqa: E402

TRACED = frozenset({"aws_db_instance"})  # (a resource type whose bodies are read at once, as the host's registered ones)


def _span(span) -> tuple:
    return (span.file, span.start, span.end)


def _attribute(attr) -> tuple:
    # (the expression first: FIXME ``literal_string`` of a value that is no quoted string, a heredoc,
    # is None until the expression was converted, its value after; the same in both forms)
    expr = repr(attr.expr)
    return (attr.name, _span(attr.span), _span(attr.name_span), attr.value_range, attr.literal_string(),
            attr.literal_bool(), expr)


def _block(block, top: bool) -> tuple:
    body = block.body
    return (block.type, block.labels, _span(block.span), _span(block.type_span), [_span(s) for s in block.label_spans],
            block.text if top else None, [_attribute(a) for a in body.attributes.values()],
            [_block(b, False) for b in body.blocks])


def views(hcl) -> list:
    """Everything a reader asks of a file's views, in the terms of absolute offsets."""
    return ([_attribute(a) for a in hcl.body.attributes.values()], [_block(b, True) for b in hcl.body.blocks],
            [(e.span.start, e.span.end, e.message) for e in hcl.errors], hcl.top_ranges())


def _attributes(body):
    yield from body.attributes.values()
    for block in body.blocks:
        if block._body is not None:
            yield from _attributes(block._body)


def assert_compact_reads_as_eager(path: str, source: bytes, cache: dict | None = None) -> None:
    """(``cache``: what the files read together share, as the host's ``BlockCache``.)"""
    eager = views(parse_file(path, source, keep_tree=True, traced=TRACED))
    compact = parse_file(path, source, keep_tree=False, traced=TRACED, refs_cache=cache)
    if compact.tree is None and not compact.nodes:  # (a file with a syntax error keeps its pieces' nodes)
        assert not [a for a in _attributes(compact.body) if isinstance(a, TreeAttribute)]
    assert views(compact) == eager
    forget_derived(compact)
    assert views(compact) == eager  # read again from the bytes
    if not compact.errors and compact.tree is None:
        assert views(copy_under_path(parse_file(path, source, keep_tree=False, traced=TRACED), path)) == eager
    # Taken over by a parse of the text with a line above: each block reads its own text from then on.
    moved = b"# a line above\n" + source
    fresh = views(parse_file(path, moved, keep_tree=True, traced=TRACED))
    later = parse_file(path, moved, keep_tree=False, traced=TRACED, refs_cache=cache)
    earlier = parse_file(path, source, keep_tree=False, traced=TRACED, refs_cache=cache)
    views(earlier)  # (everything read before the take-over: the views keep what they read)
    take_over_blocks(later, earlier)
    assert views(later) == fresh
    forget_derived(later)
    assert views(later) == fresh


def test_the_generated_workspace_reads_the_same_compact(tmp_path):
    generate(tmp_path, 12)
    files = sorted(tmp_path.rglob("*.tf")) + sorted(tmp_path.rglob("*.tfvars"))
    assert len(files) > 30
    regular = spelled = 0
    cache: dict = {}
    for file in files:
        rel = str(file.relative_to(tmp_path))
        source = file.read_bytes()
        assert_compact_reads_as_eager(rel, source, cache)
        for attr in _attributes(parse_file(rel, source, keep_tree=False, traced=TRACED).body):
            regular += type(attr) is Attribute
            spelled += type(attr) is SpelledAttribute
    assert regular > 20 * max(spelled, 1)  # (almost every argument is written regularly: the compact form)


NAMES = st.sampled_from(["a", "name_x", "with-dash", "ünïcode", "x1", "type", "default"])
AROUND = st.sampled_from(["", " ", "\t", "  ", " /* c */ ", "/**/"])
VALUES = st.sampled_from(['"plain"', '"a${var.x}b"', "true", "false", "1.5", "var.x", "local.y[0].z", "[1, 2]",
                          "{ a = 1 }", '"esc\\"q"', '"%{ if true }x%{ endif }"', "<<EOT\nx\nEOT", "f(1) # comment",
                          "null", "a ? b : c", "!true", ""])
ARGUMENT = st.tuples(NAMES, AROUND, AROUND, VALUES).map(lambda t: f"{t[0]}{t[1]}={t[2]}{t[3]}")
HEADERS = st.sampled_from(['variable "v"', "locals", 'module "m"', 'output "o"', 'resource "aws_db_instance" "db"',
                           'resource "aws_s3_bucket" "b"', 'data "x" "y"', "terraform", 'variable "ü"'])


@st.composite
def files(draw) -> str:
    out = []
    for _ in range(draw(st.integers(min_value=0, max_value=2))):
        out.append(draw(ARGUMENT))  # arguments of the file's own body
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        lines = [f"  {a}" for a in draw(st.lists(ARGUMENT, max_size=4))]
        if draw(st.booleans()):
            lines.append("  validation {\n    " + draw(ARGUMENT) + "\n  }")
        out.append(draw(HEADERS) + " {\n" + "\n".join(lines) + "\n}")
    return "\n\n".join(out) + "\n"


@settings(max_examples=150, deadline=None)
@given(text=files(), cache=st.sampled_from([None, {}]))
@example(text='variable "v" {\n  default /* c */ = "x"\n  type=string\n}\n', cache={})
@example(text='locals {\n  ünïcode\t=\t"plain"\n  a = \n}\n', cache=None)
def test_generated_argument_spellings_read_the_same_compact(text: str, cache: dict | None):
    assert_compact_reads_as_eager("main.tf", text.encode(), cache)
