"""JavaScript's String() of a number (ECMAScript Number::toString), for the places the local
engine turns numbers into text: map's lookup keys, pivot's column names. Python's repr gives the
same shortest round-trip digits; only the layout differs (JS writes 1e-5 as 0.00001, 1e21 as
1e+21)."""
from __future__ import annotations

import math


def js_string(x: float) -> str:
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "0"  # -0 too
    sign = "-" if x < 0 else ""
    r = repr(abs(x))
    mant, exp = (r.split("e") + ["0"])[:2]
    whole, _, frac = mant.partition(".")
    digits = (whole + frac).lstrip("0")
    # n: where the decimal point sits after the digits' first one (ECMAScript's n).
    n = len(whole) + int(exp) - (len(whole + frac) - len((whole + frac).lstrip("0")))
    digits = digits.rstrip("0") or "0"
    k = len(digits)
    if k <= n <= 21:
        s = digits + "0" * (n - k)
    elif 0 < n <= 21:
        s = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        s = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        s = (digits if k == 1 else digits[0] + "." + digits[1:]) + "e" + ("+" if e >= 0 else "-") + str(abs(e))
    return sign + s
