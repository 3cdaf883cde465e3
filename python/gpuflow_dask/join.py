"""`join` (two one-partition sides, or part p of both sides after the hash-partitioned plan's
shuffle, shuffle.py) and `broadcast-join` (each left partition with a right side of one
partition, inner or left) on a worker, as worker/kernels/df/join.ts.

Output rows: each left row with its matches in right order (none: nulls on the right, in left and
outer joins), then, for outer joins, the right rows that matched nothing; a right join is the left
join with the sides swapped. Keys compare as keys.ts's factorize: by string, by bool, or by
numeric value (int and float alike, -0.0 equal to 0.0); a null or NaN key is one "missing" value
that matches another (nulls 'match', pandas) or nothing (nulls 'never', SQL). A key named alike on
both sides is one column, taken from the right for right-only rows; other shared names get the
suffixes.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .columns import require
from .missing import missing_mask
from .values import Column, Table

MISSING = ("missing",)


def _key_values(c: Column) -> List[Any]:
    miss = missing_mask(c).tolist()
    if c.type == "utf8":
        vals: List[Any] = list(c.data)
    elif c.type == "bool":
        vals = [bool(v) for v in np.asarray(c.data)]
    else:
        vals = [float(v) + 0.0 for v in np.asarray(c.data, dtype=np.float64)]  # -0.0 + 0.0 is 0.0
    return [MISSING if m else v for v, m in zip(vals, miss)]


def _keys(t: Table, names: Sequence[str]) -> List[Optional[Tuple[Any, ...]]]:
    """Each row's key tuple; None where a part is missing and missing keys match nothing."""
    cols = [_key_values(t.column(n)) for n in names]
    return [tuple(col[i] for col in cols) for i in range(t.rows)]


def _match(left: Table, right: Table, lk: Sequence[str], rk: Sequence[str], how: str, nulls_match: bool) -> Tuple[np.ndarray, np.ndarray]:
    lkeys, rkeys = _keys(left, lk), _keys(right, rk)
    usable = (lambda k: True) if nulls_match else (lambda k: MISSING not in k)
    buckets: Dict[Tuple[Any, ...], List[int]] = {}
    for r, k in enumerate(rkeys):
        if usable(k):
            buckets.setdefault(k, []).append(r)
    li: List[int] = []
    ri: List[int] = []
    hit = set()
    for i, k in enumerate(lkeys):
        rows = buckets.get(k, []) if usable(k) else []
        if rows:
            hit.add(k)
            li += [i] * len(rows)
            ri += rows
        elif how != "inner":
            li.append(i)
            ri.append(-1)
    if how == "outer":
        for r, k in enumerate(rkeys):
            if not usable(k) or k not in hit:
                li.append(-1)
                ri.append(r)
    return np.array(li, dtype=np.int64), np.array(ri, dtype=np.int64)


def _take(c: Column, idx: np.ndarray, name: str) -> Column:
    """Rows idx of c, a null where idx is -1."""
    n = len(c.data)
    present = idx >= 0
    safe = np.where(present, idx, 0)
    valid = present.copy()
    if n and c.valid is not None:
        valid &= np.asarray(c.valid, dtype=bool)[safe]
    if c.type == "utf8":
        data: Any = [c.data[j] if p else None for j, p in zip(safe.tolist(), present.tolist())] if n else [None] * len(idx)
    else:
        base = np.asarray(c.data)
        data = base[safe] if n else np.zeros(len(idx), dtype=base.dtype)
    return Column(name, c.type, data, None if valid.all() else valid)


def _joined(left: Table, right: Table, lk: Sequence[str], rk: Sequence[str], suffixes: Sequence[str], li: np.ndarray, ri: np.ndarray) -> Table:
    sx, sy = suffixes
    lnames, rnames = [c.name for c in left.columns], [c.name for c in right.columns]
    shared = {k for k, r in zip(lk, rk) if k == r}
    right_only = bool((li < 0).any())
    out: List[Column] = []
    for c in left.columns:
        col = _take(c, li, c.name)
        if c.name in shared and right_only:
            rc = right.column(c.name)
            if rc.type != c.type:
                raise ValueError(f"join: key '{c.name}' is {c.type} on the left but {rc.type} on the right")
            from_right = _take(rc, np.where(li < 0, ri, -1), c.name)
            use = li < 0
            lv = np.ones(len(li), bool) if col.valid is None else col.valid
            rv = np.ones(len(li), bool) if from_right.valid is None else from_right.valid
            if c.type == "utf8":
                data: Any = [b if u else a for a, b, u in zip(col.data, from_right.data, use.tolist())]
            else:
                data = np.where(use, from_right.data, col.data)
            valid = np.where(use, rv, lv)
            col = Column(c.name, c.type, data, None if valid.all() else valid)
        clash = c.name not in shared and c.name in rnames
        out.append(Column(c.name + sx if clash else c.name, col.type, col.data, col.valid))
    for c in right.columns:
        if c.name in shared:
            continue
        col = _take(c, ri, c.name + sy if c.name in lnames else c.name)
        out.append(col)
    return Table(len(li), out)


def join(left: Table, right: Table, spec: Dict[str, Any]) -> Table:
    """Hash join of two tables (join.ts hashJoin)."""
    lk = spec.get("on") or spec.get("leftOn")
    rk = spec.get("on") or spec.get("rightOn")
    how = spec["how"]
    if not lk or not rk or len(lk) != len(rk):
        raise ValueError("join: give 'on' (names on both sides) or 'leftOn' and 'rightOn' of one length")
    if how not in ("inner", "left", "right", "outer", "leftsemi", "leftanti"):
        raise ValueError(f"join: how is '{how}'; expected inner, left, right, outer, leftsemi or leftanti")
    require(left, lk, "join (left)")
    require(right, rk, "join (right)")
    for a, b in zip(lk, rk):
        ta, tb = left.column(a).type, right.column(b).type
        if (ta == "utf8") != (tb == "utf8") or (ta == "bool") != (tb == "bool"):
            raise ValueError(f"join: key '{a}' is {ta} on the left but '{b}' is {tb} on the right")
    nulls_match = spec.get("nulls", "match") != "never"
    suffixes = spec.get("suffixes") or ["_x", "_y"]
    if how in ("leftsemi", "leftanti"):
        return _semi(left, right, lk, rk, how == "leftanti", nulls_match)
    if how == "right":
        r, l = _match(right, left, rk, lk, "left", nulls_match)
        return _joined(left, right, lk, rk, suffixes, l, r)
    li, ri = _match(left, right, lk, rk, how, nulls_match)
    return _joined(left, right, lk, rk, suffixes, li, ri)


def _semi(left: Table, right: Table, lk: Sequence[str], rk: Sequence[str], anti: bool, nulls_match: bool) -> Table:
    """The left rows with a match on the right (anti: without one), each once, in left order, with
    the left columns only (join.ts semiRows); a missing key matches nothing under nulls 'never'."""
    usable = (lambda k: True) if nulls_match else (lambda k: MISSING not in k)
    on_right = {k for k in _keys(right, rk) if usable(k)}
    rows = np.array([i for i, k in enumerate(_keys(left, lk)) if (usable(k) and k in on_right) != anti], dtype=np.int64)
    return Table(len(rows), [_take(c, rows, c.name) for c in left.columns])


def broadcast_join(part: Table, small: Table, spec: Dict[str, Any]) -> Table:
    if spec["how"] in ("outer", "right"):
        raise ValueError("join: a right or outer join cannot broadcast the right side (its unmatched rows would repeat per partition)")
    return join(part, small, spec)
