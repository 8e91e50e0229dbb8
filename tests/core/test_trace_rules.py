"""SPEC section 3, rule by rule, through the public ``Analysis.trace_address``."""

from __future__ import annotations

import pytest

from phi_fixture import analysis_of, check_trace, render, trace

F = "aws_db_instance.x.engine_version"


def field(expr: str, before: str = "") -> str:
    return f'{before}\nresource "aws_db_instance" "x" {{\n  engine_version = {expr}\n}}\n'


def validated(name: str, values: str, extra: str = "") -> str:
    return f'''variable "{name}" {{
  {extra}
  validation {{
    condition     = contains([{values}], var.{name})
    error_message = "pick one"
  }}
}}
'''


# ---- results ------------------------------------------------------------------------------


def test_resolved_has_one_branch_under_true():
    result = check_trace(field('"15.4"'), F, '''
        resolved
        "15.4" <- true
    ''')
    assert result.selector is None and result.reason is None


def test_bounded_keeps_the_selector_once():
    result = check_trace(field('var.env == "prod" ? "15.4" : "14.9"', 'variable "env" {}'), F, '''
        bounded
        "15.4" <- Existing(var.env == "prod")
        "14.9" <- Not(Existing(var.env == "prod"))
    ''')
    assert result.selector == 'var.env == "prod"'


def test_unbounded_has_no_branches_and_a_reason():
    result = check_trace(field("var.v", 'variable "v" { type = string }'), F, '''
        unbounded: var.v has no default value, and no validation block lists the allowed values
    ''')
    assert result.branches == () and result.selector is None


# ---- conditionals -------------------------------------------------------------------------


def test_constant_condition_takes_one_arm():
    check_trace(field('local.on ? "a" : "b"', 'locals { on = 1 + 1 == 2 }'), F, '''
        resolved
        "a" <- true
    ''')
    check_trace(field('false ? "a" : "b"'), F, '''
        resolved
        "b" <- true
    ''')


def test_bounded_condition_with_one_truth_value_is_folded():
    # Every value of var.env makes the condition true: only the true arm is taken.
    check_trace(field('var.env != "test" ? "a" : "b"', validated("env", '"prod", "dev"')), F, '''
        resolved
        "a" <- true
    ''')


def test_nested_conditionals_compose_with_and():
    check_trace(field('var.env == "prod" ? "m5" : (var.region == "us" ? "t3.medium" : "t3.small")',
                      'variable "env" {}\nvariable "region" {}'), F, '''
        bounded
        "m5" <- Existing(var.env == "prod")
        "t3.medium" <- And(Not(Existing(var.env == "prod")), Existing(var.region == "us"))
        "t3.small" <- And(Not(Existing(var.env == "prod")), Not(Existing(var.region == "us")))
    ''')


def test_equal_values_coalesce_with_a_simplified_or():
    # a ? x : (b ? x : y) gives two branches, not three.
    check_trace(field('var.env == "prod" ? "m5" : (var.region == "us" ? "m5" : "t3")',
                      'variable "env" {}\nvariable "region" {}'), F, '''
        bounded
        "m5" <- Or(Existing(var.env == "prod"), Existing(var.region == "us"))
        "t3" <- And(Not(Existing(var.env == "prod")), Not(Existing(var.region == "us")))
    ''')


def test_arms_with_the_same_value_collapse_to_resolved():
    check_trace(field('var.env == "prod" ? "a" : "a"', 'variable "env" {}'), F, '''
        resolved
        "a" <- true
    ''')


def test_conditional_arms_unify_to_a_common_type():
    # HCL converts both arms to string when one is a string and the other a number.
    check_trace(field('var.on ? 5 : "x"', 'variable "on" { type = bool }'), F, '''
        bounded
        "5" <- Eq(var.on, true)
        "x" <- Eq(var.on, false)
    ''')
    check_trace(field('true ? 5 : "x"'), F, '''
        resolved
        "5" <- true
    ''')


