"""After a change of a module's names, its undefined references are exactly what a fresh host
finds (``stir.file_findings``): an open document keeps each block's findings and resolves
again only the references that look a changed name up, and a file read from disk the items
whose text names one; neither may keep a finding that no longer holds nor miss a new one.

Generated root modules: module calls, variables (in ``variables.tf``, read from disk), locals,
resources and data sources, and blocks whose arguments refer to them, to names nobody declares,
to outputs a call's module lacks, and to names a ``for`` expression binds. Generated edits type
a character into (or delete one from) a declaration's label, a reference's name or a call's
source, in the open ``main.tf`` (an incremental parse, as the server feeds it) or in
``variables.tf``."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from host_support import fresh

from tfphi.analysis import AnalysisHost, SetParsed, SetSource
from tfphi.lsp.documents import Document, TextChange
from tfphi.syntax.hclfile import new_parser

CHILD = '''variable "in" {
  type = string
}

output "a" {
  value = var.in
}

output "b" {
  value = "b"
}
'''

MODULES, VARIABLES, LOCALS, RESOURCES, DATA = ["m_0", "m_1", "m_2"], ["v_0", "v_1"], ["l_0", "l_1"], ["r_0", "r_1"], ["d_0"]

# What a user block's argument may refer to: declared names, names nobody declares (``m_9``), an
# output the called module lacks (``c``), and a name a ``for`` expression binds around it.
REFERENCES = (
    [f"module.{m}.{o}" for m in MODULES + ["m_9"] for o in ("a", "c")]
    + [f"var.{v}" for v in VARIABLES + ["v_9"]]
    + [f"local.{n}" for n in LOCALS + ["l_9"]]
    + [f"aws_s3_bucket.{r}.id" for r in RESOURCES + ["r_9"]]
    + [f"data.aws_ami.{d}.id" for d in DATA + ["d_9"]]
    + ["[for module in [] : module.m_9.a]", "[for var in [] : var.v_9]", "each.value", "path.module"]
)


@st.composite
def workspaces(draw) -> dict[str, str]:
    """A root module (``main.tf``, ``variables.tf``) and the module its calls call."""
    blocks = [f'module "{m}" {{\n  source = "./modules/child"\n  in     = "x"\n}}\n' for m in MODULES]
    blocks.append("locals {\n" + "".join(f'  {n} = "{n}"\n' for n in LOCALS) + "}\n")
    blocks += [f'resource "aws_s3_bucket" "{r}" {{\n  bucket = "{r}"\n}}\n' for r in RESOURCES]
    blocks += [f'data "aws_ami" "{d}" {{\n  most_recent = true\n}}\n' for d in DATA]
    for i in range(draw(st.integers(min_value=1, max_value=6))):
        refs = draw(st.lists(st.sampled_from(REFERENCES), min_size=1, max_size=6))
        args = "".join(f"    a{j} = {ref}\n" for j, ref in enumerate(refs))
        blocks.append(f'resource "aws_s3_bucket" "use_{i}" {{\n  tags = {{\n{args}  }}\n}}\n')
    order = draw(st.permutations(range(len(blocks))))
    variables = "".join(f'variable "{v}" {{\n  type = string\n}}\n\n' for v in VARIABLES)
    return {"main.tf": "\n".join(blocks[i] for i in order), "variables.tf": variables, "modules/child/main.tf": CHILD}


# Where an edit types or deletes: the end of a declaration's label, of a local's name, or of
# the name a reference looks up.
LABEL = re.compile(r'^(?:module|variable|resource "\w+"|data "\w+") "\w+()"', re.M)
LOCAL = re.compile(r"^  l_\d+()", re.M)
REFERENCE = re.compile(r"\b(?:module|var|local|aws_s3_bucket|data\.aws_ami)\.\w+()")
SOURCE = re.compile(r'source = "\./modules/\w+()"')  # (the call's module then not found: its outputs unknown)


@st.composite
def edits(draw) -> tuple[str, str, int, bool]:
    """(file, pattern name, which match, type a character or delete one)."""
    file = draw(st.sampled_from(["main.tf", "main.tf", "variables.tf"]))
    pattern = draw(st.sampled_from(["label", "local", "reference", "source"])) if file == "main.tf" else "label"
    return file, pattern, draw(st.integers(min_value=0, max_value=40)), draw(st.booleans())


PATTERNS = {"label": LABEL, "local": LOCAL, "reference": REFERENCE, "source": SOURCE}


def edited(text: str, pattern: str, which: int, typed: bool) -> tuple[str, int, int, str]:
    """The edited text, and the edit: (start, end, inserted)."""
    places = [m.start(1) for m in PATTERNS[pattern].finditer(text)]
    if not places:
        return text, 0, 0, ""
    at = places[which % len(places)]
    start, end, inserted = (at, at, "x") if typed else (at - 1, at, "")
    return text[:start] + inserted + text[end:], start, end, inserted


def _position(text: str, at: int) -> tuple[int, int]:
    return text.count("\n", 0, at), at - (text.rfind("\n", 0, at) + 1)  # (ASCII texts: columns are bytes)


@settings(max_examples=150, deadline=None)
@given(texts=workspaces(), changes=st.lists(edits(), min_size=1, max_size=8))
# Two references to a renamed call in one block with another undefined reference between them.
@example(texts={"main.tf": 'module "m_0" {\n  source = "./modules/child"\n  in     = "x"\n}\n\n'
                           'resource "aws_s3_bucket" "use_0" {\n  tags = {\n    a0 = module.m_0.a\n    a1 = var.v_9\n'
                           '    a2 = module.m_0.c\n    a3 = local.l_0\n  }\n}\n',
                "variables.tf": "", "modules/child/main.tf": CHILD},
         changes=[("main.tf", "label", 0, True), ("main.tf", "label", 0, False)])
def test_findings_after_names_change_equal_a_fresh_host(texts, changes):
    for host, now, change in edit_session(texts, changes):
        assert host.snapshot().findings("") == fresh(now).findings(""), change


def edit_session(texts: dict[str, str], changes):
    """A host analysed once, ``main.tf`` an open document, then ``changes`` applied one by one:
    yields after each the host, the texts now and the change."""
    texts = dict(texts)
    host = AnalysisHost()
    host.apply_change([SetSource(path, text.encode()) for path, text in texts.items()])
    host.snapshot().findings("")
    parser = new_parser()
    document = Document("main.tf", 0, texts["main.tf"].encode())
    host.apply_change(SetParsed(document.parse("main.tf", parser)))
    host.snapshot().findings("")
    for version, (file, pattern, which, typed) in enumerate(changes, 1):
        before = texts[file]
        texts[file], start, end, inserted = edited(before, pattern, which, typed)
        if file == "main.tf":
            document.apply([TextChange(inserted, (_position(before, start), _position(before, end)))], version)
            host.apply_change(SetParsed(document.parse("main.tf", parser)))
        else:
            host.apply_change(SetSource(file, texts[file].encode()))
        yield host, texts, (file, pattern, which, typed)
