"""select / drop / rename / head / tail / concat and isna / fillna / dropna on a worker
(columns.py, missing.py, through df.py's handlers) against hand-written answers: the types the
local kernels give (fillna's int32 -> int64, float32 -> float64), NaN counted as missing."""
import unittest

import numpy as np

from helpers import fixture  # noqa: F401 - puts python/ on sys.path
from gpuflow_dask.df import HANDLERS
from gpuflow_dask.execute import TaskPayload
from gpuflow_dask.values import Column, Table

T = TaskPayload("k", "n", {})


def frame():
    return Table(4, [
        Column("i", "int32", np.array([1, 0, 3, 4], np.int32), np.array([1, 0, 1, 1], bool)),
        Column("x", "float32", np.array([0.5, np.nan, 2.0, 0.0], np.float32), np.array([1, 1, 1, 0], bool)),
        Column("s", "utf8", ["a", None, "c", "d"], np.array([1, 0, 1, 1], bool)),
        Column("b", "bool", np.array([True, False, False, True]), np.array([1, 1, 0, 1], bool)),
    ])


def run(op, params, *tables):
    return HANDLERS[op](params, tables, T)


def plain(t):
    """(name, type, values with None where missing) per column."""
    out = []
    for c in t.columns:
        valid = np.ones(t.rows, bool) if c.valid is None else np.asarray(c.valid, bool)
        vals = [v.item() if hasattr(v, "item") else v for v in (c.data if c.type == "utf8" else np.asarray(c.data))]
        out.append((c.name, c.type, [v if ok else None for v, ok in zip(vals, valid)]))
    return out


class ColumnsTest(unittest.TestCase):
    def test_select_drop_rename(self):
        self.assertEqual([c.name for c in run("select", {"columns": ["s", "i"]}, frame()).columns], ["s", "i"])
        self.assertEqual([c.name for c in run("drop", {"columns": ["x", "b"]}, frame()).columns], ["i", "s"])
        r = run("rename", {"mapping": {"i": "j", "s": "t"}}, frame())
        self.assertEqual([c.name for c in r.columns], ["j", "x", "t", "b"])
        with self.assertRaisesRegex(ValueError, "select: no column 'z'"):
            run("select", {"columns": ["z"]}, frame())
        with self.assertRaisesRegex(ValueError, "two columns would be named 'x'"):
            run("rename", {"mapping": {"i": "x"}}, frame())

    def test_head_tail_concat(self):
        f = frame()
        h = run("head", {"n": 5}, run("head", {"n": 3}, f), run("head", {"n": 3}, f))
        self.assertEqual(h.rows, 5)
        self.assertEqual(plain(h)[0][2], [1, None, 3, 1, None])
        t = run("tail", {"n": 2}, f, f)
        self.assertEqual(plain(t)[2][2], ["c", "d"])
        self.assertEqual(run("tail", {"n": 0}, f).rows, 0)
        c = run("concat", {}, f, run("head", {"n": 1}, f))
        self.assertEqual(c.rows, 5)
        self.assertEqual(plain(c)[2][2], ["a", None, "c", "d", "a"])
        self.assertEqual(plain(c)[0], ("i", "int32", [1, None, 3, 4, 1]))


class MissingTest(unittest.TestCase):
    def test_isna(self):
        r = plain(run("isna", {}, frame()))
        self.assertEqual(r, [
            ("i", "bool", [False, True, False, False]),
            ("x", "bool", [False, True, False, True]),
            ("s", "bool", [False, True, False, False]),
            ("b", "bool", [False, False, True, False]),
        ])
        self.assertEqual([c.name for c in run("isna", {"columns": ["b"]}, frame()).columns], ["b"])

    def test_fillna_number_fills_int_and_float_columns_as_int64_float64(self):
        r = plain(run("fillna", {"value": 7}, frame()))
        self.assertEqual(r[0], ("i", "int64", [1, 7, 3, 4]))
        self.assertEqual(r[1], ("x", "float64", [0.5, 7.0, 2.0, 7.0]))
        self.assertEqual(r[2], ("s", "utf8", ["a", None, "c", "d"]))  # untouched
        self.assertEqual(r[3], ("b", "bool", [True, False, None, True]))
        r = plain(run("fillna", {"value": 2.5}, frame()))
        self.assertEqual(r[0], ("i", "int32", [1, None, 3, 4]))  # 2.5 does not fit an int column

    def test_fillna_string_bool_and_subset(self):
        self.assertEqual(plain(run("fillna", {"value": "z"}, frame()))[2], ("s", "utf8", ["a", "z", "c", "d"]))
        r = plain(run("fillna", {"value": True}, frame()))
        self.assertEqual(r[3], ("b", "bool", [True, False, True, True]))
        self.assertEqual(r[0], ("i", "int32", [1, None, 3, 4]))  # true is not a number here
        with self.assertRaisesRegex(ValueError, "fillna: column 's' \\(string\\) cannot hold 1"):
            run("fillna", {"value": 1, "columns": ["s"]}, frame())

    def test_dropna(self):
        self.assertEqual(plain(run("dropna", {}, frame()))[0][2], [1])
        self.assertEqual(plain(run("dropna", {"subset": ["x"]}, frame()))[0][2], [1, 3])
        self.assertEqual(plain(run("dropna", {"subset": ["i", "s"], "how": "all"}, frame()))[0][2], [1, 3, 4])
        self.assertEqual(run("dropna", {"subset": ["i", "s"]}, frame()).rows, 3)


if __name__ == "__main__":
    unittest.main()
