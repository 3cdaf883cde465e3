"""Integer chunk programs (gpuflow_dask/int_program.py) against hand-computed values of the
js reference's conversions (worker/kernels/js/program.ts: ToInt32 of Math.trunc, BigInt of
Math.trunc stored in a BigInt64Array) and its exact int64 sums and products (reduce.ts)."""
import unittest

import numpy as np

from helpers import fixture  # noqa: F401
from gpuflow_dask.execute import TaskPayload, run_task
from gpuflow_dask.int_program import to_int
from gpuflow_dask.reduce import combine_partials


def whole(shape):
    return {"start": [0] * len(shape), "step": [1] * len(shape), "count": list(shape)}


class ToIntTest(unittest.TestCase):
    def test_int32_truncates_wraps_and_zeroes_non_finite(self):
        v = np.array([2.9, -2.9, 2.0**31, 2.0**32 + 5, -(2.0**31) - 1, np.nan, np.inf, -np.inf])
        np.testing.assert_array_equal(to_int(v, "int32", "t"), np.array([2, -2, -(2**31), 5, 2**31 - 1, 0, 0, 0], np.int32))

    def test_int64_truncates_and_wraps_beyond_2_63(self):
        v = np.array([-7.5, 2.0**53, 2.0**63, -(2.0**64) - 2.0**12])
        np.testing.assert_array_equal(to_int(v, "int64", "t"), np.array([-7, 2**53, -(2**63), -(2**12)], np.int64))

    def test_int64_refuses_nan_as_bigint_does(self):
        with self.assertRaisesRegex(ValueError, "not an integer"):
            to_int(np.array([1.0, np.nan]), "int64", "t")

    def test_zero_d_stays_an_array(self):
        out = to_int(np.array(3.7), "int32", "t")
        self.assertIsInstance(out, np.ndarray)
        self.assertEqual(out.shape, ())


class IntProgramTest(unittest.TestCase):
    def run_program(self, prog, *inputs):
        return run_task(TaskPayload("k", "n", {"kind": "program", "program": prog}), *inputs)

    def test_int64_input_gathered_exactly_beyond_2_53(self):
        x = 2**60 + np.arange(10, dtype=np.int64)
        prog = {"dtype": "int64", "shape": [3], "expr": {"kind": "leaf", "leaf": {"kind": "input", "dep": 0, "region": {"start": [9], "step": [-4], "count": [3]}}}}
        np.testing.assert_array_equal(self.run_program(prog, x), np.array([2**60 + 9, 2**60 + 5, 2**60 + 1], np.int64))

    def test_int32_arange_times_three_sum_is_exact_and_combines(self):
        # arange(0, 6) * 3 in two blocks: 0 3 6 | 9 12 15, sums 9 and 36, combined 45.
        def block(start):
            leaf = {"kind": "leaf", "leaf": {"kind": "arange", "start": 0, "step": 1, "shape": [6], "region": {"start": [start], "step": [1], "count": [3]}}}
            expr = {"kind": "binary", "op": "mul", "a": leaf, "b": {"kind": "leaf", "leaf": {"kind": "fill", "value": 3}}}
            return self.run_program({"dtype": "int32", "shape": [3], "expr": expr, "reduce": {"op": "sum", "axis": None}})

        a, b = block(0), block(3)
        self.assertEqual((int(a.isum), int(b.isum)), (9, 36))
        self.assertEqual(int(combine_partials([a, b]).isum), 45)
        out = run_task(TaskPayload("c", "n", {"kind": "combine", "finalize": True, "dtype": "int64"}), a, b)
        self.assertEqual(out.dtype, np.int64)
        self.assertEqual(int(out), 45)

    def test_int64_product_wraps_as_numpy(self):
        # (2**40) * (2**40) wraps to 0 in int64; the float64 field says 2**80.
        x = np.array([2**40, 2**40], np.int64)
        prog = {"dtype": "int64", "shape": [2], "expr": {"kind": "leaf", "leaf": {"kind": "input", "dep": 0, "region": whole([2])}}, "reduce": {"op": "prod", "axis": None}}
        p = self.run_program(prog, x)
        self.assertEqual(int(p.isum), 0)
        self.assertEqual(float(p.fields["value"]), 2.0**80)


if __name__ == "__main__":
    unittest.main()
