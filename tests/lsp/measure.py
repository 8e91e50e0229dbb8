"""Measures the server on the example workspace: didChange -> publishDiagnostics latency and RSS.

    python tests/lsp/measure.py [--edits 50] [--workspace examples/vendor-stack]

Types 50 keystrokes (alternately inserting and deleting a character) into the root's
``main.tf`` (inside the ``cache`` module call, so each one re-traces the child module) and
into ``modules/cache/main.tf``; each is timed from sending didChange to receiving the
publishDiagnostics that carries its version. RSS is read from /proc after indexing.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))

from lspclient import LspClient  # noqa: E402


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return -1


def wait_indexed(client: LspClient, timeout: float = 60) -> float:
    t0 = time.perf_counter()
    begun, ended = set(), set()
    while time.perf_counter() - t0 < timeout:
        try:
            _, msg = client.notifications.get(timeout=0.05)
        except Exception:  # noqa: BLE001
            continue
        if msg.get("method") == "$/progress":
            kind = msg["params"]["value"]["kind"]
            (begun if kind == "begin" else ended if kind == "end" else set()).add(msg["params"]["token"])
            if begun and begun <= ended:
                return time.perf_counter() - t0
    raise TimeoutError("not indexed")


def type_into(client: LspClient, path: Path, marker: str, edits: int) -> list[float]:
    uri = path.as_uri()
    text = path.read_text()
    before = text[: text.index(marker)]
    line, character = before.count("\n"), len(before) - before.rfind("\n") - 1
    fut = client.expect_diagnostics(uri, 1)
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "terraform", "version": 1, "text": text}})
    fut.result(30)
    samples = []
    for version in range(2, edits + 2):
        insert = version % 2 == 0
        start = {"line": line, "character": character}
        end = start if insert else {"line": line, "character": character + 1}
        fut = client.expect_diagnostics(uri, version)
        t = client.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"range": {"start": start, "end": end}, "text": "x" if insert else ""}]})
        t_recv, _ = fut.result(30)
        samples.append((t_recv - t) * 1000)
        client.drain()
    return samples


def summary(samples: list[float]) -> dict:
    return {"n": len(samples), "median_ms": round(statistics.median(samples), 2), "worst_ms": round(max(samples), 2),
            "p90_ms": round(sorted(samples)[int(0.9 * (len(samples) - 1))], 2)}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--edits", type=int, default=50)
    parser.add_argument("--workspace", default=str(REPO / "examples" / "vendor-stack"))
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp()) / "ws"
    shutil.copytree(args.workspace, tmp)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO / "server"), os.environ.get("PYTHONPATH")])))
    client = LspClient([sys.executable, "-m", "tfphi", "serve"], cwd=tmp, env=env)
    try:
        root = tmp.as_uri()
        client.request("initialize", {"processId": os.getpid(), "rootUri": root,
                                      "workspaceFolders": [{"uri": root, "name": "ws"}],
                                      "capabilities": {"window": {"workDoneProgress": True},
                                                       "textDocument": {"publishDiagnostics": {"versionSupport": True}}}})
        client.notify("initialized", {})
        index_s = wait_indexed(client)
        time.sleep(0.5)
        rss = rss_kib(client.proc.pid)
        root_edits = type_into(client, tmp / "main.tf", "var.cache_node_type", args.edits)
        leaf_edits = type_into(client, tmp / "modules" / "cache" / "main.tf", "var.node_type", args.edits)
        result = {"index_s": round(index_s, 3), "rss_after_index_mib": round(rss / 1024, 1),
                  "root_edit": summary(root_edits), "leaf_edit": summary(leaf_edits),
                  "rss_after_edits_mib": round(rss_kib(client.proc.pid) / 1024, 1)}
        print(json.dumps(result, indent=2))
    finally:
        client.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
