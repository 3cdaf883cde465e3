"""read-csv and filter on a worker (csv_read.py, filter_expr.py) against hand-written answers:
quoting, blank lines, nulls and byte ranges as the local kernel reads them; Kleene logic."""
import os
import tempfile
import unittest

import numpy as np

from helpers import fixture  # noqa: F401 - puts python/ on sys.path
from gpuflow_dask.csv_read import CsvError, read_csv
from gpuflow_dask.filter_expr import filter_table
from gpuflow_dask.values import Column, Table

TEXT = 'k,x,s\n1,0.5,"a,b"\n\n2,,"say ""hi"""\n3,-inf,\n'
TYPES = {"k": "int", "x": "float", "s": "string"}


def col(name):
    return {"kind": "col", "name": name}


def num(v):
    return {"kind": "num", "value": v}


class CsvTest(unittest.TestCase):
    def setUp(self):
        fd, self.path = tempfile.mkstemp(suffix=".csv")
        with os.fdopen(fd, "wb") as f:
            f.write(TEXT.encode())

    def tearDown(self):
        os.unlink(self.path)

    def read(self, start, end, **kw):
        return read_csv({"path": self.path, "start": start, "end": end, "types": TYPES, **kw})

    def test_whole_file(self):
        t = self.read(0, None)
        self.assertEqual(t.rows, 3)
        self.assertEqual(t.column("k").data.tolist(), [1, 2, 3])
        self.assertEqual(t.column("k").data.dtype, np.int64)
        self.assertEqual(t.column("x").valid.tolist(), [True, False, True])
        self.assertEqual(t.column("x").data[2], -np.inf)
        self.assertEqual(t.column("s").data, ["a,b", 'say "hi"', None])

    def test_byte_ranges_give_each_row_once(self):
        # A line belongs to the range holding its first byte: ranges of 7 bytes.
        size = len(TEXT.encode())
        ks = []
        for s in range(0, size, 7):
            ks += self.read(s, min(s + 7, size)).column("k").data.tolist()
        self.assertEqual(ks, [1, 2, 3])

    def test_bad_value_names_file_and_line(self):
        # The range starting at byte 19 (line 4, after the blank line) counts the lines before it.
        with self.assertRaisesRegex(CsvError, r"\.csv line 4: column 's': expected float, found 'say \"hi\"'$"):
            read_csv({"path": self.path, "start": 19, "end": None, "types": {**TYPES, "s": "float"}})

    def test_bad_rows_skipped(self):
        t = read_csv({"path": self.path, "start": 0, "end": None, "types": {**TYPES, "s": "float"}, "onBadLines": "skip"})
        self.assertEqual(t.column("k").data.tolist(), [3])


class FilterTest(unittest.TestCase):
    def table(self):
        a = Column("a", "float64", np.array([1.0, 5.0, np.nan, 0.0, 7.0]), np.array([True, True, True, False, True]))
        b = Column("b", "int64", np.array([0, 0, 9, 9, 9]), np.array([True, False, True, True, True]))
        return Table(5, [a, b])

    def test_null_and_nan_comparisons_drop_the_row(self):
        t = filter_table(self.table(), {"kind": "cmp", "op": ">", "a": col("a"), "b": num(0)})
        self.assertEqual(t.column("a").data.tolist(), [1.0, 5.0, 7.0])

    def test_kleene_or_keeps_a_true_operand_beside_a_null(self):
        # row 1: a > 2 true, b null -> true; row 3: a null, b > 2 true -> true
        cond = {"kind": "logic", "op": "or", "a": {"kind": "cmp", "op": ">", "a": col("a"), "b": num(2)}, "b": {"kind": "cmp", "op": "<", "a": col("b"), "b": num(1)}}
        t = filter_table(self.table(), cond)
        self.assertEqual(t.column("a").data.tolist(), [1.0, 5.0, 7.0])
        self.assertEqual(t.column("b").valid.tolist(), [True, False, True])

    def test_not_of_null_stays_null(self):
        cond = {"kind": "not", "arg": {"kind": "cmp", "op": "<", "a": col("b"), "b": {"kind": "neg", "arg": num(1)}}}
        t = filter_table(self.table(), cond)
        self.assertEqual(t.rows, 4)  # rows 0, 2, 3, 4; row 1's b is null

    def test_not_in_keeps_missing_values_as_pandas_isin(self):
        # a: [1, 5, NaN, null, 7]; pandas: ~a.isin([5]) is True for NaN and null, a.isin([5]) False.
        def members(neg):
            return {"kind": "in", "arg": col("a"), "items": [num(5)], "negated": neg}

        self.assertEqual(filter_table(self.table(), members(True)).column("b").data.tolist(), [0, 9, 9, 9])
        self.assertEqual(filter_table(self.table(), members(False)).rows, 1)


if __name__ == "__main__":
    unittest.main()
