"""Inlay hints: the values of each traced registered field, after its value expression."""

from __future__ import annotations

from tfphi import records

from features_support import load, parse_fixture

from tfphi.analysis import AnalysisHost, SetSource
from tfphi.config import Config

from tfphi.features.inlay_hints import inlay_hints


def check_hints(fixture: str, path: str, expected: list[tuple[str, str]], start: int = 0, end: int | None = None, analysis=None) -> None:
    """``expected``: (text just before the hint, label) pairs, in order."""
    loaded, _, files = load(fixture)
    analysis = analysis or loaded
    source = files[path]
    hints = inlay_hints(analysis, path, start, len(source) if end is None else end)
    got = [(source[: h.offset].decode().rsplit("\n", 1)[-1], h.label) for h in hints]
    assert got == expected


STACK = """
#- main.tf
variable "env" { type = string }
module "db" {
  source  = "./db"
  version_in = var.env == "prod" ? "15.4" : "14.9"
}
module "db2" {
  source  = "./db"
  version_in = "16.2"
}
#- db/main.tf
variable "version_in" { type = string }
variable "class" { type = string }
resource "aws_db_instance" "app" {
  engine            = "postgres"
  engine_version    = var.version_in
  instance_class    = var.class
  allocated_storage = 100
}
"""


def test_values_unioned_over_call_paths_and_unbounded():
    check_hints(STACK, "db/main.tf", [
        ('  engine            = "postgres"', '⟵ "postgres"'),
        ("  engine_version    = var.version_in", '⟵ "15.4" | "14.9" | "16.2"'),
        ("  instance_class    = var.class", "⟵ unbounded"),
    ])


def test_range_limits_the_hints():
    analysis, _, files = load(STACK)
    source = files["db/main.tf"]
    start = source.index(b"engine_version")
    end = source.index(b"instance_class")
    assert [h.label for h in inlay_hints(analysis, "db/main.tf", start, end)] == ['⟵ "15.4" | "14.9" | "16.2"']


def test_more_than_six_values_are_cut():
    fixture = """
    #- main.tf
    variable "v" {
      type = string
      validation {
        condition     = contains(["1", "2", "3", "4", "5", "6", "7", "8"], var.v)
        error_message = "No."
      }
    }
    resource "aws_db_instance" "app" {
      engine_version = var.v
    }
    """
    check_hints(fixture, "main.tf", [("  engine_version = var.v", '⟵ "1" | "2" | "3" | "4" | "5" | "6" | …')])


def test_disabled_by_configuration():
    files, _ = parse_fixture(STACK)
    host = AnalysisHost(records.replace(Config(), inlay_hints=False))
    host.apply_change([SetSource(path, data) for path, data in files.items()])
    assert inlay_hints(host.snapshot(), "db/main.tf", 0, 10_000) == []


def test_unknown_file_has_no_hints():
    analysis, _, _ = load(STACK)
    assert inlay_hints(analysis, "nope.tf", 0, 10) == []
