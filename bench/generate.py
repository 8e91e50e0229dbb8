#!/usr/bin/env python3
"""Generate a deterministic synthetic vendor Terraform workspace for benchmarks.

    python bench/generate.py OUTDIR --modules N [--seed S]

Shape (N counts every module directory, the root included):

    OUTDIR/main.tf, variables.tf, outputs.tf, terraform.tfvars   root module
    OUTDIR/modules/svc_NNN/                                       ~N/5 service modules
    OUTDIR/modules/leaf_NNN/                                      the rest: leaf modules

The root calls every service; each service calls 3-5 leaves (`source = "../leaf_NNN"`).
Leaves hold the resources whose registered fields get traced (aws_db_instance,
aws_elasticache_replication_group, aws_lambda_function, aws_mq_broker) plus plain
bulk resources (S3 buckets, IAM roles, security groups with `dynamic "ingress"`).

The output is valid Terraform: every reference is declared and every required
module argument is passed, so `undefined-reference` and `missing-argument` stay at
zero. A few registered fields trace to a root variable with no default and no
validation (unbounded unless a universe is configured for the field); the rest are
resolved or bounded.

The same (modules, seed) always gives the same bytes: one seeded random.Random, no
timestamps, no dict-order or set-order dependence.
"""
from __future__ import annotations

import argparse
import json
import math
import random
import re
import shutil
from pathlib import Path

# Fields that tfphi's built-in registry traces (SPEC section 4), per resource type.
REGISTERED = {
    "aws_db_instance": ("engine", "engine_version", "instance_class"),
    "aws_elasticache_replication_group": ("engine", "engine_version", "node_type"),
    "aws_lambda_function": ("runtime",),
    "aws_mq_broker": ("engine_type", "engine_version", "host_instance_type"),
}

LEAF_KINDS = ["db", "cache", "lambda", "mq", "bucket"]
LEAF_WEIGHTS = [25, 15, 20, 10, 30]
CALL_NAMES = {"db": "database", "cache": "cache", "lambda": "functions", "mq": "broker", "bucket": "storage"}
REGISTERED_RESOURCE = {"db": "aws_db_instance", "cache": "aws_elasticache_replication_group",
                       "lambda": "aws_lambda_function", "mq": "aws_mq_broker"}

PG_VERSIONS = ["14.9", "15.4", "16.2"]
REDIS_VERSIONS = ["6.2", "7.0", "7.1"]
RABBIT_VERSIONS = ["3.11.28", "3.12.13", "3.13"]
RUNTIMES = ["python3.11", "python3.12", "nodejs20.x"]
ENVS = ["dev", "staging", "prod"]


def hcl_list(values) -> str:
    return "[" + ", ".join(json.dumps(v) for v in values) + "]"


def aligned(pairs, indent: int) -> str:
    """`key = value` lines with the `=` aligned, as `terraform fmt` writes them."""
    width = max(len(k) for k, _ in pairs)
    pad = " " * indent
    return "\n".join(f"{pad}{k.ljust(width)} = {v}" for k, v in pairs)


def block_variable(name: str, type_: str, *, default: str | None = None, description: str | None = None,
                   validation: tuple[str, str] | None = None, sensitive: bool = False) -> str:
    pairs = []
    if description:
        pairs.append(("description", json.dumps(description)))
    pairs.append(("type", type_))
    if default is not None:
        pairs.append(("default", default))
    if sensitive:
        pairs.append(("sensitive", "true"))
    body = aligned(pairs, 2)
    if validation:
        condition, message = validation
        body += ("\n\n  validation {\n"
                 f"    condition     = {condition}\n"
                 f"    error_message = {json.dumps(message)}\n"
                 "  }")
    return f'variable "{name}" {{\n{body}\n}}\n'


def contains_validation(var: str, values) -> tuple[str, str]:
    return (f"contains({hcl_list(values)}, var.{var})",
            f"{var} must be one of: {', '.join(values)}.")


def block_output(name: str, value: str, description: str | None = None) -> str:
    desc = f"  description = {json.dumps(description)}\n" if description else ""
    return f'output "{name}" {{\n{desc}  value       = {value}\n}}\n' if desc else \
        f'output "{name}" {{\n  value = {value}\n}}\n'


# --------------------------------------------------------------------------- leaves

