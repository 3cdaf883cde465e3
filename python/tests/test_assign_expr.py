"""assign's arithmetic on a worker (assign_expr.py, through df.py's handler) against hand-written
answers: int columns stay int64 unless '/' occurs, % is floored (the divisor's sign) and NaN for a
zero divisor (then 0 in an int column), nulls propagate, a copied column keeps its type."""
import unittest

import numpy as np

from helpers import fixture  # noqa: F401 - puts python/ on sys.path
from gpuflow_dask.df import HANDLERS
from gpuflow_dask.execute import TaskPayload
from gpuflow_dask.values import Column, Table

T = TaskPayload("k", "n", {})


def col(name):
    return {"kind": "col", "name": name}


def num(v, is_int):
    return {"kind": "num", "value": v, "isInt": is_int}


def arith(op, a, b):
    return {"kind": "arith", "op": op, "a": a, "b": b}


def frame():
    return Table(4, [
        Column("i", "int32", np.array([7, -7, 3, 0], np.int32), np.array([1, 1, 1, 0], bool)),
        Column("x", "float32", np.array([0.5, np.nan, -2.0, 1.0], np.float32)),
        Column("s", "utf8", ["a", None, "c", "d"], np.array([1, 0, 1, 1], bool)),
    ])


def assign(asts):
    return HANDLERS["assign"]({"asts": asts}, (frame(),), T)


class AssignTest(unittest.TestCase):
    def test_int_arithmetic_stays_int64_with_floored_modulo(self):
        out = assign({"m": arith("%", col("i"), num(-3, True)), "z": arith("-", arith("*", col("i"), num(2, True)), num(1, True))})
        self.assertEqual([c.name for c in out.columns], ["i", "x", "s", "m", "z"])
        m, z = out.column("m"), out.column("z")
        self.assertEqual((m.type, z.type), ("int64", "int64"))
        # 7 % -3 floored is -2; -7 % -3 is -1; 3 % -3 is 0 (JavaScript's % would give 1, -1, 0)
        self.assertEqual(m.data[:3].tolist(), [-2, -1, 0])
        self.assertEqual(z.data[:3].tolist(), [13, -15, 5])
        self.assertEqual(m.valid.tolist(), [True, True, True, False])

    def test_division_is_float_and_modulo_by_zero_is_nan_or_zero(self):
        out = assign({"r": arith("/", col("i"), num(2, True)), "i": arith("%", col("i"), num(0, True)), "f": arith("%", col("x"), num(0, True))})
        self.assertEqual([c.name for c in out.columns], ["i", "x", "s", "r", "f"])
        self.assertEqual(out.column("r").type, "float64")
        self.assertEqual(out.column("r").data[:3].tolist(), [3.5, -3.5, 1.5])
        self.assertEqual(out.column("i").type, "int64")
        self.assertEqual(out.column("i").data.tolist(), [0, 0, 0, 0])
        self.assertTrue(np.isnan(out.column("f").data).all())

    def test_negation_floats_and_copies(self):
        out = assign({"y": {"kind": "neg", "arg": arith("+", col("x"), num(0.25, False))}, "t": col("s"), "one": num(1, True)})
        y = out.column("y")
        self.assertEqual(y.type, "float64")
        self.assertEqual(y.data[0], -0.75)
        self.assertTrue(np.isnan(y.data[1]))
        self.assertIsNone(y.valid)
        self.assertEqual((out.column("t").type, out.column("t").data), ("utf8", ["a", None, "c", "d"]))
        self.assertEqual((out.column("one").type, out.column("one").data.tolist()), ("int64", [1, 1, 1, 1]))

    def test_a_string_column_in_arithmetic_is_an_error(self):
        with self.assertRaisesRegex(Exception, "column 's' is utf8"):
            assign({"z": arith("+", col("s"), num(1, True))})


if __name__ == "__main__":
    unittest.main()
