"""Generated expressions, evaluated by tfphi's concrete core and by ``terraform console``: equal
in value and type, or both errors (issue 22, "expressions").

``expression_generator`` writes well-typed constant expressions (numbers at the edges of 512-bit
precision, Unicode strings, RE2 patterns, sets, conversions, templates, typed root variables with
defaults, the registered functions); ``differential`` evaluates them on both sides (a few console
runs per thousand expressions) and compares. A mismatch is one of:

- ``value``: both have a value and they differ (numbers compared as the text Terraform prints);
- ``type``: the values are equal but the types differ (a list where Terraform has a tuple);
- ``error``: tfphi has a value where Terraform fails;
- ``crash``: a Python error in tfphi;
- ``imprecise``: tfphi answers Unbounded where Terraform has a value (never wrong; counted);
- ``arm-type``: tfphi kept a tuple or object where Terraform unified a conditional's arms into a
  list or map, because the other arm failed or was Unbounded and tfphi could not see its type
  (FIXME: a known gap, counted; the values are equal).

``TFPHI_DIFF_EXPRESSIONS`` sets how many expressions (default 6,000: ~20 s), ``TFPHI_DIFF_SEED``
the seed (default 22, so that CI is reproducible). The long run explores other seeds:
``scripts/differential.sh [expressions] [first seed]`` (see docs/values.md).
"""

from __future__ import annotations

import os
import re
from collections import Counter

from differential import compare, terraform_results, tfphi_results
from expression_generator import DECLARATIONS, generate
from terraform import scratch_dir
from terraform_cli import terraform_binary
from tfphi.evaluate.functions import FUNCTIONS, MACHINE_DEPENDENT

EXPRESSIONS = int(os.environ.get("TFPHI_DIFF_EXPRESSIONS", "6000"))
SEED = int(os.environ.get("TFPHI_DIFF_SEED", "22"))
CHUNK = 5000  # expressions per workspace and console batch group

# Where tfphi answers Unbounded though Terraform knows, at most this share of the expressions.
# (Today: format() of a typed null; a division by zero inside a larger expression; a conditional
# whose other arm fails: docs/values.md, "Not yet".)
IMPRECISE_SHARE = 0.05
ARM_TYPE_SHARE = 0.002


def test_generated_expressions_agree_with_terraform():
    terraform_binary()
    expressions = generate(SEED, EXPRESSIONS)
    mismatches = []
    for start in range(0, len(expressions), CHUNK):
        chunk = expressions[start : start + CHUNK]
        ours = tfphi_results(chunk, DECLARATIONS)
        theirs = terraform_results(chunk, scratch_dir(), DECLARATIONS)
        mismatches.extend(compare(chunk, theirs, ours))
    kinds = Counter(m.kind for m in mismatches)
    print(f"\nseed {SEED}: {len(expressions)} expressions, mismatches by kind: {dict(kinds)}")
    wrong = [m for m in mismatches if m.kind not in ("imprecise", "arm-type")]
    assert not wrong, f"seed {SEED}: {len(wrong)} of {len(expressions)} expressions differ:\n" + "\n".join(map(str, wrong[:40]))
    assert kinds["imprecise"] <= IMPRECISE_SHARE * len(expressions), [str(m) for m in mismatches if m.kind == "imprecise"][:40]
    assert kinds["arm-type"] <= ARM_TYPE_SHARE * len(expressions), [str(m) for m in mismatches if m.kind == "arm-type"][:40]


def test_the_generator_calls_every_deterministic_function():
    """Every registered function whose result is a function of its arguments is in a CI run
    (the ones reading files or the machine trace as Unbounded; timestamp(), uuid(), bcrypt()
    change on every run: tests/oracle/test_functions_oracle.py checks their shape)."""
    called = {name for expression in generate(SEED, EXPRESSIONS) for name in re.findall(r"([a-z0-9_]+)\(", expression)}
    deterministic = {name for name, spec in FUNCTIONS.items() if not spec.nondeterministic} - MACHINE_DEPENDENT
    assert sorted(deterministic - called) == []
