"""Tests for tfphi.config: .tfphi.toml, LSP settings, the built-in field registry."""

from __future__ import annotations

import tfphi.config
from tfphi import records
import textwrap

import pytest

from tfphi.config import (
    SEVERITIES,
    Config,
    ConfigProblem,
    FieldSpec,
    Limits,
    builtin_fields,
)
from tfphi.config_schema import parse_config_toml, parse_lsp_settings


def toml(text: str) -> tuple[Config, list[ConfigProblem]]:
    return parse_config_toml(textwrap.dedent(text).lstrip("\n"))


def messages(problems: list[ConfigProblem]) -> list[str]:
    return [p.message for p in problems]


# --- defaults and the built-in registry ----------------------------------------------


def test_defaults() -> None:
    config = Config()
    assert config.limits == Limits(depth=20, branches=16)
    assert config.ignore == ()
    assert config.severity_override is None
    assert config.inlay_hints is True
    assert config.max_file_size == 2 * 1024 * 1024
    assert dict(config.fields) == dict(builtin_fields())


REQUIRED_FIELDS = [
    "aws_db_instance.engine",
    "aws_db_instance.engine_version",
    "aws_db_instance.instance_class",
    "aws_rds_cluster.engine",
    "aws_rds_cluster.engine_version",
    "aws_rds_cluster.db_cluster_instance_class",
    "aws_elasticache_replication_group.engine",
    "aws_elasticache_replication_group.engine_version",
    "aws_elasticache_replication_group.node_type",
    "aws_elasticache_cluster.engine",
    "aws_elasticache_cluster.engine_version",
    "aws_elasticache_cluster.node_type",
    "aws_mq_broker.engine_type",
    "aws_mq_broker.engine_version",
    "aws_mq_broker.host_instance_type",
    "aws_msk_cluster.kafka_version",
    "aws_msk_cluster.broker_node_group_info.instance_type",
    "aws_opensearch_domain.engine_version",
    "aws_opensearch_domain.cluster_config.instance_type",
    "aws_eks_cluster.version",
    "aws_lambda_function.runtime",
]


@pytest.mark.parametrize("key", REQUIRED_FIELDS)
def test_builtin_registry_covers(key: str) -> None:
    spec = builtin_fields()[key]
    assert spec.severity in SEVERITIES


def test_builtin_universes() -> None:
    fields = builtin_fields()
    assert fields["aws_mq_broker.engine_type"].universe == ("ActiveMQ", "RabbitMQ")
    assert fields["aws_elasticache_replication_group.engine"].universe == ("redis", "valkey")
    # 22 RDS engines, ~20 Lambda runtimes, a new EKS version every four months: no built-in universe
    for key in ("aws_db_instance.engine", "aws_lambda_function.runtime", "aws_eks_cluster.version"):
        assert fields[key].universe == (), key
    # versions depend on the engine: no universe
    assert fields["aws_db_instance.engine_version"].universe == ()


def test_builtin_universes_fit_the_default_branch_limit() -> None:
    # A larger built-in set would make a plain `var.engine` "too large to specialize",
    # with nothing for the author to simplify (issue 12).
    from tfphi.config import Limits

    for key, spec in builtin_fields().items():
        assert len(spec.universe) <= Limits().branches, key


def test_builtin_registry_read_without_cattrs_is_what_the_checked_decoder_reads() -> None:
    """Start-up reads the shipped registry with a small direct decoder (no cattrs import);
    the checked decoder, the one user files go through, must read the very same registry,
    and anything the direct decoder does not expect goes to the checked one."""
    import sys
    import tomllib

    from tfphi.config import _builtin_fields_direct, _package_data
    from tfphi.config_schema import builtin_fields_checked

    data = tomllib.loads(_package_data("fields.toml"))
    direct = _builtin_fields_direct(data)
    assert direct is not None
    assert list(direct.items()) == list(builtin_fields_checked(data).items())
    assert any(spec.universe for spec in direct.values())
    assert _builtin_fields_direct({"fields": {"aws_db_instance.engine": {"severity": "loud"}}}) is None
    assert _builtin_fields_direct({"fields": {"engine": {}}}) is None
    assert _builtin_fields_direct({"fields": {"a.b": {"universe": [{"x": 1}]}}}) is None
    assert _builtin_fields_direct({"limits": {}, "fields": {}}) is None
    with pytest.raises(RuntimeError, match="broken"):
        builtin_fields_checked({"fields": {"a.b": {"severity": "loud"}}})
    assert "cattrs" in sys.modules  # the checked decoder imported it when first used



