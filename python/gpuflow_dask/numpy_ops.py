"""`array-op` handlers of worker/kernels/arrays/numpy-handlers.ts, ported with the same rules so
a Dask run gives the local digest: histogram's uniform-bin counts (index from the scaled value,
corrected against the edges, as numpy.histogram), its edges and the tree that sums the counts,
percentile / quantile over a whole array or along an axis (NumPy's 'linear' method and its
_lerp, NaN anywhere giving NaN), top-k along an axis (a sort in the block's dtype, NaN last),
cumsum / cumprod blocks (one float64 accumulator per lane, carried from the previous block) and
reshape's blocks.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Dict, List, Sequence, Tuple

import numpy as np

from .encode import strides
from .int_program import to_int

Handler = Callable[[Dict[str, Any], Tuple[Any, ...], Any], Any]


def _arrays(inputs: Tuple[Any, ...], what: str) -> List[np.ndarray]:
    for i, v in enumerate(inputs):
        if not isinstance(v, np.ndarray):
            raise TypeError(f"{what}: input {i} is a {type(v).__name__}, not an array")
    return list(inputs)


def edges(lo: float, hi: float, bins: int) -> np.ndarray:
    """numpy.histogram's edges for `bins` equal bins of [lo, hi]: linspace, the last edge exactly hi."""
    a, b = (lo - 0.5, hi + 0.5) if lo == hi else (lo, hi)
    step = (b - a) / bins
    e = np.arange(bins + 1, dtype=np.float64) * step + a
    e[bins] = b
    return e


def counts(x: np.ndarray, lo: float, hi: float, bins: int) -> np.ndarray:
    e = edges(lo, hi, bins)
    a, b = e[0], e[bins]
    v = x.reshape(-1).astype(np.float64)
    v = v[(v >= a) & (v <= b)]
    with np.errstate(invalid="ignore"):
        k = np.floor((v - a) * (bins / (b - a))).astype(np.int64)
    k = np.where(k == bins, k - 1, k)
    down = v < e[k]
    up = ~down & (v >= e[np.minimum(k + 1, bins)]) & (k != bins - 1)
    k = k - down + up
    return np.bincount(k, minlength=bins).astype(np.int64)


def quantiles(values: np.ndarray, q: Sequence[float]) -> np.ndarray:
    """numpy.percentile's 'linear' method over all values; q in [0, 1]."""
    out = np.empty(len(q))
    if np.isnan(values).any() or values.size == 0:
        out.fill(np.nan)
        return out
    s = np.sort(values)
    n = s.size
    for i, p in enumerate(q):
        h = (n - 1) * float(p)
        lo = math.floor(h)
        hi = min(lo + 1, n - 1)
        g = h - lo
        a, b = float(s[lo]), float(s[hi])
        d = b - a
        out[i] = b - d * (1 - g) if g >= 0.5 else a + d * g
    return out


def _as(values: np.ndarray, dtype: str) -> np.ndarray:
    """Float64 values stored in `dtype` as the js typed arrays store them (integers truncated)."""
    return to_int(values, dtype, "result") if dtype in ("int32", "int64") else values.astype(dtype)


def _lanes(a: np.ndarray, axis: int, what: str) -> np.ndarray:
    if axis >= a.ndim:
        raise ValueError(f"{what}: axis {axis} of a {a.ndim}-d block")
    return np.moveaxis(a, axis, -1).reshape(-1, a.shape[axis])


def _histogram(p: Dict[str, Any], inputs: Tuple[Any, ...], _t: Any) -> np.ndarray:
    bins = int(p["bins"])
    if not inputs:
        return np.zeros(bins, np.int64)
    return counts(_arrays(inputs, "histogram")[0], float(p["lo"]), float(p["hi"]), bins)


def _histogram_edges(p: Dict[str, Any], _inputs: Tuple[Any, ...], _t: Any) -> np.ndarray:
    return edges(float(p["lo"]), float(p["hi"]), int(p["bins"]))


def _sum_arrays(_p: Dict[str, Any], inputs: Tuple[Any, ...], _t: Any) -> np.ndarray:
    arrays = _arrays(inputs, "sum-arrays")
    first = arrays[0]
    wide = np.int64 if first.dtype.kind == "i" else np.float64
    out = np.zeros(first.size, wide)
    with np.errstate(over="ignore"):
        for a in arrays:
            if a.size != out.size:
                raise ValueError(f"sum-arrays: lengths {a.size} and {out.size} differ")
            # Each addition stored in the first array's dtype, as `out[i] += ...` on its typed array.
            out = (out + a.reshape(-1).astype(wide)).astype(first.dtype).astype(wide)
    return out.astype(first.dtype).reshape(first.shape)


