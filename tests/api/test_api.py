"""``tfphi.api`` through its public names only (SPEC section 8): load, roots, fields, trace,
specialize, errors; and the API's trace against ``tfphi trace --json`` for every field of the
example workspaces (the API is a layer over the CLI's analysis, so they must agree exactly)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

import tfphi.api as api
from tfphi.cli import main as cli_main

REPO = Path(__file__).resolve().parents[2]
VENDOR_STACK = REPO / "examples" / "vendor-stack"
REPOS = REPO / "tests" / "workspace" / "repos"
ENGINE_VERSION = "module.database.aws_db_instance.app.engine_version"
NODE_TYPE = "module.cache.aws_elasticache_replication_group.this.node_type"
TRACE_PATH = ("Field aws_db_instance.app.engine_version", "NameRef var.engine_version",
              "ModCall module.database argument engine_version")


@pytest.fixture(scope="module")
def vendor() -> api.Workspace:
    return api.load(VENDOR_STACK)


def test_api_version_is_exported():
    assert api.API_VERSION == "1.0"
    assert set(api.__all__) >= {"load", "Workspace", "TraceResult", "Branch", "Deployment", "Specialization",
                                "FieldRef", "TfphiError", "API_VERSION"}


def test_bounded_field_of_the_vendor_stack(vendor: api.Workspace):
    assert vendor.trace(ENGINE_VERSION) == api.TraceResult(
        root=".", address=ENGINE_VERSION, kind="bounded", exists=True,
        branches=(
            api.Branch("15.4", 'Existing(var.customer_env == "prod")', 'var.customer_env == "prod"', None,
                       TRACE_PATH + ("ConditionalExpr true arm", 'Prim "15.4"'), "main.tf:6:49"),
            api.Branch("14.9", 'Not(Existing(var.customer_env == "prod"))', 'var.customer_env != "prod"', None,
                       TRACE_PATH + ("ConditionalExpr false arm", 'Prim "14.9"'), "main.tf:6:58"),
        ),
        selector='var.customer_env == "prod"', reason=None,
        deployments=(api.Deployment("terraform.tfvars", "15.4"),))


def test_resolved_field(vendor: api.Workspace):
    result = vendor.trace("module.database.aws_db_instance.app.allocated_storage")
    assert (result.kind, result.selector, result.reason) == ("resolved", None, None)
    assert [(b.value, b.condition, b.gate, b.instance) for b in result.branches] == [(100, "true", None, None)]
    assert result.deployments == (api.Deployment("terraform.tfvars", 100),)


def test_unbounded_field_is_still_decided_by_a_deployment(vendor: api.Workspace):
    result = vendor.trace(NODE_TYPE)
    assert (result.kind, result.branches, result.selector) == ("unbounded", (), None)
    assert result.reason == "var.cache_node_type has no default value, and no validation block lists the allowed values"
    assert result.deployments == (api.Deployment("terraform.tfvars", "cache.r6g.large"),)


def test_a_universe_bounds_an_unbounded_field(vendor: api.Workspace):
    result = vendor.trace(NODE_TYPE, universe=["cache.t4g.small", "cache.r6g.large"])
    assert result.kind == "bounded"
    assert [(b.value, b.condition, b.gate) for b in result.branches] == [
        ("cache.t4g.small", 'Eq(var.cache_node_type, "cache.t4g.small")', 'var.cache_node_type == "cache.t4g.small"'),
        ("cache.r6g.large", 'Eq(var.cache_node_type, "cache.r6g.large")', 'var.cache_node_type == "cache.r6g.large"'),
    ]


def test_instance_keys_narrow_and_instances_are_named(vendor: api.Workspace):
    every = vendor.trace("module.cache.aws_elasticache_replication_group.this.description")
    assert [(b.value, b.instance, b.gate) for b in every.branches] == [
        ("acme-jobs", '["jobs"]', None), ("acme-sessions", '["sessions"]', None)]
    one = vendor.trace('module.cache.aws_elasticache_replication_group.this["jobs"].description')
    assert [(b.value, b.condition) for b in one.branches] == [("acme-jobs", "true")] and one.kind == "resolved"


def test_roots_and_fields():
    monorepo = api.load(REPOS / "monorepo")
    assert monorepo.roots == ("envs/dev", "envs/prod", "envs/regional")
    assert [(f.root, f.address) for f in monorepo.fields("aws_db_instance") if f.address.endswith(".engine_version")] == [
        ("envs/dev", "module.db.aws_db_instance.app.engine_version"),
        ("envs/prod", "module.db.aws_db_instance.app.engine_version"),
        ("envs/prod", "module.metrics_db.aws_db_instance.app.engine_version")]
    # the repository root is a root (terraform plan there plans it) beside the examples that call it
    assert api.load(REPOS / "rds-like").roots == (".", "examples/complete-mysql", "examples/complete-postgres",
                                                   "examples/replica-postgres")


def test_fields_of_the_vendor_stack(vendor: api.Workspace):
    assert [f.address for f in vendor.fields()] == [
        "aws_iam_role.worker.name", "aws_iam_role.worker.assume_role_policy",
        "aws_lambda_function.worker.function_name", "aws_lambda_function.worker.role", "aws_lambda_function.worker.handler",
        "aws_lambda_function.worker.runtime", "aws_lambda_function.worker.filename",
        "aws_lambda_function.worker.environment.variables",
        "module.cache.aws_elasticache_replication_group.this.replication_group_id",
        "module.cache.aws_elasticache_replication_group.this.description",
        "module.cache.aws_elasticache_replication_group.this.engine",
        "module.cache.aws_elasticache_replication_group.this.engine_version",
        "module.cache.aws_elasticache_replication_group.this.node_type",
        "module.database.aws_db_instance.app.identifier", "module.database.aws_db_instance.app.engine",
        "module.database.aws_db_instance.app.engine_version", "module.database.aws_db_instance.app.instance_class",
        "module.database.aws_db_instance.app.allocated_storage"]
    assert {f.resource_type for f in vendor.fields("aws_lambda_function")} == {"aws_lambda_function"}


def test_deployments_per_root():
    monorepo = api.load(REPOS / "monorepo")
    address = "module.db.aws_db_instance.app.engine_version"
    assert monorepo.trace(address, root="envs/dev").deployments == (
        api.Deployment("env/dev.tfvars", "15.4"), api.Deployment("env/staging.tfvars", "16.2"))
    assert monorepo.trace(address, root="envs/prod").deployments == (api.Deployment("terraform.tfvars", "16.2"),)


def test_results_are_frozen(vendor: api.Workspace):
    result = vendor.trace(ENGINE_VERSION)
    with pytest.raises(AttributeError):
        result.kind = "resolved"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        result.branches[0].value = "16.2"  # type: ignore[misc]
    assert result == vendor.trace(ENGINE_VERSION) and hash(result) == hash(vendor.trace(ENGINE_VERSION))


# ---- specialize ------------------------------------------------------------------------------


def test_specialize_compiles_once_per_distinct_value(vendor: api.Workspace):
    calls: list[object] = []

    def compile(value):
        calls.append(value)
        return [f"chart for {value}"]

    specs = vendor.specialize(ENGINE_VERSION, universe=None, compile=compile, fallback=pytest.fail)
    assert calls == ["15.4", "14.9"]
    assert [(s.name, s.value, s.condition, s.gate, s.nodes) for s in specs] == [
        ("app_v15_4", "15.4", 'Existing(var.customer_env == "prod")', 'var.customer_env == "prod"', ["chart for 15.4"]),
        ("app_v14_9", "14.9", 'Not(Existing(var.customer_env == "prod"))', 'var.customer_env != "prod"', ["chart for 14.9"]),
    ]
    assert [tuple(b.source for b in s.branches) for s in specs] == [("main.tf:6:49",), ("main.tf:6:58",)]


def test_specialize_coalesces_equal_values(tmp_path: Path):
    (tmp_path / "main.tf").write_text(
        'variable "env" {\n  type = string\n}\n\nvariable "region" {\n  type = string\n}\n\n'
        'resource "aws_db_instance" "db" {\n'
        '  engine_version = var.env == "prod" ? "15.4" : (var.region == "eu" ? "15.4" : "14.9")\n}\n')
    specs = api.load(tmp_path).specialize("aws_db_instance.db.engine_version", universe=None,
                                          compile=lambda v: v, fallback=pytest.fail)
    assert [(s.name, s.nodes, s.gate, len(s.branches)) for s in specs] == [  # the tracer coalesced the two arms
        ("db_v15_4", "15.4", 'var.env == "prod" || var.region == "eu"', 1),
        ("db_v14_9", "14.9", 'var.env != "prod" && var.region != "eu"', 1)]


def test_specialize_a_resolved_field_needs_no_gate(vendor: api.Workspace):
    specs = vendor.specialize("module.database.aws_db_instance.app.engine", universe=None,
                              compile=lambda v: v.upper(), fallback=pytest.fail)
    assert [(s.name, s.value, s.condition, s.gate, s.nodes) for s in specs] == [
        ("app_postgres", "postgres", "true", None, "POSTGRES")]


def test_specialize_calls_the_fallback_for_unbounded(vendor: api.Workspace):
    seen: list[api.TraceResult] = []

    def fallback(result: api.TraceResult) -> str:
        seen.append(result)
        return "stack issue"

    assert vendor.specialize(NODE_TYPE, universe=None, compile=pytest.fail, fallback=fallback) == "stack issue"
    assert seen == [vendor.trace(NODE_TYPE)]
    bounded = vendor.specialize(NODE_TYPE, universe=["cache.t4g.small"], compile=lambda v: v, fallback=pytest.fail)
    assert [(s.value, s.gate) for s in bounded] == [("cache.t4g.small", None)]


def test_specialize_refuses_branches_that_differ_by_instance(vendor: api.Workspace):
    with pytest.raises(api.NotSpecializable) as caught:
        vendor.specialize("module.cache.aws_elasticache_replication_group.this.description", universe=None,
                          compile=lambda v: v, fallback=pytest.fail)
    assert "the branches differ by instance" in str(caught.value)


# ---- errors: the command line's messages ------------------------------------------------------


def _cli(*args: str, cwd: Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    old = os.getcwd()
    os.chdir(cwd)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = cli_main(list(args))
    finally:
        os.chdir(old)
    return code, out.getvalue(), err.getvalue()


def _cli_error(*args: str, cwd: Path) -> str:
    code, _, err = _cli(*args, cwd=cwd)
    assert code == 2 and err.startswith("tfphi: error: "), err
    return err[len("tfphi: error: "):].rstrip("\n")


@pytest.mark.parametrize("address, error", [
    ("aws_db_instance.app.engine_version", api.FieldNotFound),
    ("module.database.aws_db_instance.nope.engine_version", api.FieldNotFound),
    ('module.database.aws_db_instance.app["a"].engine_version', api.FieldNotFound),
    ("module.database", api.InvalidAddress),
])
def test_address_errors_carry_the_cli_message(address: str, error: type, vendor: api.Workspace):
    with pytest.raises(error) as caught:
        vendor.trace(address)
    assert str(caught.value) == _cli_error("trace", ".", address, cwd=VENDOR_STACK).replace(" in .", f" in {VENDOR_STACK}")
    assert isinstance(caught.value, api.TfphiError)


def test_ambiguous_root_carries_the_cli_message():
    address = "module.db.aws_db_instance.app.engine_version"
    with pytest.raises(api.AmbiguousRoot) as caught:
        api.load(REPOS / "monorepo").trace(address)
    assert str(caught.value) == _cli_error("trace", ".", address, cwd=REPOS / "monorepo")
    assert str(caught.value) == (f"{address} exists under 2 root modules: envs/dev, envs/prod; pass one of them as DIR")


def test_load_errors(tmp_path: Path):
    missing = tmp_path / "missing"
    with pytest.raises(api.NotADirectory) as caught:
        api.load(missing)
    assert str(caught.value) == _cli_error("check", str(missing), cwd=tmp_path)
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "README.md").write_text("no terraform here\n")
    with pytest.raises(api.NothingToAnalyse) as nothing:
        api.load(tmp_path / "empty")
    assert str(nothing.value) == _cli_error("check", str(tmp_path / "empty"), cwd=tmp_path)
    with pytest.raises(api.ConfigError) as config:
        api.load(VENDOR_STACK, config={"limits": {"depth": "deep"}})
    assert "limits.depth" in str(config.value)


def test_unknown_root(vendor: api.Workspace):
    with pytest.raises(api.UnknownRoot) as caught:
        vendor.trace(ENGINE_VERSION, root="modules/postgres")
    assert str(caught.value) == f"modules/postgres is not a root configuration of {VENDOR_STACK}; its roots are ."


def test_config_reaches_the_trace():
    universe = ["cache.t4g.small", "cache.r6g.large"]
    configured = api.load(VENDOR_STACK, config={"fields": {"aws_elasticache_replication_group.node_type": {"universe": universe}}})
    assert [b.value for b in configured.trace(NODE_TYPE).branches] == universe


# ---- the API equals `tfphi trace --json` ----------------------------------------------------------


def _workspaces() -> list[Path]:
    return [VENDOR_STACK, REPOS / "monorepo", REPOS / "rds-like", REPOS / "rds-like" / "examples"]


@pytest.mark.parametrize("directory", _workspaces(), ids=lambda p: p.relative_to(REPO).as_posix())
def test_trace_equals_trace_json_for_every_field(directory: Path):
    workspace = api.load(directory)
    refs = workspace.fields()
    assert len(refs) >= 10
    for ref in refs:
        code, out, err = _cli("trace", ref.root, ref.address, "--json", cwd=directory)
        assert code == 0, err
        expected = json.loads(out)
        assert _as_json(workspace.trace(ref.address, root=ref.root)) == expected, ref


def _as_json(r: api.TraceResult) -> dict:
    """The API's result in ``trace --json``'s shape (its keys, in its order)."""
    return {
        "root": r.root, "address": r.address, "kind": r.kind, "exists": r.exists,
        "branches": [{"value": b.value, "condition": b.condition, "gate": b.gate, "instance": b.instance,
                      "trace": list(b.trace), "source": b.source} for b in r.branches],
        "selector": r.selector, "reason": r.reason,
        "deployments": [{"file": d.file, "value": d.value} for d in r.deployments],
    }


@pytest.mark.parametrize("directory", [VENDOR_STACK, REPOS / "monorepo", REPOS / "rds-like" / "examples"],
                         ids=lambda p: p.relative_to(REPO).as_posix())
def test_specialize_agrees_with_tfphi_specialize_for_every_field(directory: Path):
    """Module names, values and conditions are ``tfphi specialize --json``'s; the API falls back (unbounded)
    or refuses (instances) exactly where the command has no specialization (exit 1)."""
    workspace = api.load(directory)
    for ref in workspace.fields():
        code, out, err = _cli("specialize", ref.root, ref.address, "--json", cwd=directory)
        try:
            answer = workspace.specialize(ref.address, root=ref.root, universe=None, compile=lambda v: None,
                                          fallback=lambda result: "fallback")
        except api.NotSpecializable:
            answer = "refused"
        if code == 1:
            assert answer in ("fallback", "refused"), ref
            assert (answer == "fallback") == (workspace.trace(ref.address, root=ref.root).kind == "unbounded"), ref
            continue
        assert code == 0, err
        assert not isinstance(answer, str), ref
        assert [(s.name, s.value, s.condition) for s in answer] == [
            (p["module"], p["branch_value"], p["gate"] or "true") for p in json.loads(out)], ref


# ---- what the API does not do -------------------------------------------------------------------


def test_the_api_starts_nothing_writes_nothing_and_reads_only_terraform(tmp_path: Path):
    """Under the audit hook of tests/hardening: no process, no socket, no write; only the workspace's
    Terraform files (never through a link out of it, never a file ``ignore`` names)."""
    from test_side_effects import _audited_env, _check_log, _read_log, _workspace

    env, log = _audited_env(tmp_path)
    ws, outside = _workspace(tmp_path)
    script = (
        "import sys, tfphi.api as api\n"
        "w = api.load(sys.argv[1])\n"
        "for ref in w.fields():\n"
        "    w.trace(ref.address, root=ref.root)\n"
        "    w.specialize(ref.address, root=ref.root, universe=['a'], compile=lambda v: v, fallback=lambda r: r)\n"
        "print(len(w.fields()))\n")
    proc = subprocess.run([sys.executable, "-c", script, str(ws)], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert int(proc.stdout) > 0
    _check_log(_read_log(log), ws, outside)


def test_the_package_is_typed():
    assert (Path(api.__file__).parent / "py.typed").is_file()
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert "py.typed" in pyproject["tool"]["setuptools"]["package-data"]["tfphi"]
