"""value_counts (counts.py), drop-duplicates (duplicates.py) and from-array (from_array.py) on a worker against hand-written
answers: counts most frequent first, ties by value, nulls dropped, partials from two partitions;
an array's columns and types as the local kernel makes them."""
import unittest

import numpy as np

from helpers import fixture  # noqa: F401 - puts python/ on sys.path
from gpuflow_dask.df import HANDLERS
from gpuflow_dask.execute import TaskPayload
from gpuflow_dask.values import Column, Table
from test_columns_missing import plain

T = TaskPayload("k", "n", {})


def run(op, params, *inputs):
    return HANDLERS[op](params, inputs, T)


class ValueCounts(unittest.TestCase):
    def test_most_frequent_first_ties_by_value_nulls_dropped(self):
        a = Table(5, [Column("s", "utf8", ["b", "a", None, "b", "c"], np.array([1, 1, 0, 1, 1], bool))])
        b = Table(4, [Column("s", "utf8", ["c", "a", "d", "c"])])
        parts = [run("value-counts-chunk", {"column": "s"}, x) for x in (a, b)]
        r = run("value-counts-aggregate", {"column": "s"}, *parts)
        self.assertEqual(plain(r), [("s", "utf8", ["c", "a", "b", "d"]), ("count", "int64", [3, 2, 2, 1])])

    def test_numbers(self):
        t = Table(6, [Column("x", "float64", np.array([2.5, -1.0, 2.5, np.nan, -1.0, 2.5]))])
        r = run("value-counts-aggregate", {"column": "x"}, run("value-counts-chunk", {"column": "x"}, t))
        self.assertEqual(plain(r), [("x", "float64", [2.5, -1.0]), ("count", "int64", [3, 2])])


class DropDuplicates(unittest.TestCase):
    def test_first_or_last_of_each_key_nulls_and_nan_alike(self):
        a = Table(4, [
            Column("k", "float64", np.array([1.0, np.nan, 0.0, 1.0]), np.array([1, 1, 1, 1], bool)),
            Column("s", "utf8", ["x", "y", "z", "w"]),
        ])
        b = Table(3, [
            Column("k", "float64", np.array([0.0, -0.0, 5.0]), np.array([0, 1, 1], bool)),
            Column("s", "utf8", ["v", "u", "t"]),
        ])
        first = run("drop-duplicates", {"subset": ["k"]}, a, b)
        self.assertEqual(plain(first)[1], ("s", "utf8", ["x", "y", "z", "t"]))
        last = run("drop-duplicates", {"subset": ["k"], "keep": "last"}, a, b)
        self.assertEqual(plain(last)[1], ("s", "utf8", ["w", "v", "u", "t"]))
        self.assertEqual(run("drop-duplicates", {}, a, b).rows, 7)


class FromArray(unittest.TestCase):
    def test_one_column_per_array_column(self):
        r = run("from-array", {}, np.arange(6, dtype=np.int32).reshape(3, 2))
        self.assertEqual(plain(r), [("c0", "int32", [0, 2, 4]), ("c1", "int32", [1, 3, 5])])
        r = run("from-array", {"columns": ["v"]}, np.array([1.5, 2.0], np.float32))
        self.assertEqual(plain(r), [("v", "float64", [1.5, 2.0])])
        self.assertEqual(plain(run("from-array", {}, np.array([7, -2], np.int64))), [("value", "int64", [7, -2])])
        with self.assertRaisesRegex(ValueError, "1 column names given for 2 columns"):
            run("from-array", {"columns": ["a"]}, np.zeros((2, 2)))


if __name__ == "__main__":
    unittest.main()