# ---- root variables -----------------------------------------------------------------------


def test_validation_contains_gives_eq_gated_universe():
    check_trace(field("var.v", validated("v", '"14.9", "15.4"')), F, '''
        bounded
        "14.9" <- Eq(var.v, "14.9")
        "15.4" <- Eq(var.v, "15.4")
    ''')


def test_validation_or_of_equalities_gives_universe():
    before = '''variable "v" {
  validation {
    condition     = var.v == "a" || var.v == "b" || "c" == var.v
    error_message = "x"
  }
}'''
    check_trace(field("var.v", before), F, '''
        bounded
        "a" <- Eq(var.v, "a")
        "b" <- Eq(var.v, "b")
        "c" <- Eq(var.v, "c")
    ''')


def test_validation_wins_over_default_and_universe():
    before = validated("v", '"a", "b"', 'default = "a"')
    check_trace(field("var.v", before), F, '''
        bounded
        "a" <- Eq(var.v, "a")
        "b" <- Eq(var.v, "b")
    ''', universe=["z"])


def test_default_is_resolved_and_wins_over_universe():
    check_trace(field("var.v", 'variable "v" { default = "15.4" }'), F, '''
        resolved
        "15.4" <- true
    ''', universe=["1", "2"])


def test_configured_universe_for_the_field():
    check_trace(field("var.v", 'variable "v" {}'), F, '''
        bounded
        "14.9" <- Eq(var.v, "14.9")
        "15.4" <- Eq(var.v, "15.4")
    ''', universe=["14.9", "15.4"])


def test_universe_from_tfphi_toml():
    fixture = '''
#- .tfphi.toml
[fields."aws_db_instance.engine_version"]
universe = ["16.2", "17.2"]
#- main.tf
''' + field("var.v", 'variable "v" {}')
    check_trace(fixture, F, '''
        bounded
        "16.2" <- Eq(var.v, "16.2")
        "17.2" <- Eq(var.v, "17.2")
    ''')


def test_bool_variable_gives_true_and_false():
    check_trace(field("var.b", 'variable "b" { type = bool }'), F, '''
        bounded
        true <- Eq(var.b, true)
        false <- Eq(var.b, false)
    ''')


def test_universe_wins_over_bool_type():
    check_trace(field("var.b", 'variable "b" { type = bool }'), F, '''
        resolved
        true <- true
    ''', universe=[True])  # one value: resolved (SPEC 3), not the bool type's two


def test_unbounded_variable_names_the_fix_target():
    result = trace(field("var.v", 'variable "v" { type = string }'), F)
    assert result.unbounded.variable == ("", "v")
    assert result.unbounded.cause == "variable"


# ---- child modules and type constraints ---------------------------------------------------

CHILD = '''
#- main.tf
module "db" {
  source = "./db"
  %s
}
#- db/main.tf
variable "port" { type = string }
variable "size" {
  type    = number
  default = 20
}
variable "settings" {
  type = object({
    name = string
    tier = optional(string)
    nodes = optional(number, 3)
  })
  default = { name = "d" }
}
resource "aws_db_instance" "x" {
  engine_version    = var.port
  allocated_storage = var.size
  instance_class    = var.settings.nodes
  engine            = var.settings.tier
  username          = var.settings.name
}
'''


def test_child_variable_takes_the_callers_argument_converted_to_its_type():
    fixture = CHILD % "port = 5432"
    check_trace(fixture, "module.db.aws_db_instance.x.engine_version", '''
        resolved
        "5432" <- true
    ''')


def test_child_variable_takes_its_default_when_omitted():
    check_trace(CHILD % "port = 1", "module.db.aws_db_instance.x.allocated_storage", '''
        resolved
        20 <- true
    ''')


def test_optional_attributes_are_filled():
    fixture = CHILD % 'port = 1\n  settings = { name = "n" }'
    check_trace(fixture, "module.db.aws_db_instance.x.instance_class", '''
        resolved
        3 <- true
    ''')
    check_trace(fixture, "module.db.aws_db_instance.x.engine", '''
        resolved
        null <- true
    ''')
    check_trace(fixture, "module.db.aws_db_instance.x.username", '''
        resolved
        "n" <- true
    ''')


