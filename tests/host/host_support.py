"""A multi-root, multi-module workspace and a whole-analysis digest to compare hosts with."""

from __future__ import annotations

from tfphi.analysis import AnalysisHost, SetSource, Snapshot
from tfphi.features.diagnostics import dir_diagnostics
from tfphi.stir.model import Local, Module, ModuleCall, Resource, Variable

# Two roots (envs/prod, envs/dev) calling shared modules with different values; one module
# calls another; an output feeds a root field; a variable without a default keeps one field
# unbounded, so diagnostics have related locations in other files.
WORKSPACE = {
    "envs/prod/main.tf": '''variable "mode" {
  type    = string
  default = "prod"
}

variable "cache_type" {
  type = string
}

module "db" {
  source         = "../../modules/db"
  engine_version = var.mode == "prod" ? "15.4" : "14.9"
  instance_class = "db.r6g.large"
}

module "cache" {
  source    = "../../modules/cache"
  node_type = var.cache_type
  engine    = module.db.engine
}

resource "aws_db_instance" "copy" {
  engine         = "postgres"
  engine_version = module.db.version
}
''',
    "envs/dev/main.tf": '''module "db" {
  source         = "../../modules/db"
  engine_version = "14.9"
  instance_class = "db.t4g.micro"
}

module "cache" {
  source    = "../../modules/cache"
  node_type = "cache.t4g.micro"
  engine    = "redis"
}
''',
    "modules/db/main.tf": '''resource "aws_db_instance" "this" {
  engine         = "postgres"
  engine_version = var.engine_version
  instance_class = local.class
}

locals {
  class = var.instance_class
}

output "version" {
  value = aws_db_instance.this.engine_version
}

output "engine" {
  value = var.engine_version == "15.4" ? "redis" : "valkey"
}
''',
    "modules/db/variables.tf": '''variable "engine_version" {
  type = string
}

variable "instance_class" {
  type    = string
  default = "db.t4g.small"
}
''',
    "modules/cache/main.tf": '''variable "node_type" {
  type = string
}

variable "engine" {
  type = string
}

module "params" {
  source = "./params"
  family = var.engine
}

resource "aws_elasticache_replication_group" "this" {
  replication_group_id = "cache"
  description          = "cache"
  node_type            = var.node_type
  engine               = module.params.engine
  engine_version       = "7.1"
}
''',
    "modules/cache/params/main.tf": '''variable "family" {
  type = string
}

output "engine" {
  value = var.family
}
''',
}


# The same repository seen from an editor opened at ``envs/prod``: the modules it reaches lie
# outside the folder, under paths that climb out of it (SPEC 2).
FROM_PROD = {
    ("main.tf" if path == "envs/prod/main.tf" else f"../../{path}"): text
    for path, text in WORKSPACE.items()
    if not path.startswith("envs/")
}
FROM_PROD["main.tf"] = WORKSPACE["envs/prod/main.tf"]

# A root module of many calls to one module, with blocks of every kind between them: edits
# in it move the blocks after the edit, whose bodies the host takes over from the previous
# parse of an open document (hclfile.take_over_blocks) instead of reading them again.
def _many_calls() -> dict[str, str]:
    calls = []
    for i in range(6):
        calls.append(f'''module "db_{i}" {{
  source         = "./modules/db"
  engine_version = var.mode == "prod" ? "15.{i}" : "14.{i}"
  instance_class = local.classes[{i % 2}]
}}

variable "size_{i}" {{
  type    = number
  default = {i}
  validation {{
    condition     = var.size_{i} >= 0
    error_message = "size_{i} must not be negative."
  }}
}}
''')
    root = '''variable "mode" {
  type    = string
  default = "prod"
}

locals {
  classes = ["db.t4g.micro", "db.r6g.large"]
}

''' + "\n".join(calls) + '''
output "version" {
  value = module.db_0.version
}

resource "aws_db_instance" "copy" {
  engine         = module.db_1.engine == "redis" ? "postgres" : "mysql"
  engine_version = module.db_2.version
}
'''
    return {"main.tf": root, "modules/db/main.tf": WORKSPACE["modules/db/main.tf"],
            "modules/db/variables.tf": WORKSPACE["modules/db/variables.tf"]}


MANY_CALLS = _many_calls()
LAYOUTS = {"repository root": WORKSPACE, "one root's folder": FROM_PROD, "a root of many calls": MANY_CALLS}


def everything(snapshot: Snapshot) -> dict:
    """Every module's declarations, field traces, findings and diagnostics (spans included), comparable with ==."""
    out = {}
    for dir in snapshot.dirs():
        out[dir] = (
            declarations(snapshot.modules.get(dir)),
            [(t.resource.address, t.field_path, t.result) for t in snapshot.field_traces(dir)],
            snapshot.findings(dir),
            dir_diagnostics(snapshot, dir),
        )
    return out


def declarations(module: Module | None) -> tuple | None:
    """A module's declarations as plain data: each one's address, spans and what it reads of
    its block (incremental builds take declarations over from the previous build)."""
    if module is None:
        return None
    out = []
    for decl in module.declarations():
        if isinstance(decl, Variable):
            detail = (decl.label_span, _attr(decl.type_attr), _attr(decl.default), decl.nullable,
                      tuple((v.span, _attr(v.condition_attr), _attr(v.error_message_attr)) for v in decl.validations))
        elif isinstance(decl, Local):
            detail = (_attr(decl.attribute),)
        elif isinstance(decl, Resource):
            detail = (decl.mode, decl.label_spans, decl.block.span, decl.block.type_span)
        elif isinstance(decl, ModuleCall):
            detail = (decl.source, decl.label_span, decl.block.span, sorted(decl.block.attribute_names()))
        else:
            detail = (decl.label_span, _attr(decl.value))
        out.append((type(decl).__name__, decl.address, decl.span, detail))
    return module.files, tuple(out), module.duplicates


def _attr(attribute) -> tuple | None:
    return None if attribute is None else (attribute.name, attribute.span, attribute.name_span)


def fresh(texts: dict[str, str]) -> Snapshot:
    host = AnalysisHost()
    host.apply_change([SetSource(path, text.encode()) for path, text in texts.items()])
    return host.snapshot()