def leaf_module(rng: random.Random, name: str, kind: str, probe: bool = False) -> tuple[dict[str, str], int]:
    """Files of one leaf module and how many registered fields it sets.

    `probe` marks the leaf bench/run.py edits and hovers: its engine_version is `var.engine_version`."""
    variables = [
        block_variable("name_prefix", "string", description="Prefix for every resource name in this module."),
        block_variable("env", "string", description="Deployment environment.",
                       validation=contains_validation("env", ENVS)),
        block_variable("vpc_id", "string"),
        block_variable("subnet_ids", "list(string)"),
        block_variable("extra_security_group_ids", "list(string)", default="[]"),
        'variable "ingress_rules" {\n'
        '  description = "Ingress rules for the module\'s security group."\n'
        "  type = list(object({\n"
        "    port        = number\n"
        "    cidr_blocks = list(string)\n"
        "    description = string\n"
        "  }))\n"
        "  default = [\n"
        + "".join(f'    {{ port = {p}, cidr_blocks = ["10.{i}.0.0/16"], description = "internal {p}" }},\n'
                  for i, p in enumerate(rng.sample([443, 8080, 8443, 9090], rng.randint(1, 3))))
        + "  ]\n}\n",
        block_variable("tags", "map(string)", default="{}"),
    ]
    extra_tags = [(f"Tier{i}", json.dumps(rng.choice(["core", "edge", "batch", "data", "ops"])))
                  for i in range(rng.randint(0, 2))]
    main = [
        "locals {\n"
        + aligned([("name", f'"${{var.name_prefix}}-{kind}"'),
                   ("name_lower", "lower(local.name)"),
                   ("resource_id", 'format("%s-%s", local.name_lower, var.env)'),
                   ("is_prod", 'var.env == "prod"')], 2)
        + "\n  common_tags = merge(var.tags, {\n"
        + aligned([("Module", json.dumps(name)), ("Environment", "var.env")] + extra_tags, 4)
        + "\n  })\n}\n",
        'resource "aws_security_group" "this" {\n'
        + aligned([("name", '"${local.resource_id}-sg"'),
                   ("description", '"Security group for ${local.name}"'),
                   ("vpc_id", "var.vpc_id")], 2)
        + '\n\n  dynamic "ingress" {\n'
        "    for_each = var.ingress_rules\n"
        "    content {\n"
        + aligned([("from_port", "ingress.value.port"), ("to_port", "ingress.value.port"),
                   ("protocol", '"tcp"'), ("cidr_blocks", "ingress.value.cidr_blocks"),
                   ("description", "ingress.value.description")], 6)
        + "\n    }\n  }\n\n  egress {\n"
        + aligned([("from_port", "0"), ("to_port", "0"), ("protocol", '"-1"'),
                   ("cidr_blocks", '["0.0.0.0/0"]')], 4)
        + "\n  }\n\n  tags = local.common_tags\n}\n",
    ]
    outputs = [
        block_output("name", "local.name", "Name prefix used by this module."),
        block_output("security_group_id", "aws_security_group.this.id"),
    ]
    sg_ids = "concat([aws_security_group.this.id], var.extra_security_group_ids)"
    registered = len(REGISTERED.get(REGISTERED_RESOURCE.get(kind, ""), ()))

    if kind == "db":
        variables += [
            block_variable("engine_version", "string", description="PostgreSQL engine version.",
                           validation=contains_validation("engine_version", PG_VERSIONS)),
            block_variable("engine_version_override", "string", default="null"),
            block_variable("instance_class", "string"),
            block_variable("allocated_storage", "number", default=str(rng.choice([20, 50, 100]))),
            block_variable("multi_az", "bool", default="false"),
            block_variable("backup_retention_days", "number", default=str(rng.choice([7, 14, 35]))),
        ]
        version = rng.choice(["var.engine_version",
                              "lookup(local.version_pins, var.env, var.engine_version)",
                              "coalesce(var.engine_version_override, var.engine_version)"])
        if probe:
            version = "var.engine_version"
        instance_class = rng.choice(["var.instance_class", 'local.is_prod ? var.instance_class : "db.t3.micro"'])
        main += [
            "locals {\n" + aligned([
                ("version_pins", '{ prod = "15.4" }'),
                ("major_version", 'split(".", var.engine_version)[0]'),
                ("storage", "local.is_prod ? var.allocated_storage * 2 : var.allocated_storage"),
            ], 2) + "\n}\n",
            'resource "aws_db_subnet_group" "this" {\n'
            + aligned([("name", '"${local.resource_id}-subnets"'), ("subnet_ids", "var.subnet_ids"),
                       ("tags", "local.common_tags")], 2) + "\n}\n",
            'resource "aws_db_parameter_group" "this" {\n'
            + aligned([("name", '"${local.resource_id}-pg"'), ("family", '"postgres${local.major_version}"')], 2)
            + '\n\n  parameter {\n    name  = "log_min_duration_statement"\n    value = "500"\n  }\n\n'
            "  tags = local.common_tags\n}\n",
            'resource "aws_db_instance" "this" {\n'
            + aligned([("identifier", "local.resource_id"), ("engine", '"postgres"'),
                       ("engine_version", version), ("instance_class", instance_class),
                       ("allocated_storage", "local.storage"), ("storage_encrypted", "true"),
                       ("multi_az", "var.multi_az"), ("username", '"app"'),
                       ("manage_master_user_password", "true"),
                       ("db_subnet_group_name", "aws_db_subnet_group.this.name"),
                       ("parameter_group_name", "aws_db_parameter_group.this.name"),
                       ("vpc_security_group_ids", sg_ids),
                       ("backup_retention_period", "var.backup_retention_days"),
                       ("deletion_protection", "local.is_prod"), ("skip_final_snapshot", "!local.is_prod"),
                       ("tags", "local.common_tags")], 2) + "\n}\n",
        ]
        outputs += [block_output("endpoint", "aws_db_instance.this.endpoint"),
                    block_output("engine_version", "var.engine_version", "Requested engine version.")]

    elif kind == "cache":
        variables += [
            block_variable("node_type", "string", description="ElastiCache node type."),
            block_variable("engine_version", "string", default=json.dumps(rng.choice(["7.0", "7.1"])),
                           validation=contains_validation("engine_version", REDIS_VERSIONS)),
            block_variable("num_replicas", "number", default=str(rng.choice([1, 2]))),
        ]
        node_type = rng.choice(["var.node_type", 'local.is_prod ? var.node_type : "cache.t4g.micro"'])
        main += [
            "locals {\n" + aligned([
                ("cluster_name", '"${local.name}-redis"'),
                ("cluster_id", "lower(local.cluster_name)"),
                ("replication_group_id", "substr(local.cluster_id, 0, 40)"),
                ("engine_version", 'local.is_prod ? var.engine_version : "7.0"'),
            ], 2) + "\n}\n",
            'resource "aws_elasticache_subnet_group" "this" {\n'
            + aligned([("name", '"${local.resource_id}-cache"'), ("subnet_ids", "var.subnet_ids")], 2) + "\n}\n",
            'resource "aws_elasticache_replication_group" "this" {\n'
            + aligned([("replication_group_id", "local.replication_group_id"),
                       ("description", '"Redis for ${local.name}"'), ("engine", '"redis"'),
                       ("engine_version", "local.engine_version"), ("node_type", node_type),
                       ("num_cache_clusters", "local.is_prod ? 1 + var.num_replicas : 1"),
                       ("automatic_failover_enabled", "local.is_prod"), ("port", "6379"),
                       ("subnet_group_name", "aws_elasticache_subnet_group.this.name"),
                       ("security_group_ids", sg_ids), ("at_rest_encryption_enabled", "true"),
                       ("transit_encryption_enabled", "true"), ("tags", "local.common_tags")], 2) + "\n}\n",
        ]
        outputs += [block_output("primary_endpoint",
                                 "aws_elasticache_replication_group.this.primary_endpoint_address")]

    elif kind == "lambda":
        variables += [
            'variable "functions" {\n'
            '  description = "Functions to deploy, by name."\n'
            "  type = map(object({\n"
            "    handler     = string\n"
            "    runtime     = string\n"
            "    memory_size = number\n"
            "  }))\n}\n",
            block_variable("default_runtime", "string", default=json.dumps("python3.12"),
                           validation=contains_validation("default_runtime", RUNTIMES)),
            block_variable("timeout", "number", default=str(rng.choice([10, 30, 60]))),
            block_variable("log_retention_days", "number", default="14"),
        ]
        runtime = rng.choice(["each.value.runtime", "var.default_runtime"])
        main += [
            'data "aws_iam_policy_document" "assume" {\n  statement {\n    actions = ["sts:AssumeRole"]\n\n'
            '    principals {\n      type        = "Service"\n      identifiers = ["lambda.amazonaws.com"]\n'
            "    }\n  }\n}\n",
            'resource "aws_iam_role" "exec" {\n'
            + aligned([("name", '"${local.resource_id}-exec"'),
                       ("assume_role_policy", "data.aws_iam_policy_document.assume.json"),
                       ("tags", "local.common_tags")], 2) + "\n}\n",
            'resource "aws_iam_role_policy_attachment" "logs" {\n'
            + aligned([("role", "aws_iam_role.exec.name"),
                       ("policy_arn", '"arn:aws:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole"')],
                      2) + "\n}\n",
            'resource "aws_cloudwatch_log_group" "fn" {\n'
            + aligned([("for_each", "var.functions"), ("name", '"/aws/lambda/${local.resource_id}-${each.key}"'),
                       ("retention_in_days", "var.log_retention_days")], 2) + "\n}\n",
            'resource "aws_lambda_function" "fn" {\n  for_each = var.functions\n\n'
            + aligned([("function_name", '"${local.resource_id}-${each.key}"'), ("role", "aws_iam_role.exec.arn"),
                       ("handler", "each.value.handler"), ("runtime", runtime),
                       ("memory_size", "each.value.memory_size"), ("timeout", "var.timeout"),
                       ("filename", '"${path.module}/dist/${each.key}.zip"')], 2)
            + "\n\n  vpc_config {\n"
            + aligned([("subnet_ids", "var.subnet_ids"), ("security_group_ids", sg_ids)], 4)
            + "\n  }\n\n  environment {\n    variables = {\n"
            + aligned([("ENV", "var.env"), ("SERVICE", "local.name")], 6)
            + "\n    }\n  }\n\n  tags       = local.common_tags\n"
            "  depends_on = [aws_cloudwatch_log_group.fn, aws_iam_role_policy_attachment.logs]\n}\n",
        ]
        outputs += [block_output("function_arns", "{ for k, f in aws_lambda_function.fn : k => f.arn }"),
                    block_output("role_arn", "aws_iam_role.exec.arn")]

    elif kind == "mq":
        variables += [
            block_variable("engine_version", "string", description="RabbitMQ engine version.",
                           validation=contains_validation("engine_version", RABBIT_VERSIONS)),
            block_variable("host_instance_type", "string"),
            block_variable("admin_password", "string", sensitive=True),
            block_variable("deployment_mode", "string", default='"SINGLE_INSTANCE"'),
        ]
        main += [
            'resource "aws_mq_broker" "this" {\n'
            + aligned([("broker_name", "local.resource_id"), ("engine_type", '"RabbitMQ"'),
                       ("engine_version", "var.engine_version"), ("host_instance_type", "var.host_instance_type"),
                       ("deployment_mode", 'local.is_prod ? "CLUSTER_MULTI_AZ" : var.deployment_mode'),
                       ("publicly_accessible", "false"), ("auto_minor_version_upgrade", "true"),
                       ("subnet_ids", "local.is_prod ? var.subnet_ids : slice(var.subnet_ids, 0, 1)"),
                       ("security_groups", sg_ids)], 2)
            + '\n\n  user {\n    username = "admin"\n    password = var.admin_password\n  }\n\n'
            "  logs {\n    general = true\n  }\n\n  tags = local.common_tags\n}\n",
        ]
        outputs += [block_output("broker_id", "aws_mq_broker.this.id"),
                    block_output("amqp_endpoint", "aws_mq_broker.this.instances[0].endpoints[0]")]

    else:  # bucket: plain bulk resources, nothing registered
        buckets = rng.sample(["assets", "logs", "exports", "backups", "uploads", "reports"], rng.randint(2, 4))
        variables += [
            'variable "buckets" {\n'
            "  type = map(object({\n    versioned   = bool\n    expire_days = number\n  }))\n"
            "  default = {\n"
            + "".join(f"    {b} = {{ versioned = {rng.choice(['true', 'false'])}, "
                      f"expire_days = {rng.choice([30, 90, 365])} }}\n" for b in buckets)
            + "  }\n}\n",
            block_variable("create_role", "bool", default="true"),
            block_variable("force_destroy", "bool", default="false"),
        ]
        main += [
            'resource "aws_s3_bucket" "this" {\n  for_each = var.buckets\n\n'
            + aligned([("bucket", '"${local.resource_id}-${each.key}"'), ("force_destroy", "var.force_destroy"),
                       ("tags", "merge(local.common_tags, { Bucket = each.key })")], 2) + "\n}\n",
            'resource "aws_s3_bucket_versioning" "this" {\n'
            "  for_each = { for k, v in var.buckets : k => v if v.versioned }\n\n"
            "  bucket = aws_s3_bucket.this[each.key].id\n\n"
            '  versioning_configuration {\n    status = "Enabled"\n  }\n}\n',
            'resource "aws_s3_bucket_lifecycle_configuration" "this" {\n  for_each = var.buckets\n\n'
            "  bucket = aws_s3_bucket.this[each.key].id\n\n"
            '  rule {\n    id     = "expire"\n    status = "Enabled"\n\n    filter {}\n\n'
            "    expiration {\n      days = each.value.expire_days\n    }\n  }\n}\n",
            'resource "aws_iam_role" "reader" {\n'
            + aligned([("count", "var.create_role ? 1 : 0"), ("name", '"${local.resource_id}-reader-${count.index}"')], 2)
            + "\n  assume_role_policy = jsonencode({\n    Version = \"2012-10-17\"\n    Statement = [{\n"
            + aligned([("Effect", '"Allow"'), ("Action", '"sts:AssumeRole"'),
                       ("Principal", '{ Service = "ec2.amazonaws.com" }')], 6)
            + "\n    }]\n  })\n  tags = local.common_tags\n}\n",
        ]
        outputs += [block_output("bucket_ids", "[for b in aws_s3_bucket.this : b.id]"),
                    block_output("reader_role_arn", "var.create_role ? aws_iam_role.reader[0].arn : null")]
    return ({"main.tf": "\n".join(main), "variables.tf": "\n".join(variables),
             "outputs.tf": "\n".join(outputs)}, registered)


