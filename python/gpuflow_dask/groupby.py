"""Groupby in three steps, as worker/kernels/df/groupby.ts does them (chunk, combine, aggregate).

Partials are Tables: the key columns (groups in order of first occurrence), then `::size` and
`<column>::<stat>` columns. Per-group sums are sequential in row order (np.bincount adds in
index order, as the js loop does), so sums, means and m2 are bit-identical to the js kernel;
merges fold partials in dependency order with Chan's update; the result is sorted by the keys
(stable, nulls last, strings by code point: the same as JS `<` outside the astral planes).
`nunique` is not implemented here (unsupported-op).
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .values import Column, Table

NEEDS: Dict[str, List[str]] = {
    "sum": ["sum"], "mean": ["sum", "count"], "count": ["count"], "min": ["min"], "max": ["max"],
    "var": ["count", "mean", "m2"], "std": ["count", "mean", "m2"],
}
AGGS = set(NEEDS) | {"size"}
REFUSED = {"nunique", "prod", "first", "last", "median", "idxmax", "idxmin"}
NUMERIC_ONLY = {"sum", "mean", "var", "std"}
SEP = "::"


class Unsupported(Exception):
    """Something this executor does not do (the caller turns it into unsupported-op)."""


def value_type(t: str) -> str:
    if t in ("int32", "int64"):
        return "int"
    if t in ("float64", "float32"):
        return "float"
    if t == "utf8":
        return "string"
    if t == "timestamp[ms]":
        return "timestamp"
    return t  # bool


def validate(spec: Dict[str, Any], where: str) -> None:
    if not spec.get("by"):
        raise ValueError(f"{where}: 'by' needs at least one key column")
    if not spec.get("aggs"):
        raise ValueError(f"{where}: 'aggs' needs at least one aggregate")
    for i, a in enumerate(spec["aggs"]):
        # The local engine's aggregates these workers lack: refused before any task runs.
        if a.get("agg") in REFUSED:
            raise Unsupported(f"groupby {a['agg']}")
        if a.get("agg") not in AGGS:
            raise ValueError(f"{where}: aggs[{i}].agg is {a.get('agg')!r}")
        if a["agg"] != "size" and not a.get("column"):
            raise ValueError(f"{where}: aggs[{i}] ({a['agg']}) needs a column")


def needed(spec: Dict[str, Any]) -> Dict[str, List[str]]:
    """Stats per aggregated column, in first-use order (the order of the partial's columns)."""
    m: Dict[str, List[str]] = {}
    for a in spec["aggs"]:
        if a["agg"] == "size":
            continue
        s = m.setdefault(a["column"], [])
        for st in NEEDS[a["agg"]]:
            if st not in s:
                s.append(st)
    return m


def _codes(c: Column) -> np.ndarray:
    """Per-row codes of a key column in first-occurrence order (-1: null, dropped)."""
    import pandas as pd

    data = np.asarray(c.data, dtype=object) if c.type == "utf8" else np.asarray(c.data)
    codes, _ = pd.factorize(data, sort=False)
    codes = codes.astype(np.int64)
    if c.valid is not None:
        codes = np.where(np.asarray(c.valid, bool), codes, -1)
    return codes


def factorize(t: Table, by: Sequence[str]) -> Tuple[np.ndarray, int, np.ndarray]:
    """(group id per row, -1 for a null key; number of groups; first row of each group)."""
    import pandas as pd

    combined: Optional[np.ndarray] = None
    for name in by:
        k = _codes(t.column(name))
        if combined is None:
            combined = k
        else:
            width = int(k.max()) + 2 if k.size else 1
            combined = np.where((combined < 0) | (k < 0), -1, combined * width + k)
    assert combined is not None
    ids, uniq = pd.factorize(combined, sort=False)
    ids = ids.astype(np.int64)
    # A null key (-1) became a group of its own: drop it.
    null_group = np.nonzero(uniq == -1)[0]
    if null_group.size:
        g = int(null_group[0])
        ids = np.where(ids == g, -1, np.where(ids > g, ids - 1, ids))
    groups = int(ids.max()) + 1 if ids.size and ids.max() >= 0 else 0
    live = np.nonzero(ids >= 0)[0]
    _, first = np.unique(ids[live], return_index=True)
    return ids, groups, live[first]


def take(c: Column, rows: np.ndarray) -> Column:
    data = np.asarray(c.data, dtype=object)[rows] if c.type == "utf8" else np.asarray(c.data)[rows]
    return Column(c.name, c.type, data, None if c.valid is None else np.asarray(c.valid, bool)[rows])


def _numbers(c: Column) -> Tuple[np.ndarray, np.ndarray]:
    """(float64 values, usable mask: valid and not NaN)."""
    x = np.asarray(c.data).astype(np.float64)
    ok = ~np.isnan(x)
    if c.valid is not None:
        ok &= np.asarray(c.valid, bool)
    return x, ok


def _stat_column(name: str, stat: str, acc_type: str, v: np.ndarray, valid: Optional[np.ndarray] = None) -> Column:
    if stat == "sum":
        return Column(name, "int64" if acc_type == "int" else "float64", v.astype(np.int64) if acc_type == "int" else v)
    if stat in ("min", "max"):
        return _typed(name, v, acc_type, valid)
    return Column(name, "float64", v)


def _typed(name: str, v: np.ndarray, t: str, valid: Optional[np.ndarray]) -> Column:
    """intVector / timestampVector / floatVector of groupby.ts (int64, timestamp[ms], float64)."""
    if t == "int":
        data = np.where(np.isfinite(v), np.trunc(v), 0).astype(np.int64)
        return Column(name, "int64", data, valid)
    if t == "timestamp":
        data = np.where(np.isfinite(v), np.floor(v + 0.5), 0).astype(np.int64)
        return Column(name, "timestamp[ms]", data, valid)
    return Column(name, "float64", v.astype(np.float64), valid)


def chunk(t: Table, spec: Dict[str, Any]) -> Table:
    """One partition's partial."""
    validate(spec, "groupby")
    ids, g, first = factorize(t, spec["by"])
    out = [take(t.column(k), first) for k in spec["by"]]
    live = ids >= 0
    if any(a["agg"] == "size" for a in spec["aggs"]):
        out.append(Column(SEP + "size", "float64", np.bincount(ids[live], minlength=g).astype(np.float64)))
    for name, stats in needed(spec).items():
        col = t.column(name)
        vt = value_type(col.type)
        for a in spec["aggs"]:
            if a.get("column") == name and ((a["agg"] in NUMERIC_ONLY and vt not in ("int", "float", "bool")) or (a["agg"] in ("min", "max") and vt == "string")):
                raise ValueError(f"groupby: cannot take the {a['agg']} of column '{name}' ({vt})")
        if vt == "string":
            raise Unsupported(f"groupby of string column '{name}'")
        acc_type = "int" if vt == "bool" else vt
        x, ok = _numbers(col)
        use = live & ok
        gi, xv = ids[use], x[use]
        count = np.bincount(gi, minlength=g).astype(np.float64)
        s = np.bincount(gi, weights=xv, minlength=g)  # sequential per group, as the js loop
        for st in stats:
            if st == "count":
                out.append(Column(f"{name}{SEP}count", "float64", count))
            elif st == "sum":
                out.append(_stat_column(f"{name}{SEP}sum", "sum", acc_type, s))
            elif st in ("min", "max"):
                v = np.full(g, np.inf if st == "min" else -np.inf)
                (np.minimum if st == "min" else np.maximum).at(v, gi, xv)
                out.append(_stat_column(f"{name}{SEP}{st}", st, acc_type, v, np.isfinite(v) | (v != (np.inf if st == "min" else -np.inf))))
            elif st == "mean":
                out.append(Column(f"{name}{SEP}mean", "float64", np.where(count > 0, s / np.where(count > 0, count, 1), 0.0)))
            elif st == "m2":
                mean = np.where(count > 0, s / np.where(count > 0, count, 1), 0.0)
                d = xv - mean[gi]
                out.append(Column(f"{name}{SEP}m2", "float64", np.bincount(gi, weights=d * d, minlength=g)))
    return Table(g, out)


def concat(tables: Sequence[Table]) -> Table:
    """Row-wise concatenation of tables with the same columns."""
    if not tables:
        raise ValueError("concat: no tables")
    cols = []
    for i, c in enumerate(tables[0].columns):
        parts = [t.columns[i] for t in tables]
        for p in parts:
            if p.name != c.name:
                raise ValueError(f"concat: column {i} is '{p.name}' in one partial and '{c.name}' in another")
        data = np.concatenate([np.asarray(p.data, dtype=object) if c.type == "utf8" else np.asarray(p.data) for p in parts])
        valid = None
        if any(p.valid is not None for p in parts):
            valid = np.concatenate([np.ones(len(p.data), bool) if p.valid is None else np.asarray(p.valid, bool) for p in parts])
        cols.append(Column(c.name, c.type, data, valid))
    return Table(sum(t.rows for t in tables), cols)


def _stat(t: Table, name: str) -> Tuple[np.ndarray, Optional[np.ndarray]]:
    try:
        c = t.column(name)
    except KeyError:
        raise ValueError(f"groupby: partial lacks column '{name}'; was it made with the same spec?") from None
    return np.asarray(c.data).astype(np.float64), None if c.valid is None else np.asarray(c.valid, bool)


def merge(partials: Sequence[Table], spec: Dict[str, Any]) -> Tuple[List[Column], int, Dict[str, Any]]:
    """Merged state: key columns, group count, per column {type, count, sum, min, max, mean, m2}, size."""
    validate(spec, "groupby combine")
    all_ = concat(partials)
    ids, g, first = factorize(all_, spec["by"])
    keys = [take(all_.column(k), first) for k in spec["by"]]
    # Each group appears at most once per partial: fold partial by partial, vectorised over its rows.
    bounds = np.cumsum([0] + [p.rows for p in partials])
    state: Dict[str, Any] = {}
    if any(a["agg"] == "size" for a in spec["aggs"]):
        s, _ = _stat(all_, SEP + "size")
        state["::size"] = np.bincount(ids[ids >= 0], weights=s[ids >= 0], minlength=g)
    for name, stats in needed(spec).items():
        acc_type = "float"
        for st in ("min", "max", "sum"):
            if st in stats:
                ct = all_.column(f"{name}{SEP}{st}").type
                acc_type = "int" if ct == "int64" else "timestamp" if ct == "timestamp[ms]" else "float"
                break
        acc = {"type": acc_type, "count": np.zeros(g), "sum": np.zeros(g), "min": np.full(g, np.inf), "max": np.full(g, -np.inf), "mean": np.zeros(g), "m2": np.zeros(g)}
        cols = {st: _stat(all_, f"{name}{SEP}{st}") for st in stats}
        for i in range(len(partials)):
            sl = slice(bounds[i], bounds[i + 1])
            gi = ids[sl]
            live = gi >= 0
            gi = gi[live]
            if "sum" in cols:
                acc["sum"][gi] += cols["sum"][0][sl][live]
            for st, better in (("min", np.less), ("max", np.greater)):
                if st in cols:
                    v, valid = cols[st]
                    v = v[sl][live]
                    ok = np.ones(v.size, bool) if valid is None else valid[sl][live]
                    take_ = ok & better(v, acc[st][gi])
                    acc[st][gi[take_]] = v[take_]
            if "count" in cols:
                nb = cols["count"][0][sl][live]
                na = acc["count"][gi]
                if "m2" in cols and "mean" in cols:
                    upd = nb > 0
                    nn = np.where(upd, na + nb, 1)
                    delta = cols["mean"][0][sl][live] - acc["mean"][gi]
                    acc["mean"][gi] = np.where(upd, acc["mean"][gi] + (delta * nb) / nn, acc["mean"][gi])
                    acc["m2"][gi] = np.where(upd, acc["m2"][gi] + (cols["m2"][0][sl][live] + (delta * delta * na * nb) / nn), acc["m2"][gi])
                acc["count"][gi] = na + nb
        state[name] = acc
    return keys, g, state


def combine(partials: Sequence[Table], spec: Dict[str, Any]) -> Table:
    """Partials merged into one partial (tree reductions)."""
    keys, g, state = merge(partials, spec)
    out = list(keys)
    if "::size" in state:
        out.append(Column(SEP + "size", "float64", state["::size"]))
    for name, stats in needed(spec).items():
        acc = state[name]
        for st in stats:
            if st in ("min", "max"):
                v = acc[st]
                out.append(_stat_column(f"{name}{SEP}{st}", st, acc["type"], v, np.isfinite(v) | (v != (np.inf if st == "min" else -np.inf))))
            else:
                out.append(_stat_column(f"{name}{SEP}{st}", st, acc["type"], acc[st]))
    return Table(g, out)


def sort_rows(t: Table, by: Sequence[str], ascending: Optional[Sequence[bool]] = None) -> np.ndarray:
    """Stable order by the columns (ascending unless `ascending` says otherwise per column),
    nulls (and NaN) last whatever the direction, as worker/kernels/df/sort.ts."""
    import pandas as pd

    sort_keys: List[np.ndarray] = []
    for name in by:
        c = t.column(name)
        if c.type == "utf8":
            data = np.asarray(c.data, dtype=object)
            ok = np.array([v is not None for v in data], bool)
            uniq = sorted({v for v in data if v is not None})
            rank = {v: i for i, v in enumerate(uniq)}
            x = np.array([rank[v] if v is not None else 0 for v in data], np.float64)
        else:
            x = np.asarray(c.data).astype(np.float64)
            ok = ~np.isnan(x)
        if c.valid is not None:
            ok &= np.asarray(c.valid, bool)
        up = ascending is None or ascending[len(sort_keys) // 2]
        sort_keys.append(np.where(ok, x if up else -x, 0.0))
        sort_keys.append(~ok)
    del pd
    # np.lexsort sorts by the last key first: give (not ok, value) pairs from the last column back.
    order_keys = []
    for i in range(len(by) - 1, -1, -1):
        order_keys.append(sort_keys[2 * i])
        order_keys.append(sort_keys[2 * i + 1])
    return np.lexsort(order_keys) if t.rows else np.zeros(0, np.int64)


def aggregate(partials: Sequence[Table], spec: Dict[str, Any]) -> Table:
    """Partials merged and finalized: keys, one column per aggregate, sorted by the keys."""
    keys, g, state = merge(partials, spec)
    ddof = spec.get("ddof", 1)
    out = list(keys)
    for a in spec["aggs"]:
        name = a.get("as") or ("size" if a["agg"] == "size" else f"{a['column']}_{a['agg']}")
        if a["agg"] == "size":
            out.append(_typed(name, state["::size"], "int", None))
            continue
        acc = state[a["column"]]
        c = acc["count"]
        agg = a["agg"]
        with np.errstate(all="ignore"):
            if agg == "sum":
                out.append(_typed(name, acc["sum"], "int" if acc["type"] == "int" else "float", np.ones(g, bool)))
            elif agg == "count":
                out.append(_typed(name, c, "int", np.ones(g, bool)))
            elif agg == "mean":
                out.append(_typed(name, np.where(c > 0, acc["sum"] / np.where(c > 0, c, 1), 0.0), "float", c > 0))
            elif agg in ("min", "max"):
                v = acc[agg]
                ok = v != (np.inf if agg == "min" else -np.inf)
                out.append(_typed(name, np.where(ok, v, 0.0), acc["type"], ok))
            else:
                ok = c - ddof > 0
                v = acc["m2"] / np.where(ok, c - ddof, 1)
                out.append(_typed(name, np.where(ok, np.sqrt(v) if agg == "std" else v, 0.0), "float", ok))
    t = Table(g, out)
    order = sort_rows(t, spec["by"])
    return Table(g, [take(c, order) for c in t.columns])
