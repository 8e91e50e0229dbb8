"""Memory is bounded by what the current versions hold: after edits (each taken back later), what
the host and the open documents keep reaches no object of a past version.

Issue 23's soak grew from 174 MiB to 639 MiB and on (random edits at 1,000 modules): something
kept old versions alive. This test says it by design, not by a size: it walks everything the host
and the documents reach (classes, modules and functions aside) and finds there no snapshot but the
latest, no parse (``HclFile``) but the current ones, and no tree-sitter tree but the documents'
current trees (a node kept by a declaration keeps its whole tree alive: a block taken over by the
next parse of a document kept the tree of the parse it was read in).
"""

from __future__ import annotations

import gc
import random
import types

from tree_sitter import Node, Tree

from host_support import MANY_CALLS, everything

from tfphi.analysis import AnalysisHost, SetParsed, SetSource, Snapshot
from tfphi.lsp.documents import Document, TextChange
from tfphi.syntax.hclfile import HclFile, HclParser, new_parser

# Not followed: code, and the parser, which keeps the spelling of the last ``HclParser.KEEP``
# texts it parsed (a file's ranges are parsed one after another): a constant, whatever the edits.
_NOT_FOLLOWED = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.CodeType, HclParser)


def _reached(*roots) -> tuple[list[Snapshot], list[HclFile], set[int], list[bytes]]:
    """The snapshots, the parses, the trees (by their root's id) and the byte strings that ``roots`` reach."""
    seen: set[int] = set()
    stack = list(roots)
    snapshots, parses, trees, texts = [], [], set(), []
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, _NOT_FOLLOWED):
            continue
        seen.add(id(obj))
        if isinstance(obj, Node):
            while obj.parent is not None:
                obj = obj.parent
            trees.add(obj.id)
            continue
        if isinstance(obj, Tree):
            trees.add(obj.root_node.id)
            continue
        if isinstance(obj, Snapshot):
            snapshots.append(obj)
        elif isinstance(obj, HclFile):
            parses.append(obj)
        elif isinstance(obj, bytes):
            texts.append(obj)
        stack.extend(gc.get_referents(obj))
    return snapshots, parses, trees, texts


def _position(text: str, at: int) -> tuple[int, int]:
    return text.count("\n", 0, at), at - (text.rfind("\n", 0, at) + 1)


def test_after_edits_taken_back_nothing_of_a_past_version_is_kept():
    texts = dict(MANY_CALLS)
    host = AnalysisHost()
    host.apply_change([SetSource(path, text.encode()) for path, text in texts.items()])
    everything(host.snapshot())
    parser = new_parser()
    opened = sorted(texts)[:2]  # the root of many calls and one of its modules, open in the editor
    documents = {path: Document(path, 1, texts[path].encode()) for path in opened}
    for path, doc in documents.items():
        host.apply_change(SetParsed(doc.parse(path, parser)))
    rng = random.Random(0)
    undo: list[tuple[str, int, int, str]] = []
    for version in range(2, 122):
        if undo and (rng.random() < 0.4 or version > 100):
            path, at, end, typed = undo.pop()
        else:
            path = rng.choice(opened + ["elsewhere"])
            path = path if path in documents else rng.choice(sorted(texts))
            at = rng.randint(0, len(texts[path]))
            end = min(len(texts[path]), at + rng.choice([0, 0, 1, 4]))
            typed = rng.choice(["x", " ", "\n", '"', "{", "}", "#", "var.a", "="])
            undo.append((path, at, at + len(typed), texts[path][at:end]))
        old = texts[path]
        texts[path] = old[:at] + typed + old[end:]
        if path in documents:
            documents[path].apply([TextChange(typed, (_position(old, at), _position(old, end)))], version)
            host.apply_change(SetParsed(documents[path].parse(path, parser)))
        else:
            host.apply_change(SetSource(path, texts[path].encode()))
        everything(host.snapshot())
    assert texts == MANY_CALLS and not undo
    latest = host.snapshot()
    everything(latest)
    host.changed_since(latest.revision)  # (the scheduler reads the changes of every snapshot it takes)
    gc.collect()

    # (the host holds its latest snapshot weakly: what a server's pass or board holds is walked too)
    snapshots, parses, trees, reached_texts = _reached(host, documents, latest)
    assert snapshots == [latest]
    current = {id(hcl) for hcl in host.files.values()} | {id(doc.hcl) for doc in documents.values()}
    assert {id(hcl) for hcl in parses} == current, "a past parse is kept"
    # One tree per document: its parse's (the whole text's, or the region its last edit touched,
    # parsed alone: syntax.regions, whose blocks read anew keep their nodes until the next parse).
    own = [_reached(doc.hcl)[2] for doc in documents.values()]
    assert all(len(mine) <= 1 for mine in own) and trees == set().union(*own), "a past parse's tree is kept"
    assert all(doc.hcl.tree is None or mine == {doc.hcl.tree.root_node.id} for doc, mine in zip(documents.values(), own))
    # Every text kept (a file's, a block's, a cache key) is part of a file as it is now: the edits'
    # texts, each with a character typed in, are gone (a cache keyed by every text a block ever
    # had kept them all).
    sources = [text.encode() for text in texts.values()]
    past = [text for text in reached_texts if len(text) >= 16 and not any(text in source for source in sources)]
    assert past == [], "a past version's text is kept"
