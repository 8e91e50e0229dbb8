"""Publishing diagnostics: converts them, remembers the last list sent per URI, and sends only changes.

Ownership, so two sources never overwrite each other's list for one file:
- ``.tf`` files are published per module directory, from ``dir_diagnostics``;
- everything else (``.tfphi.toml``, ``modules.json``, ``.tfvars``, unreadable non-``.tf``
  files) and the folder URI itself (invalid LSP settings) in the per-folder config pass.

A *forced* URI (a document that was just edited) is published even when its list did not
change, with the document's version, so the client knows the edit was analysed.
"""

from __future__ import annotations

import json
from operator import attrgetter, is_not
from typing import Any, Callable, Iterable

from lsprotocol import types

from ..analysis import Snapshot, file_kind
from ..features.diagnostics import Diagnostic, config_diagnostics, sort_key
from ..stir.workspace import module_dir_of
from ..syntax.expr import Span
from ..text import Encoding, LineIndex
from . import convert
from .workspace import Folder, LiveWorkspace

Send = Callable[[str, "int | None", list[types.Diagnostic]], None]


class ConvertedDiagnostics:
    """The LSP diagnostics last published for each URI and those published before them, by what
    an LSP diagnostic is made of (where it is in lines and characters, ``convert.located``, and
    its severity, code and text; its data compared on a match): a diagnostic published again
    unchanged, as an editor reads it, is the object sent before, not converted again, and its
    JSON is the text written then (``json_fragments``), not serialized again. A
    keystroke republishes its file whole, most of it unchanged; a keystroke taken back
    publishes again what was sent before it (a call's label typed into and back: the
    references to it undefined, then not). Two lists per URI, dropped when both are empty or
    when nothing publishes the URI any more."""

    def __init__(self) -> None:
        self._by_uri: dict[str, tuple[dict, dict]] = {}  # URI -> (last published, published before): key -> _Sent
        self._sent: dict[str, list[_Sent]] = {}  # URI -> what ``convert`` last returned for it, in order

    def convert(self, uri: str, diags: Iterable[Diagnostic], index_for: convert.IndexFor, uri_for: convert.UriFor,
                encoding: Encoding) -> list[types.Diagnostic]:
        """``diags`` (one file's, in order) as the LSP diagnostics to publish for ``uri`` now."""
        last, before = self._by_uri.get(uri, _NONE)
        now: dict[tuple, _Sent] = {}
        out: list[_Sent] = []
        diags = diags if isinstance(diags, list) else list(diags)
        for d, where in zip(diags, convert.located_all(diags, index_for, uri_for, encoding)):
            key = (where, d.severity, d.code, d.message, d.detail, d.fixes)
            sent = last.get(key) or before.get(key)
            if sent is None or sent.item.data != d.data:
                sent = _Sent(convert.diagnostic_at(d, where))  # (its JSON written when first sent)
            now[key] = sent
            out.append(sent)
        last, before = (now, before) if now.keys() == last.keys() else (now, last)  # (the same list again: the one before stays)
        if last or before:
            self._by_uri[uri] = (last, before)
        else:
            self._by_uri.pop(uri, None)
        if out:
            self._sent[uri] = out
        else:
            self._sent.pop(uri, None)
        return [sent.item for sent in out]

    def json_fragments(self, uri: str, items: list[types.Diagnostic], serialize: Callable[[types.Diagnostic], str]) -> list[str] | None:
        """The JSON text of each of ``items`` when they are what ``convert`` last returned for ``uri``
        (each serialized by ``serialize`` the first time it is sent, then kept with it); None for
        other items (the caller serializes them itself)."""
        sent = self._sent.get(uri)
        if sent is None or len(sent) != len(items) or any(map(is_not, map(_item, sent), items)):
            return None
        for each in sent:
            if each.json is None:
                each.json = serialize(each.item)
        return [each.json for each in sent]

    def forget(self, uri: str) -> None:
        """Nothing publishes ``uri`` any more."""
        self._by_uri.pop(uri, None)
        self._sent.pop(uri, None)


class _Sent:
    """A converted diagnostic and, once it has been sent, its JSON text (``lsp.server`` writes it)."""

    __slots__ = ("item", "json")

    def __init__(self, item: types.Diagnostic) -> None:
        self.item = item
        self.json: str | None = None


_item = attrgetter("item")