def test_argument_is_traced_in_the_callers_scope():
    fixture = CHILD.replace('module "db" {', 'variable "port" { default = "6000" }\nmodule "db" {') % "port = var.port"
    check_trace(fixture, "module.db.aws_db_instance.x.engine_version", '''
        resolved
        "6000" <- true
    ''')


def test_omitted_required_argument_is_unbounded():
    result = trace(CHILD % "", "module.db.aws_db_instance.x.engine_version")
    assert result.kind == "unbounded"
    assert result.reason == "module.db does not pass port, and var.port has no default value"


THREE_HOPS = '''
#- main.tf
variable "env" {}
locals { version = var.env == "prod" ? "15.4" : "14.9" }
module "l1" {
  source  = "./m1"
  ver     = local.version
}
resource "aws_db_instance" "top" {
  engine_version = module.l1.out
}
#- m1/main.tf
variable "ver" {}
module "l2" {
  source  = "../m2"
  ver     = "${var.ver}"
}
output "out" { value = module.l2.out }
#- m2/main.tf
variable "ver" {}
locals { v = var.ver }
module "l3" {
  source  = "../m3"
  ver     = local.v
}
output "out" { value = module.l3.out }
#- m3/main.tf
variable "ver" {}
resource "aws_db_instance" "x" {
  engine_version = var.ver
}
output "out" { value = var.ver }
output "arn" { value = aws_db_instance.x.arn }
'''


def test_locals_arguments_and_outputs_across_three_module_hops():
    expected = '''
        bounded
        "15.4" <- Existing(var.env == "prod")
        "14.9" <- Not(Existing(var.env == "prod"))
    '''
    check_trace(THREE_HOPS, "module.l1.module.l2.module.l3.aws_db_instance.x.engine_version", expected)
    check_trace(THREE_HOPS, "aws_db_instance.top.engine_version", expected)


def test_trace_path_names_each_hop():
    result = trace(THREE_HOPS, "module.l1.module.l2.module.l3.aws_db_instance.x.engine_version")
    assert tuple(map(str, result.branches[0].path)) == (
        "Field aws_db_instance.x.engine_version",
        "NameRef var.ver",
        "ModCall module.l3 argument ver",
        "NameRef local.v",
        "NameRef var.ver",
        "ModCall module.l2 argument ver",
        "NameRef var.ver",
        "ModCall module.l1 argument ver",
        "NameRef local.version",
        "ConditionalExpr true arm",
        'Prim "15.4"',
    )


def test_outputs_from_resource_attributes_are_apply_time():
    fixture = THREE_HOPS.replace("engine_version = module.l1.out", "engine_version = module.l1.arn").replace(
        'output "out" { value = module.l2.out }', 'output "out" { value = module.l2.out }\noutput "arn" { value = module.l2.arn }'
    ).replace('output "out" { value = module.l3.out }', 'output "out" { value = module.l3.out }\noutput "arn" { value = "${module.l3.arn}/x" }')
    result = trace(fixture, "aws_db_instance.top.engine_version")
    assert result.kind == "unbounded"
    assert result.reason == "depends on an apply-time value (aws_db_instance.x.arn)"


def test_multiple_call_paths_are_traced_separately():
    fixture = '''
#- main.tf
module "a" {
  source = "./db"
  v      = "15.4"
}
module "b" {
  source = "./db"
  v      = "14.9"
}
#- db/main.tf
variable "v" {}
resource "aws_db_instance" "x" { engine_version = var.v }
'''
    check_trace(fixture, "module.a.aws_db_instance.x.engine_version", 'resolved\n"15.4" <- true')
    check_trace(fixture, "module.b.aws_db_instance.x.engine_version", 'resolved\n"14.9" <- true')
    traces = analysis_of(fixture).field_traces("db")
    engine = [t for t in traces if t.field_path == ("engine_version",)]
    assert [(t.result.call_path[-1][0], t.result.values()) for t in engine] == [("a", ["15.4"]), ("b", ["14.9"])]


