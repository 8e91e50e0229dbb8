"""SARIF 2.1.0 for ``tfphi check --format sarif``, as GitHub code scanning takes it whole (SPEC 1).

- one rule per diagnostic code, with its short and full description and its help: the
  rule's documentation page (``docs/rules/<code>.md``, shipped in the package);
- URIs relative to the repository root (the enclosing git work tree, else DIR), percent-encoded,
  under the ``%SRCROOT%`` base, which ``originalUriBaseIds`` resolves to an absolute ``file:`` URI;
- a ``partialFingerprints`` entry on every result that survives unrelated edits: it hashes the
  code, the file, the text of the flagged line and the message, not line numbers;
- related locations numbered and linked from the message (``[declared here](1)``).
"""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path
from urllib.parse import quote

from .. import __version__
from ..analysis import Analysis
from ..diagnostics import Diagnostic
from ..features.locations import human_range
from .fingerprints import fingerprint, occurrence_key
from .paths import repository_path, repository_root
from .report import CheckReport

INFORMATION_URI = "https://github.com/tfphi/tfphi"
RULES_URI = INFORMATION_URI + "/blob/main/docs/rules/{code}.md"
SRCROOT = "%SRCROOT%"
FINGERPRINT_KEY = "tfphi/v1"

# Every code SPEC section 5 defines, in its order, with its default severity.
CODES = {
    "syntax-error": "error",
    "undefined-reference": "error",
    "unbounded-field": "warning",
    "unsupported-value": "warning",
    "missing-argument": "error",
    "duplicate-declaration": "error",
    "undeclared-variable": "warning",
    "module-not-installed": "information",
    "config-error": "error",
}
LEVELS = {"error": "error", "warning": "warning", "information": "note", "hint": "note"}


def rule_doc(code: str) -> str:
    """The rule's documentation page (Markdown), or a one-line stand-in for an unknown code."""
    try:
        return (resources.files("tfphi") / "data" / "rules" / f"{code}.md").read_text(encoding="utf-8")
    except (FileNotFoundError, OSError):
        return f"# {code}\n\nA tfphi diagnostic.\n"


def _sections(page: str) -> tuple[str, str]:
    """The page's lead sentence (short description) and its "What it means" text (full description)."""
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", page) if p.strip()]
    lead = next((p for p in paragraphs if not p.startswith("#")), "")
    full = lead
    for i, p in enumerate(paragraphs):
        if p.lower().startswith("## what it means") and i + 1 < len(paragraphs):
            full = " ".join(paragraphs[i + 1].split())
            break
    return " ".join(lead.split()), full


def _plain(markdown: str) -> str:
    """The page as plain text: headings without ``#``, code without backticks."""
    return re.sub(r"^#+\s*", "", markdown, flags=re.M).replace("`", "")


def rule(code: str) -> dict:
    page = rule_doc(code)
    short, full = _sections(page)
    return {
        "id": code,
        "name": "".join(part.capitalize() for part in code.split("-")),
        "shortDescription": {"text": short},
        "fullDescription": {"text": full},
        "help": {"text": _plain(page).strip(), "markdown": page.strip()},
        "helpUri": RULES_URI.format(code=code),
        "defaultConfiguration": {"level": LEVELS[CODES.get(code, "warning")]},
        "properties": {"tags": ["terraform", "tfphi"]},
    }


def artifact_uri(root: str, dir: str, file: str) -> str:
    """``file`` (relative to DIR) as a percent-encoded URI reference relative to ``root``."""
    return quote(repository_path(root, dir, file), safe="/")


def _region(analysis: Analysis, d: Diagnostic) -> dict:
    if d.position is not None:
        line, column = d.position
        return {"startLine": line, "startColumn": column}
    (sl, sc), (el, ec) = human_range(analysis, d.span)
    if (el, ec) == (sl, sc):
        return {"startLine": sl, "startColumn": sc}
    return {"startLine": sl, "startColumn": sc, "endLine": el, "endColumn": ec}


def _escape(text: str) -> str:
    """Message text with SARIF's link syntax characters escaped (``[``, ``]``)."""
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def result(analysis: Analysis, d: Diagnostic, root: str, dir: str, rule_index: int, occurrence: int) -> dict:
    uri = artifact_uri(root, dir, d.file)
    text = d.text
    out = {
        "ruleId": d.code,
        "ruleIndex": rule_index,
        "level": LEVELS.get(d.severity, "warning"),
        "message": {"text": _escape(text)},
        "locations": [{
            "physicalLocation": {
                "artifactLocation": {"uri": uri, "uriBaseId": SRCROOT},
                "region": _region(analysis, d),
            }
        }],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint(analysis, d, uri, occurrence)},
    }
    if d.related:
        links = []
        related = []
        for i, r in enumerate(d.related, 1):
            (line, column), (end_line, end_column) = human_range(analysis, r.span)
            region = {"startLine": line, "startColumn": column}
            if (end_line, end_column) != (line, column):
                region.update({"endLine": end_line, "endColumn": end_column})
            related.append({
                "id": i,
                "message": {"text": _escape(r.message)},
                "physicalLocation": {
                    "artifactLocation": {"uri": artifact_uri(root, dir, r.span.file), "uriBaseId": SRCROOT},
                    "region": region,
                },
            })
            links.append(f"[{_escape(r.message)}]({i})")
        out["message"]["text"] = _escape(text) + "\n\nSee: " + "; ".join(links) + "."
        out["relatedLocations"] = related
    return out


def render(report: CheckReport) -> str:
    return json.dumps(sarif_log(report.analysis, report.diagnostics, report.dir, report.shard), indent=2, ensure_ascii=False) + "\n"


def automation_id(shard: tuple[int, int]) -> str:
    """``runAutomationDetails.id`` of shard K of N: ending in ``/``, the whole id is the category
    under which code scanning keeps this shard's alerts apart from the other shards'."""
    k, n = shard
    return f"tfphi/shard-{k}-of-{n}/"


def sarif_log(analysis: Analysis, diagnostics: list[Diagnostic], dir: str, shard: tuple[int, int] | None = None) -> dict:
    """The whole log for the diagnostics of ``tfphi check DIR`` (one shard's with ``--shard K/N``)."""
    root = repository_root(dir)
    codes = list(CODES) + sorted({d.code for d in diagnostics} - set(CODES))
    index = {code: i for i, code in enumerate(codes)}
    seen: dict[tuple, int] = {}
    results = []
    for d in diagnostics:
        key = occurrence_key(analysis, d)
        seen[key] = seen.get(key, 0) + 1
        results.append(result(analysis, d, root, dir, index[d.code], seen[key]))
    base = Path(root).as_uri() + "/"
    run: dict = {
        "tool": {"driver": {
            "name": "tfphi",
            "version": __version__,
            "semanticVersion": __version__,
            "informationUri": INFORMATION_URI,
            "rules": [rule(code) for code in codes],
        }},
        "originalUriBaseIds": {SRCROOT: {"uri": base, "description": {"text": "The repository root."}}},
        "columnKind": "unicodeCodePoints",
        "results": results,
    }
    if shard is not None:
        run["automationDetails"] = {"id": automation_id(shard)}
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [run],
    }
