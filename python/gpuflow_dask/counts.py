"""value_counts on a worker, as worker/kernels/df/rows.ts: per partition a groupby size partial,
merged by groupby-combine, then aggregated into [column, 'count'] ordered most frequent first,
ties by value (nulls dropped, as pandas does)."""
from __future__ import annotations

from typing import Sequence

from . import groupby
from .values import Table


def chunk(t: Table, column: str) -> Table:
    return groupby.chunk(t, {"by": [column], "aggs": [{"agg": "size"}]})


def aggregate(partials: Sequence[Table], column: str) -> Table:
    t = groupby.aggregate(partials, {"by": [column], "aggs": [{"agg": "size", "as": "count"}]})
    order = groupby.sort_rows(t, ["count", column], [False, True])
    return Table(t.rows, [groupby.take(c, order) for c in t.columns])
