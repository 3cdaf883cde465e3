"""Row-order scans of a partitioned frame (cumsum / cumprod / cummax / cummin, ffill / bfill): a
port of worker/kernels/df/scan.ts's scan-carry and scan, so a Dask run gives the local digest.

Each partition's carry is one row: for the cum ops its running aggregate (float64, null where
the partition has no present value), for the fills its last (ffill) or first (bfill) present
value. A partition's scan folds the carries it is given, then its rows; as pandas (skipna), a
missing value (null, NaN) stays missing and does not stop the running value. A cum op's running
value restarts at the next present value where it has become NaN (inf - inf), as the js loop's
`acc !== acc` test does. Int columns give int64 (truncated), others float64.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Dict, List, Sequence, Tuple

import numpy as np

from .columns import require
from .groupby import concat
from .join import _take as take_or_null
from .missing import missing_mask
from .values import Column, Table

STEP: Dict[str, Callable[[float, float], float]] = {
    "cumsum": lambda a, x: a + x,
    "cumprod": lambda a, x: a * x,
    "cummax": lambda a, x: x if x > a else a,
    "cummin": lambda a, x: x if x < a else a,
}
INTS = ("int32", "int64")


def _present(c: Column, where: str) -> Tuple[List[float], List[bool]]:
    if c.type not in INTS + ("float32", "float64"):
        raise ValueError(f"{where}: column '{c.name}' is {c.type}, not a number")
    return np.asarray(c.data, dtype=np.float64).tolist(), missing_mask(c).tolist()


def _fold(acc: float, x: float, step: Callable[[float, float], float]) -> float:
    with np.errstate(all="ignore"):
        return x if math.isnan(acc) else step(acc, x)


def _with(own: Table, made: Dict[str, Column], suffix: str) -> Table:
    if suffix:
        return Table(own.rows, list(own.columns) + [Column(n + suffix, c.type, c.data, c.valid) for n, c in made.items()])
    return Table(own.rows, [made.get(c.name, c) for c in own.columns])


def _column(c: Column, name: str, values: List[float], ok: List[bool], as_int: bool) -> Column:
    v = np.array(values, dtype=np.float64)
    valid = np.array(ok, dtype=bool)
    mask = None if valid.all() else valid
    if as_int:
        return Column(name, "int64", np.trunc(np.where(np.isfinite(v), v, 0.0)).astype(np.int64), mask)
    return Column(name, "float64", v, mask)


def scan_carry(t: Table, spec: Dict[str, Any]) -> Table:
    op, names = spec["op"], list(spec["columns"])
    where = f"{op} (carry)"
    require(t, names, where)
    cols = []
    for name in names:
        c = t.column(name)
        if op in STEP:
            x, miss = _present(c, where)
            acc = math.nan
            for xi, m in zip(x, miss):
                if not m:
                    acc = _fold(acc, xi, STEP[op])
            cols.append(_column(c, name, [acc], [not math.isnan(acc)], False))
            continue
        miss = missing_mask(c).tolist()
        at = next((i for i in (range(len(miss) - 1, -1, -1) if op == "ffill" else range(len(miss))) if not miss[i]), -1)
        cols.append(take_or_null(c, np.array([at], dtype=np.int64), name))
    return Table(1, cols)


def scan(tables: Sequence[Table], spec: Dict[str, Any]) -> Table:
    op, names = spec["op"], list(spec["columns"])
    # Inputs: the carries before the partition, then it (bfill: the partition, then later carries).
    own, carries = (tables[0], tables[1:]) if op == "bfill" else (tables[-1], tables[:-1])
    ctx = [c for c in carries if c.rows > 0]
    require(own, names, op)
    made: Dict[str, Column] = {}
    for name in names:
        c = own.column(name)
        if op in STEP:
            x, miss = _present(c, op)
            acc = math.nan
            for carry in ctx:
                cx, cm = _present(carry.column(name), op)
                if not cm[0]:
                    acc = _fold(acc, cx[0], STEP[op])
            out, ok = [0.0] * len(x), [False] * len(x)
            for i, (xi, m) in enumerate(zip(x, miss)):
                if m:
                    continue
                acc = _fold(acc, xi, STEP[op])
                out[i], ok[i] = acc, True
            made[name] = _column(c, name, out, ok, c.type in INTS)
            continue
        forward = op == "ffill"
        parts = [carry.column(name) for carry in ctx]
        parts = parts + [c] if forward else [c] + parts
        whole = concat([Table(len(p.data), [p]) for p in parts]).columns[0] if len(parts) > 1 else c
        miss = missing_mask(whole).tolist()
        n = own.rows
        lead = len(miss) - n if forward else 0
        idx = [0] * n
        last = -1
        if forward:
            for k in range(lead):
                if not miss[k]:
                    last = k
            for i in range(n):
                last = last if miss[lead + i] else lead + i
                idx[i] = last
        else:
            for k in range(len(miss) - 1, n - 1, -1):
                if not miss[k]:
                    last = k
            for i in range(n - 1, -1, -1):
                last = last if miss[i] else i
                idx[i] = last
        made[name] = take_or_null(whole, np.array(idx, dtype=np.int64), name)
    return _with(own, made, spec.get("suffix") or "")
