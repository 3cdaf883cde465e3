"""Programs from their tree (gpuflow_dask/expr_program.py) against hand-computed values of the js
interpreter's rules (worker/kernels/js/program.ts): comparisons 1 / 0, where with a NaN condition
counting as true, float32 rounding after each operation, broadcasts with an axis map, and a
reduction folded after."""
import unittest

import numpy as np

from helpers import fixture  # noqa: F401
from gpuflow_dask.execute import TaskPayload, run_task
from gpuflow_dask.expr_program import evaluate


def inp(dep, shape, start=None, step=None):
    return {"kind": "leaf", "leaf": {"kind": "input", "dep": dep, "region": {"start": start or [0] * len(shape), "step": step or [1] * len(shape), "count": list(shape)}}}


def fill(v):
    return {"kind": "leaf", "leaf": {"kind": "fill", "value": v}}


class ExprProgramTest(unittest.TestCase):
    def test_compare_and_where_nan_condition_is_true(self):
        x = np.array([-1.0, 0.0, 2.0, np.nan])
        cond = {"kind": "binary", "op": "gt", "a": inp(0, [4]), "b": fill(0)}
        np.testing.assert_array_equal(evaluate({"dtype": "float64", "shape": [4], "expr": cond}, [x]), [0, 0, 1, 0])
        where = {"kind": "where", "cond": inp(0, [4]), "a": fill(7), "b": fill(-7)}
        np.testing.assert_array_equal(evaluate({"dtype": "float64", "shape": [4], "expr": where}, [x]), [7, -7, 7, 7])

    def test_float32_rounds_after_each_operation_but_not_the_right_constant(self):
        # 0.1 as float32 is 0.100000001490116...; + 0.1 (a double constant) = 0.200000001490116,
        # rounded to float32 0.2000000029802322.
        x = np.array([0.1], np.float32)
        e = {"kind": "binary", "op": "add", "a": inp(0, [1]), "b": fill(0.1)}
        out = evaluate({"dtype": "float32", "shape": [1], "expr": e}, [x], "float32")
        self.assertEqual(out.dtype, np.float32)
        self.assertEqual(float(out[0]), float(np.float32(0.2000000029802322)))

    def test_broadcast_axis_map_and_backward_region(self):
        # A row [10, 20, 30] along axis 1 of a 2x3 program, read backwards from the input [30, 20, 10].
        row = np.array([30.0, 20.0, 10.0])
        b = {"kind": "broadcast", "arg": inp(0, [3], start=[2], step=[-1]), "from": [3], "axes": [1]}
        np.testing.assert_array_equal(evaluate({"dtype": "float64", "shape": [2, 3], "expr": b}, [row]), [[10, 20, 30], [10, 20, 30]])

    def test_runs_as_a_task_with_its_reduction(self):
        # count of x > 1 per row of [[0, 2, 3], [5, 1, 1]]: 2 and 1
        x = np.array([[0.0, 2.0, 3.0], [5.0, 1.0, 1.0]])
        prog = {"dtype": "float64", "shape": [2, 3], "expr": {"kind": "binary", "op": "gt", "a": inp(0, [2, 3]), "b": fill(1)}, "reduce": {"op": "sum", "axis": 1}}
        p = run_task(TaskPayload("k", "n", {"kind": "program", "program": prog}), x)
        np.testing.assert_array_equal(p.fields["sum"], [2.0, 1.0])


if __name__ == "__main__":
    unittest.main()
