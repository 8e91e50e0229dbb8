"""Terraform's JSON configuration syntax (SPEC section 2): ``.tf.json`` and ``.tfvars.json``
declarations, references and values count like native ones."""

from __future__ import annotations

import textwrap

import pytest

from phi_fixture import analysis_of, check_diagnostics, render

from tfphi.syntax.jsonfile import parse_json_file

JSON_ROOT = {
    "main.tf.json": textwrap.dedent('''\
        {
          "//": "a comment: never a block",
          "variable": {
            "env": {
              "type": "string",
              "default": "dev",
              "validation": {
                "condition": "${contains([\\"prod\\", \\"dev\\"], var.env)}",
                "error_message": "prod or dev"
              }
            },
            "note": {"default": "${not a template}"},
            "sizes": {"type": "map(string)", "default": {"prod": "db.r6g.large", "dev": "db.t4g.micro"}}
          },
          "locals": {"suffix": "-${var.env}"},
          "module": {
            "db": {
              "source": "./modules/db",
              "engine_version": "${var.env == \\"prod\\" ? \\"16.2\\" : \\"15.4\\"}",
              "name": "app${local.suffix}",
              "instance_class": "${var.sizes[var.env]}"
            }
          },
          "output": {"name": {"value": "${module.db.name}"}}
        }
        ''').encode(),
    "modules/db/main.tf": b'''variable "engine_version" { type = string }
variable "name" { type = string }
variable "instance_class" { type = string }

resource "aws_db_instance" "app" {
  identifier     = var.name
  engine_version = var.engine_version
  instance_class = var.instance_class
}

output "name" {
  value = var.name
}
''',
}


NATIVE_ROOT = b'''variable "env" {
  type    = string
  default = "dev"
  validation {
    condition     = contains(["prod", "dev"], var.env)
    error_message = "prod or dev"
  }
}

variable "note" {
  default = "$${not a template}"
}

variable "sizes" {
  type    = map(string)
  default = { prod = "db.r6g.large", dev = "db.t4g.micro" }
}

locals {
  suffix = "-${var.env}"
}

module "db" {
  source         = "./modules/db"
  engine_version = var.env == "prod" ? "16.2" : "15.4"
  name           = "app${local.suffix}"
  instance_class = var.sizes[var.env]
}

output "name" {
  value = module.db.name
}
'''


def test_json_declarations_and_templates_trace_like_native_ones():
    analysis = analysis_of(JSON_ROOT)
    module = analysis.modules[""]
    assert sorted(module.variables) == ["env", "note", "sizes"]
    assert sorted(module.locals) == ["suffix"] and sorted(module.calls) == ["db"] and sorted(module.outputs) == ["name"]
    assert module.calls["db"].source == "./modules/db"
    result = analysis.trace_address("module.db.aws_db_instance.app.engine_version")
    assert render(result) == 'bounded\n"16.2" <- Eq(var.env, "prod")\n"15.4" <- Eq(var.env, "dev")'
    assert render(analysis.trace_address("module.db.aws_db_instance.app.identifier")) == (
        'bounded\n"app-prod" <- Eq(var.env, "prod")\n"app-dev" <- Eq(var.env, "dev")')
    assert render(analysis.trace_address("module.db.aws_db_instance.app.instance_class")) == (
        'bounded\n"db.r6g.large" <- Eq(var.env, "prod")\n"db.t4g.micro" <- Eq(var.env, "dev")')
    # the source of a value is its place in the JSON file
    (branch, _) = result.branches
    assert analysis.text(branch.source) == '"16.2"'
    # and every answer is the native file's
    native = analysis_of({"modules/db/main.tf": JSON_ROOT["modules/db/main.tf"], "main.tf": NATIVE_ROOT})
    for field in ("engine_version", "identifier", "instance_class"):
        address = f"module.db.aws_db_instance.app.{field}"
        assert render(native.trace_address(address)) == render(analysis.trace_address(address))


def test_a_variable_default_is_literal_not_a_template():
    analysis = analysis_of(JSON_ROOT)
    default = analysis.modules[""].variables["note"].default
    assert default.expr.value == "${not a template}"


def test_json_references_are_checked():
    fixture = {
        "main.tf.json": b'{"locals": {"a": "${var.nope}", "b": "${local.a}"}, "output": {"o": {"value": "${module.m.x}"}}}\n',
    }
    check_diagnostics(fixture, '''
        main.tf.json:1:21-1:29 error[undefined-reference] undefined reference to var.nope: no variable block declares it
        main.tf.json:1:82-1:90 error[undefined-reference] undefined reference to module.m: no module block declares it
    ''')


