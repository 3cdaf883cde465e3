"""join / broadcast-join on a worker (join.py, through df.py's handlers) against pandas.merge's
answers written down by hand: row order, null keys matching (pandas) or not (SQL), a shared key
column filled from the right, suffixes."""
import unittest

import numpy as np

from helpers import fixture  # noqa: F401 - puts python/ on sys.path
from gpuflow_dask.df import HANDLERS
from gpuflow_dask.execute import TaskPayload
from gpuflow_dask.values import Column, Table

T = TaskPayload("k", "n", {})


def left():
    return Table(4, [
        Column("k", "float64", np.array([1.0, np.nan, 2.0, -0.0])),
        Column("v", "int64", np.array([10, 20, 30, 40])),
    ])


def right():
    return Table(4, [
        Column("k", "float64", np.array([2.0, 0.0, np.nan, 5.0])),
        Column("v", "utf8", ["a", "b", "c", "d"]),
    ])


def rows(t):
    out = []
    for i in range(t.rows):
        row = []
        for c in t.columns:
            ok = c.valid is None or bool(c.valid[i])
            v = c.data[i]
            row.append(None if not ok else (v.item() if hasattr(v, "item") else v))
        out.append(tuple(row))
    return [c.name for c in t.columns], out


class JoinTest(unittest.TestCase):
    def test_inner_join_matches_nan_with_nan_and_minus_zero_with_zero(self):
        names, got = rows(HANDLERS["join"]({"spec": {"how": "inner", "on": ["k"]}}, (left(), right()), T))
        self.assertEqual(names, ["k", "v_x", "v_y"])
        self.assertEqual([(v, w) for _, v, w in got], [(20, "c"), (30, "a"), (40, "b")])

    def test_outer_join_with_sql_nulls_fills_the_key_from_the_right(self):
        names, got = rows(HANDLERS["join"]({"spec": {"how": "outer", "on": ["k"], "nulls": "never", "suffixes": ["_l", "_r"]}}, (left(), right()), T))
        self.assertEqual(names, ["k", "v_l", "v_r"])
        self.assertEqual([(v, w) for _, v, w in got], [(10, None), (20, None), (30, "a"), (40, "b"), (None, "c"), (None, "d")])
        self.assertEqual(got[-1][0], 5.0)

    def test_right_join_keeps_right_order(self):
        _, got = rows(HANDLERS["join"]({"spec": {"how": "right", "on": ["k"]}}, (left(), right()), T))
        self.assertEqual([(v, w) for _, v, w in got], [(30, "a"), (40, "b"), (20, "c"), (None, "d")])

    def test_broadcast_refuses_outer(self):
        with self.assertRaisesRegex(ValueError, "cannot broadcast"):
            HANDLERS["broadcast-join"]({"spec": {"how": "outer", "on": ["k"]}}, (left(), right()), T)


if __name__ == "__main__":
    unittest.main()