def test_the_registry_start_up_reads_is_the_one_people_edit() -> None:
    """``data/fields.json`` (read at start-up without tomllib) holds what ``data/fields.toml``
    holds; TFPHI_UPDATE_SNAPSHOTS=1 rewrites it from the TOML."""
    import json
    import tomllib
    from pathlib import Path

    from snapshots import check_snapshot

    from tfphi.config import _package_data

    data = tomllib.loads(_package_data("fields.toml"))
    check_snapshot(Path(tfphi.config.__file__).parent / "data" / "fields.json", json.dumps(data, indent=2, ensure_ascii=False) + "\n")

def test_builtin_fields_is_cached_and_immutable() -> None:
    assert builtin_fields() is builtin_fields()
    with pytest.raises(TypeError):
        builtin_fields()["x.y"] = FieldSpec()  # type: ignore[index]
    with pytest.raises(TypeError):
        Config().fields["x.y"] = FieldSpec()  # type: ignore[index]
    with pytest.raises(records.FrozenInstanceError):
        Config().inlay_hints = False  # type: ignore[misc]


def test_config_is_hashable_and_comparable() -> None:
    assert Config() == Config()
    assert hash(Config()) == hash(Config())
    assert Config(fields={"a.b": FieldSpec()}) == Config(fields={"a.b": FieldSpec()})


# --- field_spec and with_overrides --------------------------------------------------------


def test_field_spec_lookup() -> None:
    config = Config()
    assert config.field_spec("aws_db_instance", "engine") == builtin_fields()["aws_db_instance.engine"]
    assert config.field_spec("aws_msk_cluster", "broker_node_group_info.instance_type") is not None
    assert config.field_spec("aws_s3_bucket", "bucket") is None


def test_severity_override_applies_to_every_field() -> None:
    config = Config(severity_override="error")
    assert config.field_spec("aws_db_instance", "engine").severity == "error"
    assert config.field_spec("aws_eks_cluster", "version").severity == "error"
    # the stored spec is untouched
    assert config.fields["aws_db_instance.engine"].severity == "warning"


def test_with_overrides() -> None:
    base = Config(severity_override="hint", ignore=("a",))
    spec = FieldSpec(universe=("x",), severity="error")
    merged = base.with_overrides({"aws_db_instance.engine": spec, "my_type.f": FieldSpec()}, limits=Limits(depth=3))
    assert merged.fields["aws_db_instance.engine"] == spec
    assert "my_type.f" in merged.fields
    assert merged.fields["aws_eks_cluster.version"] == builtin_fields()["aws_eks_cluster.version"]
    assert merged.limits == Limits(depth=3, branches=16)
    assert merged.severity_override == "hint"
    assert merged.ignore == ("a",)
    assert base.with_overrides(severity_override=None).severity_override is None
    assert base.with_overrides(ignore=["b"], inlay_hints=False, max_file_size=10) == Config(
        severity_override="hint", ignore=("b",), inlay_hints=False, max_file_size=10
    )
    # base untouched
    assert base.fields["aws_db_instance.engine"] == builtin_fields()["aws_db_instance.engine"]


# --- .tfphi.toml ----------------------------------------------------------------------------