# ---- iterators ----------------------------------------------------------------------------

ITER = '''
locals { versions = { blue = "15.4", green = "14.9" } }
resource "aws_db_instance" "fe" {
  for_each       = local.versions
  engine_version = each.value
  engine         = each.key
}
resource "aws_db_instance" "set" {
  for_each       = toset(["p", "q"])
  engine_version = "${each.value}-db"
}
resource "aws_db_instance" "cnt" {
  count          = 3
  engine         = count.index
  engine_version = element(["a", "b"], count.index)
}
resource "aws_db_instance" "dyn" {
  engine_version = "1"
  dynamic "restore_to_point_in_time" {
    for_each = ["src1", "src2"]
    content {
      source_db_instance_identifier = restore_to_point_in_time.value
    }
  }
  dynamic "s3_import" {
    for_each = { k1 = "b1", k2 = "b2" }
    iterator = imp
    content {
      bucket_name = "${imp.key}:${imp.value}"
    }
  }
}
'''


def test_for_each_value_and_key():
    check_trace(ITER, "aws_db_instance.fe.engine_version", '''
        bounded
        "15.4" <- Eq(each.key, "blue")
        "14.9" <- Eq(each.key, "green")
    ''')
    check_trace(ITER, "aws_db_instance.fe.engine", '''
        bounded
        "blue" <- Eq(each.key, "blue")
        "green" <- Eq(each.key, "green")
    ''')


def test_for_each_over_a_set():
    check_trace(ITER, "aws_db_instance.set.engine_version", '''
        bounded
        "p-db" <- Eq(each.key, "p")
        "q-db" <- Eq(each.key, "q")
    ''')


def test_count_index_and_element():
    check_trace(ITER, "aws_db_instance.cnt.engine", '''
        bounded
        0 <- Eq(count.index, 0)
        1 <- Eq(count.index, 1)
        2 <- Eq(count.index, 2)
    ''')
    check_trace(ITER, "aws_db_instance.cnt.engine_version", '''
        bounded
        "a" <- Eq(count.index, 0)
        "b" <- Eq(count.index, 1)
        "a" <- Eq(count.index, 2)
    ''')


def test_dynamic_block_iterators_through_the_nested_block_name():
    check_trace(ITER, "aws_db_instance.dyn.restore_to_point_in_time.source_db_instance_identifier", '''
        bounded
        "src1" <- Eq(restore_to_point_in_time.key, 0)
        "src2" <- Eq(restore_to_point_in_time.key, 1)
    ''')
    check_trace(ITER, "aws_db_instance.dyn.s3_import.bucket_name", '''
        bounded
        "k1:b1" <- Eq(imp.key, "k1")
        "k2:b2" <- Eq(imp.key, "k2")
    ''')


def test_dynamic_iteration_axis_is_kept_apart_from_the_value_axis():
    fixture = '''
variable "env" {}
resource "aws_db_instance" "d" {
  engine_version = "1"
  dynamic "restore_to_point_in_time" {
    for_each = ["a", "b"]
    content {
      source_db_instance_identifier = var.env == "prod" ? "p-${restore_to_point_in_time.value}" : "d"
    }
  }
}
'''
    check_trace(fixture, "aws_db_instance.d.restore_to_point_in_time.source_db_instance_identifier", '''
        bounded
        "p-a" <- And(Existing(var.env == "prod"), Eq(restore_to_point_in_time.key, 0))
        "p-b" <- And(Existing(var.env == "prod"), Eq(restore_to_point_in_time.key, 1))
        "d" <- Not(Existing(var.env == "prod"))
    ''')


