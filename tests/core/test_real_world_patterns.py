"""Patterns met when running tfphi on public module repositories (VPC, EKS, RDS, Lambda, S3,
security groups), written as our own small fixtures: each asserts what tfphi reported there."""

from phi_fixture import check_diagnostics, check_trace, trace

# A repository whose examples call the module at the repository root ("../../"), which calls
# a sub-module: the examples are the roots, and a field is traced through two module hops.
EXAMPLES_CALL_THE_ROOT = """
#- examples/complete/main.tf
locals {
  engine_version = "17.2"
}
module "db" {
  source         = "../../"
  engine_version = local.engine_version
  create         = true
}
#- examples/minimal/main.tf
module "db" {
  source = "../../"
  create = false
}
#- main.tf
variable "engine_version" {
  type    = string
  default = "16.2"
}
variable "create" {
  type    = bool
  default = true
}
module "db_instance" {
  source         = "./modules/db_instance"
  create         = var.create
  engine_version = var.engine_version
}
#- modules/db_instance/main.tf
variable "create" { type = bool }
variable "engine_version" { type = string }
resource "aws_db_instance" "this" {
  count          = var.create ? 1 : 0
  engine         = "postgres"
  engine_version = var.engine_version
}
"""


def test_examples_calling_the_repository_root_are_the_roots():
    # examples/complete is the first root (sorted) that declares module.db.
    check_trace(EXAMPLES_CALL_THE_ROOT, "module.db.module.db_instance.aws_db_instance.this.engine_version", """
        resolved
        "17.2" <- true
    """)


def test_a_resource_that_count_rules_out_has_no_value():
    # examples/minimal passes create = false: count = 0, the instance never exists (issue 10, defect 3).
    fixture = EXAMPLES_CALL_THE_ROOT.replace("#- examples/complete/main.tf", "#- examples/z_complete/main.tf")
    check_trace(fixture, "module.db.module.db_instance.aws_db_instance.this.engine_version", """
        unbounded: aws_db_instance.this is never created: its count is 0 for every assignment
    """)


def test_a_caller_that_omits_an_argument_gets_the_default_through_two_hops():
    fixture = EXAMPLES_CALL_THE_ROOT.replace("#- examples/complete/main.tf", "#- examples/z_complete/main.tf")
    fixture = fixture.replace("  create = false\n", "  create = true\n")
    # Now examples/minimal comes first: it omits engine_version, so the root's default flows down.
    check_trace(fixture, "module.db.module.db_instance.aws_db_instance.this.engine_version", """
        resolved
        "16.2" <- true
    """)


def test_examples_calling_the_root_report_nothing_when_everything_resolves():
    check_diagnostics(EXAMPLES_CALL_THE_ROOT, "")


# A replica whose engine is null when a source database is set, and the source comes from
# another module's output that reads a resource attribute: the selector is apply-time.
REPLICA = """
#- main.tf
module "primary" {
  source = "./modules/db"
}
module "replica" {
  source              = "./modules/db"
  replicate_source_db = module.primary.identifier
}
#- modules/db/main.tf
variable "replicate_source_db" {
  type    = string
  default = null
}
variable "engine" {
  type    = string
  default = "postgres"
}
locals {
  is_replica = var.replicate_source_db != null
}
resource "aws_db_instance" "this" {
  engine         = local.is_replica ? null : var.engine
  instance_class = "db.t4g.large"
}
output "identifier" {
  value = aws_db_instance.this.identifier
}
"""


def test_a_selector_fed_by_another_modules_resource_attribute_is_apply_time():
    # Reached through module.replica, the selector depends on aws_db_instance.this.identifier.
    result = trace(REPLICA, "module.replica.aws_db_instance.this.engine")
    assert result.kind == "unbounded"
    assert "depends on an apply-time value" in result.reason
    assert "local.is_replica" in result.reason


def test_the_same_field_through_the_primary_call_folds_the_known_selector():
    check_trace(REPLICA, "module.primary.aws_db_instance.this.engine", """
        resolved
        "postgres" <- true
    """)


# Feature toggles with defaults fold: `var.create && !var.use_existing ? ... : ...`.
TOGGLES = """
variable "create_function" {
  type    = bool
  default = true
}
variable "use_existing_role" {
  type    = bool
  default = false
}
variable "runtime" {
  type    = string
  default = "python3.12"
}
resource "aws_lambda_function" "this" {
  count   = var.create_function ? 1 : 0
  runtime = var.create_function && !var.use_existing_role ? var.runtime : null
  role    = try(aws_iam_role.lambda[0].arn, null)
}
resource "aws_iam_role" "lambda" {
  count = var.create_function && !var.use_existing_role ? 1 : 0
  name  = "lambda"
}
"""


def test_feature_toggles_with_defaults_fold_to_one_value():
    check_trace(TOGGLES, "aws_lambda_function.this.runtime", """
        resolved
        "python3.12" <- true
    """)


def test_try_of_a_counted_resource_attribute_resolves_no_reference_error():
    check_diagnostics(TOGGLES, "")


# A template directory whose variables are generated elsewhere: its references are truly undefined.
TEMPLATE_DIRECTORY = """
#- modules/_templates/main.tf
resource "aws_security_group_rule" "ingress" {
  count     = length(var.auto_ingress_rules)
  from_port = 0
}
"""


def test_a_template_directory_without_its_generated_variables_reports_them():
    check_diagnostics(TEMPLATE_DIRECTORY, """
        modules/_templates/main.tf:2:22-2:44 error[undefined-reference] undefined reference to var.auto_ingress_rules: no variable block declares it
    """)
