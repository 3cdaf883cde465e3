"""rolling, resample-bin, resample-fill and pivot on a worker, as worker/kernels/df/window.ts and
resample.ts.

rolling: the task gets the tails of the earlier partitions, then its own partition; a window is a
row and the window - 1 before it; missing (null or NaN) values are left out; a window gives null
until it holds min_periods present values (count: min_periods rows, present or not). The stats are
the local loops' (sequential sums, mean s / n, variance from the mean with n - 1, Math.min / max
with -0 below 0), so the bits agree.

resample-bin replaces the `on` column by floor(t / period) * period; resample-fill adds the empty
bins between the first and last of a groupby result sorted by bin (0 for the `zero` columns, null
for the others); integer columns come back int64, as intVector builds them.
"""
from __future__ import annotations

import math
from typing import Any, Dict, List, Sequence

import numpy as np

from .jsnum import js_string
from .groupby import concat
from .missing import missing_mask
from .values import Column, Table


def _min(xs: List[float]) -> float:
    m = xs[0]
    for x in xs[1:]:
        if x < m or (x == 0 and m == 0 and math.copysign(1, x) < 0):
            m = x
    return m


def _max(xs: List[float]) -> float:
    m = xs[0]
    for x in xs[1:]:
        if x > m or (x == 0 and m == 0 and math.copysign(1, x) > 0):
            m = x
    return m


def _stat(xs: List[float], agg: str) -> float:
    n = len(xs)
    if agg == "count":
        return float(n)
    if agg == "min":
        return _min(xs)
    if agg == "max":
        return _max(xs)
    s = 0.0
    for x in xs:
        s += x
    if agg == "sum":
        return s
    mean = s / n
    if agg == "mean":
        return mean
    if n < 2:
        return math.nan
    m2 = 0.0
    for x in xs:
        m2 += (x - mean) * (x - mean)
    return m2 / (n - 1) if agg == "var" else math.sqrt(m2 / (n - 1))


def _present(c: Column) -> List[Any]:
    miss = missing_mask(c).tolist()
    return [None if m else float(v) for v, m in zip(np.asarray(c.data, dtype=np.float64).tolist(), miss)]


def rolling(tables: Sequence[Table], spec: Dict[str, Any]) -> Table:
    *before, own = tables
    w = int(spec["window"])
    if w < 1:
        raise ValueError(f"rolling: window must be a whole number >= 1, got {w}")
    min_p = spec.get("minPeriods")
    min_p = w if min_p is None else int(min_p)
    prev = [t for t in before if t.rows > 0]
    lead = concat(prev) if prev else None
    k = min(w - 1, lead.rows) if lead is not None else 0
    out = list(own.columns)
    for c in spec["cols"]:
        head = _present(lead.column(c["column"]))[lead.rows - k:] if lead is not None and k > 0 else []
        vals = head + _present(own.column(c["column"]))
        res = np.zeros(own.rows, dtype=np.float64)
        valid = np.zeros(own.rows, dtype=bool)
        for i in range(own.rows):
            end = k + i
            start = max(0, end - w + 1)
            xs = [x for x in vals[start:end + 1] if x is not None]
            seen = end - start + 1 if c["agg"] == "count" else len(xs)
            if seen >= min_p and (c["agg"] == "count" or xs):
                res[i] = _stat(xs, c["agg"])
                valid[i] = not math.isnan(res[i])
        col = Column(c["as"], "float64", res, None if valid.all() else valid)
        at = next((j for j, o in enumerate(out) if o.name == c["as"]), -1)
        if at >= 0:
            out[at] = col
        else:
            out.append(col)
    return Table(own.rows, out)


def resample_bin(t: Table, on: str, period: int) -> Table:
    c = t.column(on)
    x = np.asarray(c.data).astype(np.float64)
    bins = np.floor(x / period) * period
    col = Column(on, "timestamp[ms]", np.where(np.isfinite(bins), np.round(bins), 0).astype(np.int64), c.valid)
    return Table(t.rows, [col if o.name == on else o for o in t.columns])


