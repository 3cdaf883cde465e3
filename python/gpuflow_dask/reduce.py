"""The `combine` task: worker/kernels/js/reduce.ts's combine and finalize rules, in NumPy.

The partials fold in dependency order, one partial at a time, vectorised over the positions
of the reduced shape, so every position sees the same operations in the same order as the js
loop: Neumaier sums, Chan's pairwise (count, mean, m2) update, NaN-propagating min/max, and
arg* where NaN wins and ties keep the smaller index.
"""
from __future__ import annotations

from typing import List, Sequence

import numpy as np

from .values import PARTIAL_FIELDS, Partial


def _empty(op: str, shape: List[int]) -> Partial:
    n = int(np.prod(shape, dtype=np.int64))
    out = Partial(op, list(shape), {f: np.zeros(n) for f in PARTIAL_FIELDS[op]})
    # The identities the js partials start from: 1 for products, +-inf for nanmin / nanmax.
    if op in ("prod", "nanprod", "nanmin", "nanmax"):
        out.fields["value"] = np.full(n, {"nanmin": np.inf, "nanmax": -np.inf}.get(op, 1.0))
    return out


def combine_partials(parts: Sequence[Partial]) -> Partial:
    """Folds partials (same op and shape) in order into one."""
    if not parts:
        raise ValueError("combine: no partials")
    op, shape = parts[0].op, list(parts[0].shape)
    for p in parts:
        if not isinstance(p, Partial):
            raise TypeError(f"combine: input is a {type(p).__name__}, not a partial")
        if p.op != op or list(p.shape) != shape:
            raise ValueError(f"combine: mismatched partials {p.op}{p.shape} vs {op}{shape}")
    n = int(np.prod(shape, dtype=np.int64))
    flat = [{k: np.asarray(v, np.float64).reshape(n) for k, v in p.fields.items()} for p in parts]
    out = _empty(op, shape)
    f = out.fields
    if op in ("prod", "nanprod"):
        v = np.ones(n)
        for p in flat:
            v = v * p["value"]
        f["value"] = v
    elif op in ("nanmin", "nanmax"):
        v = np.full(n, np.inf if op == "nanmin" else -np.inf)
        cnt = np.zeros(n)
        for p in flat:
            x = p["value"]
            v = np.where(x < v if op == "nanmin" else x > v, x, v)
            cnt = cnt + p["count"]
        f["value"], f["count"] = v, cnt
    elif op in ("sum", "mean", "nanmean"):
        s = np.zeros(n)
        c = np.zeros(n)
        cnt = np.zeros(n)
        for p in flat:
            x = p["sum"]
            t = s + x
            c += np.where(np.abs(s) >= np.abs(x), (s - t) + x, (x - t) + s)
            s = t
            if op != "sum":
                cnt = cnt + p["count"]
        # An infinite (or NaN) s has a NaN compensation (inf - inf): its sum is s, as NumPy's.
        f["sum"] = np.where(np.isfinite(s), s + c, s)
        if op != "sum":
            f["count"] = cnt
    elif op in ("var", "std"):
        na = np.zeros(n)
        ma = np.zeros(n)
        m2a = np.zeros(n)
        for p in flat:
            nb = p["count"]
            live = nb != 0
            mb = p["mean"]
            nab = na + nb
            safe = np.where(live, nab, 1.0)
            delta = mb - ma
            ma = np.where(live, ma + (delta * nb) / safe, ma)
            m2a = np.where(live, m2a + (p["m2"] + (delta * delta * na * nb) / safe), m2a)
            na = np.where(live, nab, na)
        f["count"], f["mean"], f["m2"] = na, ma, m2a
    elif op in ("min", "max"):
        v = np.full(n, np.inf if op == "min" else -np.inf)
        seen_nan = np.zeros(n, bool)
        for p in flat:
            x = p["value"]
            seen_nan |= np.isnan(x)
            better = x < v if op == "min" else x > v
            v = np.where(better, x, v)
        f["value"] = np.where(seen_nan, np.nan, v)
    else:
        v = np.full(n, np.inf if op == "argmin" else -np.inf)
        at = np.full(n, -1.0)
        for p in flat:
            x, i = p["value"], p["index"]
            ok = i >= 0
            xnan, vnan = np.isnan(x), np.isnan(v)
            # NaN wins, and among NaNs the lowest index, as NumPy returns the first NaN.
            take_nan = ok & xnan & (~vnan | (i < at))
            better = x < v if op == "argmin" else x > v
            take = ok & ~xnan & ~vnan & ((at < 0) | better | ((x == v) & (i < at)))
            sel = take_nan | take
            v = np.where(sel, x, v)
            at = np.where(sel, i, at)
        f["value"], f["index"] = v, at
    out.fields = {k: a.reshape(shape) for k, a in f.items()}
    if op in ("sum", "prod", "nanprod") and all(p.isum is not None for p in parts):
        # The exact int64 result of integer blocks, wrapping as NumPy's int64 (js: BigInt.asIntN(64)).
        acc = np.zeros(n, np.int64) if op == "sum" else np.ones(n, np.int64)
        with np.errstate(over="ignore"):
            for p in parts:
                x = np.asarray(p.isum, np.int64).reshape(n)
                acc = acc + x if op == "sum" else acc * x
        out.isum = acc.reshape(shape)
    return out


def finalize_partial(p: Partial, ddof: float = 0) -> np.ndarray:
    """A fully combined partial's values: float64, or int64 for arg*."""
    f = p.fields
    op = p.op
    with np.errstate(all="ignore"):
        if op == "sum":
            out = f["sum"]
        elif op in ("mean", "nanmean"):
            out = f["sum"] / f["count"]
        elif op in ("nanmin", "nanmax"):
            out = np.where(f["count"] == 0, np.nan, f["value"])
        elif op in ("prod", "nanprod"):
            out = f["value"]
        elif op == "var":
            out = f["m2"] / (f["count"] - ddof)
        elif op == "std":
            out = np.sqrt(f["m2"] / (f["count"] - ddof))
        elif op in ("min", "max"):
            out = f["value"]
        else:
            return np.asarray(f["index"]).astype(np.int64).reshape(p.shape)
    return np.asarray(out, np.float64).reshape(p.shape).copy()
