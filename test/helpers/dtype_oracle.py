"""NumPy's answers for the seeded random dtype cases (test/helpers/dtype-cases.ts).

Reads cases.json from the folder given as argv[1] (each case: its op and the .npy inputs the test
wrote), computes each with NumPy and writes <name>.want.npy beside the inputs, and want.json with
each result's dtype. Run by /usr/bin/python3 (Debian's numpy 1.24).

NumPy 1.24 promotes a Python scalar by value (before NEP 50); the cases only use scalars that fit
the array's dtype, where NEP 50 (NumPy 2) gives the same dtype, so NumPy 1.24's answer is NumPy 2's.
"""
import json
import os
import sys
import warnings

import numpy as np

BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide, "pow": np.power,
    "min": np.minimum, "max": np.maximum, "lt": np.less, "ge": np.greater_equal, "eq": np.equal,
    "ne": np.not_equal, "logical_and": np.logical_and, "logical_or": np.logical_or, "logical_xor": np.logical_xor,
}
UNARY = {
    "neg": np.negative, "abs": np.abs, "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "sin": np.sin,
    "cos": np.cos, "tanh": np.tanh, "square": np.square, "isnan": np.isnan, "isfinite": np.isfinite,
    "floor": np.floor, "ceil": np.ceil, "logical_not": np.logical_not,
}


def topk(x, k, axis):
    """dask.array.topk: the k largest along axis, largest first (k < 0: the |k| smallest, smallest first)."""
    s = np.sort(x, axis=axis)
    n = x.shape[axis]
    return np.take(s, list(range(n - 1, n - 1 - k, -1)) if k > 0 else list(range(-k)), axis=axis)


# Functions NumPy lacks, called by name in 'call' cases (the rest are numpy.<fn>).
FUNCS = {"topk": topk}


def compute(c, d):
    x = np.load(os.path.join(d, c["x"]))
    kind = c["kind"]
    if kind == "binary":
        return BINARY[c["op"]](x, np.load(os.path.join(d, c["y"])))
    if kind == "scalar":
        v = int(c["value"]) if c["valueKind"] == "int" else float(c["value"])
        f = BINARY[c["op"]]
        return f(v, x) if c["reverse"] else f(x, v)
    if kind == "unary":
        return UNARY[c["op"]](x)
    if kind == "concatenate":
        return np.concatenate([x, np.load(os.path.join(d, c["y"]))], axis=c["axis"])
    if kind == "reduce":
        return np.asarray(getattr(np, c["op"])(x, axis=c["axis"]))
    if kind == "diff":
        return np.diff(x, axis=c["axis"])
    if kind == "call":
        # JSON has no tuples: a list of axes is NumPy's tuple of axes.
        kw = {k: tuple(v) if k == "axis" and isinstance(v, list) else v for k, v in c["kwargs"].items()}
        return (FUNCS.get(c["fn"]) or getattr(np, c["fn"]))(x, **kw)
    raise ValueError(f"unknown case kind {kind}")


def main():
    d = sys.argv[1]
    with open(os.path.join(d, "cases.json")) as f:
        cases = json.load(f)
    dtypes = {}
    # nanmin of an all-NaN slice and nanmean of one warn; their NaN is the answer compared.
    warnings.simplefilter("ignore", RuntimeWarning)
    with np.errstate(all="ignore"):
        for c in cases:
            r = np.asarray(compute(c, d))
            dtypes[c["name"]] = str(r.dtype)
            np.save(os.path.join(d, c["name"] + ".want.npy"), r)
    with open(os.path.join(d, "want.json"), "w") as f:
        json.dump(dtypes, f)


main()