def resample_fill(g: Table, on: str, period: int, zero: Sequence[str]) -> Table:
    n = g.rows
    if n == 0:
        return g
    key = np.asarray(g.column(on).data).astype(np.float64)
    first = key[0]
    count = int(round((key[-1] - first) / period)) + 1
    slot = np.array([int(round((k - first) / period)) for k in key.tolist()], dtype=np.int64)
    bins = first + np.arange(count, dtype=np.float64) * period
    out = [Column(on, "timestamp[ms]", np.round(bins).astype(np.int64))]
    for c in g.columns:
        if c.name == on:
            continue
        vals = np.zeros(count, dtype=np.float64)
        valid = np.full(count, c.name in zero, dtype=bool)
        vals[slot] = np.asarray(c.data).astype(np.float64)
        valid[slot] = True if c.valid is None else np.asarray(c.valid, dtype=bool)
        if c.type in ("int32", "int64"):
            data: Any = np.where(np.isfinite(vals), np.trunc(vals), 0).astype(np.int64)
            typ = "int64"
        elif c.type.startswith("timestamp"):
            data, typ = np.where(np.isfinite(vals), np.round(vals), 0).astype(np.int64), c.type
        else:
            data, typ = vals, "float64"
        out.append(Column(c.name, typ, data, None if valid.all() else valid))
    return Table(count, out)


def _js_name(c: Any) -> str:
    """String(c) in JavaScript for a category from the workflow's JSON."""
    if isinstance(c, str):
        return c
    if isinstance(c, bool):
        return "true" if c else "false"
    return js_string(c)


def pivot(g: Table, spec: Dict[str, Any]) -> Table:
    """pivot_table's last step (window.ts pivot): one row per present index value, sorted by it,
    one float64 column per category; a missing combination is null."""
    from .sorting import sort_table

    idx_col, cat_col, val_col = g.column(spec["index"]), g.column(spec["columns"]), g.column(spec["values"])
    cats = list(spec["categories"])
    idx_miss = missing_mask(idx_col).tolist()
    idx_vals = list(idx_col.data) if idx_col.type == "utf8" else [float(v) + 0.0 for v in np.asarray(idx_col.data, dtype=np.float64).tolist()]
    group: Dict[Any, int] = {}
    first: List[int] = []
    ids = []
    for i, (v, m) in enumerate(zip(idx_vals, idx_miss)):
        if m:
            ids.append(-1)
            continue
        if v not in group:
            group[v] = len(first)
            first.append(i)
        ids.append(group[v])
    if cat_col.type == "utf8":
        labels: List[Any] = [None if v is None else v for v in cat_col.data]
        where = {c: k for k, c in enumerate(cats)}
    else:
        labels = [float(v) for v in np.asarray(cat_col.data, dtype=np.float64).tolist()]
        where = {float(c): k for k, c in enumerate(cats)}
    if cat_col.valid is not None:
        labels = [v if ok else None for v, ok in zip(labels, np.asarray(cat_col.valid, dtype=bool).tolist())]
    groups = len(first)
    out_v = [np.zeros(groups, dtype=np.float64) for _ in cats]
    out_ok = [np.zeros(groups, dtype=bool) for _ in cats]
    values = np.asarray(val_col.data, dtype=np.float64)
    vvalid = None if val_col.valid is None else np.asarray(val_col.valid, dtype=bool)
    for i, gid in enumerate(ids):
        if gid < 0 or labels[i] is None:
            continue
        k = where.get(labels[i])
        if k is None or (vvalid is not None and not vvalid[i]):
            continue
        out_v[k][gid] = values[i]
        out_ok[k][gid] = not math.isnan(values[i])
    rows = np.array(first, dtype=np.int64)
    keys = Column(idx_col.name, idx_col.type, np.asarray(idx_col.data, dtype=object)[rows].tolist() if idx_col.type == "utf8" else np.asarray(idx_col.data)[rows],
                  None if idx_col.valid is None else np.asarray(idx_col.valid, dtype=bool)[rows])
    cols = [keys] + [Column(_js_name(c), "float64", out_v[k], None if out_ok[k].all() else out_ok[k]) for k, c in enumerate(cats)]
    return sort_table([Table(groups, cols)], [spec["index"]])
