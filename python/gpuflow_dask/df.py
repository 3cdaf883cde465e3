"""`df` task handlers (worker/kernels/df/task-ops.ts): timeseries, read-csv, filter (the subset
main/dask/supported.ts admits), the fused timeseries + groupby chunk, groupby chunk / combine /
aggregate, select / drop / rename / head / tail / concat (columns.py), isna / fillna / dropna
(missing.py), from-array (from_array.py), value_counts (counts.py), drop-duplicates
(duplicates.py), sort and the sampling sort's steps (sorting.py), describe / quantile / nunique
(summaries.py). Any other op is `unsupported-op` (execute.py), never a wrong answer."""
from __future__ import annotations

from typing import Any, Callable, Dict, Tuple

from . import columns, counts, groupby, missing, scan, shift, sorting, summaries, timeseries
from .duplicates import drop_duplicates
from .from_array import from_array
from .csv_read import read_csv
from .iso_time import IsoUnsupported
from .filter_expr import FilterUnsupported, filter_table
from .join import broadcast_join, join
from .map_values import map_values
from .shuffle import gather_part, hash_split
from . import window
from .assign_expr import assign
from .errors import unsupported
from .values import Table

Handler = Callable[[Dict[str, Any], Tuple[Any, ...], Any], Any]


def _tables(inputs: Tuple[Any, ...], op: str) -> list:
    for i, v in enumerate(inputs):
        if not isinstance(v, Table):
            raise TypeError(f"df {op}: input {i} is a {type(v).__name__}, expected a dataframe partition")
    return list(inputs)


