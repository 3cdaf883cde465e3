"""Missing values of one partition, as worker/kernels/df/missing.ts has them (pandas' rules):
isna, fillna, dropna. A null, or a NaN in a float column, is missing. fillna rewrites every
column of the value's type, and the columns it rewrites come back as the local kernel builds
them (int -> int64 through float64, float -> float64, no nulls), so digests agree."""
from __future__ import annotations

from typing import Any, List, Optional, Sequence

import numpy as np

from .columns import require
from .groupby import take, value_type
from .values import Column, Table


def missing_mask(c: Column) -> np.ndarray:
    """True where row i of the column is missing."""
    n = len(c.data)
    miss = np.zeros(n, dtype=bool) if c.valid is None else ~np.asarray(c.valid, dtype=bool)
    if c.type in ("float32", "float64"):
        miss |= np.isnan(np.asarray(c.data, dtype=np.float64))
    elif c.type == "utf8":
        miss |= np.array([v is None for v in c.data], dtype=bool)
    return miss


def _subset(t: Table, subset: Optional[Sequence[str]], where: str) -> List[str]:
    if not subset:
        return [c.name for c in t.columns]
    require(t, subset, where)
    return list(subset)


def isna(t: Table, subset: Optional[Sequence[str]] = None) -> Table:
    return Table(t.rows, [Column(n, "bool", missing_mask(t.column(n))) for n in _subset(t, subset, "isna")])


def _fill(c: Column, value: Any) -> Optional[Column]:
    """The column with its missing values set to `value`, or None where it cannot hold it."""
    vt = value_type(c.type)
    miss = missing_mask(c)
    # bool before number: JSON's true is a Python int too.
    if isinstance(value, bool):
        if vt != "bool":
            return None
        return Column(c.name, "bool", np.where(miss, value, np.asarray(c.data, dtype=bool)))
    if isinstance(value, (int, float)):
        v = float(value)
        if vt in ("int", "float", "timestamp"):
            if vt == "int" and not v.is_integer():
                return None
            x = np.where(miss, v, np.asarray(c.data).astype(np.float64))
            if vt == "float":
                return Column(c.name, "float64", x)
            # intVector / timestampVector: trunc resp. round-half-up of the float64 values
            data = np.where(np.isfinite(x), np.trunc(x) if vt == "int" else np.floor(x + 0.5), 0).astype(np.int64)
            return Column(c.name, "int64" if vt == "int" else "timestamp[ms]", data)
        return None
    if isinstance(value, str):
        if vt != "string":
            return None
        return Column(c.name, "utf8", [value if m else s for s, m in zip(c.data, miss)])
    return None


def fillna(t: Table, value: Any, subset: Optional[Sequence[str]] = None) -> Table:
    only = _subset(t, subset, "fillna") if subset else None
    cols = []
    for c in t.columns:
        if only is not None and c.name not in only:
            cols.append(c)
            continue
        filled = _fill(c, value)
        if filled is None and only is not None:
            raise ValueError(f"fillna: column '{c.name}' ({value_type(c.type)}) cannot hold {value!r}")
        cols.append(filled if filled is not None else c)
    return Table(t.rows, cols)


def dropna(t: Table, subset: Optional[Sequence[str]] = None, how: str = "any", thresh: Optional[int] = None) -> Table:
    masks = [missing_mask(t.column(n)) for n in _subset(t, subset, "dropna")]
    count = np.sum(masks, axis=0) if masks else np.zeros(t.rows, dtype=np.int64)
    # pandas: thresh (rows need at least that many present values) takes the place of how.
    need = thresh if thresh is not None else (len(masks) if how == "any" else 1)
    keep = np.nonzero(len(masks) - count >= need)[0]
    return Table(len(keep), [take(c, keep) for c in t.columns])