def test_valid_file() -> None:
    config, problems = toml(
        """
        ignore = ["examples/legacy"]

        [limits]
        depth = 7
        branches = 32
        max_file_size = 1000

        [fields."aws_db_instance.engine_version"]
        universe = ["14.9", "15.4", "16.2", "17.2"]
        severity = "error"

        [fields."my_thing.port"]
        universe = [5432, 3306]

        [fields."my_thing.enabled"]
        universe = [true, false]
        severity = "off"

        [diagnostics]
        severity = "information"

        [inlayHints]
        enabled = false
        """
    )
    assert problems == []
    assert config.limits == Limits(depth=7, branches=32)
    assert config.max_file_size == 1000
    assert config.ignore == ("examples/legacy",)
    assert config.fields["aws_db_instance.engine_version"] == FieldSpec(
        universe=("14.9", "15.4", "16.2", "17.2"), severity="error"
    )
    assert config.fields["my_thing.port"] == FieldSpec(universe=(5432, 3306), severity="warning")
    assert config.fields["my_thing.enabled"] == FieldSpec(universe=(True, False), severity="off")
    assert config.severity_override == "information"
    assert config.inlay_hints is False


def test_empty_file_gives_base() -> None:
    assert parse_config_toml("") == (Config(), [])
    base = Config(limits=Limits(depth=3))
    assert parse_config_toml("# nothing\n", base) == (base, [])


def test_partial_limits_keep_the_other_default() -> None:
    config, problems = toml(
        """
        [limits]
        branches = 4
        """
    )
    assert problems == []
    assert config.limits == Limits(depth=20, branches=4)


def test_workspace_entry_replaces_builtin_entry() -> None:
    builtin = builtin_fields()["aws_rds_cluster.engine"]
    assert builtin.universe  # the built-in has a universe ...
    config, problems = toml(
        """
        [fields."aws_rds_cluster.engine"]
        severity = "error"
        """
    )
    assert problems == []
    # ... which the workspace entry drops: replace, not merge
    assert config.fields["aws_rds_cluster.engine"] == FieldSpec(universe=(), severity="error")
    # other built-ins stay
    assert config.fields["aws_lambda_function.runtime"] == builtin_fields()["aws_lambda_function.runtime"]
    assert builtin_fields()["aws_rds_cluster.engine"] == builtin


def test_empty_universe_means_no_universe() -> None:
    config, problems = toml(
        """
        [fields."aws_eks_cluster.version"]
        universe = []
        """
    )
    assert problems == []
    assert config.fields["aws_eks_cluster.version"].universe == ()


def test_universe_duplicates_are_dropped_in_order() -> None:
    config, _ = toml(
        """
        [fields."a.b"]
        universe = ["x", "y", "x", 1, true, 1]
        """
    )
    assert config.fields["a.b"].universe == ("x", "y", 1, True)


def test_syntax_error_gives_defaults_and_position() -> None:
    config, problems = toml(
        """
        [limits]
        depth = 5
        branches = = 3
        """
    )
    assert config == Config()
    assert len(problems) == 1
    assert problems[0].message.startswith("invalid TOML")
    assert (problems[0].line, problems[0].column) == (3, 12)


def test_syntax_error_keeps_base() -> None:
    base = Config(limits=Limits(depth=3))
    config, problems = parse_config_toml("[limits\n", base)
    assert config == base
    assert len(problems) == 1 and problems[0].line == 1


def test_syntax_error_at_end_of_document() -> None:
    _, problems = parse_config_toml('a = "unterminated')
    assert len(problems) == 1
    assert problems[0].line == 1


@pytest.mark.parametrize(
    ("text", "key", "line"),
    [
        ('[limits]\ndepth = "x"\n', "limits.depth", 2),
        ("[limits]\ndepth = -1\n", "limits.depth", 2),
        ("[limits]\nbranches = 0\n", "limits.branches", 2),
        ("[limits]\ndepth = 2.5\n", "limits.depth", 2),
        ("[limits]\ndepth = true\n", "limits.depth", 2),
        ("limits = 5\n", "limits", 1),
        ('[fields."aws_x.y"]\nseverity = "loud"\n', 'fields."aws_x.y".severity', 2),
        ('[fields."aws_x.y"]\nuniverse = "15.4"\n', 'fields."aws_x.y".universe', 2),
        ('[fields."aws_x.y"]\nuniverse = [[1]]\n', 'fields."aws_x.y".universe', 2),
        ('ignore = "examples"\n', "ignore", 1),
        ("ignore = [1]\n", "ignore", 1),
        ("[inlayHints]\nenabled = 1\n", "inlayHints.enabled", 2),
        ('[diagnostics]\nseverity = "fatal"\n', "diagnostics.severity", 2),
        ('fields = ["x"]\n', "fields", 1),
    ],
)
def test_wrong_types_name_the_key_and_keep_the_default(text: str, key: str, line: int) -> None:
    config, problems = parse_config_toml(text)
    assert len(problems) == 1, problems
    assert problems[0].message.startswith(key + ":"), problems[0].message
    assert problems[0].line == line
    assert config.limits == Limits()
    assert config.ignore == ()
    assert config.inlay_hints is True
    assert config.severity_override is None