# --------------------------------------------------------------------------- services

def service_module(rng: random.Random, name: str, calls: list[tuple[str, str]],
                   force_open: frozenset = frozenset()) -> tuple[dict[str, str], set[str], int]:
    """Files of one service module calling `calls` = [(leaf_dir, kind)].

    Returns the files, the service's input variables (the root passes them all) and
    how many registered fields are open (trace to a root variable with no default).
    Calls of the leaves in `force_open` always get an open field (cache, mq)."""
    needs = {"env", "prefix", "vpc_id", "subnet_ids", "tags", "enable_ha", "upstream_name"}
    open_fields = 0
    kinds = {kind for _, kind in calls}
    locals_ = [("name", f'"${{var.prefix}}-{name.replace("_", "-")}"'), ("is_prod", 'var.env == "prod"'),
               ("ha", "local.is_prod || var.enable_ha")]
    if "db" in kinds:
        locals_.append(("db_class", rng.choice([
            'local.is_prod ? var.db_instance_class : "db.t3.small"',
            'local.is_prod ? var.db_instance_class : (var.env == "staging" ? "db.t3.medium" : "db.t3.small")'])))
    text = ["locals {\n" + aligned(locals_, 2) + "\n  tags = merge(var.tags, {\n"
            + aligned([("Service", json.dumps(name)), ("Upstream", "var.upstream_name")], 4) + "\n  })\n"]
    if "lambda" in kinds:
        fns = rng.sample(["api", "worker", "cron", "webhook", "ingest"], rng.randint(2, 3))
        text[0] += "  functions = {\n" + "".join(
            f'    {fn} = {{ handler = "{fn}.handler", runtime = '
            f'{"var.lambda_runtime" if i == 0 else json.dumps(rng.choice(RUNTIMES))}, '
            f"memory_size = {rng.choice([128, 256, 512, 1024])} }}\n" for i, fn in enumerate(fns)) + "  }\n"
    text[0] += "}\n"

    used_names: dict[str, int] = {}
    first = None
    call_names = []
    for leaf_dir, kind in calls:
        base = CALL_NAMES[kind]
        used_names[base] = used_names.get(base, 0) + 1
        call = base if used_names[base] == 1 else f"{base}_{used_names[base]}"
        call_names.append(call)
        args = [("source", json.dumps(f"../{leaf_dir}"))]
        if first is None:
            args.append(("name_prefix", "local.name"))
        else:  # a module output feeding another module's argument
            args.append(("name_prefix", f'"${{module.{first}.name}}-{call}"' if rng.random() < 0.5
                         else f'"${{local.name}}-{call}"'))
        args += [("env", "var.env"), ("vpc_id", "var.vpc_id"), ("subnet_ids", "var.subnet_ids")]
        if first is not None:
            args.append(("extra_security_group_ids", f"[module.{first}.security_group_id]"))
        if kind == "db":
            args += [("engine_version", "var.engine_version"), ("instance_class", "local.db_class"),
                     ("multi_az", "local.ha")]
            needs |= {"engine_version", "db_instance_class"}
        elif kind == "cache":
            if rng.random() < 0.35 or leaf_dir in force_open:
                args.append(("node_type", "var.cache_node_type"))
                needs.add("cache_node_type")
                open_fields += 1
            else:
                args.append(("node_type", 'local.ha ? "cache.r6g.large" : "cache.t4g.small"'))
            if rng.random() < 0.5:
                args.append(("engine_version", '"7.1"'))
        elif kind == "lambda":
            args.append(("functions", "local.functions"))
            needs.add("lambda_runtime")
        elif kind == "mq":
            args.append(("engine_version", json.dumps(rng.choice(RABBIT_VERSIONS))))
            if rng.random() < 0.35 or leaf_dir in force_open:
                args.append(("host_instance_type", "var.mq_host_instance_type"))
                needs.add("mq_host_instance_type")
                open_fields += 1
            else:
                args.append(("host_instance_type", 'local.is_prod ? "mq.m5.large" : "mq.t3.micro"'))
            args.append(("admin_password", "var.mq_password"))
            needs.add("mq_password")
        elif kind == "bucket" and rng.random() < 0.5:
            args.append(("create_role", "local.ha"))
        args.append(("tags", "local.tags"))
        text.append(f'module "{call}" {{\n' + aligned(args[:1], 2) + "\n\n" + aligned(args[1:], 2) + "\n}\n")
        first = first or call

    text.append('resource "aws_iam_role" "service" {\n  name = "${local.name}-role"\n'
                "  assume_role_policy = jsonencode({\n    Version = \"2012-10-17\"\n    Statement = [{\n"
                + aligned([("Effect", '"Allow"'), ("Action", '"sts:AssumeRole"'),
                           ("Principal", '{ Service = "ecs-tasks.amazonaws.com" }')], 6)
                + "\n    }]\n  })\n  tags = local.tags\n}\n")
    text.append('resource "aws_iam_role_policy" "service" {\n'
                + aligned([("name", '"${local.name}-policy"'), ("role", "aws_iam_role.service.id")], 2)
                + "\n  policy = jsonencode({\n    Version = \"2012-10-17\"\n    Statement = [{\n"
                + aligned([("Effect", '"Allow"'), ("Action", '["logs:CreateLogStream", "logs:PutLogEvents"]'),
                           ("Resource", '"*"')], 6)
                + "\n    }]\n  })\n}\n")

    var_specs = {
        "env": block_variable("env", "string", validation=contains_validation("env", ENVS)),
        "prefix": block_variable("prefix", "string", description="Name prefix from the root module."),
        "vpc_id": block_variable("vpc_id", "string"),
        "subnet_ids": block_variable("subnet_ids", "list(string)"),
        "tags": block_variable("tags", "map(string)", default="{}"),
        "enable_ha": block_variable("enable_ha", "bool", default="false"),
        "upstream_name": block_variable("upstream_name", "string", default='""'),
        "engine_version": block_variable("engine_version", "string",
                                         validation=contains_validation("engine_version", PG_VERSIONS)),
        "db_instance_class": block_variable("db_instance_class", "string", default='"db.t3.medium"'),
        "cache_node_type": block_variable("cache_node_type", "string"),
        "lambda_runtime": block_variable("lambda_runtime", "string", default='"python3.12"',
                                         validation=contains_validation("lambda_runtime", RUNTIMES)),
        "mq_host_instance_type": block_variable("mq_host_instance_type", "string"),
        "mq_password": block_variable("mq_password", "string", sensitive=True),
    }
    variables = [spec for key, spec in var_specs.items() if key in needs]
    outputs = [block_output("name", "local.name"),
               block_output("security_group_ids", "[" + ", ".join(f"module.{c}.security_group_id"
                                                                 for c in call_names) + "]")]
    for call, (_, kind) in zip(call_names, calls):
        if kind == "db":
            outputs.append(block_output(f"{call}_endpoint", f"module.{call}.endpoint"))
    return ({"main.tf": "\n".join(text), "variables.tf": "\n".join(variables),
             "outputs.tf": "\n".join(outputs)}, needs, open_fields)


