"""Issue 10's defects, each reproduced: answers Terraform contradicts are now right, or Unbounded.

Expected values were checked with the real Terraform (``terraform console``/``plan`` on the
same configurations with terraform_data stand-ins); the oracle tests in tests/oracle run such
checks mechanically.
"""

from phi_fixture import check_trace

# Defect 1: a child's var.on is what the caller passes, not the root's var.on.
SCOPED = """
#- main.tf
variable "on" { type = bool }
module "m" {
  source = "./m"
  on     = !var.on
  v      = var.on ? "a" : "b"
}
#- m/main.tf
variable "on" { type = bool }
variable "v" { type = string }
resource "aws_db_instance" "x" {
  engine_version = var.on ? var.v : "c"
}
"""


def test_a_childs_condition_is_not_the_roots_atom():
    # Terraform: "c" when the root's on is true, "b" when it is false.
    check_trace(SCOPED, "module.m.aws_db_instance.x.engine_version", """
        bounded
        "c" <- Eq(var.on, true)
        "b" <- Eq(var.on, false)
    """)


CHILD_LOCAL = """
#- main.tf
variable "tier" { type = string }
module "settings" {
  source = "./settings"
  tier   = var.tier
}
#- settings/main.tf
variable "tier" { type = string }
locals {
  premium = var.tier == "premium"
}
resource "aws_db_instance" "x" {
  instance_class = local.premium ? "db.r6g.large" : "db.t4g.micro"
}
"""


def test_a_childs_unknown_condition_is_scoped_and_its_gate_is_written_in_the_root():
    result = check_trace(CHILD_LOCAL, "module.settings.aws_db_instance.x.instance_class", """
        bounded
        "db.r6g.large" <- Existing(module.settings: local.premium)
        "db.t4g.micro" <- Not(Existing(module.settings: local.premium))
    """)
    from tfphi.trace.conditions import root_gate

    assert [root_gate(b.cond) for b in result.branches] == ['var.tier == "premium"', 'var.tier != "premium"']


# Defect 2: a field's universe is not a value for variables that are not the field's value.
UNIVERSE_THROUGH_TRY = """
#- main.tf
variable "cfg" { type = any }
resource "aws_db_instance" "x" {
  engine = try(var.cfg.engine, "mysql")
}
"""


def test_a_universe_does_not_reach_a_variable_read_through_an_attribute():
    check_trace(UNIVERSE_THROUGH_TRY, "aws_db_instance.x.engine", """
        unbounded: try() cannot tell whether var.cfg.engine fails: var.cfg has no default value, and no validation block lists the allowed values
    """, universe=["mysql", "postgres"])


UNIVERSE_THROUGH_EACH = """
#- main.tf
variable "items" { type = any }
resource "aws_db_instance" "x" {
  for_each = var.items
  engine   = try(each.value.engine, "mysql")
}
"""


def test_a_universe_does_not_reach_a_for_each_collection():
    check_trace(UNIVERSE_THROUGH_EACH, "aws_db_instance.x.engine", """
        unbounded: try() cannot tell whether each.value.engine fails: var.items has no default value, and no validation block lists the allowed values
    """, universe=["mysql", "postgres"])


def test_a_universe_still_reaches_a_variable_that_is_the_fields_value():
    check_trace(UNIVERSE_THROUGH_TRY.replace('try(var.cfg.engine, "mysql")', "var.cfg"), "aws_db_instance.x.engine", """
        bounded
        "mysql" <- Eq(var.cfg, "mysql")
        "postgres" <- Eq(var.cfg, "postgres")
    """, universe=["mysql", "postgres"])


# Defect 3: count = 0 on the resource or a module call around it.
COUNTED = """
#- main.tf
variable "create" { type = bool }
variable "env" {
  type = string
  validation {
    condition     = contains(["prod", "dev"], var.env)
    error_message = "prod or dev"
  }
}
module "m" {
  source = "./m"
  count  = %s
  env    = var.env
}
#- m/main.tf
variable "env" { type = string }
resource "aws_db_instance" "x" {
  engine_version = var.env == "prod" ? "15.4" : "14.9"
}
"""