def test_invalid_json_and_template_errors_are_syntax_errors():
    check_diagnostics({"bad.tf.json": b'{"locals": {"a": 1,}}\n'}, '''
        bad.tf.json:1:20-1:21 error[syntax-error] syntax error: invalid JSON: expected a property name
    ''')
    hcl = parse_json_file("x.tf.json", b'{"locals": {"a": "${var.x"}}')
    assert [(e.span.start, e.message) for e in hcl.errors] == [(17, "the value of 'a' is not a valid expression or template")]


def test_tfvars_json_values_are_literal_and_layered():
    from tfphi.stir.deployments import root_deployments

    analysis = analysis_of({
        "main.tf": b'variable "v" {\n  type = string\n}\n',
        "terraform.tfvars": b'v = "base"\n',
        "b.auto.tfvars.json": b'{"v": "${auto}"}\n',
        "env/prod.tfvars.json": b'{"//": "comment", "v": "prod"}\n',
    })
    assert [(d.name, d.files, dict(d.assignment)) for d in root_deployments(analysis, "")] == [
        ("env/prod.tfvars.json", ("terraform.tfvars", "b.auto.tfvars.json", "env/prod.tfvars.json"), {"v": "prod"}),
        ("terraform.tfvars", ("terraform.tfvars", "b.auto.tfvars.json"), {"v": "${auto}"}),
    ]


def test_duplicate_declarations_across_native_and_json_files():
    check_diagnostics({
        "a.tf": b'variable "x" {\n  default = 1\n}\n\nlocals {\n  l = 1\n}\n',
        "b.tf.json": b'{"variable": {"x": {"default": 2}}, "locals": {"l": 2}}\n',
    }, '''
        b.tf.json:1:15-1:18 error[duplicate-declaration] duplicate variable "x": it is already declared in this module
        b.tf.json:1:48-1:51 error[duplicate-declaration] duplicate local.l: it is already declared in this module
    ''')


ORACLE = {
    "main.tf.json": br'''{
  "//": "JSON syntax, evaluated by Terraform and traced by tfphi",
  "variable": {
    "env": {"type": "string", "default": "prod"},
    "note": {"type": "string", "default": "${not a template}"}
  },
  "locals": {
    "greeting": "hello-${var.env}",
    "escaped": "$${literal} and %%{directive}",
    "pick": "${var.env == \"prod\" ? \"16.2\" : \"15.4\"}",
    "list": ["a-${var.env}", 2, true, null],
    "obj": {"k": "${upper(var.env)}", "n": 1.5},
    "note": "${var.note}",
    "quoted": "say \"${var.env}\"\n",
    "directive": "%{ if var.env == \"prod\" }P%{ else }D%{ endif }"
  },
  "resource": {
    "terraform_data": {
      "greeting": {"input": "${local.greeting}"},
      "escaped": {"input": "${local.escaped}"},
      "pick": {"input": "${local.pick}"},
      "list": {"input": "${local.list}"},
      "obj": {"input": "${local.obj}"},
      "note": {"input": "${local.note}"},
      "quoted": {"input": "${local.quoted}"},
      "directive": {"input": "${local.directive}"}
    }
  }
}
''',
}


def test_json_values_are_terraforms(tmp_path):
    import json as jsonlib
    import subprocess

    from phi_fixture import write_fixture
    from terraform_cli import terraform_binary
    from terraform_support import Terraform

    terraform = Terraform(terraform_binary(), tmp_path)
    root = write_fixture(ORACLE, tmp_path / "root")
    terraform.init(root)
    names = ["greeting", "escaped", "pick", "list", "obj", "note", "quoted", "directive"]
    expression = "jsonencode({" + ", ".join(f"{n} = local.{n}" for n in names) + "})"
    done = subprocess.run([terraform.binary, "console"], cwd=root, env=terraform.env, input=expression + "\n",
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    expected = jsonlib.loads(jsonlib.loads(done.stdout.strip()))
    analysis = analysis_of(ORACLE)
    assert expected["directive"] == "P"  # template directives are traced (native files alike)
    traced = {}
    for name in names:
        result = analysis.trace_address(f"terraform_data.{name}.input")
        assert result.kind == "resolved", (name, result.reason)
        traced[name] = result.branches[0].value
    assert traced == expected


@pytest.mark.parametrize("data", [
    b"", b"{", b"[]", b'{"locals": []}', b'{"resource": {"a": 1}}', b"\xff\xfe", b'{"locals": {"a": "\xff"}}',
    b"[" * 5000, b'{"module": {"m": {"source": 5}}}', b'{"locals": {"a": "${"}}', b'{"locals": {"a": "\\u00e9\\/"}}',
])
def test_hostile_json_never_raises(data):
    hcl = parse_json_file("x.tf.json", data)
    assert hcl.path == "x.tf.json" and len(hcl.source) == len(data)
    analysis_of({"x.tf.json": data}).findings("")  # the workspace still builds
