"""The dataframe `shift` task (shift and diff), a port of worker/kernels/df/scan.ts's shift.

A partition is shifted with the rows it needs from its neighbours (the tails of the earlier
partitions for periods > 0, the heads of the later ones for periods < 0): row i takes row
i - periods of [neighbours..., own] (or [own, neighbours...]), a null where there is none, in
the column's own type. diff subtracts that from the row in float64, null where either side is
missing (a null or NaN). Columns are replaced, or added with `suffix`.
"""
from __future__ import annotations

from typing import Any, Dict, List, Sequence

import numpy as np

from .columns import require
from .groupby import concat
from .join import _take as take_or_null
from .missing import missing_mask
from .values import Column, Table

NUMERIC = ("int32", "int64", "float32", "float64")


def shift(tables: Sequence[Table], spec: Dict[str, Any]) -> Table:
    p = int(spec["periods"])
    own, context = (tables[0], tables[1:]) if p < 0 else (tables[-1], tables[:-1])
    names: List[str] = list(spec["columns"])
    diff = bool(spec.get("diff"))
    require(own, names, "diff" if diff else "shift")
    near = [t for t in context if t.rows > 0]
    extra = concat(near) if near else None
    n = own.rows
    made: Dict[str, Column] = {}
    for name in names:
        v = own.column(name)
        cols = [v] if extra is None else ([extra.column(name), v] if p > 0 else [v, extra.column(name)])
        all_rows = concat([Table(len(c.data), [c]) for c in cols]).columns[0] if len(cols) > 1 else v
        base = len(extra.column(name).data) if extra is not None and p > 0 else 0
        k = base + np.arange(n, dtype=np.int64) - p
        idx = np.where((k >= 0) & (k < len(all_rows.data)), k, -1)
        shifted = take_or_null(all_rows, idx, name)
        if not diff:
            made[name] = shifted
            continue
        if v.type not in NUMERIC:
            raise ValueError(f"diff: column '{name}' is {v.type}, not a number")
        cur = np.asarray(v.data, dtype=np.float64)
        prev = np.asarray(shifted.data, dtype=np.float64)
        ok = ~missing_mask(v) & ~missing_mask(shifted)
        out = np.where(ok, cur - np.where(ok, prev, 0.0), 0.0)
        made[name] = Column(name, "float64", out, None if ok.all() else ok)
    suffix = spec.get("suffix")
    if suffix:
        cols_out = list(own.columns) + [Column(name + suffix, c.type, c.data, c.valid) for name, c in made.items()]
    else:
        cols_out = [made.get(c.name, c) for c in own.columns]
    return Table(n, cols_out)