def test_for_each_over_a_bounded_variable_combines_conditions():
    fixture = field("each.value", validated("env", '"a", "b"')).replace(
        "engine_version", 'for_each = var.env == "a" ? { x = "1" } : { y = "2" }\n  engine_version', 1)
    check_trace(fixture, F, '''
        bounded
        "1" <- And(Eq(var.env, "a"), Eq(each.key, "x"))
        "2" <- And(Eq(var.env, "b"), Eq(each.key, "y"))
    ''')


# ---- templates and operators --------------------------------------------------------------


def test_template_of_two_bounded_operands_is_a_cross_product():
    before = validated("a", '"1", "2"') + validated("b", '"x", "y"')
    check_trace(field('"${var.a}-${var.b}"', before), F, '''
        bounded
        "1-x" <- And(Eq(var.a, "1"), Eq(var.b, "x"))
        "1-y" <- And(Eq(var.a, "1"), Eq(var.b, "y"))
        "2-x" <- And(Eq(var.a, "2"), Eq(var.b, "x"))
        "2-y" <- And(Eq(var.a, "2"), Eq(var.b, "y"))
    ''')


@pytest.mark.parametrize("expr, expected", [
    ("1 + 2", "3"), ("7 - 10", "-3"), ("3 * 4", "12"), ("7 / 2", "3.5"), ("-7 % 3", "-1"),
    ('"a" == "a"', "true"), ('1 != "1"', "true"), ("1 < 2", "true"), ("2 > 3", "false"),
    ("2 <= 2", "true"), ("1 >= 2", "false"), ("true && false", "false"), ("true || false", "true"),
    ("!true", "false"), ("-(5)", "-5"), ('"v${1 + 1}"', '"v2"'),
])
def test_operators_on_literals(expr, expected):
    check_trace(field(expr), F, f"resolved\n{expected} <- true")


def test_operator_combines_bounded_operands():
    check_trace(field('var.n * 2', validated("n", "1, 2", "type = number")), F, '''
        bounded
        2 <- Eq(var.n, 1)
        4 <- Eq(var.n, 2)
    ''')


def test_equality_operator_gives_bool_branches():
    check_trace(field('var.env == "prod"', validated("env", '"prod", "dev", "test"')), F, '''
        bounded
        true <- Eq(var.env, "prod")
        false <- Or(Eq(var.env, "dev"), Eq(var.env, "test"))
    ''')


# ---- apply-time, data sources, plan stability ---------------------------------------------


def test_resource_attribute_is_apply_time_as_a_value():
    result = trace(field("aws_s3_bucket.b.arn", 'resource "aws_s3_bucket" "b" {}'), F)
    assert result.kind == "unbounded"
    assert result.reason == "depends on an apply-time value (aws_s3_bucket.b.arn)"
    assert result.unbounded.cause == "apply-time"


def test_derived_from_a_resource_attribute_is_apply_time():
    result = trace(field('upper("${aws_s3_bucket.b.id}-x")', 'resource "aws_s3_bucket" "b" {}'), F)
    assert result.reason == "depends on an apply-time value (aws_s3_bucket.b.id)"


def test_resource_attribute_in_a_selector_is_apply_time():
    result = trace(field('aws_s3_bucket.b.id == "x" ? "a" : "b"', 'resource "aws_s3_bucket" "b" {}'), F)
    assert result.kind == "unbounded"
    assert result.reason == 'the selector aws_s3_bucket.b.id == "x" depends on an apply-time value (aws_s3_bucket.b.id)'


def test_data_source_without_a_universe_is_unbounded():
    result = trace(field("data.aws_rds_engine_version.latest.version", 'data "aws_rds_engine_version" "latest" {}'), F)
    assert result.kind == "unbounded"
    assert result.unbounded.cause == "data"
    assert result.reason == ("data.aws_rds_engine_version.latest.version is read from the provider at plan time; "
                             "configure a universe for this field to trace it")