# --------------------------------------------------------------------------- root

ROOT_VARIABLES = [
    block_variable("region", "string", default='"us-east-1"'),
    block_variable("env", "string", description="Customer environment.",
                   validation=contains_validation("env", ENVS)),
    block_variable("prefix", "string", description="Name prefix for the whole stack.",
                   validation=("length(var.prefix) <= 12", "prefix must be at most 12 characters.")),
    block_variable("vpc_id", "string"),
    block_variable("subnet_ids", "list(string)"),
    block_variable("engine_version", "string", default='"15.4"',
                   validation=contains_validation("engine_version", PG_VERSIONS)),
    block_variable("db_instance_classes", "map(string)",
                   default='{\n    dev     = "db.t3.micro"\n    staging = "db.t3.medium"\n'
                           '    prod    = "db.r6g.large"\n  }'),
    block_variable("cache_node_type", "string", description="Set per customer; no default."),
    block_variable("mq_host_instance_type", "string"),
    block_variable("mq_password", "string", sensitive=True),
    block_variable("lambda_runtime", "string", default='"python3.12"',
                   validation=contains_validation("lambda_runtime", RUNTIMES)),
    block_variable("enable_ha", "bool"),
    block_variable("tags", "map(string)", default="{}"),
]


def root_module(rng: random.Random, services: list[tuple[str, set[str]]]) -> dict[str, str]:
    text = [
        'terraform {\n  required_version = ">= 1.5.0"\n\n  required_providers {\n    aws = {\n'
        '      source  = "hashicorp/aws"\n      version = "~> 5.0"\n    }\n  }\n}\n',
        'provider "aws" {\n  region = var.region\n\n  default_tags {\n    tags = local.tags\n  }\n}\n',
        'data "aws_caller_identity" "current" {}\n',
        "locals {\n" + aligned([
            ("name", 'lower(format("%s-%s", var.prefix, var.env))'),
            ("stack", '"${var.prefix}-${local.name}"'),
            ("account_id", "data.aws_caller_identity.current.account_id"),
            ("db_instance_class", 'lookup(var.db_instance_classes, var.env, "db.t3.medium")'),
        ], 2) + "\n  tags = merge(var.tags, {\n"
        + aligned([("Stack", "local.stack"), ("ManagedBy", '"terraform"')], 4) + "\n  })\n}\n",
    ]
    for i, (svc, needs) in enumerate(services):
        args = [("source", json.dumps(f"./modules/{svc}"))]
        values = {
            "env": "var.env", "prefix": f'"${{local.name}}-{i + 1}"', "vpc_id": "var.vpc_id",
            "subnet_ids": "var.subnet_ids", "tags": "local.tags", "enable_ha": "var.enable_ha",
            "engine_version": 'var.env == "prod" ? "15.4" : "14.9"' if i == 0 else rng.choice([
                'var.env == "prod" ? "15.4" : "14.9"',
                'var.env == "prod" ? "16.2" : (var.env == "staging" ? "15.4" : "14.9")',
                "var.engine_version", '"15.4"']),
            "db_instance_class": rng.choice(["local.db_instance_class",
                                             'var.env == "prod" ? "db.r6g.xlarge" : "db.t3.large"']),
            "cache_node_type": "var.cache_node_type", "mq_host_instance_type": "var.mq_host_instance_type",
            "mq_password": "var.mq_password",
            "lambda_runtime": rng.choice(["var.lambda_runtime", '"nodejs20.x"']),
        }
        if i > 0 and rng.random() < 0.3:  # one service's output feeding another's argument
            values["upstream_name"] = f"module.{services[rng.randrange(min(i, 3))][0]}.name"
        for key in ["env", "prefix", "vpc_id", "subnet_ids", "engine_version", "db_instance_class",
                    "cache_node_type", "mq_host_instance_type", "mq_password", "lambda_runtime",
                    "enable_ha", "upstream_name", "tags"]:
            if key in needs and key in values:
                args.append((key, values[key]))
        text.append(f'module "{svc}" {{\n' + aligned(args[:1], 2) + "\n\n" + aligned(args[1:], 2) + "\n}\n")
    outputs = [block_output("account_id", "local.account_id")] + [
        block_output(svc, f"{{\n    name               = module.{svc}.name\n"
                          f"    security_group_ids = module.{svc}.security_group_ids\n  }}")
        for svc, _ in services]
    subnets = ", ".join(json.dumps(f"subnet-{rng.getrandbits(64):016x}") for _ in range(3))
    tfvars = aligned([
        ("env", '"prod"'), ("prefix", '"acme"'), ("vpc_id", json.dumps(f"vpc-{rng.getrandbits(64):016x}")),
        ("subnet_ids", f"[{subnets}]"), ("cache_node_type", '"cache.r6g.large"'),
        ("mq_host_instance_type", '"mq.m5.large"'), ("mq_password", '"change-me-in-ci"'),
        ("enable_ha", "true")], 0) + '\n\ntags = {\n  Team       = "platform"\n  CostCenter = "cc-1234"\n}\n'
    return {"main.tf": "\n".join(text), "variables.tf": "\n".join(ROOT_VARIABLES),
            "outputs.tf": "\n".join(outputs), "terraform.tfvars": tfvars}


