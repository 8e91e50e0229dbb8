"""Quick fixes for unbounded-field: each one, applied, parses cleanly and makes the diagnostic go away."""

from __future__ import annotations

import pytest
from features_support import analysis_of, apply_edits, load, unbounded_diagnostics

from tfphi.features.code_actions import CodeAction, quick_fixes
from tfphi.stir.workspace import module_dir_of

ROOT_VARIABLE = """
#- main.tf
resource "aws_elasticache_replication_group" "this" {
  node_type = var.node_type
}
#- variables.tf
variable "node_type" {
  type        = string
  description = "Set by the customer."
}
"""


def actions_for(fixture: str, field_file: str = "main.tf"):
    analysis, _, files = load(fixture)
    dir = module_dir_of(field_file)
    diagnostics = [d for d in unbounded_diagnostics(analysis, dir) if d.file == field_file]
    assert diagnostics, "the fixture has no unbounded-field diagnostic"
    diag = diagnostics[0]
    return analysis, files, diag, quick_fixes(analysis, diag.file, diag.span, diag.data)


def check_fix(fixture: str, title: str, expected: dict[str, list[str]] = {}, field_file: str = "main.tf") -> dict[str, bytes]:
    """Applies the action whose title starts with ``title``; the result parses and the diagnostic is gone."""
    analysis, files, diag, actions = actions_for(fixture, field_file)
    action = pick(actions, title)
    fixed = apply_edits(files, action.edits)
    after = analysis_of(fixed)
    for path, hcl in after.files.items():
        assert not hcl.errors, f"{path} does not parse after {action.title!r}:\n{fixed[path].decode()}\n{hcl.errors}"
    remaining = [d for d in unbounded_diagnostics(after, module_dir_of(field_file)) if d.data and d.data.get("field") == diag.data["field"]]
    assert not remaining, f"still unbounded after {action.title!r}:\n{remaining[0].message}"
    for path, snippets in expected.items():
        text = fixed[path].decode()
        for snippet in snippets:
            assert snippet in text, f"{snippet!r} not in {path}:\n{text}"
    return fixed


def pick(actions: list[CodeAction], title: str) -> CodeAction:
    matching = [a for a in actions if a.title.startswith(title)]
    assert matching, f"no action {title!r} among {[a.title for a in actions]}"
    return matching[0]


def titles(fixture: str, field_file: str = "main.tf") -> list[str]:
    return [a.title for a in actions_for(fixture, field_file)[3]]


def test_offers_three_fixes_for_a_root_variable_with_tfvars():
    fixture = ROOT_VARIABLE + '#- terraform.tfvars\nnode_type = "cache.r6g.large"\n'
    analysis, _, diag, actions = actions_for(fixture)
    assert [a.title.split(":")[0].split(" (")[0] for a in actions] == [
        "Add validation block to var.node_type", "Add default to var.node_type", "Hardcode the value"]
    assert [a.is_preferred for a in actions] == [True, False, False]
    assert all(a.kind == "quickfix" for a in actions)
    assert all(e.file == "variables.tf" for a in actions[:2] for e in a.edits)


def test_validation_from_tfvars_values():
    fixture = ROOT_VARIABLE + '#- terraform.tfvars\nnode_type = "cache.r6g.large"\n#- prod.tfvars\nnode_type = "cache.m5.large"\n'
    fixed = check_fix(fixture, "Add validation block", {"variables.tf": [
        '  description = "Set by the customer."\n\n  validation {\n'
        '    condition     = contains(["cache.m5.large", "cache.r6g.large"], var.node_type)\n'
        '    error_message = "The node_type value must be one of: cache.m5.large, cache.r6g.large."\n'
        "  }\n}\n"]})
    assert fixed["main.tf"] == load(fixture)[2]["main.tf"]


def test_validation_with_placeholders_when_nothing_is_known():
    check_fix(ROOT_VARIABLE, "Add validation block", {"variables.tf": ['contains(["value1", "value2"], var.node_type)']})
    assert not any(t.startswith("Hardcode") or t.startswith("Add default") for t in titles(ROOT_VARIABLE))


def test_validation_placeholders_follow_a_number_type():
    fixture = """
    #- main.tf
    variable "port" { type = number }
    resource "aws_mq_broker" "b" {
      host_instance_type = "mq.t3.${var.port}"
    }
    """
    check_fix(fixture, "Add validation block", {"main.tf": ["contains([1, 2], var.port)"]})


def test_default_from_tfvars():
    fixture = ROOT_VARIABLE + '#- terraform.tfvars\nnode_type = "cache.r6g.large"\n'
    check_fix(fixture, "Add default", {"variables.tf": ['  description = "Set by the customer."\n\n  default = "cache.r6g.large"\n}']})


