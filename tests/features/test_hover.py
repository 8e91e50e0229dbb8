"""Hover: the phi branches of the field or reference under the cursor."""

from __future__ import annotations

from features_support import expect_snapshot, load, span_text

from tfphi.features.hover import hover_at

STACK = """
#- main.tf
module "database" {
  source         = "./modules/postgres"
  engine_version = var.customer_env == "prod" ? "15.4" : "14.9"
  instance_class = local.instance_class
}

locals {
  instance_class = var.customer_env == "prod" ? "db.r6g.large" : "db.t4g.medium"
}

output "version" {
  value = module.database.engine_version
}
#- variables.tf
variable "customer_env" {
  type = string
}
#- terraform.tfvars
customer_env = "prod"
#- modules/postgres/main.tf
resource "aws_db_instance" "app" {
  engine         = "postgres"
  engine_version = var.engine_version
  instance_class = var.instance_class
}

output "engine_version" {
  value = var.engine_version
}
#- modules/postgres/variables.tf
variable "engine_version" {
  type = string
}

variable "instance_class" {
  type = string
}
"""


def with_cursor(fixture: str, path: str, needle: str, delta: int = 1) -> str:
    """The fixture with ``$0`` put ``delta`` characters into the first ``needle`` of ``path``."""
    head, sep, rest = fixture.partition(f"#- {path}\n")
    assert sep, path
    index = rest.index(needle) + delta
    return head + sep + rest[:index] + "$0" + rest[index:]


def check_hover(fixture: str, expected: list[str], absent: list[str] = (), hovered: str | None = None) -> str:
    analysis, cursor, files = load(fixture)
    assert cursor is not None
    hover = hover_at(analysis, cursor.path, cursor.offset)
    assert hover is not None, "no hover"
    expect_snapshot("hover", hover.markdown)  # the whole Markdown, as the editor shows it
    # The points each case is about, so that refreshing a snapshot cannot silently lose them:
    for text in expected:
        assert text in hover.markdown, f"{text!r} not in:\n{hover.markdown}"
    for text in absent:
        assert text not in hover.markdown, f"{text!r} unexpectedly in:\n{hover.markdown}"
    if hovered is not None:
        assert span_text(files, hover.span) == hovered
    return hover.markdown


def check_no_hover(fixture: str) -> None:
    analysis, cursor, _ = load(fixture)
    assert cursor is not None
    assert hover_at(analysis, cursor.path, cursor.offset) is None


def test_field_value_through_a_module_call():
    check_hover(
        with_cursor(STACK, "modules/postgres/main.tf", "var.engine_version", 3),
        [
            "**`module.database.aws_db_instance.app.engine_version`**",
            "**bounded** · 2 values",
            "| value | condition |",
            '| `"15.4"` | `var.customer_env == "prod"` |',
            '| `"14.9"` | `var.customer_env != "prod"` |',
            "var.engine_version ← module.database passes engine_version ([main.tf:3](../../main.tf#L3))",
            "← true arm of var.customer_env == \"prod\" ← \"15.4\"",
            '| `terraform.tfvars` | `"15.4"` |',  # the deployment's value, traced with its variables
        ],
        hovered="var.engine_version",
    )


def test_field_name():
    check_hover(
        with_cursor(STACK, "modules/postgres/main.tf", "instance_class", 2),
        ['| `"db.r6g.large"` | `var.customer_env == "prod"` |', "local.instance_class ← "],
        hovered="instance_class",
    )


def test_resolved_field_says_always():
    check_hover(
        with_cursor(STACK, "modules/postgres/main.tf", '"postgres"'),
        ["**resolved** · 1 value", '| `"postgres"` | always |'],
    )


def test_variable_reference_in_a_module_argument():
    markdown = check_hover(
        with_cursor(STACK, "main.tf", "var.customer_env", 5),
        ["**`var.customer_env`**", "**unbounded**", "has no default value", "**Fix**", "give var.customer_env a default",
         '| `terraform.tfvars` | `"prod"` |'],
        hovered="var.customer_env",
    )
    assert "[variables.tf:1](variables.tf#L1)" in markdown


def test_module_argument_value():
    check_hover(
        with_cursor(STACK, "main.tf", '"14.9"'),
        ["(module argument)", "**bounded** · 2 values", "false arm of "],
        absent=["Field module"],
    )


def test_module_argument_name():
    check_hover(with_cursor(STACK, "main.tf", "instance_class =", 3), ['`"db.t4g.medium"`'], hovered="instance_class")


def test_local_reference():
    check_hover(
        with_cursor(STACK, "main.tf", "local.instance_class", 7),
        ["**`local.instance_class`**", "**bounded** · 2 values", '`"db.t4g.medium"`'],
        hovered="local.instance_class",
    )


