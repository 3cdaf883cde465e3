"""Small array-ops against hand-computed values (assemble, transpose, summaries' edge cases)."""
import unittest

import numpy as np

from helpers import fixture  # noqa: F401
from gpuflow_dask.execute import TaskPayload, run_task


def op(name, params, *inputs):
    return run_task(TaskPayload("k", "n", {"kind": "array-op", "op": name, "params": params}), *inputs)


class ArrayOpsTest(unittest.TestCase):
    def test_assemble_two_pieces(self):
        a = np.arange(6.0).reshape(2, 3)
        b = np.array([[10.0, 11.0]])
        pieces = [{"dep": 0, "srcStart": [0, 1], "count": [2, 2], "dstStart": [0, 0]}, {"dep": 1, "srcStart": [0, 0], "count": [1, 2], "dstStart": [2, 0]}]
        out = op("assemble", {"shape": [3, 2], "dtype": "float64", "pieces": pieces}, a, b)
        np.testing.assert_array_equal(out, [[1, 2], [4, 5], [10, 11]])

    def test_transpose(self):
        np.testing.assert_array_equal(op("transpose", {}, np.array([[1.0, 2, 3], [4, 5, 6]])), [[1, 4], [2, 5], [3, 6]])

    def test_summary_stats_and_hist(self):
        x = np.array([3.0, np.nan, -1.0, 7.0])
        s = op("summary-stats", {}, x)
        self.assertEqual((s[0], s[1], s[3]), (-1.0, 7.0, 4.0))
        self.assertTrue(np.isnan(s[2]))  # NaN makes the sum NaN
        # bins of width 2 over [-1, 7]: -1 -> 0, 3 -> 2, 7 (the max) -> the last bin
        np.testing.assert_array_equal(op("summary-hist", {"bins": 4}, x, np.array([-1.0, 7.0, 0, 0])), [1, 0, 1, 1])
        np.testing.assert_array_equal(op("summary-hist-combine", {}, np.array([1.0, 2]), np.array([3.0, 4])), [4, 6])
        np.testing.assert_array_equal(op("summary-stats-combine", {}, np.array([0.0, 1, 2, 3]), np.array([-5.0, 0, 1, 1])), [-5, 1, 3, 4])


if __name__ == "__main__":
    unittest.main()