def test_hardcode_replaces_the_field_value():
    fixture = ROOT_VARIABLE + '#- terraform.tfvars\nnode_type = "cache.r6g.large"\n'
    check_fix(fixture, "Hardcode the value", {"main.tf": ['  node_type = "cache.r6g.large"\n']})


def test_values_from_a_callers_literal_argument():
    fixture = """
    #- main.tf
    module "cache" {
      source = "./modules/cache"
    }
    module "other" {
      source    = "./modules/cache"
      node_type = "cache.t4g.small"
    }
    #- modules/cache/main.tf
    variable "node_type" {
      type = string
    }
    resource "aws_elasticache_replication_group" "this" {
      node_type = var.node_type
    }
    """
    analysis, _, diag, actions = actions_for(fixture, "modules/cache/main.tf")
    assert diag.data["variable"] == ["modules/cache", "node_type"]
    assert not any(a.title.startswith("Add validation") for a in actions)  # the caller omits it: only a default helps
    check_fix(fixture, "Add default", {"modules/cache/main.tf": ['default = "cache.t4g.small"']}, field_file="modules/cache/main.tf")


def test_edit_goes_to_the_file_that_declares_the_variable():
    fixture = """
    #- main.tf
    module "cache" {
      source    = "./modules/cache"
      node_type = var.cache_node_type
    }
    #- variables.tf
    variable "cache_node_type" {
      type = string
    }
    #- terraform.tfvars
    cache_node_type = "cache.r6g.large"
    #- modules/cache/main.tf
    variable "node_type" {
      type = string
    }
    resource "aws_elasticache_replication_group" "this" {
      node_type = var.node_type
    }
    """
    check_fix(fixture, "Add validation block", {"variables.tf": ['contains(["cache.r6g.large"], var.cache_node_type)']},
              field_file="modules/cache/main.tf")
    # modules/cache is called by the root: hardcoding one value into it is never offered (SPEC 6).
    assert [t.split(" (")[0].split(":")[0] for t in titles(fixture, "modules/cache/main.tf")] == [
        "Add validation block to var.cache_node_type", "Add default to var.cache_node_type"]


SHARED = """
#- modules/db/main.tf
variable "engine" {
  type = string
}
resource "aws_db_instance" "this" {
  engine = var.engine
}
#- examples/postgres/main.tf
variable "engine" {
  type = string
}
module "db" {
  source = "../../modules/db"
  engine = var.engine
}
#- examples/postgres/terraform.tfvars
engine = "postgres"
#- examples/mysql/main.tf
variable "db_engine" {
  type = string
}
module "db" {
  source = "../../modules/db"
  engine = var.db_engine
}
"""


def test_a_module_shared_by_several_roots_is_fixed_in_every_root_as_one_edit():
    # terraform-aws-rds's layout: one module, several examples. The fix constrains the root
    # variable of each example; the module itself is never hardcoded.
    analysis, files, diag, actions = actions_for(SHARED, "modules/db/main.tf")
    assert [a.title for a in actions] == [
        'Add validation block to var.db_engine and var.engine in 2 root modules ("postgres")',
        'Add default to var.db_engine and var.engine in 2 root modules: "postgres"',
    ]
    validation = actions[0]
    assert sorted(e.file for e in validation.edits) == ["examples/mysql/main.tf", "examples/postgres/main.tf"]
    fixed = apply_edits(files, validation.edits)
    assert 'contains(["postgres"], var.db_engine)' in fixed["examples/mysql/main.tf"].decode()
    after = analysis_of(fixed)
    assert [d for d in unbounded_diagnostics(after, "modules/db")] == []


@pytest.mark.parametrize("indent", ["\t", "    ", "  "])
def test_indentation_follows_the_block(indent):
    fixture = (
        "#- main.tf\n"
        'resource "aws_elasticache_replication_group" "this" {\n  node_type = var.node_type\n}\n'
        f'variable "node_type" {{\n{indent}type = string\n}}\n'
        '#- terraform.tfvars\nnode_type = "cache.r6g.large"\n'
    )
    check_fix(fixture, "Add validation block", {"main.tf": [
        f"{indent}validation {{\n{indent}{indent}condition     = contains([\"cache.r6g.large\"], var.node_type)\n",
        f"{indent}{indent}error_message = ",
        f"\n{indent}}}\n}}\n",
    ]})
    check_fix(fixture, "Add default", {"main.tf": [f'{indent}type = string\n\n{indent}default = "cache.r6g.large"\n}}']})


def test_one_line_and_empty_variable_blocks():
    for block in ('variable "node_type" { type = string }', 'variable "node_type" {}'):
        fixture = (
            "#- main.tf\n"
            'resource "aws_elasticache_replication_group" "this" {\n  node_type = var.node_type\n}\n'
            f"{block}\n"
        )
        fixed = check_fix(fixture, "Add validation block", {"main.tf": ['variable "node_type" {\n', "  validation {\n", "  }\n}\n"]})
        if "type =" in block:
            assert '{\n  type = string\n\n  validation {' in fixed["main.tf"].decode()