def test_a_module_call_with_count_zero_never_creates_its_resources():
    check_trace(COUNTED % "0", "module.m.aws_db_instance.x.engine_version", """
        unbounded: aws_db_instance.x is never created: module.m's count is 0 for every assignment
    """)


def test_existence_removes_the_branches_of_instances_that_do_not_exist():
    result = check_trace(COUNTED % 'var.env == "prod" ? 1 : 0', "module.m.aws_db_instance.x.engine_version", """
        resolved
        "15.4" <- true
    """)
    from tfphi.features.trace_json import exists_json

    assert exists_json(result.exists) == 'var.env == "prod"'


# Defect 4: precision where Terraform knows.
EQUAL_ARMS = """
#- main.tf
variable "engine_version" {
  type    = string
  default = null
}
resource "aws_db_instance" "master" {
  engine = "postgres"
}
locals {
  in_replication_group = aws_db_instance.master.arn != ""
}
resource "aws_db_instance" "x" {
  engine_version = local.in_replication_group ? null : var.engine_version
}
"""


def test_equal_arms_collapse_whatever_the_selector():
    check_trace(EQUAL_ARMS, "aws_db_instance.x.engine_version", """
        resolved
        null <- true
    """)


# Defect 5: an object for expression with a duplicate key is a Terraform error, not a value.
def test_a_duplicate_key_in_an_object_for_is_an_error():
    fixture = """
#- main.tf
resource "aws_db_instance" "x" {
  engine = {for k in ["a", "a"] : k => 1}
}
"""
    check_trace(fixture, "aws_db_instance.x.engine", """
        unbounded: ForExpr fails: duplicate object key "a" (use the ... grouping mode to collect values)
    """)


# Oracle counterexample CE-2: existence inside a module called with count is still a root gate.
ITERATED_CALL = """
#- main.tf
variable "cfg" { type = any }
module "m0" {
  source = "./a"
  count  = 2
  x      = try(var.cfg.engine, "a")
}
#- a/main.tf
variable "x" { type = string }
resource "aws_db_instance" "s" {
  count          = var.x == "a" ? 1 : 0
  engine_version = "v"
}
"""


def test_existence_in_an_iterated_call_is_written_in_the_root():
    from tfphi.features.trace_json import exists_json

    result = check_trace(ITERATED_CALL, "module.m0.aws_db_instance.s.engine_version", """
        resolved
        "v" <- true
    """)
    # var.x is a string: the gate reads the caller's value converted, as the child does (issue 22)
    assert exists_json(result.exists) == 'tostring(try(var.cfg.engine, "a")) == "a"'


# Oracle counterexample CE-3: an output of a module instance that may not exist.
INSTANCE_OUTPUTS = """
#- main.tf
variable "flag" { type = bool }
module "m1" {
  source   = "./b"
  for_each = var.flag ? { only = "o" } : {}
}
module "m2" {
  source = "./b"
  count  = var.flag ? 1 : 0
}
module "m3" {
  source   = "./c"
  for_each = { a = "x", b = "y" }
  v        = each.value
}
resource "aws_db_instance" "t" { engine = try(module.m1["only"].out, "none") }
resource "aws_db_instance" "u" { engine = try(module.m2[0].out, "none") }
resource "aws_db_instance" "w" { engine = module.m3["b"].out }
#- b/main.tf
output "out" { value = "zd" }
#- c/main.tf
variable "v" { type = string }
output "out" { value = var.v }
"""


def test_an_output_of_an_instance_that_may_not_exist_is_gated_on_its_existence():
    for resource, read in (("t", 'module.m1["only"].out'), ("u", "module.m2[0].out")):
        check_trace(INSTANCE_OUTPUTS, f"aws_db_instance.{resource}.engine", f"""
            bounded
            "zd" <- And(Existing(can({read})), Eq(var.flag, true))
            "none" <- Not(Existing(can({read})))
        """)


def test_an_output_of_one_instance_takes_that_instances_arguments():
    check_trace(INSTANCE_OUTPUTS, "aws_db_instance.w.engine", """
        resolved
        "y" <- true
    """)


