"""describe, quantile and nunique on a worker, as worker/kernels/df/describe.ts (pandas' rules):
over the gathered partitions, missing values (null, NaN) left out, quantiles interpolated
linearly. The sums run in the local kernel's order (sequentially over the sorted values:
np.cumsum, not np.sum's pairwise order), so the numbers are the same bits."""
from __future__ import annotations

from typing import List, Optional, Sequence

import numpy as np

from .columns import require
from .groupby import concat
from .missing import missing_mask
from .values import Column, Table

NUMERIC = ("int32", "int64", "float32", "float64")
DEFAULT_PERCENTILES = [0.25, 0.5, 0.75]


def quantile_of(s: np.ndarray, q: float) -> float:
    n = len(s)
    if n == 0:
        return float("nan")
    pos = (n - 1) * q
    lo = int(np.floor(pos))
    hi = min(lo + 1, n - 1)
    return float(s[lo] + (s[hi] - s[lo]) * (pos - lo))


def percentile_name(p: float) -> str:
    """pandas' row name of a percentile, as JavaScript prints Number((p * 100).toFixed(8))."""
    v = float(f"{p * 100:.8f}")
    return f"{int(v) if v.is_integer() else repr(v)}%"


def _numeric(t: Table, where: str) -> List[Column]:
    cols = [c for c in t.columns if c.type in NUMERIC]
    if not cols:
        raise ValueError(f"{where}: no numeric columns among {', '.join(c.name for c in t.columns)}")
    return cols


def _sorted_present(c: Column) -> np.ndarray:
    x = np.asarray(c.data).astype(np.float64)
    return np.sort(x[~missing_mask(c)], kind="stable")


def _floats(name: str, values: Sequence[float]) -> Column:
    v = np.array(values, dtype=np.float64)
    return Column(name, "float64", v, ~np.isnan(v))


def describe(tables: Sequence[Table], percentiles: Optional[Sequence[float]] = None) -> Table:
    ps = sorted(set(list(percentiles if percentiles is not None else DEFAULT_PERCENTILES) + [0.5]))
    for p in ps:
        if not 0 <= p <= 1:
            raise ValueError(f"describe: percentile {p} is outside [0, 1]")
    t = concat(tables)
    names = ["count", "mean", "std", "min", *[percentile_name(p) for p in ps], "max"]
    out = [Column("stat", "utf8", names)]
    for c in _numeric(t, "describe"):
        s = _sorted_present(c)
        n = len(s)
        mean = float(np.cumsum(s)[-1]) / n if n else float("nan")
        m2 = float(np.cumsum((s - mean) * (s - mean))[-1]) if n else 0.0
        std = float(np.sqrt(m2 / (n - 1))) if n > 1 else float("nan")
        lo, hi = (float(s[0]), float(s[-1])) if n else (float("nan"), float("nan"))
        out.append(_floats(c.name, [n, mean, std, lo, *[quantile_of(s, p) for p in ps], hi]))
    return Table(len(names), out)


def quantile(tables: Sequence[Table], qs: Sequence[float]) -> Table:
    for q in qs:
        if not 0 <= q <= 1:
            raise ValueError(f"quantile: q {q} is outside [0, 1]")
    t = concat(tables)
    out = [Column("q", "float64", np.array(qs, dtype=np.float64))]
    for c in _numeric(t, "quantile"):
        s = _sorted_present(c)
        out.append(_floats(c.name, [quantile_of(s, q) for q in qs]))
    return Table(len(qs), out)


def nunique(tables: Sequence[Table], columns: Optional[Sequence[str]] = None) -> Table:
    t = concat(tables)
    names = list(columns) if columns else [c.name for c in t.columns]
    require(t, names, "nunique")
    counts = []
    for n in names:
        c = t.column(n)
        present = ~missing_mask(c)
        values = list(c.data) if c.type == "utf8" else np.asarray(c.data).tolist()
        counts.append(len({v for v, ok in zip(values, present) if ok}))
    return Table(len(names), [Column("column", "utf8", names), Column("nunique", "int64", np.array(counts, dtype=np.int64))])