# --------------------------------------------------------------------------- workspace

def _position(text: str, pattern: str) -> dict:
    """0-based line and character of the first match's group 1 (ASCII, so UTF-16 == code points)."""
    m = re.search(pattern, text, re.MULTILINE)
    if not m:
        raise AssertionError(f"probe pattern not found: {pattern}")
    line = text.count("\n", 0, m.start(1))
    return {"line": line, "character": m.start(1) - (text.rfind("\n", 0, m.start(1)) + 1)}


def generate(outdir: Path, modules: int, seed: int = 0) -> dict:
    """Write a workspace of `modules` module directories (root included) into `outdir`.

    An existing `outdir` is replaced. Returns a summary: counts, bytes, registered
    fields and the probe positions bench/run.py edits and hovers."""
    if modules < 3:
        raise ValueError("need at least 3 modules (root, one service, one leaf)")
    outdir = Path(outdir)
    rng = random.Random(seed)
    n_services = max(1, round(modules / 5), math.ceil((modules - 1) / 6))
    n_leaves = modules - 1 - n_services
    width = max(3, len(str(max(n_services, n_leaves))))
    leaves = [f"leaf_{i + 1:0{width}d}" for i in range(n_leaves)]
    services = [f"svc_{i + 1:0{width}d}" for i in range(n_services)]
    kinds = ["db"] + [rng.choices(LEAF_KINDS, LEAF_WEIGHTS)[0] for _ in leaves[1:]]

    # Every leaf is called at least once (round robin); services with fewer than 3
    # calls are topped up with leaves called from elsewhere too (a second call path).
    calls: list[list[int]] = [[] for _ in services]
    for j in range(n_leaves):
        calls[j % n_services].append(j)
    for c in calls:
        want = rng.randint(3, 5)
        while len(c) < want and len(c) < n_leaves:
            j = rng.randrange(n_leaves)
            if j not in c:
                c.append(j)

    files: dict[str, str] = {}
    registered = 0
    for i, (leaf, kind) in enumerate(zip(leaves, kinds)):
        leaf_files, n = leaf_module(rng, leaf, kind, probe=(i == 0))
        for fname, text in leaf_files.items():
            files[f"modules/{leaf}/{fname}"] = text
        registered += n
    service_needs = []
    open_fields = 0
    leaf_calls = 0
    # the first cache and mq leaves always trace to a root variable with no default
    force_open = frozenset(leaves[kinds.index(k)] for k in ("cache", "mq") if k in kinds)
    for svc, c in zip(services, calls):
        svc_files, needs, n_open = service_module(rng, svc, [(leaves[j], kinds[j]) for j in c], force_open)
        for fname, text in svc_files.items():
            files[f"modules/{svc}/{fname}"] = text
        service_needs.append((svc, needs))
        open_fields += n_open
        leaf_calls += len(c)
    files.update(root_module(rng, service_needs))

    if outdir.exists():
        shutil.rmtree(outdir)
    total_bytes = total_lines = 0
    for rel in sorted(files):
        path = outdir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        data = files[rel].encode("utf-8")
        path.write_bytes(data)
        total_bytes += len(data)
        total_lines += data.count(b"\n")

    leaf_main = f"modules/{leaves[0]}/main.tf"
    probes = {
        # inside the "postgres" literal of the engine field of aws_db_instance.this
        "leaf_edit": {"file": leaf_main, **_position(files[leaf_main], r'^\s*engine\s+= "post(gres)"')},
        # inside the "15.4" literal of the first service call's engine_version argument
        "root_edit": {"file": "main.tf",
                      **_position(files["main.tf"], r'^\s*engine_version\s+= var\.env == "prod" \? "1(5\.4)"')},
        # on `var.engine_version`, the value of aws_db_instance.this.engine_version
        "hover": {"file": leaf_main, **_position(files[leaf_main], r"^\s*engine_version\s+= var\.(engine_version)")},
    }
    return {
        "modules": 1 + n_services + n_leaves,
        "services": n_services,
        "leaves": n_leaves,
        "leaf_kinds": {k: kinds.count(k) for k in LEAF_KINDS},
        "leaf_calls": leaf_calls,
        "files": len(files),
        "tf_files": sum(1 for rel in files if rel.endswith(".tf")),
        "bytes": total_bytes,
        "lines": total_lines,
        "registered_fields": registered,
        "open_field_calls": open_fields,
        "seed": seed,
        "probes": probes,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir", type=Path)
    ap.add_argument("--modules", type=int, default=10, help="module directories, root included (default 10)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    print(json.dumps(generate(args.outdir, args.modules, args.seed), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