def test_wrong_type_keeps_the_rest() -> None:
    config, problems = toml(
        """
        ignore = ["a"]
        [limits]
        depth = "deep"
        branches = 8
        [fields."aws_x.y"]
        universe = ["1"]
        severity = "loud"
        """
    )
    assert messages(problems)[0].startswith("limits.depth:")
    assert messages(problems)[1].startswith('fields."aws_x.y".severity:')
    assert config.limits == Limits(depth=20, branches=8)
    assert config.ignore == ("a",)
    assert config.fields["aws_x.y"] == FieldSpec(universe=("1",), severity="warning")


def test_unknown_keys_are_reported_not_fatal() -> None:
    config, problems = toml(
        """
        colour = "blue"
        [limits]
        depth = 9
        width = 3
        [fields."aws_x.y"]
        universe = ["a"]
        values = ["b"]
        [extras]
        """
    )
    assert sorted(messages(problems)) == [
        "unknown key colour",
        "unknown key extras",
        'unknown key fields."aws_x.y".values',
        "unknown key limits.width",
    ]
    lines = {p.message: p.line for p in problems}
    assert lines["unknown key colour"] == 1
    assert lines["unknown key limits.width"] == 4
    assert lines['unknown key fields."aws_x.y".values'] == 7
    assert lines["unknown key extras"] == 8
    assert config.limits.depth == 9
    assert config.fields["aws_x.y"].universe == ("a",)


def test_ignore_after_a_table_gets_a_hint() -> None:
    config, problems = toml(
        """
        [fields."aws_x.y"]
        universe = ["a"]
        ignore = ["legacy"]
        """
    )
    assert len(problems) == 1
    assert problems[0].message.startswith('unknown key fields."aws_x.y".ignore')
    assert "[workspace]" in problems[0].message
    assert problems[0].line == 3
    assert config.ignore == ()


def test_workspace_ignore_and_top_level_ignore_combine() -> None:
    config, problems = toml(
        """
        ignore = ["a", "b"]
        [workspace]
        ignore = ["b", "c"]
        """
    )
    assert problems == []
    assert config.ignore == ("a", "b", "c")


def test_bad_field_key() -> None:
    config, problems = toml(
        """
        [fields.engine]
        universe = ["x"]
        """
    )
    assert len(problems) == 1
    assert "resource_type.field" in problems[0].message
    assert problems[0].line == 1
    assert "engine" not in config.fields


def test_toml_over_base_keeps_absent_keys() -> None:
    base = Config(limits=Limits(depth=3, branches=5), ignore=("x",), severity_override="hint", inlay_hints=False)
    config, problems = parse_config_toml("[limits]\ndepth = 4\n", base)
    assert problems == []
    assert config == records.replace(base, limits=Limits(depth=4, branches=5))


# --- LSP settings --------------------------------------------------------------------------


@pytest.mark.parametrize("settings", [None, {}])
def test_lsp_empty_settings_give_defaults(settings: object) -> None:
    assert parse_lsp_settings(settings) == (Config(), [])


def test_lsp_valid_settings() -> None:
    config, problems = parse_lsp_settings(
        {
            "limits": {"depth": 5, "branches": 64},
            "fields": {"aws_db_instance.engine_version": {"universe": ["15.4", "16.2"], "severity": "hint"}},
            "diagnostics": {"severity": "error"},
            "inlayHints": {"enabled": False},
            "ignore": ["examples/legacy"],
        }
    )
    assert problems == []
    assert config.limits == Limits(depth=5, branches=64)
    assert config.fields["aws_db_instance.engine_version"] == FieldSpec(universe=("15.4", "16.2"), severity="hint")
    assert config.fields["aws_eks_cluster.version"] == builtin_fields()["aws_eks_cluster.version"]
    assert config.severity_override == "error"
    assert config.field_spec("aws_db_instance", "engine_version").severity == "error"
    assert config.inlay_hints is False
    assert config.ignore == ("examples/legacy",)