def test_crlf_file_keeps_crlf():
    fixture = """
    #- main.tf
    resource "aws_elasticache_replication_group" "this" {
      node_type = var.node_type
    }
    #- variables.tf crlf
    variable "node_type" {
      type = string
    }
    #- terraform.tfvars
    node_type = "cache.r6g.large"
    """
    for title in ("Add validation block", "Add default"):
        fixed = check_fix(fixture, title)["variables.tf"]
        assert b"\n" not in fixed.replace(b"\r\n", b""), fixed


def test_data_source_blocker_with_a_universe_offers_hardcode_of_its_first_value():
    fixture = """
    #- main.tf
    data "aws_ssm_parameter" "engine" {
      name = "/db/engine"
    }
    resource "aws_rds_cluster" "app" {
      engine = data.aws_ssm_parameter.engine.value
    }
    #- .tfphi.toml
    [limits]
    branches = 2
    """
    analysis, _, diag, actions = actions_for(fixture)
    assert "variable" not in diag.data and [f.kind for f in diag.fixes] == ["narrow", "universe", "limit"]
    assert [a.title.split(":")[0] for a in actions] == ["Hardcode the value"]
    check_fix(fixture, "Hardcode the value")


def test_data_source_blocker_without_a_universe_offers_no_variable_actions():
    fixture = """
    #- main.tf
    data "aws_ssm_parameter" "v" {
      name = "/db/version"
    }
    resource "aws_db_instance" "app" {
      engine_version = data.aws_ssm_parameter.v.value
    }
    """
    assert titles(fixture) == []


def test_function_blocker_with_a_universe_offers_hardcode():
    fixture = """
    #- main.tf
    variable "raw" {
      type = string
    }
    resource "aws_mq_broker" "b" {
      engine_type = unknown_function(var.raw)
    }
    """
    assert titles(fixture) == ['Hardcode the value: engine_type = "ActiveMQ"']
    check_fix(fixture, "Hardcode the value", {"main.tf": ['engine_type = "ActiveMQ"']})


def test_no_fixes_for_an_unrelated_span():
    analysis, _, files = load(ROOT_VARIABLE)
    from tfphi.syntax.expr import Span

    assert quick_fixes(analysis, "variables.tf", Span("variables.tf", 0, 3), None) == []
    assert quick_fixes(analysis, "main.tf", Span("main.tf", 0, 3), {"field": "aws_x.y.z"}) == []


# ---- layout: what `terraform fmt` gives, checked with the real terraform fmt ------------------

FMT_CASES = {
    "multi-line block": ROOT_VARIABLE + "#- terraform.tfvars\nnode_type = \"cache.r6g.large\"\n",
    "one-line block": """
#- main.tf
variable "node_type" { type = string }

resource "aws_elasticache_replication_group" "this" {
  node_type = var.node_type
}
#- terraform.tfvars
node_type = "cache.t4g.small"
""",
    "empty block, placeholders": """
#- main.tf
variable "node_type" {}

resource "aws_elasticache_replication_group" "this" {
  node_type = var.node_type
}
""",
    "shared module, two roots": SHARED,
}


@pytest.mark.parametrize("case", sorted(FMT_CASES))
def test_every_fix_is_laid_out_as_terraform_fmt_gives(case, tmp_path):
    from terraform_cli import run_terraform
    from terraform_fmt import write_files

    fixture = FMT_CASES[case]
    analysis, files, diag, actions = actions_for(fixture, "modules/db/main.tf" if "shared" in case else "main.tf")
    assert actions
    for i, action in enumerate(actions):
        fixed = apply_edits(files, action.edits)
        root = write_files(tmp_path / str(i), {p: d for p, d in fixed.items() if p.endswith(".tf") or p.endswith(".tfvars")})
        before = write_files(tmp_path / f"{i}-before", {p: d for p, d in files.items() if p.endswith(".tf") or p.endswith(".tfvars")})
        assert run_terraform(["fmt", "-check", "-recursive"], before).returncode == 0, "the fixture itself is not fmt-clean"
        proc = run_terraform(["fmt", "-check", "-diff", "-recursive"], root)
        assert proc.returncode == 0, f"{action.title!r} is not laid out as terraform fmt would:\n{proc.stdout}{proc.stderr}"


def test_validation_values_come_from_every_deployment_of_the_root():
    # env/prod.tfvars and env/dev.tfvars are deployments of the root (issue 11 point 4): their
    # values, not placeholders, are offered.
    fixture = ROOT_VARIABLE + '''
#- env/prod.tfvars
node_type = "cache.r6g.large"
#- env/dev.tfvars
node_type = "cache.t4g.small"
'''
    titles_found = titles(fixture)
    assert titles_found[0] == 'Add validation block to var.node_type ("cache.t4g.small", "cache.r6g.large")'
