"""The hash-partitioned merge's shuffle on a worker: `hash-split` (a partition's rows by target
part, as worker/kernels/df/task-ops.ts hashSplit) and `gather-part` (part p of every split, in
partition order). A row's part is keys.ts hashRows % k, ported bit for bit (the parts of both
sides of a merge must agree with each other, and the output partitions with the local engine's):
per key column a murmur3-finalised value hash (strings FNV-1a over UTF-16 code units, numbers by
their float64 bits, -0 as 0, bools as 0 / 1, null and NaN one constant), combined h = fmix(h * 31
+ per) in uint32 arithmetic. A split's parts stay a Python list on the cluster.
"""
from __future__ import annotations

from typing import Any, List, Sequence

import numpy as np

from .columns import require
from .groupby import concat, take
from .missing import missing_mask
from .values import Column, Table

NULL_HASH = np.uint32(0x5BD1E995)


def _fmix(h: np.ndarray) -> np.ndarray:
    h = h.astype(np.uint32)
    with np.errstate(over="ignore"):
        h ^= h >> np.uint32(16)
        h = h * np.uint32(0x85EBCA6B)
        h ^= h >> np.uint32(13)
        h = h * np.uint32(0xC2B2AE35)
        h ^= h >> np.uint32(16)
    return h


def _hash_string(s: str) -> int:
    h = 0x811C9DC5
    units = np.frombuffer(s.encode("utf-16-le"), dtype="<u2")
    for u in units.tolist():
        h = ((h ^ u) * 0x01000193) & 0xFFFFFFFF
    return int(_fmix(np.array([h], dtype=np.uint32))[0])


def _hash_numbers(x: np.ndarray) -> np.ndarray:
    x = np.where(x == 0, 0.0, x).astype("<f8")
    words = x.view("<u4").reshape(-1, 2)
    lo, hi = words[:, 0].copy(), words[:, 1].copy()
    with np.errstate(over="ignore"):
        return _fmix((lo ^ _fmix(hi)) * np.uint32(0x9E3779B1) ^ hi)


def _column_hash(c: Column) -> np.ndarray:
    miss = missing_mask(c)
    if c.type == "utf8":
        memo: dict = {}
        per = np.array([0 if v is None else memo.setdefault(v, _hash_string(v)) for v in c.data], dtype=np.uint32)
    elif c.type == "bool":
        per = _hash_numbers(np.asarray(c.data, dtype=np.float64))
    else:
        per = _hash_numbers(np.asarray(c.data).astype(np.float64))
    return np.where(miss, NULL_HASH, per).astype(np.uint32)


def hash_rows(t: Table, keys: Sequence[str]) -> np.ndarray:
    require(t, keys, "hash split")
    h = np.zeros(t.rows, dtype=np.uint32)
    for name in keys:
        per = _column_hash(t.column(name))
        with np.errstate(over="ignore"):
            h = _fmix(h * np.uint32(31) + per)
    return h


def hash_split(t: Table, keys: Sequence[str], k: int) -> List[Table]:
    part = hash_rows(t, keys) % np.uint32(k)
    return [Table(int((part == p).sum()), [take(c, np.nonzero(part == p)[0]) for c in t.columns]) for p in range(k)]


def gather_part(splits: Sequence[Any], p: int) -> Table:
    parts = [s[p] for s in splits]
    if any(not isinstance(x, Table) for x in parts):
        raise TypeError("df gather-part: an input was not made by hash-split")
    return concat(parts)
