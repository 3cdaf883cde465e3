"""sort on a worker, as worker/kernels/df/sort.ts and range-sort.ts: stable, nulls and NaN last
whatever the direction. One partition: `sort` of the gathered rows. Several: sample ->
splitters -> range-split -> sort-part, where a row goes to the part numbered by how many
splitters are <= it, so equal keys share a part and the parts, concatenated, are the stable sort
of the whole frame. That result does not depend on which splitters are chosen, so the samples
and splitters here need not be the local kernel's; a range-split's parts stay a Python list of
tables (only sort-part's output leaves the cluster)."""
from __future__ import annotations

from typing import Any, List, Sequence, Union

import numpy as np

from .columns import require
from .groupby import concat, sort_rows, take
from .values import Table

Ascending = Union[bool, Sequence[bool], None]


def _asc(by: Sequence[str], ascending: Ascending) -> List[bool]:
    if ascending is None or isinstance(ascending, bool):
        return [ascending is not False] * len(by)
    return [bool(a) for a in ascending]


def _rows(t: Table, idx: np.ndarray) -> Table:
    return Table(len(idx), [take(c, idx) for c in t.columns])


def sort_table(tables: Sequence[Table], by: Sequence[str], ascending: Ascending = None) -> Table:
    t = concat(tables)
    require(t, by, "sort")
    return _rows(t, sort_rows(t, by, _asc(by, ascending)))


def sample(t: Table, by: Sequence[str], count: int) -> Table:
    """Up to `count` key rows of the partition, evenly spaced."""
    require(t, by, "sort")
    keys = Table(t.rows, [t.column(n) for n in by])
    if t.rows <= count:
        return keys
    return _rows(keys, np.linspace(0, t.rows - 1, count).round().astype(np.int64))


def splitters(samples: Sequence[Table], by: Sequence[str], ascending: Ascending, parts: int) -> Table:
    """parts - 1 key rows cutting the sorted samples evenly."""
    s = sort_table(samples, by, ascending)
    if s.rows == 0 or parts < 2:
        return _rows(s, np.zeros(0, np.int64))
    at = [min(s.rows - 1, (i * s.rows) // parts) for i in range(1, parts)]
    return _rows(s, np.array(at, np.int64))


def range_split(t: Table, cuts: Table, by: Sequence[str], ascending: Ascending, parts: int) -> List[Table]:
    """The partition's rows by output part (stable within each)."""
    require(t, by, "sort")
    keys = Table(t.rows, [t.column(n) for n in by])
    both = concat([cuts, keys])
    order = sort_rows(both, by, _asc(by, ascending))
    # Stable: a splitter comes before the rows equal to it, so a row counts the splitters <= it.
    is_cut = order < cuts.rows
    part_in_order = np.cumsum(is_cut)[~is_cut]
    row_in_order = order[~is_cut] - cuts.rows
    part = np.empty(t.rows, np.int64)
    part[row_in_order] = part_in_order
    return [_rows(t, np.nonzero(part == p)[0]) for p in range(parts)]


def sort_part(splits: Sequence[Any], p: int, by: Sequence[str], ascending: Ascending) -> Table:
    return sort_table([s[p] for s in splits], by, ascending)
