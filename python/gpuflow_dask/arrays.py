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

from . import capi
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


HANDLERS: Dict[str, Handler] = {"matmul": _matmul, "qr-block": _qr_block, "qr-top": _qr_top, "qr-combine": _qr_combine, "pick": _pick}
