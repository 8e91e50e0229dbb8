"""Typed trace steps: the seed's step names stay as they were, and people read plain words."""

from __future__ import annotations

from phi_fixture import analysis_of, trace

from tfphi.features.locations import human_position
from tfphi.trace.steps import seed_texts, words

VENDOR = '''
#- main.tf
variable "customer_env" { type = string }
module "database" {
  source         = "./modules/postgres"
  engine_version = var.customer_env == "prod" ? "15.4" : "14.9"
}
#- modules/postgres/main.tf
variable "engine_version" { type = string }
resource "aws_db_instance" "app" {
  engine_version = var.engine_version
}
'''


def _where(fixture):
    analysis = analysis_of(fixture)

    def where(span):
        return f"{span.file}:{human_position(analysis, span.file, span.start)[0]}"

    return where


def test_seed_names_are_unchanged_and_words_keep_one_step_per_hop():
    result = trace(VENDOR, "module.database.aws_db_instance.app.engine_version")
    first = result.branches[0]
    assert seed_texts(first.path) == [
        "Field aws_db_instance.app.engine_version",
        "NameRef var.engine_version",
        "ModCall module.database argument engine_version",
        "ConditionalExpr true arm",
        'Prim "15.4"',
    ]
    assert words(first.path, _where(VENDOR)) == (
        'var.engine_version ← module.database passes engine_version (main.tf:4) ← true arm of var.customer_env == "prod" ← "15.4"'
    )


OBJECT = '''
#- main.tf
variable "size" { type = string }
module "search" {
  source = "./modules/search"
  cluster_config = {
    dedicated_master = false
    instance_count   = 3
    zone_awareness   = true
    instance_type    = var.size == "big" ? "r6g.large.search" : "t3.small.search"
    warm_enabled     = false
  }
}
#- modules/search/main.tf
variable "cluster_config" { type = any }
resource "aws_opensearch_domain" "this" {
  cluster_config {
    instance_type = var.cluster_config.instance_type
  }
}
'''


def test_an_attribute_of_a_callers_object_shows_only_the_path_to_that_attribute():
    result = trace(OBJECT, "module.search.aws_opensearch_domain.this.cluster_config.instance_type")
    first = result.branches[0]
    # The seed path still lists every key and value of the object the caller built ...
    assert len(first.path) > 12
    assert 'Prim "dedicated_master"' in seed_texts(first.path)
    # ... people only see the hop that gives the value.
    assert words(first.path, _where(OBJECT)) == (
        'var.cluster_config ← module.search passes cluster_config (main.tf:4) '
        '← true arm of var.size == "big" ← "r6g.large.search"'
    )