def test_module_output_reference():
    check_hover(
        with_cursor(STACK, "main.tf", "module.database.engine_version", 20),
        ["**bounded** · 2 values", "module.database.engine_version ([modules/postgres/main.tf:7](modules/postgres/main.tf#L7))"],
        hovered="module.database.engine_version",
    )


def test_output_value_in_the_child_module_lists_its_call_path():
    check_hover(with_cursor(STACK, "modules/postgres/main.tf", 'output "engine_version"', 9), ["(output value)", '`"15.4"`'])


def test_variable_label():
    check_hover(
        with_cursor(STACK, "variables.tf", '"customer_env"', 3),
        ["(variable)", "**input** · chosen by each deployment", '| `terraform.tfvars` | `"prod"` |'],
        absent=["unbounded", "Fix"],
        hovered='"customer_env"',
    )


def test_each_value_and_each_key():
    fixture = """
    #- main.tf
    resource "aws_elasticache_replication_group" "this" {
      for_each             = { a = "7.0", b = "7.1" }
      replication_group_id = "rg-${each.k$0ey}"
      engine_version       = each.value
    }
    """
    check_hover(fixture, ["**`each.key`**", '`"a"`', '`"b"`', "`each.key == \"a\"`"], hovered="each.key")
    check_hover(
        fixture.replace("$0", "").replace("= each.value", "= each.va$0lue"),
        ['| `"7.0"` | `each.key == "a"` |', '| `"7.1"` | `each.key == "b"` |'],
    )


def test_count_index():
    fixture = """
    #- main.tf
    resource "aws_instance" "web" {
      count = 2
      tags  = { Name = "web-${count.in$0dex}" }
    }
    """
    check_hover(fixture, ["**`count.index`**", "**bounded** · 2 values", "| `0` | `count.index == 0` |", "| `1` | `count.index == 1` |"])


def test_several_call_paths_each_under_its_own_heading():
    fixture = """
    #- main.tf
    module "primary" {
      source  = "./modules/db"
      db_version = "15.4"
    }
    module "replica" {
      source  = "./modules/db"
      db_version = var.replica_version
    }
    variable "replica_version" {
      type    = string
      default = "14.9"
    }
    #- modules/db/main.tf
    variable "db_version" {
      type = string
    }
    resource "aws_db_instance" "db" {
      engine_version = var.db_ver$0sion
    }
    """
    check_hover(
        fixture,
        ["**bounded** · 2 values", "#### .: module.primary", "#### .: module.replica", "**resolved** · 1 value",
         "default of var.replica_version"],
    )


def test_unbounded_field_shows_reason_and_fixes():
    fixture = """
    #- main.tf
    variable "postgres_version" {
      type = string
    }
    resource "aws_db_instance" "app" {
      engine_version = var.postgres_$0version
    }
    """
    check_hover(
        fixture,
        ["**unbounded**", "**Why:** var.postgres_version ([main.tf:1](main.tf#L1)) has no default value",
         "constrain var.postgres_version with a validation block", "hardcode engine_version"],
    )


def test_nothing_to_hover_on_a_comment_or_a_resource_type():
    check_no_hover("""
    #- main.tf
    # a comm$0ent
    resource "aws_db_instance" "app" {
      engine = "postgres"
    }
    """)


def test_pipes_in_gates_are_escaped_in_the_table():
    fixture = """
    #- main.tf
    variable "a" { type = bool }
    variable "b" { type = bool }
    resource "aws_db_instance" "app" {
      engine_version = var.a || var.b ? "15.4" : "14.9"$0
    }
    """
    check_hover(fixture, ["`var.a \\|\\| var.b`"])


def test_non_ascii_and_crlf_file():
    fixture = """
    #- main.tf crlf
    # héllo wörld
    variable "v" {
      default = "15.4"
    }
    resource "aws_db_instance" "app" {
      engine_version = var.$0v
    }
    """
    check_hover(fixture, ['| `"15.4"` | always |', "default of var.v ([main.tf:3](main.tf#L3))"], hovered="var.v")


def test_tfvars_assignment_shows_the_variable():
    check_hover(
        with_cursor(STACK, "terraform.tfvars", "customer_env", 2),
        ["**`var.customer_env`** (variable)", '| `terraform.tfvars` | `"prod"` |'],
        hovered="customer_env",
    )


def test_dynamic_block_iterator():
    fixture = """
    #- main.tf
    resource "aws_db_instance" "app" {
      dynamic "tag" {
        for_each = { env = "prod", team = "db" }
        content {
          key   = tag.key
          value = "${tag.va$0lue}!"
        }
      }
    }
    """
    check_hover(fixture, ["**`tag.value`**", '| `"prod"` | `tag.key == "env"` |', '| `"db"` | `tag.key == "team"` |'], hovered="tag.value")


