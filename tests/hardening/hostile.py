"""Hostile workspaces, built in a temporary directory: each case writes the normal file beside
its hostile input and says which diagnostic the hostile part must get.

A case's builder gets ``ws`` (the workspace) and ``outside`` (a sibling directory holding a
module with a secret and an undefined reference: nothing of it may ever show up).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from hardening_support import write_normal

SECRET = "s3cr3t-outside-the-workspace"
OUTSIDE_TF = f"""output "secret" {{
  value = "{SECRET}"
}}

resource "aws_db_instance" "outside" {{
  engine_version = var.nope_outside
}}
"""
DEEP = 10_000


@dataclass(frozen=True)
class Expect:
    """A diagnostic on ``file`` whose code is one of ``codes`` (any when empty) and whose message holds ``text``."""

    file: str
    codes: tuple[str, ...] = ()
    text: str = ""
    line: int | None = None  # 1-based start line, when checked
    column: int | None = None

    def matches(self, d: dict) -> bool:
        return (
            d["file"] == self.file
            and (not self.codes or d["code"] in self.codes)
            and self.text in d["message"]
            and (self.line is None or d["range"]["start"]["line"] == self.line)
            and (self.column is None or d["range"]["start"]["column"] == self.column)
        )


@dataclass(frozen=True)
class Case:
    build: Callable[[Path, Path], None]
    expect: tuple[Expect, ...]
    server: bool = True  # also index it through the language server
    slow: bool = False
    follows_outside: bool = False  # a local source leads out of the workspace: Terraform reads it, so does tfphi (SPEC 2)


def _write(path: Path, data: bytes | str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.write_bytes(data)


def _field(expr: str) -> str:
    return f'resource "aws_db_instance" "deep" {{\n  engine_version = {expr}\n}}\n'


DEEP_SHAPES: dict[str, Callable[[int], str]] = {
    "parens": lambda n: "(" * n + "var.v" + ")" * n,
    "objects": lambda n: "{a = " * n + "var.v" + "}" * n,
    "tuples": lambda n: "[" * n + "var.v" + "]" * n,
    "calls": lambda n: "lower(" * n + "var.v" + ")" * n,
    "conditionals": lambda n: 'var.v == "a" ? "x" : ' * n + "var.v",
    "not": lambda n: "!" * n + "var.v",
    "minus": lambda n: "-" * n + "var.v",
    "operators": lambda n: " + ".join(["var.v"] * n),
    "templates": lambda n: '"${' * n + "var.v" + '}"' * n,
    "for": lambda n: "[for x in " * n + "[var.v]" + " : x]" * n,
    "index_chain": lambda n: "var.v" + "[0]" * n,
    "attribute_chain": lambda n: "var.v" + ".a" * n,
}


def _deep(shape: str) -> Callable[[Path, Path], None]:
    def build(ws: Path, outside: Path) -> None:
        write_normal(ws)
        _write(ws / "deep.tf", _field(DEEP_SHAPES[shape](DEEP)))

    return build


def _deep_blocks(ws: Path, outside: Path) -> None:
    write_normal(ws)
    _write(ws / "deep.tf", 'resource "aws_instance" "deep" {\n' + "b {\n" * DEEP + "  x = var.nope_deep\n" + "}\n" * DEEP + "}\n")


def _binary(ws: Path, outside: Path) -> None:
    write_normal(ws)
    _write(ws / "bin.tf", bytes(range(256)) * 400)


def _binary_no_nul(ws: Path, outside: Path) -> None:
    write_normal(ws)
    _write(ws / "bin.tf", bytes(range(1, 256)) * 400)


def _huge(ws: Path, outside: Path) -> None:
    write_normal(ws)
    line = b'  a = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"\n'
    _write(ws / "huge.tf", b"locals {\n" + line * (20 * 1024 * 1024 // len(line) + 1) + b"}\n")


def _invalid_utf8(ws: Path, outside: Path) -> None:
    write_normal(ws)
    _write(ws / "bad.tf", b'locals {\n  a = "caf\xe9 \xff\xfe"\n}\n')


def _bom(ws: Path, outside: Path) -> None:
    write_normal(ws)
    _write(ws / "bom.tf", '\ufeffvariable "w" {}\n\nresource "aws_db_instance" "bom" {\n  engine_version = var.w\n}\n')


def _nul(ws: Path, outside: Path) -> None:
    write_normal(ws)
    _write(ws / "nul.tf", b'locals {\n  a = "x\x00y"\n}\n')


def _chain(ws: Path, outside: Path, files: int = 5, n: int = 100_000) -> None:
    write_normal(ws)
    per = n // files
    for f in range(files):
        lines = "".join(f"  l{i} = local.l{i - 1}\n" if i else '  l0 = "x"\n' for i in range(f * per, (f + 1) * per))
        _write(ws / f"chain{f}.tf", "locals {\n" + lines + "}\n")
    _write(ws / "use.tf", f'resource "aws_db_instance" "chain" {{\n  engine_version = local.l{n - 1}\n}}\n')


def _chain_one_file(ws: Path, outside: Path) -> None:
    _chain(ws, outside, files=1)
    _write(ws / ".tfphi.toml", "[limits]\nmax_file_size = 16777216\n")


def _self_call(ws: Path, outside: Path) -> None:
    write_normal(ws)
    _write(ws / "self.tf", 'module "me" {\n  source = "./"\n  v      = "1"\n}\n')


def _two_cycle(ws: Path, outside: Path) -> None:
    write_normal(ws)
    _write(ws / "root.tf", 'module "a" {\n  source = "./a"\n}\n')
    _write(ws / "a/main.tf", 'module "b" {\n  source = "../b"\n}\n\noutput "o" {\n  value = module.b.o\n}\n')
    _write(ws / "b/main.tf", 'module "a" {\n  source = "../a"\n}\n\noutput "o" {\n  value = module.a.o\n}\n\n'
           'resource "aws_db_instance" "z" {\n  engine_version = module.a.o\n}\n')


def _symlink_loop(ws: Path, outside: Path) -> None:
    write_normal(ws)
    (ws / "sub").mkdir()
    os.symlink("..", ws / "sub" / "up")  # a directory loop
    os.symlink("loop_b", ws / "loop_a")
    os.symlink("loop_a", ws / "loop_b")
    os.symlink("self.tf", ws / "self.tf")  # a file that links to itself
    os.symlink("b.tf", ws / "a.tf")  # a file loop through two links
    os.symlink("a.tf", ws / "b.tf")


def _source_outside(ws: Path, outside: Path) -> None:
    write_normal(ws)
    _write(ws / "calls.tf", 'module "up" {\n  source = "../outside"\n}\n\nmodule "abs" {\n  source = "%s"\n}\n\n'
           'module "linked" {\n  source = "./linked"\n}\n\noutput "leak" {\n  value = module.up.secret\n}\n' % outside)
    os.symlink(outside, ws / "linked")  # a directory link out of the workspace
    os.symlink(outside / "main.tf", ws / "leak.tf")  # a file link out of the workspace


def _manifest(entries_json: bytes) -> Callable[[Path, Path], None]:
    def build(ws: Path, outside: Path) -> None:
        write_normal(ws)
        _write(ws / ".terraform/modules/modules.json", entries_json)
        _write(ws / "reg.tf", 'module "r" {\n  source = "acme/db/aws"\n}\n\nmodule "e" {\n  source = "acme/etc/aws"\n}\n\n'
               'resource "aws_db_instance" "r" {\n  engine_version = module.r.version\n}\n')

    return build


def _many_files(ws: Path, outside: Path) -> None:
    write_normal(ws)
    for i in range(10_000):
        _write(ws / f"f{i:05d}.tf", f'locals {{\n  v{i} = "{i}"\n}}\n')
    _write(ws / "f09999.tf", 'locals {\n  v9999 = local.nope_9999\n}\n')


def _non_ascii(ws: Path, outside: Path) -> None:
    write_normal(ws)
    _write(ws / "u.tf", 'variable "größe" {\n  default = "ü"\n}\n\nlocals {\n  naïve = var.größe\n  日本 = local.naïve\n}\n\n'
           'resource "aws_db_instance" "ü" {\n  engine_version = local.日本\n  instance_class = local.nöpe\n}\n')


_OUTSIDE_ENTRIES = json.dumps({"Modules": [
    {"Key": "", "Source": "", "Dir": "."},
    {"Key": "r", "Source": "registry.terraform.io/acme/db/aws", "Dir": "../outside"},
    {"Key": "e", "Source": "registry.terraform.io/acme/etc/aws", "Dir": "/etc"},
    {"Key": "x", "Source": "registry.terraform.io/acme/x/aws", "Dir": "../../outside"},
]}).encode()

CASES: dict[str, Case] = {
    "binary_file": Case(_binary, (Expect("bin.tf", text="NUL"),)),
    "binary_without_nul": Case(_binary_no_nul, (Expect("bin.tf", text="not valid UTF-8"),)),
    "file_20mb": Case(_huge, (Expect("huge.tf", text="larger than"),)),
    "invalid_utf8": Case(_invalid_utf8, (Expect("bad.tf", text="not valid UTF-8"),)),
    "utf8_bom": Case(_bom, (Expect("bom.tf", ("unbounded-field",), "engine_version", line=4, column=20),)),
    "nul_bytes": Case(_nul, (Expect("nul.tf", text="NUL"),)),
    **{f"deep_{shape}": Case(_deep(shape), (Expect("deep.tf", ("unbounded-field", "syntax-error")),)) for shape in DEEP_SHAPES},
    "deep_blocks": Case(_deep_blocks, (Expect("deep.tf", ("undefined-reference",), "var.nope_deep"),)),
    "locals_chain_100k": Case(_chain, (Expect("use.tf", ("unbounded-field",), "depth limit"),), slow=True),
    "locals_chain_100k_one_file": Case(_chain_one_file, (Expect("use.tf", ("unbounded-field",), "depth limit"),), slow=True),
    "module_calls_itself": Case(_self_call, (Expect("self.tf", ("undefined-reference",), "cycle"),)),
    "module_source_cycle": Case(_two_cycle, (Expect("a/main.tf", ("undefined-reference",), "cycle"),
                                             Expect("b/main.tf", ("undefined-reference",), "cycle"))),
    "symlink_loops": Case(_symlink_loop, (Expect("self.tf", text="symbolic link"), Expect("a.tf", text="symbolic link"))),
    "module_source_outside": Case(_source_outside, (Expect("../outside/main.tf", ("undefined-reference",), "var.nope_outside"),
                                                    # links are read wherever they lead, as Terraform reads them (SPEC 2)
                                                    Expect("linked/main.tf", ("undefined-reference",), "var.nope_outside"),
                                                    Expect("leak.tf", ("undefined-reference",), "var.nope_outside")),
                                  follows_outside=True),
    "modules_json_malformed": Case(_manifest(b'{"Modules": [ {"Key": '),
                                   (Expect(".terraform/modules/modules.json", ("config-error",), "not valid JSON"),)),
    "modules_json_wrong_shape": Case(_manifest(b'{"Modules": {"Key": 1}}'),
                                     (Expect(".terraform/modules/modules.json", ("config-error",), "Modules"),)),
    "modules_json_points_nowhere": Case(
        _manifest(json.dumps({"Modules": [{"Key": "r", "Source": "acme/db/aws", "Dir": ".terraform/modules/r"}]}).encode()),
        (Expect("reg.tf", ("unbounded-field",), "terraform init"),)),
    "modules_json_points_outside": Case(_manifest(_OUTSIDE_ENTRIES), (Expect("reg.tf", ("unbounded-field",), "terraform init"),)),
    "ten_thousand_files": Case(_many_files, (Expect("f09999.tf", ("undefined-reference",), "local.nope_9999"),), slow=True),
    "non_ascii_identifiers": Case(_non_ascii, (Expect("u.tf", ("undefined-reference",), "local.nöpe", line=12, column=20),)),
}


def build_case(name: str, tmp_path: Path) -> tuple[Path, Path]:
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    ws.mkdir()
    outside.mkdir()
    _write(outside / "main.tf", OUTSIDE_TF)
    CASES[name].build(ws, outside)
    return ws, outside