def test_data_source_with_a_universe_is_eq_gated():
    check_trace(field("data.aws_rds_engine_version.latest.version", 'data "aws_rds_engine_version" "latest" {}'), F, '''
        bounded
        "15.4" <- Eq(data.aws_rds_engine_version.latest.version, "15.4")
        "16.2" <- Eq(data.aws_rds_engine_version.latest.version, "16.2")
    ''', universe=["15.4", "16.2"])


@pytest.mark.parametrize("call", ["timestamp()", "uuid()", 'bcrypt("x")', "plantimestamp()"])
def test_nondeterministic_function_in_a_selector_is_a_plan_stability_violation(call):
    result = trace(field(f'{call} == "x" ? "a" : "b"'), F)
    assert result.kind == "unbounded"
    assert result.reason.startswith("plan-stability violation")


@pytest.mark.parametrize("call", ["timestamp()", "uuid()"])
def test_nondeterministic_function_as_a_value_passes_through(call):
    result = trace(field(call), F)
    assert result.kind == "unbounded"
    assert "plan-stability" not in result.reason
    assert call.split("(")[0] in result.reason


# ---- limits -------------------------------------------------------------------------------


def chain(n: int) -> str:
    lines = "\n".join(f"  l{i} = local.l{i + 1}" for i in range(n))
    return f'locals {{\n{lines}\n  l{n} = "end"\n}}\n'


def test_depth_limit_default_20():
    check_trace(field("local.l0", chain(19)), F, 'resolved\n"end" <- true')  # 20 hops
    result = trace(field("local.l0", chain(20)), F)  # 21 hops
    assert result.kind == "unbounded"
    assert result.reason == "depth limit 20 reached at local.l20"


def test_depth_limit_is_configurable():
    fixture = "#- .tfphi.toml\n[limits]\ndepth = 3\n#- main.tf\n" + field("local.l0", chain(3))
    result = trace(fixture, F)
    assert result.reason == "depth limit 3 reached at local.l3"
    fixture = "#- .tfphi.toml\n[limits]\ndepth = 4\n#- main.tf\n" + field("local.l0", chain(3))
    check_trace(fixture, F, 'resolved\n"end" <- true')


def test_depth_counts_variable_and_module_hops():
    # var.v -> the caller's argument is one hop, local.a a second one.
    fixture = '''
#- .tfphi.toml
[limits]
depth = 1
#- main.tf
module "m" {
  source = "./m"
  v      = local.a
}
locals { a = "x" }
#- m/main.tf
variable "v" {}
resource "aws_db_instance" "x" { engine_version = var.v }
'''
    assert trace(fixture, "module.m.aws_db_instance.x.engine_version").reason == "depth limit 1 reached at local.a"
    check_trace(fixture.replace("depth = 1", "depth = 2"), "module.m.aws_db_instance.x.engine_version", 'resolved\n"x" <- true')


def test_branch_limit_on_a_cross_product():
    values = '"1", "2", "3", "4", "5"'
    before = validated("a", values) + validated("b", values)
    result = trace(field('"${var.a}.${var.b}"', before), F)
    assert result.kind == "unbounded"
    assert result.reason == "bounded, but too large to specialize: 25 values > 16"


def test_branch_limit_is_configurable():
    values = '"1", "2", "3", "4", "5"'
    fixture = "#- .tfphi.toml\n[limits]\nbranches = 25\n#- main.tf\n" + field(
        '"${var.a}.${var.b}"', validated("a", values) + validated("b", values))
    assert len(trace(fixture, F).branches) == 25


def test_branch_limit_on_a_universe():
    values = ", ".join(f'"{i}"' for i in range(17))
    result = trace(field("var.a", validated("a", values)), F)
    assert result.reason == "bounded, but too large to specialize: 17 values > 16"


def test_cycle_through_locals():
    result = trace(field("local.a", 'locals {\n  a = local.b\n  b = local.a\n}'), F)
    assert result.kind == "unbounded"
    assert result.reason == "cycle through local.a -> local.b -> local.a"


def test_self_reference_cycle():
    result = trace(field("local.a", 'locals {\n  a = "${local.a}x"\n}'), F)
    assert result.reason == "cycle through local.a -> local.a"