def notification_json(uri: str, version: int | None, fragments: list[str], unstructure: Callable[[Any], Any]) -> str:
    """The publishDiagnostics notification's JSON with ``fragments`` (each diagnostic's JSON, in
    order) as its list: the rest of the message written by ``json.dumps`` of the notification
    ``unstructure``d, the list put in place of a marker value. The marker's JSON (a string
    between NULs, quotes included) cannot occur inside another JSON string, where a quote is
    escaped, so it is found once, where the list goes."""
    message = unstructure(types.PublishDiagnosticsNotification(
        method=types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, jsonrpc="2.0",
        params=types.PublishDiagnosticsParams(uri=uri, diagnostics=[], version=version)))
    message["params"]["diagnostics"] = _MARKER
    head, _, tail = json.dumps(message).partition(_MARKER_JSON)
    return f"{head}[{', '.join(fragments)}]{tail}"


_MARKER = "\x00tfphi: the diagnostics\x00"
_MARKER_JSON = json.dumps(_MARKER)

_NONE: tuple[dict, dict] = ({}, {})  # (never written: a URI's tables are new dicts)


class DiagnosticPublisher:
    def __init__(self, ws: LiveWorkspace, send: Send):
        self.ws = ws
        self._send = send
        self._last: dict[str, list[types.Diagnostic]] = {}
        self._converted = ConvertedDiagnostics()
        # Relative paths with a non-empty last list, per folder: the ``.tf`` ones by module directory,
        # the others (what the config pass publishes, which runs every pass) apart, so that neither
        # pass looks at the other's files (at 1,000 modules the config pass walked the 78 ``.tf``
        # files with a warning to find the none that are its own).
        self._tf_files: dict[Folder, dict[str, set[str]]] = {}
        self._other_files: dict[Folder, set[str]] = {}
        # Per folder and module directory, the files its last published diagnostics point into
        # (their own and their related locations), and per file the directories pointing into
        # it: an edit that moves text there republishes those, found without a look at the others.
        self._mentions: dict[Folder, dict[str, frozenset[str]]] = {}
        self._pointing_into: dict[Folder, dict[str, set[str]]] = {}

    def last(self, uri: str) -> list[types.Diagnostic]:
        return self._last.get(uri, [])

    def notification_json(self, uri: str, version: int | None, items: list[types.Diagnostic], unstructure: Callable[[Any], Any]) -> str:
        """The JSON-RPC ``textDocument/publishDiagnostics`` notification of ``items`` for ``uri``,
        the text pygls writes for it (``json.dumps`` of the notification ``unstructure``d), with the
        JSON of each diagnostic published unchanged before taken from then
        (``ConvertedDiagnostics.json_fragments``): a keystroke that makes 22 references undefined
        and one that takes it back serialize none of them again."""
        serialize = lambda item: json.dumps(unstructure(item))  # noqa: E731
        fragments = self._converted.json_fragments(uri, items, serialize)
        return notification_json(uri, version, fragments if fragments is not None else list(map(serialize, items)), unstructure)

    def publish_dir(self, folder: Folder, dir: str, diags: Iterable[Diagnostic], forced: set[str]) -> None:
        """Publishes the ``.tf`` files of one module directory."""
        diags = list(diags)
        mentions = frozenset({d.file for d in diags} | {r.span.file for d in diags for r in d.related})
        self._remember_mentions(folder, dir, mentions)
        groups = {file: items for file, items in self._group(diags).items() if file_kind(file) == "tf"}
        known = set(self._tf_files.get(folder, {}).get(dir, ()))
        known |= self.ws.open_files_by_dir(folder).get(dir, frozenset())
        self._publish_files(folder, groups, known, forced)

    def _remember_mentions(self, folder: Folder, dir: str, mentions: frozenset[str]) -> None:
        by_dir = self._mentions.setdefault(folder, {})
        by_file = self._pointing_into.setdefault(folder, {})
        old = by_dir.get(dir, frozenset())
        if old == mentions:
            return
        for file in old - mentions:
            dirs = by_file[file]
            dirs.discard(dir)
            if not dirs:
                del by_file[file]
        for file in mentions - old:
            by_file.setdefault(file, set()).add(dir)
        if mentions:
            by_dir[dir] = mentions
        else:
            by_dir.pop(dir, None)

    def published_dirs(self, folder: Folder) -> set[str]:
        """Module directories of the ``.tf`` files this folder has non-empty diagnostics on."""
        return {dir for dir, rels in self._tf_files.get(folder, {}).items() if rels}

    def dirs_pointing_into(self, folder: Folder, files: Iterable[str]) -> set[str]:
        """The module directories whose last published diagnostics point into one of ``files``
        (what an edit that moved text in them may have moved): as many steps as there are such
        directories, not as many as the modules that read what moved."""
        by_file = self._pointing_into.get(folder, {})
        return set().union(*(by_file.get(file, ()) for file in files))

    def publish_config(self, folder: Folder, snapshot: Snapshot, forced: set[str]) -> None:
        """Publishes the folder's non-``.tf`` files and the LSP settings problems (on the folder URI)."""
        diags = [d for d in config_diagnostics(snapshot)]
        for path, problem in sorted(snapshot.problems.items()):
            if file_kind(path) != "tf":
                diags.append(Diagnostic(path, Span(path, 0, 0), "error", problem.code, problem.message))
        groups = self._group(diags)
        known = set(self._other_files.get(folder, ()))
        known |= self.ws.open_files_by_dir(folder).get(None, frozenset())
        self._publish_files(folder, groups, known, forced)
        settings = [
            types.Diagnostic(
                range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)),
                message=f"LSP settings: {message}",
                severity=types.DiagnosticSeverity.Error,
                code="config-error",
                source=convert.SOURCE,
            )
            for message in folder.settings_problems
        ]
        self._publish(folder.uri, None, settings, force=False)

    def publish_leftovers(self, forced: set[str]) -> None:
        """Forced URIs no pass published (documents tfphi does not analyse): their last list, versioned."""
        for uri in sorted(forced):
            doc = self.ws.documents.get(uri)
            self._publish(uri, doc.version if doc else None, self._last.get(uri, []), force=True)
        forced.clear()

    def clear(self, uri: str) -> None:
        """Publishes an empty list for a URI nothing analyses any more."""
        self._converted.forget(uri)
        self._publish(uri, None, [], force=False)

    def forget_folder(self, folder: Folder) -> None:
        """A folder went away: clear what it published."""
        self._mentions.pop(folder, None)
        self._pointing_into.pop(folder, None)
        published = set().union(self._other_files.pop(folder, set()), *self._tf_files.pop(folder, {}).values())
        for rel in sorted(published):
            uri = self.ws.uri_for(folder, rel)
            self._converted.forget(uri)
            self._publish(uri, None, [], force=False)
        self._publish(folder.uri, None, [], force=False)

    def _group(self, diags: Iterable[Diagnostic]) -> dict[str, list[Diagnostic]]:
        groups: dict[str, list[Diagnostic]] = {}
        for d in diags:
            groups.setdefault(d.file, []).append(d)
        for items in groups.values():
            items.sort(key=sort_key)
        return groups

    def _publish_files(self, folder: Folder, groups: dict[str, list[Diagnostic]], known: set[str], forced: set[str]) -> None:
        ws = self.ws
        indexes: dict[str, LineIndex | None] = {}  # (this pass's: a file's diagnostics read one index)

        def index_for(rel: str) -> LineIndex | None:
            if rel not in indexes:
                indexes[rel] = ws.line_index(folder, rel)
            return indexes[rel]

        uri_for = lambda rel: ws.uri_for(folder, rel)  # noqa: E731
        tf_files = self._tf_files.setdefault(folder, {})
        other_files = self._other_files.setdefault(folder, set())

        def held(rel: str) -> set[str]:
            """The set that holds ``rel`` while its last list is not empty (a ``.tf`` file's directory's, or the others')."""
            return tf_files.get(module_dir_of(rel), set()) if file_kind(rel) == "tf" else other_files

        def keep(rel: str) -> None:
            if file_kind(rel) == "tf":
                tf_files.setdefault(module_dir_of(rel), set()).add(rel)
            else:
                other_files.add(rel)

        def drop(rel: str) -> None:
            rels = held(rel)
            rels.discard(rel)
            if not rels and rels is not other_files:
                tf_files.pop(module_dir_of(rel), None)

        for rel in sorted(set(groups) | known):
            if not folder.owns(rel):  # a deeper folder publishes it now
                drop(rel)
                continue
            uri = uri_for(rel)
            if not ws.publishes(folder, rel):  # outside every folder and not open, or another folder's
                if rel in held(rel):  # published while it was open: cleared now
                    self._converted.forget(uri)
                    self._publish(uri, None, [], force=False)
                    drop(rel)
                continue
            items = self._converted.convert(uri, groups.get(rel, ()), index_for, uri_for, ws.encoding)
            doc = ws.documents.get(uri)
            force = uri in forced
            forced.discard(uri)
            self._publish(uri, doc.version if doc else None, items, force)
            if items:
                keep(rel)
            else:
                drop(rel)

    def _publish(self, uri: str, version: int | None, items: list[types.Diagnostic], force: bool) -> None:
        if not force and self._last.get(uri, []) == items:
            return
        if items:
            self._last[uri] = items
        else:
            self._last.pop(uri, None)
        self._send(uri, version, items)
