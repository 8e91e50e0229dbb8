"""SPEC section 5 (and the file rules of section 2): every diagnostic code, ranges and columns."""

from __future__ import annotations

from phi_fixture import analysis_of, check_diagnostics, diagnostics

from tfphi.features.diagnostics import workspace_diagnostics


def test_clean_workspace_has_no_diagnostics():
    check_diagnostics('''
variable "v" { default = "15.4" }
resource "aws_db_instance" "x" {
  engine_version = var.v
}
''', "")


# ---- syntax-error -------------------------------------------------------------------------


def test_error_region_and_rest_of_file_still_analysed():
    check_diagnostics('''
resource "aws_db_instance" "x" {
  engine_version = = "1"
}
locals { a = var.nope }
''', '''
        main.tf:2:20-2:21 error[syntax-error] syntax error: invalid expression: expected the start of an expression, but found an invalid expression token
        main.tf:4:14-4:22 error[undefined-reference] undefined reference to var.nope: no variable block declares it
    ''')


def test_missing_region():
    lines = diagnostics('locals {\n  a = "x"\n')
    assert lines and all("[syntax-error]" in line for line in lines)


def test_hex_literal():
    check_diagnostics('locals { a = 0x1F }', '''
        main.tf:1:14-1:18 error[syntax-error] syntax error: hexadecimal number literals are not valid in Terraform
    ''')


def test_interpolated_block_label():
    check_diagnostics('variable "n" {}\nresource "aws_s3_bucket" "${var.n}" {}', '''
        main.tf:2:26-2:36 error[syntax-error] syntax error: block labels cannot contain template interpolations
    ''')


def test_escaped_dollar_in_a_label_is_fine():
    check_diagnostics('resource "aws_s3_bucket" "a$${b}" {}', "")


def test_top_level_json_object():
    check_diagnostics('{"resource": {}}', '''
        main.tf:1:1-2:1 error[syntax-error] syntax error: a .tf file cannot be a JSON object; use a .tf.json file
    ''')


def test_empty_interpolation():
    check_diagnostics('locals { a = "x${}" }', '''
        main.tf:1:16-1:19 error[syntax-error] syntax error: empty interpolation "${}"
    ''')


# ---- undefined-reference ------------------------------------------------------------------


def test_each_kind_of_undefined_reference_sorted():
    check_diagnostics('''
#- main.tf
locals {
  f = module.k.nope
  e = aws_s3_bucket.b.id
  d = data.aws_x.y.id
  c = module.m.x
  b = local.l
  a = var.v
}
module "k" {
  source = "./k"
}
#- k/main.tf
output "o" { value = 1 }
''', '''
        main.tf:2:7-2:20 error[undefined-reference] undefined reference to module.k.nope: the module in k has no output 'nope'
        main.tf:3:7-3:22 error[undefined-reference] undefined reference to aws_s3_bucket.b: no resource block declares it
        main.tf:4:7-4:19 error[undefined-reference] undefined reference to data.aws_x.y: no data block declares it
        main.tf:5:7-5:15 error[undefined-reference] undefined reference to module.m: no module block declares it
        main.tf:6:7-6:14 error[undefined-reference] undefined reference to local.l: no locals block declares it
        main.tf:7:7-7:12 error[undefined-reference] undefined reference to var.v: no variable block declares it
    ''')


def test_declared_references_and_iterators_resolve():
    check_diagnostics('''
variable "v" { default = ["a"] }
locals { l = [for s in var.v : upper(s)] }
data "aws_x" "y" {}
resource "aws_s3_bucket" "b" {
  for_each = toset(local.l)
  bucket   = "${each.key}-${data.aws_x.y.id}-${path.module}"
  dynamic "rule" {
    for_each = var.v
    content {
      id = rule.value
    }
  }
}
output "o" { value = aws_s3_bucket.b["A"].id }
''', "")


# ---- unbounded-field ----------------------------------------------------------------------

UNBOUNDED = '''
#- variables.tf
variable "postgres_version" {
  type = string
}
#- modules/postgres/main.tf
variable "engine_version" { type = string }
resource "aws_db_instance" "app" {
  engine         = "postgres"
  engine_version = var.engine_version
}
#- main.tf
module "db" {
  source         = "./modules/postgres"
  engine_version = var.postgres_version
}
'''


