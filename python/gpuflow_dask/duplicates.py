"""`drop-duplicates` on a worker, as worker/kernels/df/rows.ts: the gathered partitions' rows whose
values over the subset (default: every column) were not seen before (keep 'first') or are not
seen again (keep 'last'), in row order. Equality is the local kernel's factorize with nulls as a
value: a null and a float NaN are one "missing" value, 0.0 equals -0.0 (Python's == agrees)."""
from __future__ import annotations

from typing import Dict, Optional, Sequence, Tuple

import numpy as np

from .columns import require
from .groupby import concat, take
from .missing import missing_mask
from .values import Table


def drop_duplicates(tables: Sequence[Table], subset: Optional[Sequence[str]] = None, keep: str = "first") -> Table:
    t = concat(tables)
    names = list(subset) if subset else [c.name for c in t.columns]
    require(t, names, "drop_duplicates")
    cols = [t.column(n) for n in names]
    values = [list(c.data) if c.type == "utf8" else np.asarray(c.data).tolist() for c in cols]
    missing = [missing_mask(c).tolist() for c in cols]
    kept: Dict[Tuple, int] = {}
    for i in range(t.rows):
        key = tuple(None if m[i] else v[i] for v, m in zip(values, missing))
        if keep == "last" or key not in kept:
            kept[key] = i
    rows = np.array(sorted(kept.values()), dtype=np.int64)
    return Table(len(rows), [take(c, rows) for c in t.columns])
