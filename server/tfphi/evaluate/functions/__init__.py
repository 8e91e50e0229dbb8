"""Terraform's built-in functions, one module per family as Terraform's ``lang/funcs`` is.

Every function receives already-evaluated argument values and returns a value, or raises
:class:`TfEvalError` (Terraform rejects the call) or :class:`TfUnrepresentable` (Terraform has a
value tfphi cannot hold). Functions that need lazy evaluation of their arguments (``try``,
``can``) are tracer strategies, and provider-defined functions (``provider::aws::arn_parse``)
are unknown. Every function here is checked against ``terraform console`` (tests/oracle).

Terraform's automatic conversions apply to primitive parameters: a number or bool passed where a
string is expected becomes its string form, a numeric string passed where a number is expected
becomes that number, and ``"true"``/``"false"`` become bools.  Null is rejected unless the
function accepts it (``tostring(null)`` is null, ``merge`` skips nulls, ``coalesce`` skips them).

Each family lists its built-ins' specs in ``SPECS``; ``registry.FUNCTIONS`` maps every name to its spec
(built once at import, frozen).
"""

from .deferred import import_deferred
from .filesystem import MACHINE_DEPENDENT
from .registry import FUNCTIONS, FunctionSpec, UnknownFunction, call_function

__all__ = ["FUNCTIONS", "MACHINE_DEPENDENT", "FunctionSpec", "UnknownFunction", "call_function", "import_deferred"]
