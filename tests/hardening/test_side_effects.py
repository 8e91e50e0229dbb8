"""It does only what it is asked (issue part 4): the server and the CLI never start a process,
never open a network connection, never write a file, and read nothing but ``.tf``,
``.tofu``, ``.tfvars``, ``.tfphi.toml``, ``terragrunt.hcl`` and ``modules.json`` files of the
workspace (a symbolic link among them wherever it leads, as Terraform reads it), whatever
``ignore``, module sources or ``modules.json`` say.

The process under test gets a ``sitecustomize.py`` (on PYTHONPATH, in a temporary directory)
that installs ``sys.addaudithook`` and logs the events through a file descriptor opened
before the hook exists, with ``os.write`` (which raises no audit event), so the hook never
records itself.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from hardening_support import NORMAL_TF, REPO, run_cli
from lsp_raw import RawServer, file_uri, server_env, utf16_position

SITECUSTOMIZE = r'''
import os, sys

_fd = os.open(os.environ["TFPHI_AUDIT_LOG"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
_PROCESS = ("subprocess.Popen", "os.system", "os.exec", "os.spawn", "os.posix_spawn", "os.fork", "os.forkpty",
            "pty.spawn", "os.startfile")
_NETWORK = ("socket.connect", "socket.bind", "socket.sendto", "socket.sendmsg", "socket.getaddrinfo",
            "socket.gethostbyname", "socket.gethostbyaddr", "urllib.Request", "http.client.connect", "ftplib.connect",
            "smtplib.connect", "webbrowser.open")
_FS_WRITES = ("os.remove", "os.rmdir", "os.rename", "os.replace", "os.mkdir", "os.makedirs", "os.chmod", "os.chown",
              "os.symlink", "os.link", "os.truncate", "os.utime", "shutil.copyfile", "shutil.copytree", "shutil.move",
              "shutil.rmtree", "tempfile.mkstemp", "tempfile.mkdtemp", "os.mkfifo", "os.mknod")
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC


def _log(kind, detail):
    try:
        os.write(_fd, (kind + "\t" + detail.replace("\n", " ") + "\n").encode("utf-8", "backslashreplace"))
    except Exception:
        pass


def _hook(event, args):
    if event == "open":
        path, mode, flags = (tuple(args) + (None, None, None))[:3]
        if isinstance(path, int):
            path = "<fd %d>" % path
        elif isinstance(path, bytes):
            path = os.fsdecode(path)
        writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (isinstance(flags, int) and flags & _WRITE_FLAGS)
        if writing:
            if path in ("<fd 1>", "<fd 2>"):
                return
            _log("write", str(path))
        else:
            _log("read", str(path))
    elif event.startswith(_PROCESS):
        _log("process", event + " " + repr(args)[:300])
    elif event.startswith(_NETWORK):
        _log("network", event + " " + repr(args)[:300])
    elif event in _FS_WRITES:
        _log("write", event + " " + repr(args)[:300])


sys.addaudithook(_hook)
'''

OUTSIDE_SECRET = "outside-secret-value"


def _audited_env(tmp_path: Path) -> tuple[dict[str, str], Path]:
    hook_dir = tmp_path / "audit_hook"
    hook_dir.mkdir()
    (hook_dir / "sitecustomize.py").write_text(SITECUSTOMIZE)
    log = tmp_path / "audit.log"
    env = server_env(extra_pythonpath=str(hook_dir))
    env["TFPHI_AUDIT_LOG"] = str(log)
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # the interpreter's own .pyc caching is not tfphi's doing
    return env, log


def _workspace(tmp_path: Path) -> tuple[Path, Path]:
    """A workspace whose configuration, manifest, sources and links all point outside it."""
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    (ws / ".terraform/modules").mkdir(parents=True)
    (outside / "nested").mkdir(parents=True)
    for target in (outside / "main.tf", outside / "nested" / "main.tf"):
        target.write_text(f'output "secret" {{\n  value = "{OUTSIDE_SECRET}"\n}}\n')
    (outside / "notes.txt").write_text("not terraform")
    (ws / "normal.tf").write_text(NORMAL_TF)
    (ws / "calls.tf").write_text(
        'module "up" {\n  source = "../outside"\n}\n\nmodule "etc" {\n  source = "/etc"\n}\n\n'
        'module "reg" {\n  source = "acme/db/aws"\n}\n\nmodule "git" {\n  source = "git::https://example.com/x.git"\n}\n\n'
        'module "http" {\n  source = "https://example.com/module.zip"\n}\n'
    )
    (ws / "terraform.tfvars").write_text('v = "15.4"\n')
    (ws / "README.md").write_text("# not read\n")
    (ws / "script.sh").write_text("#!/bin/sh\necho never run\n")
    (ws / ".tfphi.toml").write_text('ignore = ["../outside", "/etc", "../../", "/"]\n\n[limits]\ndepth = 20\n')
    (ws / ".terraform/modules/modules.json").write_text(json.dumps({"Modules": [
        {"Key": "", "Source": "", "Dir": "."},
        {"Key": "reg", "Source": "registry.terraform.io/acme/db/aws", "Dir": "/etc"},
        {"Key": "git", "Source": "git::https://example.com/x.git", "Dir": "../../outside"},
        {"Key": "http", "Source": "https://example.com/module.zip", "Dir": "../outside/nested"},
    ]}))
    os.symlink(outside, ws / "linked_dir")
    os.symlink(outside / "main.tf", ws / "linked.tf")
    os.symlink(outside / "notes.txt", ws / "notes.tf")
    return ws, outside


def _read_log(log: Path) -> list[tuple[str, str]]:
    if not log.exists():
        return []
    return [tuple(line.split("\t", 1)) for line in log.read_text().splitlines() if "\t" in line]  # type: ignore[misc]


ALLOWED_SUFFIXES = (".tf", ".tf.json", ".tofu", ".tofu.json", ".tfvars", ".tfvars.json", ".tfphi.toml", "modules.json",
                    "terragrunt.hcl")
PYTHON_FILE_SUFFIXES = (".py", ".pyc", ".so", ".pth", ".toml", ".json", ".txt", ".typed", ".cfg", ".zip")


def _check_log(entries: list[tuple[str, str]], ws: Path, outside: Path) -> None:
    bad = [e for e in entries if e[0] in ("process", "network", "write")]
    assert not bad, f"side effects: {bad[:20]}"
    reads = [detail for kind, detail in entries if kind == "read"]
    ws_s, outside_s = str(ws.resolve()), str(outside.resolve())
    for path in reads:
        if path.startswith("<fd"):
            continue
        full = os.path.abspath(path)
        assert not full.startswith(outside_s + os.sep), f"read outside the workspace: {path}"
        assert not full.startswith("/etc/"), f"read {path}"
        if full.startswith(ws_s + os.sep) or full == ws_s:
            if os.path.isdir(full):
                continue  # listing a directory
            # A symbolic link is read wherever it leads, as Terraform reads it (SPEC 2, issue 24): what
            # counts is the name it has in the workspace, a file tfphi reads.
            assert full.endswith(ALLOWED_SUFFIXES), f"read a workspace file tfphi must not read: {path}"
        else:
            is_python = full.startswith((sys.prefix, sys.base_prefix, str(REPO / "server"), "/usr/lib/python", "/usr/local/lib/python"))
            assert is_python or full.endswith(PYTHON_FILE_SUFFIXES) or full.startswith(("/proc/", "/dev/", "/sys/")), \
                f"read a file that is neither the workspace's nor Python's: {path}"
    workspace_reads = {os.path.relpath(os.path.abspath(p), ws_s) for p in reads if os.path.abspath(p).startswith(ws_s + os.sep)}
    assert "normal.tf" in workspace_reads, "the hook saw no workspace read: is it installed?"


def test_hook_records_what_it_must(tmp_path: Path) -> None:
    """The hook itself: a process, a socket and a write are all recorded (so an empty log means something)."""
    env, log = _audited_env(tmp_path)
    probe = (
        "import os, socket, subprocess, sys\n"
        f"open({str(tmp_path / 'w.txt')!r}, 'w').close()\n"
        "subprocess.run([sys.executable, '-c', 'pass'])\n"
        "s = socket.socket(); s.bind(('127.0.0.1', 0)); s.close()\n"
    )
    import subprocess

    subprocess.run([sys.executable, "-c", probe], env=env, check=True, timeout=60)
    kinds = {kind for kind, _ in _read_log(log)}
    assert {"write", "process", "network"} <= kinds, _read_log(log)


def _drive_session(server: RawServer, ws: Path) -> None:
    normal = file_uri(ws / "normal.tf")
    server.initialize(ws, capabilities={
        "general": {"positionEncodings": ["utf-16"]},
        "window": {"workDoneProgress": True},
        "textDocument": {"publishDiagnostics": {"versionSupport": True}},
        "workspace": {"configuration": True, "workspaceFolders": True, "applyEdit": True,
                      "workspaceEdit": {"documentChanges": True},
                      "didChangeWatchedFiles": {"dynamicRegistration": True}},
    })
    server.wait_diagnostics(normal, lambda d: any(x.get("code") == "unbounded-field" for x in d), timeout=60)
    server.open(normal, NORMAL_TF, 1)
    diags = server.wait_diagnostics(normal, lambda d: any(x.get("code") == "unbounded-field" for x in d), timeout=60)
    at = utf16_position(NORMAL_TF, NORMAL_TF.index("var.v") + 4)
    doc = {"uri": normal}
    assert server.result("textDocument/hover", {"textDocument": doc, "position": at})
    unbounded = [d for d in diags if d.get("code") == "unbounded-field"]
    actions = server.result("textDocument/codeAction", {"textDocument": doc, "range": unbounded[0]["range"],
                                                        "context": {"diagnostics": unbounded}})
    assert actions, "expected quick fixes for the unbounded field"
    for action in actions:  # resolving is not applying: nothing is written
        if "edit" not in action and "data" in action:
            server.request("codeAction/resolve", action)
    server.result("textDocument/inlayHint", {"textDocument": doc, "range": {"start": {"line": 0, "character": 0},
                                                                          "end": {"line": 20, "character": 0}}})
    server.result("textDocument/definition", {"textDocument": doc, "position": at})
    server.result("textDocument/references", {"textDocument": doc, "position": at, "context": {"includeDeclaration": True}})
    server.result("textDocument/documentSymbol", {"textDocument": doc})
    server.request("textDocument/codeLens", {"textDocument": doc})
    field_at = utf16_position(NORMAL_TF, NORMAL_TF.index("engine_version"))
    server.request("workspace/executeCommand", {"command": "tfphi.showTrace", "arguments": [{"uri": normal, "position": field_at}]})
    server.request("workspace/executeCommand", {"command": "tfphi.previewSpecialization",
                                                "arguments": [{"uri": normal, "address": "aws_db_instance.ok.engine_version"}]})
    # configuration pointing outside, and watched-file events for files outside or linked out
    server.settings = {"ignore": ["../outside", "/etc"], "limits": {"depth": 5}}
    server.notify("workspace/didChangeConfiguration", {"settings": {"tfphi": server.settings}})
    server.notify("workspace/didChangeWatchedFiles", {"changes": [
        {"uri": file_uri(ws.parent / "outside" / "main.tf"), "type": 2},
        {"uri": file_uri(ws / "linked.tf"), "type": 2},
        {"uri": file_uri(ws / "notes.tf"), "type": 1},
        {"uri": file_uri(ws / "linked_dir" / "main.tf"), "type": 1},
        {"uri": "file:///etc/passwd", "type": 2},
        {"uri": file_uri(ws / ".terraform/modules/modules.json"), "type": 2},
        {"uri": file_uri(ws / ".tfphi.toml"), "type": 2},
    ]})
    server.change(normal, 2, [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "# edited\n"}])
    server.wait_diagnostics(normal, version=2, timeout=60)
    assert server.result("textDocument/hover", {"textDocument": doc, "position": {"line": at["line"] + 1, "character": at["character"]}})
    server.notify("textDocument/didClose", {"textDocument": doc})
    for message in server.notifications:
        assert OUTSIDE_SECRET not in json.dumps(message)


def test_server_session_has_no_side_effects(tmp_path: Path) -> None:
    ws, outside = _workspace(tmp_path)
    env, log = _audited_env(tmp_path)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p != log and "audit_hook" not in p.parts)
    with RawServer(cwd=ws, env=env) as server:
        _drive_session(server, ws)
        assert server.shutdown_and_exit() == 0
    assert not server.framing_errors
    _check_log(_read_log(log), ws, outside)
    after = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p != log and "audit_hook" not in p.parts)
    assert after == before, "files appeared or vanished"
    assert (ws / "normal.tf").read_text() == NORMAL_TF  # code actions returned edits; nothing applied them


@pytest.mark.parametrize("args", [
    ["check", "{ws}", "--format", "json", "--fail-on", "never"],
    ["check", "{ws}", "--format", "sarif", "--fail-on", "never"],
    ["trace", "{ws}", "aws_db_instance.ok.engine_version", "--json"],
    ["specialize", "{ws}", "aws_db_instance.ok.engine_version"],
], ids=["check-json", "check-sarif", "trace", "specialize"])
def test_cli_has_no_side_effects(tmp_path: Path, args: list[str]) -> None:
    ws, outside = _workspace(tmp_path)
    env, log = _audited_env(tmp_path)
    run = run_cli([a.format(ws=ws) for a in args], cwd=ws, env=env)
    assert run.returncode in (0, 1), run.stderr[-3000:]
    assert OUTSIDE_SECRET not in run.stdout
    _check_log(_read_log(log), ws, outside)
