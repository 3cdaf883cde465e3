"""Integer chunk programs (dtype int32 / int64) as the local engine runs them.

The local engine (worker/kernels/js/program.ts, the reference; the native backends hand integer
programs to it) evaluates an integer program's expression in float64 and converts the result
to the program's dtype: int32 as JavaScript's ToInt32 of the truncated value (NaN and infinities
give 0, larger values wrap modulo 2**32), int64 as BigInt of the truncated value (a NaN or an
infinity is an error there, so here too). An int64 program that only reads an int64 input (a
block or a slice of one) is gathered exactly instead, beyond 2**53 included. The reduction's
chunk step then folds the integer block: its float64 fields from the integer values (the same
fields as a float64 block of those values), and for sum, prod and nanprod the exact int64 result
(`Partial.isum`, wrapping as NumPy's int64 arithmetic), which the combine carries through and an
int64 finalize returns.

So the expression itself runs through the float64 path every float program takes (program.run:
the C library, or NumPy; expr_program.py where the flat code has no instruction for it, e.g. a
comparison), without its reduction; the conversion and the exact sums are here.
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Tuple

import numpy as np

from . import expr_program, program

INT_DTYPES = ("int32", "int64")
TWO32 = 2.0**32
TWO64 = 2**64


def is_int_program(prog: Dict[str, Any]) -> bool:
    return prog.get("dtype") in INT_DTYPES


def to_int(v: np.ndarray, dtype: str, what: str) -> np.ndarray:
    """float64 values as the js engine stores them in an Int32Array / BigInt64Array after Math.trunc."""
    t = np.trunc(np.asarray(v, np.float64))
    finite = np.isfinite(t)
    if dtype == "int32":
        # ToInt32: NaN and +-inf -> 0; otherwise the value modulo 2**32, read as signed.
        m = np.fmod(np.where(finite, t, 0.0), TWO32)  # exact for doubles, |m| < 2**32
        # (np.asarray: a ufunc of a 0-d array gives a NumPy scalar, which has no wire form.)
        return np.asarray(m.astype(np.int64).astype(np.uint32).astype(np.int32)).reshape(t.shape)
    if not finite.all():
        bad = float(t[~finite].ravel()[0])
        raise ValueError(f"{what}: the int64 program's value {bad} is not an integer (as locally, where BigInt refuses it)")
    big = np.abs(t) >= 2.0**63
    if not big.any():
        return np.asarray(t.astype(np.int64)).reshape(t.shape)
    # BigInt64Array stores a BigInt modulo 2**64: exact through Python ints for the few out of range.
    out = np.asarray(np.where(big, 0.0, t).astype(np.int64)).reshape(t.shape)
    flat = out.reshape(-1)
    for i in np.flatnonzero(big.reshape(-1)):
        w = int(t.reshape(-1)[i]) % TWO64
        flat[i] = w - TWO64 if w >= 2**63 else w
    return out


def _exact_int64(prog: Dict[str, Any], inputs: Sequence[Any]) -> Optional[np.ndarray]:
    """The int64 program that is one input leaf of an int64 block: gathered without float64."""
    e = prog["expr"]
    if prog["dtype"] != "int64" or e.get("kind") != "leaf" or e["leaf"].get("kind") != "input":
        return None
    leaf = e["leaf"]
    dep = int(leaf["dep"])
    src = inputs[dep] if dep < len(inputs) else None
    if not isinstance(src, np.ndarray) or src.dtype != np.int64:
        return None
    r = leaf["region"]
    shape = [int(s) for s in prog["shape"]]
    if [int(c) for c in r["count"]] != shape:
        raise ValueError(f"input leaf: region count {r['count']} does not match block {shape}")
    if not shape:
        return src.reshape(()).copy()
    axes = [int(s) + np.arange(int(c), dtype=np.int64) * int(st) for s, st, c in zip(r["start"], r["step"], r["count"])]
    return src[np.ix_(*axes)].copy()


def _host(v: Any) -> np.ndarray:
    """A device array (CuPy, where program.run kept it on the GPU) as a NumPy one."""
    get = getattr(v, "get", None)
    return np.asarray(get() if callable(get) and not isinstance(v, np.ndarray) else v)


def _exact_reduce(op: str, iv: np.ndarray, axis: Optional[int]) -> np.ndarray:
    """The exact int64 sum or product of each lane (NumPy's int64 arithmetic wraps as BigInt.asIntN(64))."""
    x = iv.astype(np.int64)
    with np.errstate(over="ignore"):
        if op == "sum":
            return np.sum(x, axis=axis, dtype=np.int64).reshape(-1)
        return np.prod(x, axis=axis, dtype=np.int64).reshape(-1)


def run(spec: Dict[str, Any], inputs: Sequence[Any], threads: int = 1) -> Tuple[Any, str]:
    """Runs an integer `program` spec; returns (value, backend) as program.run does."""
    prog = spec["program"]
    dtype = prog["dtype"]
    shape = [int(s) for s in prog["shape"]]
    red = prog.get("reduce")
    exact = _exact_int64(prog, inputs)
    backend = "numpy"
    if exact is not None:
        iv = exact
    else:
        elementwise = {k: v for k, v in prog.items() if k != "reduce"}
        elementwise["dtype"] = "float64"
        if expr_program.needs_tree(elementwise):
            value: Any = expr_program.evaluate(elementwise, inputs)
        else:
            value, backend = program.run({"kind": "program", "program": elementwise}, inputs, threads)
        iv = to_int(_host(value).reshape(shape), dtype, "integer chunk program")
    if red is None:
        return iv.reshape(shape), backend
    # The float64 fields from the integer values, with the original reduction (arg* offsets included).
    out = expr_program.fold(iv.astype(np.float64), red, threads)
    if red["op"] in ("sum", "prod", "nanprod"):
        out.isum = _exact_reduce("sum" if red["op"] == "sum" else "prod", iv, red.get("axis")).reshape(out.shape)
    return out, backend
