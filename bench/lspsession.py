"""A fresh `tfphi serve` over stdio, as every benchmark phase that talks to the server starts
it: the command (--cmd replaces TFPHI in place), initialize with the client capabilities the
benchmark offers, and the waits for its first diagnostics and for the end of its first indexing.
Shared by bench/run.py and bench/soak.py.
"""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from lspclient import LspClient

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent

TFPHI = [sys.executable, "-m", "tfphi"]  # --cmd replaces it


def child_env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "server"), env.get("PYTHONPATH")]))
    return env


def wait_indexed(client: LspClient, t_start: float, timeout: float, quiet: float = 1.0) -> dict:
    """Wait until the first indexing is done.

    Done when every work-done progress token that began has ended; when the server
    reports no progress at all, when publishDiagnostics have stopped for `quiet` seconds
    (or nothing came for 3*quiet seconds)."""
    begun, ended = set(), set()
    last_diag = None
    diag_count = 0
    t_end = None
    deadline = t_start + timeout
    while True:
        now = time.perf_counter()
        if now > deadline:
            raise TimeoutError(f"workspace not indexed after {timeout:.0f} s "
                               f"(progress begun {sorted(map(str, begun))}, ended {sorted(map(str, ended))})")
        try:
            t, msg = client.notifications.get(timeout=0.05)
        except Exception:
            t, msg = None, None
        if client.closed.is_set() and msg is None:
            raise ConnectionError("server exited while indexing")
        if msg is not None:
            method = msg.get("method")
            params = msg.get("params") or {}
            if method == "$/progress":
                kind = (params.get("value") or {}).get("kind")
                token = json.dumps(params.get("token"))
                if kind == "begin":
                    begun.add(token)
                elif kind == "end":
                    ended.add(token)
                    if begun and begun <= ended:
                        t_end = t
                        return {"index_s": round(t_end - t_start, 4), "via": "progress",
                                "diagnostics_during_index": diag_count}
            elif method == "textDocument/publishDiagnostics":
                last_diag = t
                diag_count += 1
        if not begun:
            now = time.perf_counter()
            if last_diag is not None and now - last_diag >= quiet:
                return {"index_s": round(last_diag - t_start, 4), "via": "diagnostics-quiet",
                        "diagnostics_during_index": diag_count}
            if last_diag is None and now - t_start >= 3 * quiet:
                return {"index_s": None, "via": "nothing-reported", "diagnostics_during_index": 0}


INITIALIZE_CAPABILITIES = {
    "general": {"positionEncodings": ["utf-16"]},
    "window": {"workDoneProgress": True},
    "workspace": {"configuration": True, "workspaceFolders": True,
                  "didChangeWatchedFiles": {"dynamicRegistration": True}},
    "textDocument": {
        "synchronization": {"dynamicRegistration": False, "didSave": True},
        "publishDiagnostics": {"relatedInformation": True, "versionSupport": True},
        "hover": {"contentFormat": ["markdown", "plaintext"]},
    },
}


def start_server(ws: Path, outdir: Path, label: str, timeout: float) -> tuple[LspClient, float, float]:
    """A fresh `tfphi serve` initialized on `ws`; returns (client, initialize seconds, time `initialized` was sent)."""
    client = LspClient(TFPHI + ["serve"], cwd=ws,
                       stderr_path=outdir / f"serve_{ws.name}_{label}.stderr", env=child_env())
    root_uri = ws.as_uri()
    t_start = time.perf_counter()
    client.request("initialize", {
        "processId": os.getpid(),
        "clientInfo": {"name": "tfphi-bench", "version": "1"},
        "rootUri": root_uri,
        "rootPath": str(ws),
        "workspaceFolders": [{"uri": root_uri, "name": ws.name}],
        "capabilities": INITIALIZE_CAPABILITIES,
    }, timeout=timeout)
    t_init = time.perf_counter()
    client.notify("initialized", {})
    return client, t_init - t_start, t_init


def wait_first_diagnostics(client: LspClient, t_init: float, timeout: float) -> float:
    """Seconds from `initialized` to the first publishDiagnostics (of any document)."""
    deadline = t_init + timeout
    while time.perf_counter() < deadline:
        try:
            t, msg = client.notifications.get(timeout=0.05)
        except Exception:
            if client.closed.is_set():
                raise ConnectionError("server exited before its first diagnostics")
            continue
        if msg.get("method") == "textDocument/publishDiagnostics":
            return t - t_init
    raise TimeoutError(f"no publishDiagnostics within {timeout:.0f} s of initialized")


def server_rss_mb(client: LspClient) -> float | None:
    """The server's resident memory now (psutil; None when psutil is missing)."""
    try:
        import psutil
    except ImportError:
        return None
    return round(psutil.Process(client.proc.pid).memory_info().rss / 2**20, 1)


def with_server_stderr(exc: Exception, path: Path) -> RuntimeError:
    tail = path.read_text(errors="replace")[-2000:] if path.exists() else ""
    return RuntimeError(f"{type(exc).__name__}: {exc}\n--- server stderr (tail) ---\n{tail}")
