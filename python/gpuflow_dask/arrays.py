"""`array-op` handlers (worker/kernels/arrays/linalg-handlers.ts): matmul blocks and TSQR's
steps (qr-block, qr-top with the SVD of R, qr-combine, pick), float64 through the C-ABI
library's matmul / QR / SVD when it loads (the addon's own CPU kernels), else NumPy's LAPACK.

Every QR makes diag(R) >= 0 and every SVD applies the js reference's sign rule (the largest
|entry| of each row of V^T is positive), so the answer does not depend on which worker or
backend ran a block. A block's Q travels explicitly ({q, r}), as the native backends' do; the
js kernel's compact Householder form is a js-internal alternative the combine also accepts
from nobody here. Other ops: `unsupported-op` (execute.py).
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Tuple

import numpy as np

from . import capi, npy_read, numpy_ops
from .execute_threads import threads
from .values import Arrays

Handler = Callable[[Dict[str, Any], Tuple[Any, ...], Any], Any]


def _array(inputs: Tuple[Any, ...], i: int, what: str) -> np.ndarray:
    v = inputs[i] if i < len(inputs) else None
    if not isinstance(v, np.ndarray):
        raise TypeError(f"{what}: input {i} is {'missing' if v is None else 'a ' + type(v).__name__}, not an array")
    return v


def _bundle(inputs: Tuple[Any, ...], i: int, what: str) -> Dict[str, np.ndarray]:
    v = inputs[i] if i < len(inputs) else None
    if not isinstance(v, Arrays):
        raise TypeError(f"{what}: input {i} is {'missing' if v is None else 'a ' + type(v).__name__}, not a bundle of arrays")
    return v.arrays


def _f64(*xs: np.ndarray) -> bool:
    return all(x.dtype == np.float64 for x in xs)


def matmul2(a: np.ndarray, b: np.ndarray, c0: Optional[np.ndarray] = None) -> np.ndarray:
    """a @ b (+ c0), in the inputs' float type."""
    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]:
        raise ValueError(f"matmul: shapes {list(a.shape)} and {list(b.shape)} do not chain")
    lib = capi.load()
    if lib is not None and _f64(a, b) and (c0 is None or c0.dtype == np.float64):
        return capi.matmul(lib, a, b, c0, threads())
    out = a @ b
    return out + c0 if c0 is not None else out


def fix_signs(u: np.ndarray, vt: np.ndarray) -> None:
    """The js rule (svd.ts fixSigns): the largest |entry| of each row of vt is made positive."""
    for c in range(vt.shape[0]):
        arg = int(np.argmax(np.abs(vt[c]))) if vt.shape[1] else 0
        if vt.shape[1] and vt[c, arg] < 0:
            vt[c] *= -1
            u[:, c] *= -1