# ---- remote modules -----------------------------------------------------------------------

REMOTE = '''
#- main.tf
module "db" {
  source  = "terraform-aws-modules/rds/aws"
  version = "6.0.0"
  engine_version = "15.4"
}
resource "aws_db_instance" "x" {
  engine_version = module.db.version
}
'''


def test_opaque_remote_module_names_the_source_and_terraform_init():
    result = trace(REMOTE, F)
    assert result.kind == "unbounded"
    assert result.reason == ("module.db uses the non-local source 'terraform-aws-modules/rds/aws', which is not installed; "
                             "`terraform init` installs it into .terraform/modules")


def test_installed_remote_module_is_read_from_modules_json():
    fixture = REMOTE + '''
#- .terraform/modules/modules.json
{"Modules": [{"Key": "", "Source": "", "Dir": "."},
             {"Key": "db", "Source": "registry.terraform.io/terraform-aws-modules/rds/aws", "Version": "6.0.0", "Dir": ".terraform/modules/db"}]}
#- .terraform/modules/db/main.tf
variable "engine_version" {}
output "version" { value = var.engine_version }
'''
    check_trace(fixture, F, 'resolved\n"15.4" <- true')


# ---- purity -------------------------------------------------------------------------------


def test_trace_is_pure_and_repeatable():
    analysis = analysis_of(THREE_HOPS)
    first = render(analysis.trace_address("aws_db_instance.top.engine_version"))
    again = render(analysis.trace_address("aws_db_instance.top.engine_version"))
    other = render(analysis_of(THREE_HOPS).trace_address("aws_db_instance.top.engine_version"))
    assert first == again == other


def test_unknown_address_gives_none():
    assert analysis_of(field('"1"')).trace_address("aws_db_instance.x.nope") is None
    assert analysis_of(field('"1"')).trace_address("aws_db_instance.y.engine_version") is None


def test_condition_on_a_for_binding_forks_on_the_conditions_branches():
    # `s == var.x` means something else in each iteration: no Existing(s == var.x) atom.
    check_trace(field('join(",", [for s in ["a", "b"] : s == var.x ? "y" : "n"])', validated("x", '"a", "b", "c"')), F, '''
        bounded
        "y,n" <- Eq(var.x, "a")
        "n,y" <- Eq(var.x, "b")
        "n,n" <- Eq(var.x, "c")
    ''')


def test_cycle_through_a_module_argument_and_its_own_output():
    fixture = '''
#- main.tf
module "a" {
  source = "./a"
  v      = module.a.out
}
resource "aws_db_instance" "x" { engine_version = module.a.out }
#- a/main.tf
variable "v" {}
output "out" { value = var.v }
'''
    result = trace(fixture, F)
    assert result.kind == "unbounded" and result.reason.startswith("cycle through module.a.out -> var.v -> module.a.out")


def test_data_source_field_address():
    check_trace('variable "v" { default = "a" }\ndata "aws_x" "y" {\n  name = upper(var.v)\n}\n', "data.aws_x.y.name", 'resolved\n"A" <- true')


def test_tfvars_values_do_not_narrow_a_trace():
    """SPEC 2: tfvars are the customer's values at deployment; the trace stays what the code allows."""
    fixture = """
    #- main.tf
    variable "size" {
      type = string
      validation {
        condition = contains(["small", "large"], var.size)
      }
    }
    variable "engine_version" { type = string }
    resource "aws_db_instance" "x" {
      instance_class = var.size
      engine_version = var.engine_version
    }
    #- terraform.tfvars
    size           = "small"
    engine_version = "15.4"
    """
    check_trace(fixture, "aws_db_instance.x.instance_class", """
        bounded
        "small" <- Eq(var.size, "small")
        "large" <- Eq(var.size, "large")
    """)
    result = trace(fixture, "aws_db_instance.x.engine_version")
    assert result.kind == "unbounded" and "var.engine_version has no default value" in result.reason
