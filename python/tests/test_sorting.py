"""sort on a worker (sorting.py): one partition against pandas' stable sort_values (nulls and NaN
last, per-column direction); the sampling sort over several partitions (sample, splitters,
range-split, sort-part) gives the same rows as the one-partition sort, ties in input order."""
import unittest

import numpy as np
import pandas as pd

from helpers import fixture  # noqa: F401 - puts python/ on sys.path
from gpuflow_dask.df import HANDLERS
from gpuflow_dask.execute import TaskPayload
from gpuflow_dask.values import Column, Table
from test_columns_missing import plain

T = TaskPayload("k", "n", {})


def run(op, params, *inputs):
    return HANDLERS[op](params, inputs, T)


def frame(seed, rows):
    rng = np.random.default_rng(seed)
    k = rng.integers(0, 4, rows).astype(np.float64)
    k[rng.random(rows) < 0.15] = np.nan
    s = [None if rng.random() < 0.1 else f"s{int(v)}" for v in rng.integers(0, 3, rows)]
    return Table(rows, [
        Column("k", "float64", k),
        Column("s", "utf8", s, np.array([v is not None for v in s])),
        Column("i", "int64", np.arange(rows, dtype=np.int64) + 1000 * seed),
    ])


class Sorting(unittest.TestCase):
    BY = ["k", "s"]
    ASC = [False, True]

    def test_one_partition_is_pandas_stable_sort(self):
        t = frame(1, 40)
        got = run("sort", {"by": self.BY, "ascending": self.ASC}, t)
        df = pd.DataFrame({"k": t.column("k").data, "s": t.column("s").data, "i": t.column("i").data})
        want = df.sort_values(self.BY, ascending=self.ASC, kind="stable", na_position="last")
        self.assertEqual(plain(got)[2][2], want["i"].tolist())

    def test_sampling_sort_over_partitions_equals_the_one_partition_sort(self):
        parts = [frame(s, n) for s, n in ((2, 30), (3, 0), (4, 25), (5, 17))]
        p = {"by": self.BY, "ascending": self.ASC}
        samples = [run("sort-sample", {"by": self.BY, "count": 8}, x) for x in parts]
        cuts = run("sort-splitters", {**p, "parts": len(parts)}, *samples)
        self.assertEqual(cuts.rows, len(parts) - 1)
        splits = [run("range-split", {**p, "parts": len(parts)}, x, cuts) for x in parts]
        out = [run("sort-part", {**p, "part": q}, *splits) for q in range(len(parts))]
        whole = run("sort", p, *parts)
        self.assertEqual([i for o in out for i in plain(o)[2][2]], plain(whole)[2][2])
        self.assertGreater(sum(1 for o in out if o.rows), 1)  # the rows really were spread


if __name__ == "__main__":
    unittest.main()