def test_unbounded_field_message_range_and_related():
    analysis = analysis_of(UNBOUNDED)
    diags = [d for ds in workspace_diagnostics(analysis).values() for d in ds]
    assert [(d.file, d.code, d.severity) for d in diags] == [("modules/postgres/main.tf", "unbounded-field", "warning")]
    d = diags[0]
    assert analysis.text(d.span) == "var.engine_version"  # the field's value expression
    # Which field, the expression that blocks it, where that is declared, why; then the fixes, one per line.
    assert d.text == (
        "can't determine the value of engine_version: var.postgres_version has no default value, and no validation "
        "block lists the allowed values; var.postgres_version is declared at variables.tf:1.\n"
        "aws_db_instance.app.engine_version is set to var.engine_version. Call path: module.db.\n"
        "Fix (any one works):\n"
        '  1. constrain var.postgres_version with a validation block: condition = contains(["value1", "value2"], '
        "var.postgres_version) (usually the right choice: every listed value gets its own specialization).\n"
        "  2. give var.postgres_version a default."
    )
    # modules/postgres is called by the root: no "hardcode" into a module whose callers may differ (SPEC 6)
    assert [f.kind for f in d.fixes] == ["validation", "default"]
    assert [(r.span.file, analysis.text(r.span), r.message) for r in d.related] == [
        ("variables.tf", '"postgres_version"', "var.postgres_version is declared here")
    ]


def test_unbounded_field_severity_follows_the_configuration():
    fixture = '#- .tfphi.toml\n[fields."aws_db_instance.engine_version"]\nseverity = "error"\n' + UNBOUNDED
    assert [line.split(" ")[1] for line in diagnostics(fixture)] == ["error[unbounded-field]"]
    fixture = '#- .tfphi.toml\n[fields."aws_db_instance.engine_version"]\nseverity = "off"\n' + UNBOUNDED
    assert diagnostics(fixture) == []


def test_unregistered_fields_are_not_reported():
    check_diagnostics('variable "u" {}\nresource "aws_s3_bucket" "b" {\n  bucket = var.u\n}', "")


def test_unbounded_field_reports_the_apply_time_reason():
    analysis = analysis_of('resource "aws_s3_bucket" "b" {}\nresource "aws_db_instance" "x" {\n  engine_version = aws_s3_bucket.b.id\n}')
    [d] = [d for ds in workspace_diagnostics(analysis).values() for d in ds]
    assert d.text == (
        "can't determine the value of engine_version: aws_s3_bucket.b.id is only known after apply; "
        "aws_s3_bucket.b is declared at main.tf:1.\n"
        "aws_db_instance.x.engine_version is set to aws_s3_bucket.b.id.\n"
        "Fix: set engine_version from a variable or a literal instead of an attribute that only exists after apply."
    )
    assert [(analysis.text(r.span), r.message) for r in d.related] == [('"b"', "aws_s3_bucket.b is declared here")]


REPLICA = '''
#- main.tf
module "master" {
  source = "./db"
  engine = "postgres"
}
module "replica" {
  source              = "./db"
  engine              = "postgres"
  replicate_source_db = module.master.arn
}
#- db/main.tf
variable "replicate_source_db" {
  type    = string
  default = null
}
variable "engine" {
  type = string
}
locals {
  is_replica = var.replicate_source_db != null
}
resource "aws_db_instance" "this" {
  engine = local.is_replica ? null : var.engine
}
output "arn" {
  value = aws_db_instance.this.arn
}
'''