def _guard(fn: Callable[..., Any], what: str, t: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except groupby.Unsupported as e:
        raise unsupported(f"df {what}: {e}", t.key, t.node) from None


def _timeseries(p: Dict[str, Any], inputs: Tuple[Any, ...], t: Any) -> Table:
    return timeseries.table(int(p["seed"]), int(p["partition"]), int(p["rows"]), p.get("startMs"), p.get("freqMs"), p.get("columns"))


def _ts_groupby_chunk(p: Dict[str, Any], inputs: Tuple[Any, ...], t: Any) -> Table:
    src, spec = p["source"], p["spec"]
    used = set(spec["by"]) | {a["column"] for a in spec["aggs"] if a.get("column")}
    cols = [c for c in timeseries.COLUMNS if c in used]
    part = timeseries.table(int(src["seed"]), int(src["partition"]), int(src["rows"]), src.get("startMs"), src.get("freqMs"), cols)
    return _guard(groupby.chunk, "timeseries-groupby-chunk", t, part, spec)


def _read_csv(p: Dict[str, Any], t: Any) -> Table:
    try:
        return read_csv(p)
    except IsoUnsupported as e:
        raise unsupported(f"read_csv: {e}", t.key, t.node) from None


def _filter(p: Dict[str, Any], inputs: Tuple[Any, ...], t: Any) -> Table:
    try:
        return filter_table(_tables(inputs, "filter")[0], p["ast"])
    except FilterUnsupported as e:
        raise unsupported(str(e), t.key, t.node) from None


HANDLERS: Dict[str, Handler] = {
    "timeseries": _timeseries,
    "timeseries-groupby-chunk": _ts_groupby_chunk,
    "read-csv": lambda p, i, t: _read_csv(p, t),
    "filter": _filter,
    "assign": lambda p, i, t: assign(_tables(i, "assign")[0], p["asts"]),
    "join": lambda p, i, t: join(*_tables(i, "join")[:2], p["spec"]),
    "pivot": lambda p, i, t: window.pivot(_tables(i, "pivot")[0], p),
    "rolling": lambda p, i, t: window.rolling(_tables(i, "rolling"), p),
    "resample-bin": lambda p, i, t: window.resample_bin(_tables(i, "resample-bin")[0], p["on"], int(p["periodMs"])),
    "resample-fill": lambda p, i, t: window.resample_fill(_tables(i, "resample-fill")[0], p["on"], int(p["periodMs"]), p["zero"]),
    "hash-split": lambda p, i, t: hash_split(_tables(i, "hash-split")[0], p["keys"], int(p["k"])),
    "gather-part": lambda p, i, t: gather_part(i, int(p["part"])),
    "broadcast-join": lambda p, i, t: broadcast_join(*_tables(i, "broadcast-join")[:2], p["spec"]),
    "groupby-chunk": lambda p, i, t: _guard(groupby.chunk, "groupby-chunk", t, _tables(i, "groupby-chunk")[0], p["spec"]),
    "groupby-combine": lambda p, i, t: _guard(groupby.combine, "groupby-combine", t, _tables(i, "groupby-combine"), p["spec"]),
    "groupby-aggregate": lambda p, i, t: _guard(groupby.aggregate, "groupby-aggregate", t, _tables(i, "groupby-aggregate"), p["spec"]),
    "select": lambda p, i, t: columns.select(_tables(i, "select")[0], p["columns"]),
    "drop": lambda p, i, t: columns.drop(_tables(i, "drop")[0], p["columns"]),
    "rename": lambda p, i, t: columns.rename(_tables(i, "rename")[0], p["mapping"]),
    "head": lambda p, i, t: columns.head(_tables(i, "head"), int(p["n"])),
    "shift": lambda p, i, t: shift.shift(_tables(i, "shift"), p),
    "map-values": lambda p, i, t: map_values(_tables(i, "map-values")[0], p),
    "scan-carry": lambda p, i, t: scan.scan_carry(_tables(i, "scan-carry")[0], p),
    "scan": lambda p, i, t: scan.scan(_tables(i, "scan"), p),
    "slice-part": lambda p, i, t: columns.slice_part(_tables(i, "slice-part")[0], int(p["part"]), int(p["parts"])),
    "tail": lambda p, i, t: columns.tail(_tables(i, "tail"), int(p["n"])),
    "concat": lambda p, i, t: groupby.concat(_tables(i, "concat")),
    "isna": lambda p, i, t: missing.isna(_tables(i, "isna")[0], p.get("columns")),
    "fillna": lambda p, i, t: missing.fillna(_tables(i, "fillna")[0], p["value"], p.get("columns")),
    "dropna": lambda p, i, t: missing.dropna(_tables(i, "dropna")[0], p.get("subset"), p.get("how") or "any", None if p.get("thresh") is None else int(p["thresh"])),
    "from-array": lambda p, i, t: from_array(i[0], p.get("columns")),
    "drop-duplicates": lambda p, i, t: drop_duplicates(_tables(i, "drop-duplicates"), p.get("subset"), p.get("keep") or "first"),
    "sort": lambda p, i, t: sorting.sort_table(_tables(i, "sort"), p["by"], p.get("ascending")),
    "sort-sample": lambda p, i, t: sorting.sample(_tables(i, "sort-sample")[0], p["by"], int(p["count"])),
    "sort-splitters": lambda p, i, t: sorting.splitters(_tables(i, "sort-splitters"), p["by"], p.get("ascending"), int(p["parts"])),
    "range-split": lambda p, i, t: sorting.range_split(_tables(i, "range-split")[0], _tables(i, "range-split")[1], p["by"], p.get("ascending"), int(p.get("parts") or 1)),
    "sort-part": lambda p, i, t: sorting.sort_part(i, int(p["part"]), p["by"], p.get("ascending")),
    "describe": lambda p, i, t: summaries.describe(_tables(i, "describe"), p.get("percentiles")),
    "quantile": lambda p, i, t: summaries.quantile(_tables(i, "quantile"), p["q"]),
    "nunique": lambda p, i, t: summaries.nunique(_tables(i, "nunique"), p.get("columns")),
    "value-counts-chunk": lambda p, i, t: _guard(counts.chunk, "value-counts-chunk", t, _tables(i, "value-counts-chunk")[0], p["column"]),
    "value-counts-aggregate": lambda p, i, t: _guard(counts.aggregate, "value-counts-aggregate", t, _tables(i, "value-counts-aggregate"), p["column"]),
}
