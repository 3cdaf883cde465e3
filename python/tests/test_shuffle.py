"""shuffle.py's row hash against keys.ts's hashString / hashNumber (values printed by the local
kernel under node, written down here), and hash-split / gather-part's row placement."""
import unittest

import numpy as np

from helpers import fixture  # noqa: F401 - puts python/ on sys.path
from gpuflow_dask.df import HANDLERS
from gpuflow_dask.execute import TaskPayload
from gpuflow_dask.shuffle import _hash_numbers, _hash_string, hash_rows
from gpuflow_dask.values import Column, Table

T = TaskPayload("k", "n", {})


class ShuffleTest(unittest.TestCase):
    def test_value_hashes_agree_with_keys_ts(self):
        self.assertEqual([_hash_string(s) for s in ["s1", "\U0001F600x", ""]], [2050504425, 4022041948, 2872998923])
        self.assertEqual(_hash_numbers(np.array([5, -0.0, 0.0, 1.5, -1e300])).tolist(), [4292865494, 0, 0, 303941176, 1969608981])

    def test_int_and_float_keys_hash_alike_and_missing_keys_share_a_hash(self):
        a = Table(3, [Column("k", "int64", np.array([5, 7, 0]), np.array([1, 1, 0], bool))])
        b = Table(3, [Column("k", "float64", np.array([5.0, 7.0, np.nan]))])
        self.assertEqual(hash_rows(a, ["k"]).tolist(), hash_rows(b, ["k"]).tolist())

    def test_split_then_gather_keeps_row_order_within_a_part(self):
        t = Table(6, [Column("k", "int64", np.arange(6)), Column("s", "utf8", list("abcdef"))])
        splits = [HANDLERS["hash-split"]({"keys": ["k"], "k": 3}, (t,), T), HANDLERS["hash-split"]({"keys": ["k"], "k": 3}, (t,), T)]
        parts = [HANDLERS["gather-part"]({"part": p}, tuple(splits), T) for p in range(3)]
        self.assertEqual(sum(p.rows for p in parts), 12)
        want = hash_rows(t, ["k"]) % 3
        for p, part in enumerate(parts):
            rows = [i for i in range(6) if want[i] == p]
            self.assertEqual(part.column("k").data.tolist(), rows + rows)


if __name__ == "__main__":
    unittest.main()
