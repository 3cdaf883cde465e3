"""dask.datasets.timeseries as worker/kernels/df/timeseries.ts generates it, vectorised.

Row r uses Philox block 2r (name from U(w0, w1), x from U(w2, w3)) and block 2r+1 (id from the
normal quantile of U(w0, w1), y from U(w2, w3)) of the seed's uniform stream, so the columns
are bit-identical to the js generator's (the quantile's log in the rare tails may differ in the
last bit, which the integer rounding of id absorbs).
"""
from __future__ import annotations

import math
from typing import Dict, Optional, Sequence

import numpy as np

from .philox import philox, seed_key, uniform64
from .values import Column, Table

NAMES = ["Alice", "Bob", "Charlie", "Dan", "Edith", "Frank", "George", "Hannah", "Ingrid", "Jerry", "Kevin", "Laura", "Michael",
         "Norbert", "Oliver", "Patricia", "Quinn", "Ray", "Sarah", "Tim", "Ursula", "Victor", "Wendy", "Xavier", "Yvonne", "Zelda"]
COLUMNS = ["timestamp", "id", "name", "x", "y"]
START_MS = 946684800000  # 2000-01-01T00:00:00Z
SQRT_1000 = math.sqrt(1000)
ALMOST_ONE = 1 - 2.0**-53

_A = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239]
_B = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1]
_C = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783]
_D = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416]


def normal_quantile(p: np.ndarray) -> np.ndarray:
    """Acklam's inverse normal CDF, with the js reference's operation order."""
    a, b, c, d = _A, _B, _C, _D
    lo = 0.02425
    with np.errstate(all="ignore"):
        q = p - 0.5
        r = q * q
        mid = ((((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q) / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
        ql = np.sqrt(-2 * np.log(p))
        low = (((((c[0] * ql + c[1]) * ql + c[2]) * ql + c[3]) * ql + c[4]) * ql + c[5]) / ((((d[0] * ql + d[1]) * ql + d[2]) * ql + d[3]) * ql + 1)
        qh = np.sqrt(-2 * np.log(1 - p))
        high = -(((((c[0] * qh + c[1]) * qh + c[2]) * qh + c[3]) * qh + c[4]) * qh + c[5]) / ((((d[0] * qh + d[1]) * qh + d[2]) * qh + d[3]) * qh + 1)
    return np.where(p < lo, low, np.where(p > 1 - lo, high, mid))


def generate(seed: int, row_start: int, row_count: int, start_ms: Optional[float] = None, freq_ms: Optional[float] = None,
             columns: Optional[Sequence[str]] = None) -> Dict[str, np.ndarray]:
    """The raw columns: name as codes into NAMES (int32), id int32, x/y float64, timestamp int64 ms."""
    if row_start < 0 or row_count < 0 or row_start + row_count > 2**50:
        raise ValueError(f"timeseries: rows [{row_start}, {row_start + row_count}) are not addressable")
    want = list(columns) if columns is not None else COLUMNS
    for c in want:
        if c not in COLUMNS:
            raise ValueError(f"timeseries: unknown column '{c}'; columns are {', '.join(COLUMNS)}")
    k0, k1 = seed_key(seed)
    rows = np.arange(row_start, row_start + row_count, dtype=np.uint64)
    out: Dict[str, np.ndarray] = {}
    if "name" in want or "x" in want:
        w0, w1, w2, w3 = philox(rows * np.uint64(2), k0, k1)
        if "name" in want:
            k = np.floor(uniform64(w0, w1) * len(NAMES)).astype(np.int32)
            out["name"] = np.minimum(k, len(NAMES) - 1)
        if "x" in want:
            out["x"] = -1 + 2 * uniform64(w2, w3)
    if "id" in want or "y" in want:
        w0, w1, w2, w3 = philox(rows * np.uint64(2) + np.uint64(1), k0, k1)
        if "id" in want:
            v = 1000 + SQRT_1000 * normal_quantile(np.minimum(uniform64(w0, w1), ALMOST_ONE))
            out["id"] = np.floor(v + 0.5).astype(np.int32)  # Math.round: halves round up
        if "y" in want:
            out["y"] = -1 + 2 * uniform64(w2, w3)
    if "timestamp" in want:
        s = int(START_MS if start_ms is None else start_ms)
        f = int(1000 if freq_ms is None else freq_ms)
        out["timestamp"] = s + np.arange(row_start, row_start + row_count, dtype=np.int64) * f
    return out


def table(seed: int, partition: int, rows: int, start_ms: Optional[float] = None, freq_ms: Optional[float] = None,
          columns: Optional[Sequence[str]] = None) -> Table:
    """Partition `partition` of `rows` rows as a Table, columns in the standard order."""
    raw = generate(seed, partition * rows, rows, start_ms, freq_ms, columns)
    types = {"timestamp": "timestamp[ms]", "id": "int32", "name": "utf8", "x": "float64", "y": "float64"}
    cols = []
    for c in COLUMNS:
        if c in raw:
            data = np.array(NAMES, dtype=object)[raw[c]] if c == "name" else raw[c]
            cols.append(Column(c, types[c], data))
    return Table(rows, cols)
