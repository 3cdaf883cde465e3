"""Column and row-range ops of one partition, as worker/kernels/df/ops.ts has them: select, drop,
rename, head, tail (head / tail of several partitions concatenate them first, as the local
kernel does: the compiler sends n rows of each partition, then n of their concatenation)."""
from __future__ import annotations

from typing import Dict, List, Sequence

import numpy as np

from .groupby import concat, take
from .values import Table


def _names(t: Table) -> List[str]:
    return [c.name for c in t.columns]


def require(t: Table, names: Sequence[str], where: str) -> None:
    """Every name is a column of `t` (the local kernels' message: op, column, the columns there are)."""
    for n in names:
        if n not in _names(t):
            raise ValueError(f"{where}: no column '{n}' (columns: {', '.join(_names(t))})")


def select(t: Table, names: Sequence[str]) -> Table:
    require(t, names, "select")
    return Table(t.rows, [t.column(n) for n in names])


def drop(t: Table, names: Sequence[str]) -> Table:
    require(t, names, "drop")
    return Table(t.rows, [c for c in t.columns if c.name not in names])


def rename(t: Table, mapping: Dict[str, str]) -> Table:
    require(t, list(mapping), "rename")
    cols = [type(c)(mapping.get(c.name, c.name), c.type, c.data, c.valid) for c in t.columns]
    seen = set()
    for c in cols:
        if c.name in seen:
            raise ValueError(f"rename: two columns would be named '{c.name}'")
        seen.add(c.name)
    return Table(t.rows, cols)


def rows(t: Table, start: int, stop: int) -> Table:
    """Rows [start, stop) of `t`."""
    idx = np.arange(start, max(start, stop))
    return Table(len(idx), [take(c, idx) for c in t.columns])


def slice_part(t: Table, part: int, parts: int) -> Table:
    """Part `part` of `parts` even row slices of `t` (repartition to more partitions, as rows.ts)."""
    if part >= parts:
        raise ValueError(f"df slice-part: part {part} of {parts} does not exist")
    return rows(t, (part * t.rows) // parts, ((part + 1) * t.rows) // parts)


def head(tables: Sequence[Table], n: int) -> Table:
    t = concat(tables)
    return rows(t, 0, min(t.rows, max(0, n)))


def tail(tables: Sequence[Table], n: int) -> Table:
    t = concat(tables)
    return rows(t, max(0, t.rows - max(0, n)), t.rows)