def test_lsp_null_values_mean_absent_or_cleared() -> None:
    base = Config(severity_override="hint", limits=Limits(depth=3))
    config, problems = parse_lsp_settings(
        {"limits": None, "fields": None, "diagnostics": {"severity": None}, "inlayHints": None}, base
    )
    assert problems == []
    assert config.limits == Limits(depth=3)
    # an explicit null override clears it
    assert config.severity_override is None
    # an absent one keeps it
    assert parse_lsp_settings({"diagnostics": {}}, base)[0].severity_override == "hint"


def test_lsp_invalid_settings_give_problems_and_defaults() -> None:
    config, problems = parse_lsp_settings(
        {
            "limits": {"depth": "x", "branches": 3},
            "fields": {"aws_x.y": {"universe": "abc", "severity": 5}},
            "diagnostics": {"severity": "fatal"},
            "inlayHints": {"enabled": "yes"},
            "ignore": "legacy",
            "bogus": 1,
        }
    )
    assert sorted(messages(problems)) == sorted(
        [
            "tfphi.limits.depth: expected a positive integer, got a string ('x'); using the default",
            'tfphi.fields."aws_x.y".universe: expected a list of values, got a string (\'abc\'); using the default',
            'tfphi.fields."aws_x.y".severity: expected one of error, warning, information, hint, off, '
            "got an integer (5); using the default",
            "tfphi.diagnostics.severity: expected one of error, warning, information, hint, off, "
            "got a string ('fatal'); using the default",
            "tfphi.inlayHints.enabled: expected true or false, got a string ('yes'); using the default",
            "tfphi.ignore: expected a list of strings, got a string ('legacy'); using the default",
            "unknown key tfphi.bogus",
        ]
    )
    assert all(p.line is None for p in problems)
    assert config.limits == Limits(depth=20, branches=3)
    assert config.fields["aws_x.y"] == FieldSpec()
    assert config.severity_override is None
    assert config.inlay_hints is True
    assert config.ignore == ()


def test_lsp_invalid_override_keeps_base_override() -> None:
    base = Config(severity_override="hint")
    config, problems = parse_lsp_settings({"diagnostics": {"severity": "loud"}}, base)
    assert len(problems) == 1
    assert config.severity_override == "hint"


@pytest.mark.parametrize("settings", [[1, 2], "tfphi", 3, True])
def test_lsp_settings_not_an_object(settings: object) -> None:
    config, problems = parse_lsp_settings(settings)
    assert config == Config()
    assert len(problems) == 1
    assert problems[0].message.startswith("tfphi: expected an object")


@pytest.mark.parametrize(
    "settings",
    [
        {"limits": [1]},
        {"fields": "x"},
        {"fields": {"a.b": 3}},
        {"fields": {3: {}}},
        {"diagnostics": "error"},
        {"inlayHints": {"enabled": None, "extra": {"deep": 1}}},
        {"limits": {"depth": {"nested": [1, 2]}}},
        {"ignore": [None]},
    ],
)
def test_lsp_settings_never_raise(settings: object) -> None:
    config, problems = parse_lsp_settings(settings)
    assert problems
    assert config.limits == Limits()
    assert isinstance(config, Config)


def test_lsp_over_toml() -> None:
    from_file, _ = parse_config_toml('[limits]\ndepth = 4\n[fields."a.b"]\nuniverse = ["x"]\n')
    config, problems = parse_lsp_settings({"limits": {"branches": 2}, "fields": {"c.d": {}}}, from_file)
    assert problems == []
    assert config.limits == Limits(depth=4, branches=2)
    assert config.fields["a.b"].universe == ("x",)
    assert "c.d" in config.fields
