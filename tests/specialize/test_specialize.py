"""The specializer on the seed's scenarios: snapshots, validity, gate round trips, exactly-one-active."""

from __future__ import annotations

import itertools
import json
import re
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

from tfphi import __version__
from tfphi.specialize.code_lens import code_lenses
from tfphi.loader import load_workspace
from tfphi.specialize.preview import resolve_address, specialize_address
from tfphi.specialize.specializer import group_branches, sanitize, specialization_names, specialize
from tfphi.syntax.hclfile import parse_file
from tfphi.values.value import to_hcl

from .conftest import ROOT, check_snapshot, write_workspace
from .hcleval import eval_cond, evaluate
from .scenarios import SCENARIOS

EXAMPLE = ROOT / "examples" / "vendor-stack"


def squash(text):
    """Runs of spaces as one: alignment is terraform fmt's business, checked with the real Terraform."""
    return re.sub(r" +", " ", text)


def load(name, tmp_path):
    files, address, selectors = SCENARIOS[name]
    analysis = load_workspace(EXAMPLE) if files is None else write_workspace(tmp_path / name, files)
    return analysis, address, selectors


def plan_of(analysis, address):
    result, resource, field = resolve_address(analysis, address)
    return specialize(analysis, result, resource, field)


def gates(plan):
    """(specialization, count expression text or None) from the rewritten host file."""
    host_file = plan.resource.span.file
    hcl = parse_file(host_file, plan.files[host_file].encode())
    blocks = {b.labels[0]: b for b in hcl.body.blocks if b.type == "module"}
    out = []
    for spec in plan.specializations:
        count = blocks[spec.name].body.attributes.get("count")
        if count is not None:  # count = <gate> ? 1 : 0
            assert hcl.text(count.expr.true_result.span) == "1" and hcl.text(count.expr.false_result.span) == "0"
        out.append((spec, hcl.text(count.expr.condition.span) if count else None))
    return out


def assignments(selectors):
    names = sorted(selectors)
    for combo in itertools.product(*(selectors[n] for n in names)):
        values = dict(zip(names, combo))
        values.update({f"tfphi_{k}": v for k, v in list(values.items())})  # threaded under a prefixed name
        yield values


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_snapshot(name, tmp_path):
    analysis, address, _ = load(name, tmp_path)
    preview = specialize_address(analysis, address)
    check_snapshot(f"{name}.tf", preview.hcl)
    check_snapshot(f"{name}.json", json.dumps(preview.provenance, indent=2, ensure_ascii=False) + "\n")


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_every_generated_file_parses(name, tmp_path):
    analysis, address, _ = load(name, tmp_path)
    preview = specialize_address(analysis, address)
    assert preview.files
    for path, text in preview.files.items():
        if path == "provenance.json":
            assert json.loads(text) == preview.provenance
        else:
            assert parse_file(path, text.encode()).errors == [], path


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_exactly_one_module_is_active_for_every_assignment(name, tmp_path):
    analysis, address, selectors = load(name, tmp_path)
    plan = plan_of(analysis, address)
    pairs = gates(plan)
    for values in assignments(selectors):
        counts = [1 if gate is None else evaluate(f"{gate} ? 1 : 0", values) for _, gate in pairs]
        assert counts.count(1) == 1 and sum(counts) == 1, (values, [g for _, g in pairs])


@pytest.mark.parametrize("name", ["conditional", "nested_coalesced", "universe", "references", "wrapped"])
def test_gates_round_trip_through_the_tracer(name, tmp_path):
    """Each gate, traced with the selector variables set, is true exactly where its original condition is."""
    analysis, address, selectors = load(name, tmp_path)
    plan = plan_of(analysis, address)
    pairs = gates(plan)
    for i, values in enumerate(assignments(selectors)):
        variables = "".join(f'variable "{k}" {{\n  default = {to_hcl(v)}\n}}\n' for k, v in values.items())
        attrs = "".join(f"  g{j} = {gate}\n" for j, (_, gate) in enumerate(pairs))
        ws = write_workspace(tmp_path / f"rt{i}", {"main.tf": variables + f'resource "terraform_data" "g" {{\n{attrs}}}\n'})
        for j, (spec, _) in enumerate(pairs):
            traced = ws.trace_address(f"terraform_data.g.g{j}")
            assert traced.kind == "resolved", traced.reason
            assert traced.branches[0].value is eval_cond(spec.cond, values), (spec.name, values)


@pytest.mark.parametrize("name", ["conditional", "nested_coalesced", "universe", "references", "wrapped"])
def test_exactly_one_active_property(name, tmp_path):
    analysis, address, selectors = load(name, tmp_path)
    pairs = gates(plan_of(analysis, address))
    names = sorted(selectors)

    @settings(max_examples=60, deadline=None)
    @given(st.tuples(*(st.sampled_from(selectors[n]) for n in names)))
    def prop(combo):
        values = dict(zip(names, combo))
        values.update({f"tfphi_{k}": v for k, v in list(values.items())})
        active = [spec.name for spec, gate in pairs if evaluate(f"{gate} ? 1 : 0", values) == 1]
        assert len(active) == 1
        # ...and it is the module of the value the original field takes under this assignment
        (spec,) = [s for s, _ in pairs if s.name == active[0]]
        assert eval_cond(spec.cond, values)

    prop()


