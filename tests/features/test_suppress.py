"""``# tfphi:ignore <code>`` silences a diagnostic on its line or the line below (SPEC 5)."""

from __future__ import annotations

from features_support import load

from tfphi.features.diagnostics import dir_diagnostics
from tfphi.features.suppress import ignored_codes

BODY = '''
variable "engine" {
  type = string
}

resource "aws_db_instance" "app" {
  {above}
  engine_version = var.engine {same}
  instance_class = local.nope
}
'''


def codes(above: str = "", same: str = "") -> list[str]:
    analysis, _, _ = load("#- main.tf\n" + BODY.replace("{above}", above).replace("{same}", same))
    return sorted(d.code for d in dir_diagnostics(analysis, ""))


def test_without_a_comment_both_are_reported():
    # (local.nope gives no unbounded-field on top of its undefined-reference: no cascades)
    assert codes() == ["unbounded-field", "undefined-reference"]


def test_a_code_on_the_line_above_silences_only_that_code_on_the_next_line():
    assert codes(above="# tfphi:ignore unbounded-field") == ["undefined-reference"]
    assert codes(above="# tfphi:ignore undefined-reference") == ["unbounded-field", "undefined-reference"]


def test_a_comment_on_the_same_line_and_several_codes():
    assert codes(same="# tfphi:ignore unbounded-field") == ["undefined-reference"]
    assert codes(same="// tfphi:ignore missing-argument, unbounded-field") == ["undefined-reference"]


def test_a_bare_marker_silences_every_code_there():
    assert codes(above="# tfphi:ignore") == ["undefined-reference"]  # the reference is two lines below


def test_parsing_the_marker():
    assert ignored_codes("  # tfphi:ignore unbounded-field, syntax-error") == {"unbounded-field", "syntax-error"}
    assert ignored_codes("x = 1 # tfphi:ignore") == {"*"}
    assert ignored_codes("# tfphi:ignored-not") == set()
    assert ignored_codes('x = "no comment here"') == set()
