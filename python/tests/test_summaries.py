"""describe, quantile and nunique on a worker (summaries.py) against pandas: describe's rows and
numbers (its labels too), df.quantile, df.nunique, over two partitions with nulls and NaN."""
import unittest

import numpy as np
import pandas as pd

from helpers import fixture  # noqa: F401 - puts python/ on sys.path
from gpuflow_dask.df import HANDLERS
from gpuflow_dask.execute import TaskPayload
from gpuflow_dask.values import Column, Table
from test_columns_missing import plain

T = TaskPayload("k", "n", {})
X = [1.5, np.nan, -2.0, 7.25, 0.0, 3.0, 3.0]
K = [4, 0, 9, 9, 1, 0, 2]  # row 1 is null
KV = [1, 0, 1, 1, 1, 1, 1]
S = ["a", None, "b", "a", "c", None, "a"]


def parts():
    cols = lambda lo, hi: [  # noqa: E731
        Column("x", "float64", np.array(X[lo:hi])),
        Column("k", "int64", np.array(K[lo:hi], np.int64), np.array(KV[lo:hi], bool)),
        Column("s", "utf8", S[lo:hi], np.array([v is not None for v in S[lo:hi]])),
    ]
    return [Table(3, cols(0, 3)), Table(4, cols(3, 7))]


def pandas_frame():
    return pd.DataFrame({"x": X, "k": pd.array([k if v else None for k, v in zip(K, KV)], dtype="Int64"), "s": S})


def run(op, params, *inputs):
    return HANDLERS[op](params, inputs, T)


class Summaries(unittest.TestCase):
    def test_describe_is_pandas(self):
        got = plain(run("describe", {"percentiles": [0.1, 0.333]}, *parts()))
        want = pandas_frame()[["x", "k"]].astype(float).describe(percentiles=[0.1, 0.333])
        self.assertEqual(got[0], ("stat", "utf8", list(want.index)))
        for name, _, values in got[1:]:
            np.testing.assert_allclose(values, want[name].to_numpy(), rtol=1e-14, err_msg=name)

    def test_quantile_is_pandas(self):
        got = plain(run("quantile", {"q": [0, 0.2, 0.5, 1]}, *parts()))
        want = pandas_frame()[["x", "k"]].astype(float).quantile([0, 0.2, 0.5, 1])
        self.assertEqual(got[0][2], [0, 0.2, 0.5, 1])
        for name, _, values in got[1:]:
            np.testing.assert_allclose(values, want[name].to_numpy(), rtol=1e-14, err_msg=name)

    def test_nunique_is_pandas(self):
        got = plain(run("nunique", {}, *parts()))
        want = pandas_frame().nunique()
        self.assertEqual(got, [("column", "utf8", ["x", "k", "s"]), ("nunique", "int64", [int(want[c]) for c in ("x", "k", "s")])])
        self.assertEqual(plain(run("nunique", {"columns": ["s"]}, *parts()))[1][2], [3])

    def test_no_numeric_column_is_named(self):
        with self.assertRaisesRegex(ValueError, "describe: no numeric columns among s"):
            run("describe", {}, Table(1, [Column("s", "utf8", ["a"])]))


if __name__ == "__main__":
    unittest.main()
