"""Go's ``math`` functions where their results differ from the C library's that Python uses.

Terraform computes ``pow`` with Go's ``math.Pow`` on float64s: for a whole exponent it
multiplies by repeated squaring of the mantissa (``Frexp``), which rounds differently from C's
``pow`` (``pow(0.7, 4)`` is ``0.24009999999999992`` in Go, ``0.24009999999999995`` in C).
"""

from __future__ import annotations

import math


def go_pow(x: float, y: float) -> float:
    """Go's ``math.Pow(x, y)``, step for step (special cases first, then Go's algorithm)."""
    if y == 0 or x == 1:
        return 1.0
    if y == 1:
        return x
    if math.isnan(x) or math.isnan(y):
        return math.nan
    if x == 0:
        if y < 0:
            if _is_odd_int(y):
                return math.copysign(math.inf, x)
            return math.inf
        if _is_odd_int(y):
            return x
        return 0.0
    if math.isinf(y):
        if x == -1:
            return 1.0
        if (abs(x) < 1) == (y > 0):
            return 0.0
        return math.inf
    if math.isinf(x):
        if x < 0:
            return go_pow(1 / x, -y)  # Pow(-0, -y)
        if y < 0:
            return 0.0
        return math.inf
    if y == 0.5:
        return math.sqrt(x)
    if y == -0.5:
        return 1 / math.sqrt(x)
    yf, yi = math.modf(abs(y))
    if yf != 0 and x < 0:
        return math.nan
    if yi >= 2**63:
        # a large even whole exponent: overflow or underflow to 0 for all x but -1
        if x == -1:
            return 1.0
        if (abs(x) < 1) == (y > 0):
            return 0.0
        return math.inf
    a1, ae = 1.0, 0
    if yf != 0:
        if yf > 0.5:
            yf -= 1
            yi += 1
        a1 = math.exp(yf * math.log(x))  # FIXME: Go's Exp and Log may differ from C's by an ulp
    x1, xe = math.frexp(x)
    i = int(yi)
    while i != 0:
        if xe < -(1 << 12) or (1 << 12) < xe:
            # catastrophic overflow: let ldexp handle it
            ae += xe
            break
        if i & 1 == 1:
            a1 *= x1
            ae += xe
        x1 *= x1
        xe <<= 1
        if x1 < 0.5:
            x1 += x1
            xe -= 1
        i >>= 1
    if y < 0:
        a1 = 1 / a1
        ae = -ae
    try:
        return math.ldexp(a1, ae)
    except OverflowError:
        return math.copysign(math.inf, a1)


def _is_odd_int(x: float) -> bool:
    if abs(x) >= 2**53:
        return False
    fraction, whole = math.modf(x)
    return fraction == 0 and int(whole) & 1 == 1