# Issue 22, defect 6: values cross a variable boundary as Terraform applies them (checked with
# terraform plan: the workspace w5 of tests/oracle/workspaces.py).
BOUNDARY = """
#- main.tf
variable "port" { type = number }
variable "b" { type = bool }
module "c" {
  source = "./c"
  port   = var.port
  nn     = var.b ? null : "given"
  o      = { engine = null }
}
#- c/main.tf
variable "port" { type = string }
variable "nn" {
  type     = string
  nullable = false
  default  = "child"
}
variable "o" {
  type = object({ engine = optional(string, "mysql"), size = optional(number) })
}
resource "aws_db_instance" "x" {
  engine_version = var.port == "5432" ? "pg" : "other"
  engine         = var.nn
  instance_class = var.o.engine
  port           = var.o.size == null ? 1 : 2
}
"""


def test_null_given_to_a_non_nullable_variable_is_its_default():
    check_trace(BOUNDARY, "module.c.aws_db_instance.x.engine", """
        bounded
        "child" <- Eq(var.b, true)
        "given" <- Eq(var.b, false)
    """)


def test_optional_attributes_are_filled_at_the_boundary():
    check_trace(BOUNDARY, "module.c.aws_db_instance.x.instance_class", """
        resolved
        "mysql" <- true
    """)
    check_trace(BOUNDARY, "module.c.aws_db_instance.x.port", """
        resolved
        1 <- true
    """)


def test_a_condition_lifted_through_a_conversion_reads_the_converted_value():
    from tfphi.trace.conditions import root_gate

    result = check_trace(BOUNDARY, "module.c.aws_db_instance.x.engine_version", """
        bounded
        "pg" <- Existing(module.c: var.port == "5432")
        "other" <- Not(Existing(module.c: var.port == "5432"))
    """)
    # Never `var.port == "5432"`: the root's number is never equal to a string.
    assert [root_gate(b.cond) for b in result.branches] == ['tostring(var.port) == "5432"', 'tostring(var.port) != "5432"']


# Issue 22, defect 7: a key decided twice; the later one wins.
KEYS = """
#- main.tf
variable "b" { type = bool }
resource "aws_db_instance" "k" {
  for_each       = { (var.b ? "b" : "a") = "first", b = "second" }
  engine_version = each.value
}
"""


def test_a_for_each_key_decided_twice_has_one_branch_per_instance():
    # Terraform: with b, one instance "b" = "second"; without, "a" = "first" and "b" = "second".
    check_trace(KEYS, "aws_db_instance.k.engine_version", """
        bounded
        "second" <- Eq(each.key, "b")
        "first" <- And(Eq(var.b, false), Eq(each.key, "a"))
    """)


# Issue 22, defect 8: one unknown member does not poison an object.
MEMBERS = """
#- main.tf
resource "aws_vpc" "id" {}
module "np" {
  source = "./np"
  pools = {
    one = { name = "w${aws_vpc.id.arn}", vm_size = "Standard_D2s_v3", cbd = true }
    two = { name = "z", vm_size = "Standard_B2", cbd = false }
  }
}
#- np/main.tf
variable "pools" { type = any }
resource "aws_db_instance" "p" {
  for_each       = { for k, p in var.pools : k => p if p.cbd }
  instance_class = each.value.vm_size
  engine         = each.value.name
}
resource "aws_db_instance" "q" {
  count          = var.pools != null ? 1 : 0
  instance_class = length(var.pools)
}
"""


def test_a_known_member_stays_known_beside_an_apply_time_one():
    result = check_trace(MEMBERS, "module.np.aws_db_instance.p.instance_class", """
        resolved
        "Standard_D2s_v3" <- true
    """)
    assert result.exists == check_trace(MEMBERS, "module.np.aws_db_instance.q.instance_class", """
        resolved
        2 <- true
    """).exists
    # The apply-time member itself is still unknown, and says why.
    check_trace(MEMBERS, "module.np.aws_db_instance.p.engine", """
        unbounded: depends on an apply-time value (aws_vpc.id.arn)
    """)
