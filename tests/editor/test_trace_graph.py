"""The trace graph: the ``tfphi/traceGraph`` request over stdio and ``tfphi trace --dot`` as a subprocess.

Whole outputs are compared with snapshots; the structure the picture must show (each branch's
path from the field to its literal, both arms meeting in one conditional) is asserted on its own.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from lsprotocol import types

from editor_support import check_snapshot
from lsp_helpers import position_of, server_env, start_session, stop_session

ROOT_TF = '''\
variable "customer_env" {
  type = string
  validation {
    condition     = contains(["prod", "staging"], var.customer_env)
    error_message = "customer_env must be prod or staging."
  }
}

module "database" {
  source         = "./modules/postgres"
  engine_version = var.customer_env == "prod" ? "15.4" : "14.9"
  name           = lower("App-${var.customer_env}")
}
'''

CHILD_TF = '''\
variable "engine_version" {
  type = string
}

variable "name" {
  type = string
}

resource "aws_db_instance" "app" {
  identifier     = var.name
  engine_version = var.engine_version
}
'''

ADDRESS = "module.database.aws_db_instance.app.engine_version"


def write(folder: Path) -> Path:
    (folder / "modules" / "postgres").mkdir(parents=True)
    (folder / "main.tf").write_text(ROOT_TF)
    (folder / "modules" / "postgres" / "main.tf").write_text(CHILD_TF)
    return folder


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tfphi", *args], capture_output=True, text=True, env=server_env(), timeout=120)


async def graph_at(folder: Path, marker: str) -> dict | None:
    session = await start_session([folder])
    try:
        await session.wait_indexed()
        path = folder / "modules" / "postgres" / "main.tf"
        u = session.open(path)
        return await session.client.protocol.send_request_async(
            "tfphi/traceGraph",
            {"textDocument": {"uri": u}, "position": position_of(path.read_text(), marker)},
        )
    finally:
        await stop_session(session)


def as_plain(value):
    """pygls hands a custom request's result back as namedtuple-like objects: make it plain JSON data."""
    if hasattr(value, "_asdict"):
        return {k: as_plain(v) for k, v in value._asdict().items()}
    if isinstance(value, (list, tuple)):
        return [as_plain(v) for v in value]
    return value


async def test_graph_request_returns_each_branch_path(tmp_path):
    folder = write(tmp_path / "ws")
    graph = as_plain(await graph_at(folder, "engine_version = var"))
    check_snapshot("trace_graph_engine_version.json", json.dumps(graph, indent=2, ensure_ascii=False) + "\n")

    nodes = {n["id"]: n for n in graph["nodes"]}
    kinds = [[nodes[i]["kind"] for i in b["nodes"]] for b in graph["branches"]]
    assert [(b["value"], b["condition"]) for b in graph["branches"]] == [
        ('"15.4"', 'var.customer_env == "prod"'),
        ('"14.9"', 'var.customer_env == "staging"'),  # the validation allows only these two
    ]
    assert kinds == [["field", "variable", "module_argument", "conditional", "literal"]] * 2
    # Both arms meet in one conditional node; the literals differ, and each edge into the
    # conditional is labelled with its arm and carries only its own branch.
    assert graph["branches"][0]["nodes"][:4] == graph["branches"][1]["nodes"][:4]
    conditional = graph["branches"][0]["nodes"][3]
    arms = sorted((e["label"], e["branches"]) for e in graph["edges"] if e["target"] == conditional)
    assert arms == [("false", [1]), ("true", [0])]


async def test_graph_request_where_nothing_is_traced_answers_null(tmp_path):
    folder = write(tmp_path / "ws")
    assert await graph_at(folder, 'resource "aws_db_instance"') is None


def test_trace_dot_prints_the_same_graph(tmp_path):
    folder = write(tmp_path / "ws")
    done = run_cli("trace", str(folder), ADDRESS, "--dot")
    assert done.returncode == 0, done.stderr
    check_snapshot("trace_graph_engine_version.dot", done.stdout)
    assert done.stdout.startswith("digraph trace {\n") and done.stdout.endswith("}\n")


def test_trace_dot_of_a_function_and_a_template(tmp_path):
    folder = write(tmp_path / "ws")
    done = run_cli("trace", str(folder), "module.database.aws_db_instance.app.identifier", "--dot")
    assert done.returncode == 0, done.stderr
    check_snapshot("trace_graph_identifier.dot", done.stdout)