def test_an_apply_time_condition_is_blamed_not_the_value_and_named_as_the_caller_passes_it():
    # terraform-aws-rds's replica pattern: `engine` comes from a variable; the condition is what
    # depends on module.master's apply-time output, and its local is declared in db/main.tf.
    analysis = analysis_of(REPLICA)
    [d] = [d for ds in workspace_diagnostics(analysis).values() for d in ds]
    assert d.text == (
        "can't determine the value of engine: its condition local.is_replica depends on module.master.arn (main.tf:8), "
        "which is only known after apply; local.is_replica is declared at db/main.tf:9.\n"
        "aws_db_instance.this.engine is set to local.is_replica ? null : var.engine. Call path: module.replica.\n"
        "Fix: decide local.is_replica from a variable or a literal known at plan time (for example a bool variable the "
        "caller sets), not from a value that only exists after apply."
    )
    assert [(r.span.file, analysis.text(r.span), r.message) for r in d.related] == [
        ("db/main.tf", "is_replica", "local.is_replica is declared here"),
        ("main.tf", "module.master.arn", "this value is only known after apply"),
    ]


# ---- missing-argument ---------------------------------------------------------------------


def test_missing_argument_range_is_the_module_label():
    check_diagnostics('''
#- main.tf
module "db" {
  source = "./db"
  size   = 1
}
#- db/main.tf
variable "name" {}
variable "size" {}
variable "tier" { default = "a" }
''', '''
        main.tf:1:8-1:12 error[missing-argument] module.db does not set name, which the module in db requires (no default)
    ''')


# ---- config-error -------------------------------------------------------------------------


def test_broken_config_gives_a_diagnostic_and_the_defaults():
    fixture = '''
#- .tfphi.toml
[limits
depth = 1
#- main.tf
locals {
  a = local.b
  b = "x"
}
resource "aws_db_instance" "x" {
  engine_version = local.a
}
'''
    lines = diagnostics(fixture)
    assert len(lines) == 1 and lines[0].startswith(".tfphi.toml:1:") and "error[config-error]" in lines[0]
    assert analysis_of(fixture).trace_address("aws_db_instance.x.engine_version").kind == "resolved"  # depth 20


def test_bad_config_value_is_a_config_error():
    lines = diagnostics('#- .tfphi.toml\n[limits]\ndepth = "deep"\n#- main.tf\nlocals {}\n')
    assert len(lines) == 1 and "config-error" in lines[0]


# ---- unreadable files ---------------------------------------------------------------------


def test_non_utf8_and_too_large_files_get_one_diagnostic_each():
    files = {
        "main.tf": b'locals { a = var.nope }\n',
        "bad.tf": b"locals { a = \"\xff\" }\n",
        "big.tf": b"#" * (2 * 1024 * 1024 + 1),
    }
    lines = diagnostics(files)
    assert lines == [
        "bad.tf:1:1-1:1 error[syntax-error] bad.tf is not valid UTF-8 (byte 14); it was skipped",
        "big.tf:1:1-1:1 error[syntax-error] big.tf is 2,097,153 bytes, larger than the 2,097,152-byte limit; it was skipped",
        "main.tf:1:14-1:22 error[undefined-reference] undefined reference to var.nope: no variable block declares it",
    ]


# ---- positions ----------------------------------------------------------------------------


def test_crlf_and_multibyte_columns_count_code_points():
    source = 'locals {\r\n  a = "é€😀"\r\n  b = var.nope\r\n}\r\nlocals { c = "😀é${var.z}" }\r\n'.encode()
    assert diagnostics({"main.tf": source}) == [
        "main.tf:3:7-3:15 error[undefined-reference] undefined reference to var.nope: no variable block declares it",
        "main.tf:5:19-5:24 error[undefined-reference] undefined reference to var.z: no variable block declares it",
    ]


def test_crlf_unbounded_field_range():
    source = 'variable "u" {}\r\nresource "aws_db_instance" "x" {\r\n  engine = "é"\r\n  engine_version = var.u\r\n}\r\n'
    lines = diagnostics({"main.tf": source.encode()})
    assert [line.split(" ")[0] for line in lines] == ["main.tf:4:20-4:25"]


def test_bom_is_skipped():
    lines = diagnostics({"main.tf": b"\xef\xbb\xbflocals { a = var.nope }\n"})
    assert [line.split(" ")[0] for line in lines] == ["main.tf:1:14-1:22"]


def test_diagnostics_are_deterministic():
    assert diagnostics(UNBOUNDED) == diagnostics(UNBOUNDED)