def test_conditional_example_shape(tmp_path):
    analysis, address, _ = load("conditional", tmp_path)
    plan = plan_of(analysis, address)
    assert [s.name for s in plan.specializations] == ["app_v15_4", "app_v14_9"]
    assert [g for _, g in gates(plan)] == ['var.customer_env == "prod"', 'var.customer_env != "prod"']
    host = plan.files["modules/postgres/main.tf"]
    assert 'resource "aws_db_instance"' not in host
    assert "customer_env = var.customer_env" in squash(plan.files["main.tf"])
    assert 'variable "customer_env"' in plan.files["modules/postgres/tfphi_gates.tf"]
    assert "one(concat(module.app_v15_4[*].endpoint, module.app_v14_9[*].endpoint))" in plan.files["modules/postgres/outputs.tf"]
    sub = plan.files["modules/postgres/.tfphi/specialized/app_v15_4/main.tf"]
    assert 'engine_version    = "15.4"' in sub and 'output "endpoint"' in sub
    (spec, _) = plan.specializations
    assert (spec.moved_from, spec.moved_to) == ("module.database.aws_db_instance.app",
                                                "module.database.module.app_v15_4[0].aws_db_instance.app")


def test_provenance_records(tmp_path):
    analysis, address, _ = load("conditional", tmp_path)
    preview = specialize_address(analysis, address)
    first, second = preview.provenance
    assert first["module"] == "app_v15_4"
    assert first["source_field"] == "aws_db_instance.app.engine_version"
    assert first["branch_value"] == "15.4"
    assert first["gate"] == 'Existing(var.customer_env == "prod")'
    assert second["gate"] == 'Not(Existing(var.customer_env == "prod"))'
    assert first["trace_path"][0] == "Field aws_db_instance.app.engine_version" and first["trace_path"][-1] == 'Prim "15.4"'
    assert first["source_span"] == "modules/postgres/main.tf:1-7"
    assert first["compiler_version"] == f"tfphi {__version__}"
    assert (f'# phi: engine_version (aws_db_instance.app) - gate: Existing(var.customer_env == "prod") - '
            f"trace: modules/postgres/main.tf:1-7 - tfphi {__version__}") in preview.hcl


def test_nested_coalesced_gives_two_modules(tmp_path):
    analysis, address, _ = load("nested_coalesced", tmp_path)
    plan = plan_of(analysis, address)
    assert [s.value for s in plan.specializations] == ["m5.xlarge", "t3.small"]
    assert [g for _, g in gates(plan)] == ['var.env == "prod" || var.region == "us-east-1"',
                                           'var.env != "prod" && var.region != "us-east-1"']


def test_universe_of_three_threads_under_a_fresh_name(tmp_path):
    analysis, address, _ = load("universe", tmp_path)
    plan = plan_of(analysis, address)
    assert [s.name for s in plan.specializations] == ["db_small", "db_medium", "db_large"]
    # the child already declares instance_size (it receives the value), so the gate's copy gets a prefix
    assert [g for _, g in gates(plan)][0] == 'var.tfphi_instance_size == "small"'
    assert "tfphi_instance_size = var.instance_size" in plan.files["main.tf"]


def test_resolved_is_one_ungated_module_with_an_inline_moved_block(tmp_path):
    analysis, address, _ = load("resolved", tmp_path)
    plan = plan_of(analysis, address)
    (spec,) = plan.specializations
    assert spec.gate is None and spec.name == "app_v15_4"
    host = plan.files["main.tf"]
    assert "count" not in host
    assert "moved {\n  from = aws_db_instance.app\n  to   = module.app_v15_4.aws_db_instance.app\n}" in host
    assert "value = module.app_v15_4.endpoint" in host
    assert preview_gate_none(plan)


def preview_gate_none(plan):
    return plan.provenance[0]["gate"] is None


def test_references_depends_on_and_providers(tmp_path):
    analysis, address, _ = load("references", tmp_path)
    plan = plan_of(analysis, address)
    host = plan.files["main.tf"]
    assert "depends_on = [module.app_v15_4, module.app_v14_9, aws_iam_role.monitoring]" in host
    assert "records = [one(concat(module.app_v15_4[*].address, module.app_v14_9[*].address))]" in host
    assert 'ttl     = one(concat(module.app_v15_4[*].tags, module.app_v14_9[*].tags))["ttl"]' in host
    assert "whole    = one(concat(module.app_v15_4[*].this, module.app_v14_9[*].this))" in host
    assert "providers = { aws = aws.west }" in host
    assert "depends_on = [aws_iam_role.monitoring]" in host  # the resource's own depends_on, on the module
    sub = plan.files[".tfphi/specialized/app_v15_4/main.tf"]
    assert "provider" not in sub.split('resource "aws_db_instance"')[1].split("\n")[1]
    assert "monitoring_role_arn = var.aws_iam_role_monitoring.arn" in squash(sub)
    assert "tags = { team = var.local_team }" in squash(sub)
    assert 'engine_version = "15.4"' in squash(sub)
    for out in ("address", "tags", "endpoint", "this"):
        assert f'output "{out}"' in sub