def qr(a: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Reduced QR with diag(R) >= 0."""
    if a.ndim != 2 or a.shape[0] < a.shape[1]:
        raise ValueError(f"qr-block: a TSQR block needs at least as many rows as columns, got {list(a.shape)}; use fewer, taller row chunks")
    lib = capi.load()
    if lib is not None and a.dtype == np.float64:
        return capi.qr(lib, a, threads())
    q, r = np.linalg.qr(a.astype(np.float64))
    flip = np.diag(r) < 0
    q[:, flip] *= -1
    r[flip, :] *= -1
    return q.astype(a.dtype, copy=False), r.astype(a.dtype, copy=False)


def svd(a: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Thin SVD, s descending, the js sign rule."""
    lib = capi.load()
    if lib is not None and a.dtype == np.float64:
        u, s, vt = capi.svd(lib, a, threads())
    else:
        u, s, vt = np.linalg.svd(a.astype(np.float64), full_matrices=False)
    fix_signs(u, vt)
    return u.astype(a.dtype, copy=False), s.astype(a.dtype, copy=False), vt.astype(a.dtype, copy=False)


def _matmul(p: Dict[str, Any], inputs: Tuple[Any, ...], t: Any) -> np.ndarray:
    k = int(p["k"])
    acc: Optional[np.ndarray] = None
    for l in range(k):
        acc = matmul2(_array(inputs, l, "matmul"), _array(inputs, k + l, "matmul"), acc)
    if acc is None:
        raise ValueError("matmul: no blocks to contract")
    return acc


def _qr_block(p: Dict[str, Any], inputs: Tuple[Any, ...], t: Any) -> Arrays:
    q, r = qr(_array(inputs, 0, "qr-block"))
    return Arrays({"q": q, "r": r})


def _qr_top(p: Dict[str, Any], inputs: Tuple[Any, ...], t: Any) -> Arrays:
    rs = [_bundle(inputs, i, "qr-top")["r"] for i in range(len(inputs))]
    n = rs[0].shape[1]
    for i, r in enumerate(rs):
        if r.shape != (n, n):
            raise ValueError(f"qr-top: R of block {i} is {list(r.shape)}, expected [{n}, {n}]")
    q2, r = qr(np.concatenate(rs, axis=0))
    out = {"q2": q2, "r": r}
    if p.get("svd") is True:
        out["u"], out["s"], out["vt"] = svd(r)
    return Arrays(out)


def _qr_combine(p: Dict[str, Any], inputs: Tuple[Any, ...], t: Any) -> np.ndarray:
    block = _bundle(inputs, 0, "qr-combine")
    top = _bundle(inputs, 1, "qr-combine")
    if "q" not in block:
        raise ValueError("qr-combine: the block bundle has no explicit q")
    n = top["r"].shape[0]
    i = int(p["index"])
    q2 = top["q2"][i * n:(i + 1) * n]
    inner = matmul2(q2, top["u"]) if p.get("svd") is True else q2
    return matmul2(block["q"], inner)


def _pick(p: Dict[str, Any], inputs: Tuple[Any, ...], t: Any) -> np.ndarray:
    b = _bundle(inputs, 0, "pick")
    name = str(p["name"])
    if name not in b:
        raise ValueError(f"pick: no array '{name}' in the input")
    return b[name]


# ---- rechunk and transpose (worker/kernels/arrays/register.ts) ----

DTYPES = {"float64": np.float64, "float32": np.float32, "int32": np.int32, "int64": np.int64}


def _assemble(p: Dict[str, Any], inputs: Tuple[Any, ...], t: Any) -> np.ndarray:
    """Copies each piece's region of its source block into a new block (zeros elsewhere)."""
    dtype = DTYPES.get(p["dtype"])
    if dtype is None:
        raise ValueError(f"assemble: unknown dtype {p['dtype']!r}")
    out = np.zeros([int(s) for s in p["shape"]], dtype=dtype)
    for piece in p["pieces"]:
        src = _array(inputs, int(piece["dep"]), "assemble")
        s_sl = tuple(slice(a, a + c) for a, c in zip(piece["srcStart"], piece["count"]))
        d_sl = tuple(slice(a, a + c) for a, c in zip(piece["dstStart"], piece["count"]))
        out[d_sl] = src[s_sl]
    return out


def _transpose(p: Dict[str, Any], inputs: Tuple[Any, ...], t: Any) -> np.ndarray:
    return np.ascontiguousarray(_array(inputs, 0, "transpose").T)


# ---- large-array summaries (worker/kernels/arrays/summary-handlers.ts) ----
# Partials are float64 arrays: stats = [min, max, sum, count], hist = counts per bin. Sums run
# left to right (np.cumsum is sequential), as the js loops, so the bits agree.


def _seq_sum(x: np.ndarray) -> float:
    return float(np.cumsum(x)[-1]) if x.size else 0.0


def _stats(p: Dict[str, Any], inputs: Tuple[Any, ...], t: Any) -> np.ndarray:
    x = _array(inputs, 0, "summary-stats").astype(np.float64).ravel()
    ok = x[~np.isnan(x)]  # NaN never wins min/max, but makes the sum NaN
    return np.array([ok.min() if ok.size else np.inf, ok.max() if ok.size else -np.inf, _seq_sum(x), float(x.size)])


def _stats_combine(p: Dict[str, Any], inputs: Tuple[Any, ...], t: Any) -> np.ndarray:
    out = np.array([np.inf, -np.inf, 0.0, 0.0])
    for i in range(len(inputs)):
        mn, mx, sm, c = _array(inputs, i, "summary-stats-combine")
        if mn < out[0]:
            out[0] = mn
        if mx > out[1]:
            out[1] = mx
        out[2] += sm
        out[3] += c
    return out


def _hist(p: Dict[str, Any], inputs: Tuple[Any, ...], t: Any) -> np.ndarray:
    x = _array(inputs, 0, "summary-hist").astype(np.float64).ravel()
    mn, mx = (float(v) for v in _array(inputs, 1, "summary-hist")[:2])
    bins = int(p["bins"])
    width = (mx - mn) / bins
    x = x[~np.isnan(x)]
    if width > 0:
        with np.errstate(all="ignore"):
            k = np.minimum(bins - 1, np.floor((x - mn) / width))
        k = k[np.isfinite(k) & (k >= 0)].astype(np.int64)  # js: other indices are not array slots
    else:
        k = np.zeros(x.size, np.int64)
    return np.bincount(k, minlength=bins)[:bins].astype(np.float64)


def _hist_combine(p: Dict[str, Any], inputs: Tuple[Any, ...], t: Any) -> np.ndarray:
    out = np.zeros(_array(inputs, 0, "summary-hist-combine").size)
    for i in range(len(inputs)):
        out = out + _array(inputs, i, "summary-hist-combine")
    return out


def _bundle_of(p: Dict[str, Any], inputs: Tuple[Any, ...], t: Any) -> Arrays:
    return Arrays({"stats": _array(inputs, 0, "summary-bundle"), "hist": _array(inputs, 1, "summary-bundle"), "corner": _array(inputs, 2, "summary-bundle")})


HANDLERS: Dict[str, Handler] = {
    "assemble": _assemble, "transpose": _transpose,
    "summary-stats": _stats, "summary-stats-combine": _stats_combine, "summary-hist": _hist,
    "summary-hist-combine": _hist_combine, "summary-bundle": _bundle_of,
    "matmul": _matmul, "qr-block": _qr_block, "qr-top": _qr_top, "qr-combine": _qr_combine, "pick": _pick,
    "npy-read": npy_read.handler,
    # histogram, percentile / quantile and top-k (numpy_ops.py, the numpy-handlers.ts port)
    **numpy_ops.HANDLERS}
