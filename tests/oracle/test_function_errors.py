"""Functions fail only the way Terraform fails: TfEvalError, never a Python error.

The tracer reads TfEvalError as "Terraform rejects this" and drops or gates the branch; any other
exception (TypeError, ValueError, KeyError, ...) is a bug that must reach the guard instead of
being mistaken for a Terraform error. Hypothesis calls every deterministic function with
arbitrary Terraform values and arities.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tfphi.evaluate.functions import FUNCTIONS, call_function
from tfphi.values.value import TfEvalError, TfSet, TfUnrepresentable, from_python

PURE = sorted(name for name, spec in FUNCTIONS.items() if spec.elementwise and not spec.nondeterministic)

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.integers(-3, 40),
    st.floats(allow_nan=False, allow_infinity=False, width=64),
    st.text(max_size=12),
    st.sampled_from(["", "a", "1", "1.5", "-2", "true", "%s", "%d %v", "10.0.0.0/8", "fd00::/64", "a,b\n1,2",
                     "2017-11-22T00:00:00Z", "1h", "{\"a\": 1}", "a: [1, x]", "/x+/", "(?P<n>a)", "YYYY-MM-DD",
                     "dns", "UTF-16", "SGk=", "[", "**/*", "${", "\u0301", "0x1F"]),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=4).map(TfSet),
        st.dictionaries(st.sampled_from(["a", "b", "1", "true", ""]), inner, max_size=3),
    ),
    max_leaves=8,
)


@settings(max_examples=500, deadline=None)
@given(name=st.sampled_from(PURE), args=st.lists(values, max_size=4))
def test_functions_raise_only_terraform_errors(name, args):
    try:
        call_function(name, [from_python(a) for a in args])
    except (TfEvalError, TfUnrepresentable):
        pass