def test_wrapped_resource_keeps_its_for_each_inside(tmp_path):
    analysis, address, _ = load("wrapped", tmp_path)
    plan = plan_of(analysis, address)
    sub = plan.files[".tfphi/specialized/this_v7_0/main.tf"]
    assert "for_each             = var.groups" in sub
    assert 'output "this"' in sub
    host = plan.files["main.tf"]
    assert "one(concat(module.this_v7_0[*].this, module.this_v7_1[*].this))[\"jobs\"].arn" in host
    assert plan.specializations[0].moved_to == "module.this_v7_0[0].aws_elasticache_replication_group.this"


def test_unbounded_gives_the_fix_text_and_no_output(tmp_path):
    analysis = load_workspace(EXAMPLE)
    preview = specialize_address(analysis, "module.cache.aws_elasticache_replication_group.this.node_type")
    assert preview.provenance == [] and preview.files == {} and preview.blocked
    assert "var.cache_node_type has no default value" in preview.hcl
    assert all(line.startswith("#") for line in preview.hcl.splitlines())
    assert parse_file("x.tf", preview.hcl.encode()).errors == []


def test_unknown_address():
    assert specialize_address(load_workspace(EXAMPLE), "aws_db_instance.nope.engine_version") is None


def test_instance_keyed_branches_are_not_specializable(workspace):
    analysis = workspace({"main.tf": '''resource "aws_db_instance" "app" {
  for_each       = { a = "14.9", b = "15.4" }
  engine_version = each.value
}
'''})
    preview = specialize_address(analysis, "aws_db_instance.app.engine_version")
    assert preview.blocked and "differ by instance" in preview.hcl


def test_names_are_deterministic_and_collision_free():
    assert sanitize("15.4") == "15_4" and sanitize("db.t4g.medium") == "db_t4g_medium" and sanitize("") == "empty"
    assert specialization_names("db", ["15.4", "15-4", "small", True]) == ["db_v15_4", "db_v15_4_2", "db_small", "db_true"]
    assert specialization_names("db", ["15.4"], taken={"db_v15_4"}) == ["db_v15_4_2"]


def test_equal_values_are_deduplicated(workspace):
    analysis = workspace({"main.tf": '''variable "a" {
  type = bool
}

resource "aws_db_instance" "app" {
  engine_version = var.a ? "15.4" : "15.4"
}
'''})
    result, resource, field = resolve_address(analysis, "aws_db_instance.app.engine_version")
    assert len(group_branches(result)) == 1
    plan = specialize(analysis, result, resource, field)
    assert len(plan.specializations) == 1 and plan.specializations[0].gate is None


def test_code_lenses():
    analysis = load_workspace(EXAMPLE)
    lenses = code_lenses(analysis, "modules/postgres/main.tf")
    by_address = {str(lens.address): lens for lens in lenses}  # (a typed FieldAddress, printed)
    lens = by_address["module.database.aws_db_instance.app.engine_version"]
    assert lens.title == "2 specializations: app_v15_4 (terraform.tfvars), app_v14_9 (module.database)"
    assert analysis.text(lens.span).startswith("engine_version")
    assert code_lenses(analysis, "main.tf") == []  # the lambda runtime is resolved: no lens
    assert code_lenses(analysis, "nope/main.tf") == []


def test_cli_prints_gated_modules_moved_blocks_and_provenance(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "tfphi", "specialize", str(EXAMPLE), "module.database.aws_db_instance.app.engine_version"],
        capture_output=True, text=True, check=False,
    )
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert 'module "app_v15_4" {' in out and 'module "app_v14_9" {' in out
    assert 'count  = var.customer_env == "prod" ? 1 : 0' in out
    assert 'count  = var.customer_env != "prod" ? 1 : 0' in out
    assert out.count("moved {") == 1 and "to   = module.database.module.app_v15_4[0].aws_db_instance.app" in out
    assert "# ==== moved/terraform.tf ====" in out
    assert "# phi: engine_version (aws_db_instance.app)" in out
    run = subprocess.run(
        [sys.executable, "-m", "tfphi", "specialize", str(EXAMPLE), "module.database.aws_db_instance.app.engine_version",
         "--out", str(tmp_path / "out")], capture_output=True, text=True, check=False)
    assert run.returncode == 0
    records = json.loads((tmp_path / "out" / "provenance.json").read_text())
    assert [r["module"] for r in records] == ["app_v15_4", "app_v14_9"]
    assert (tmp_path / "out" / "modules/postgres/.tfphi/specialized/app_v14_9/main.tf").exists()
    run = subprocess.run([sys.executable, "-m", "tfphi", "specialize", str(EXAMPLE),
                          "module.cache.aws_elasticache_replication_group.this.node_type"], capture_output=True, text=True)
    assert run.returncode == 1 and "has no default value" in run.stdout
