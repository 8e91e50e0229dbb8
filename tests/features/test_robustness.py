"""Every feature answers (possibly with nothing) at every offset of broken and odd files, never raises."""

from __future__ import annotations

import pytest
from features_support import load

from tfphi.features.code_actions import quick_fixes
from tfphi.features.hover import hover_at
from tfphi.features.inlay_hints import inlay_hints
from tfphi.features.navigation import definition, document_symbols, references
from tfphi.features.trace_view import trace_document
from tfphi.syntax.expr import Span

FIXTURES = {
    "broken": """
    #- main.tf
    variable "x" {
      type = string
    resource "aws_db_instance" "app" {
      engine_version = var.x ? : "a"
      instance_class = local.
    }
    module "m" { source = "./nope" a = var. }
    output "o" { value = module.m.out[0].x }
    """,
    "odd": """
    #- main.tf
    # ünïcode 🎉
    locals {
      a = local.b
      b = local.a
      list = [for k, v in var.m : "${k}=${v}" if v != ""]
      splat = aws_instance.web[*].id
    }
    variable "m" { type = map(string) }
    resource "aws_instance" "web" {
      count = length(var.m)
      ami   = element(["a", "b"], count.index)
      dynamic "ebs" {
        for_each = var.m
        iterator = disk
        content { device_name = disk.key }
      }
    }
    data "aws_ami" "x" {}
    resource "aws_db_instance" "app" {
      engine_version = data.aws_ami.x.name
      engine         = self.x
    }
    #- terraform.tfvars
    m = { a = "b" }
    nope = 1
    """,
}


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_every_offset(name):
    analysis, _, files = load(FIXTURES[name])
    for path, source in files.items():
        for offset in range(len(source) + 1):
            hover_at(analysis, path, offset)
            trace_document(analysis, path, offset)
            definition(analysis, path, offset)
            references(analysis, path, offset, True)
            quick_fixes(analysis, path, Span(path, offset, offset), None)
        document_symbols(analysis, path)
        inlay_hints(analysis, path, 0, len(source))
