"""A ``dynamic`` block's label need not be quoted (``dynamic option {``, as HCL reads any block
label): its iterator is bound by either spelling. Before, the unquoted form gave two false
``undefined-reference`` errors (``option.key``, ``option.value``: Cray-HPE/fawkes-terraform)."""

from __future__ import annotations

import pytest

from phi_fixture import check_diagnostics

FIXTURE = '''
variable "opts" {
  type    = map(string)
  default = { a = "1" }
}

resource "aws_db_option_group" "this" {
  name = "x"
  dynamic LABEL {
    for_each = var.opts
    content {
      option_name = option.key
      port        = option.value
      other       = opton.key
    }
  }
}
'''


@pytest.mark.parametrize("label", ['"option"', "option"])
def test_the_iterator_of_a_dynamic_block_is_its_label_quoted_or_not(label: str):
    check_diagnostics(FIXTURE.replace("LABEL", label), '''
        main.tf:13:21-13:30 error[undefined-reference] undefined reference to opton.key: no resource block declares it
    ''')