def test_nested_call_paths_are_named_hop_by_hop():
    fixture = """
    #- main.tf
    module "a" {
      source = "./mid"
      v      = "15.4"
    }
    module "b" {
      source = "./mid"
      v      = "16.2"
    }
    #- mid/main.tf
    variable "v" { type = string }
    module "leaf" {
      source = "../leaf"
      v      = var.v
    }
    #- leaf/main.tf
    variable "v" { type = string }
    resource "aws_db_instance" "app" {
      engine_version = var.v$0
    }
    """
    markdown = check_hover(
        fixture,
        ["**bounded** · 2 values", "#### .: module.a → module.leaf", "#### .: module.b → module.leaf",
         "module.leaf passes v ([mid/main.tf:4](../mid/main.tf#L4))", "module.a passes v ([main.tf:3](../main.tf#L3))"],
    )
    assert markdown.index(".: module.a") < markdown.index('"15.4"', markdown.index(".: module.a"))


def test_identical_results_from_several_roots_are_shown_once_with_every_path():
    # One module shared by two example roots that pass the same value: one answer, both paths.
    fixture = """
    #- examples/a/main.tf
    module "db" {
      source = "../../modules/db"
      v      = "15.4"
    }
    #- examples/b/main.tf
    module "db" {
      source = "../../modules/db"
      v      = "15.4"
    }
    #- examples/c/main.tf
    module "db" {
      source = "../../modules/db"
      v      = "16.2"
    }
    #- modules/db/main.tf
    variable "v" { type = string }
    resource "aws_db_instance" "app" {
      engine_version = var.v$0
    }
    """
    markdown = check_hover(
        fixture,
        ["#### examples/a: module.db; examples/b: module.db", "#### examples/c: module.db"],
        absent=["#### examples/b"],
    )
    assert markdown.count('| `"15.4"` | always |') == 1


def test_resource_attribute_reference_is_apply_time():
    fixture = """
    #- main.tf
    resource "aws_iam_role" "r" {
      name = "x"
    }
    resource "aws_lambda_function" "f" {
      role    = "${aws_iam_role.r.a$0rn}/x"
      runtime = "python3.12"
    }
    """
    check_hover(fixture, ["**`aws_iam_role.r.arn`** (reference)", "**unbounded**", "is only known after apply"], hovered="aws_iam_role.r.arn")


# ---- deployments (SPEC 6): the value each deployment of the field's roots gives -------------

ENVS = """
#- main.tf
variable "env" {
  type = string
}

variable "class_override" {
  type    = string
  default = null
}

resource "aws_db_instance" "app" {
  engine_version = var.env == "prod" ? "15.4" : "14.9"
  instance_class = var.class_override
}
#- env/prod.tfvars
env = "prod"
#- env/dev.tfvars
env = "dev"
#- env/staging.tfvars
class_override = "db.r6g.large"
"""


def test_each_deployment_gives_its_value_or_says_it_does_not_decide():
    """Issue 24 defect 8: the hover listed terraform.tfvars lines matched by variable name; now the
    value each deployment gives, traced with its values (the data of ``trace``'s deployments)."""
    check_hover(
        with_cursor(ENVS, "main.tf", "engine_version", 2),
        ['| `env/dev.tfvars` | `"14.9"` |', '| `env/prod.tfvars` | `"15.4"` |',
         '| `env/staging.tfvars` | not decided by its values: one of `"15.4"`, `"14.9"` |'],
        absent=["Set in tfvars"],
    )


MULTI_ROOT = """
#- envs/prod/main.tf
module "db" {
  source  = "../../modules/db"
  engine  = var.engine
}
variable "engine" {
  type = string
}
#- envs/prod/terraform.tfvars
engine = "16.4"
#- envs/dev/main.tf
module "db" {
  source  = "../../modules/db"
  engine  = var.engine
}
variable "engine" {
  type = string
}
#- envs/dev/env/a.tfvars
engine = "15.8"
#- envs/dev/env/b.tfvars
engine = "14.12"
#- modules/db/main.tf
variable "engine" {
  type = string
}
resource "aws_db_instance" "this" {
  engine_version = var.engine
}
"""


def test_deployments_of_every_root_that_reaches_a_shared_module():
    check_hover(
        with_cursor(MULTI_ROOT, "modules/db/main.tf", "engine_version", 2),
        ["| call path | deployment | value |", '| envs/dev: module.db | `env/a.tfvars` | `"15.8"` |',
         '| envs/dev: module.db | `env/b.tfvars` | `"14.12"` |', '| envs/prod: module.db | `terraform.tfvars` | `"16.4"` |'],
    )