def _percentile(p: Dict[str, Any], inputs: Tuple[Any, ...], _t: Any) -> np.ndarray:
    arrays = _arrays(inputs, "percentile")
    allv = np.concatenate([a.reshape(-1).astype(np.float64) for a in arrays]) if arrays else np.zeros(0)
    return quantiles(allv, p["q"])


def _percentile_axis(p: Dict[str, Any], inputs: Tuple[Any, ...], _t: Any) -> np.ndarray:
    a = _arrays(inputs, "percentile-axis")[0]
    axis, q = int(p["axis"]), p["q"]
    lanes = _lanes(a, axis, "percentile-axis").astype(np.float64)
    vals = np.stack([quantiles(lane, q) for lane in lanes], axis=1) if lanes.shape[0] else np.zeros((len(q), 0))
    rest = [s for d, s in enumerate(a.shape) if d != axis]
    return _as(vals.reshape([len(q), *rest]), p["dtype"])


def _topk_axis(p: Dict[str, Any], inputs: Tuple[Any, ...], _t: Any) -> np.ndarray:
    a = _arrays(inputs, "topk-axis")[0]
    k, axis = int(p["k"]), int(p["axis"])
    s = np.sort(_lanes(a, axis, "topk-axis"), axis=1, kind="stable")
    picked = s[:, ::-1][:, : abs(k)] if k > 0 else s[:, : abs(k)]
    moved = [s2 for d, s2 in enumerate(a.shape) if d != axis] + [abs(k)]
    return np.moveaxis(picked.reshape(moved), -1, axis).astype(a.dtype, copy=False).copy()


def _cumulate(p: Dict[str, Any], inputs: Tuple[Any, ...], _t: Any) -> np.ndarray:
    """cumsum / cumprod of a block along `axis`, from the last slice of the previous block's result
    (input 1) where there is one: one float64 accumulator per lane, as the js loop (rounded to
    float32 after each step for a float32 result), stored in the result dtype."""
    arrays = _arrays(inputs, "cumulate")
    x = arrays[0]
    axis, op, dtype = int(p["axis"]), p["op"], p["dtype"]
    xv = np.moveaxis(x, axis, 0).astype(np.float64)
    acc = np.moveaxis(arrays[1], axis, 0)[-1].astype(np.float64) if len(arrays) > 1 else None
    out = np.empty(xv.shape)
    with np.errstate(all="ignore"):
        for k in range(xv.shape[0]):
            acc = xv[k].copy() if acc is None else (acc + xv[k] if op == "sum" else acc * xv[k])
            if dtype == "float32":
                acc = acc.astype(np.float32).astype(np.float64)
            out[k] = acc
    return _as(np.moveaxis(out, 0, axis), dtype)


def _reshape(p: Dict[str, Any], inputs: Tuple[Any, ...], _t: Any) -> np.ndarray:
    """One output block of a C-order reshape, read from the input blocks `depBlocks` (the inputs,
    in that order); values pass through float64, as the js block copy's Number() does."""
    arrays = _arrays(inputs, "reshape")
    shape = [int(s) for s in p["shape"]]
    in_shape = [int(s) for s in p["inShape"]]
    grid = np.indices(shape).reshape(len(shape), -1) if shape else np.zeros((0, 1), np.int64)
    flat = np.zeros(grid.shape[1], np.int64)
    for d, (st, s0) in enumerate(zip(strides(p["outShape"]), p["start"])):
        flat += (int(s0) + grid[d]) * st
    coords = np.unravel_index(flat, in_shape) if in_shape else ()
    bounds = [np.cumsum([0] + [int(c) for c in cs]) for cs in p["inChunks"]]
    block = [np.searchsorted(b, c, side="right") - 1 for b, c in zip(bounds, coords)]
    local = [c - b[i] for b, c, i in zip(bounds, coords, block)]
    dep = {tuple(int(v) for v in bi): j for j, bi in enumerate(p["depBlocks"])}
    out = np.empty(flat.size)
    keys = np.stack(block, axis=1) if block else np.zeros((flat.size, 0), np.int64)
    for bi in {tuple(int(v) for v in row) for row in keys}:
        j = dep.get(bi)
        if j is None:
            raise ValueError(f"reshape: input block {bi} was not given")
        sel = np.all(keys == np.array(bi, dtype=np.int64), axis=1) if bi else np.ones(flat.size, bool)
        src = arrays[j].astype(np.float64)
        out[sel] = src[tuple(l[sel] for l in local)] if local else src.reshape(-1)[0]
    return _as(out.reshape(shape), p["dtype"])


HANDLERS: Dict[str, Handler] = {
    "cumulate": _cumulate,
    "reshape": _reshape,
    "histogram": _histogram,
    "histogram-edges": _histogram_edges,
    "sum-arrays": _sum_arrays,
    "percentile": _percentile,
    "percentile-axis": _percentile_axis,
    "topk-axis": _topk_axis,
}
