"""prod and the NaN-skipping reductions (issue 24) through the bridge's program runner: the NumPy
interpreter's chunk step, and the C API's when the library is built, then combine / finalize,
against numpy.prod / nanprod / nanmin / nanmax / nanmean of the same block."""
import unittest

import numpy as np

from helpers import fixture  # noqa: F401
from gpuflow_dask import capi
from gpuflow_dask.program import run
from gpuflow_dask.reduce import combine_partials, finalize_partial

# Column 1 and row 2 hold only NaN: nanmin / nanmax / nanmean give NaN there (NumPy warns).
X = np.array([[2, np.nan, -1, 5], [0.5, np.nan, 7, -3], [np.nan] * 4])


def spec(op, axis):
    leaf = {"kind": "leaf", "leaf": {"kind": "input", "dep": 0, "region": {"start": [0, 0], "step": [1, 1], "count": [3, 4]}}}
    return {"kind": "program", "program": {"dtype": "float64", "shape": [3, 4], "expr": leaf, "reduce": {"op": op, "axis": axis}}}


class NanReductionsTest(unittest.TestCase):
    def check(self, use_capi):
        for op in ("prod", "nanprod", "nanmin", "nanmax", "nanmean"):
            for axis in (None, 0, 1):
                partial, _ = run(spec(op, axis), [X], use_capi=use_capi)
                got = finalize_partial(combine_partials([partial]))
                with np.errstate(all="ignore"), np.testing.suppress_warnings() as sup:
                    sup.filter(RuntimeWarning)
                    want = getattr(np, op)(X, axis=axis)
                np.testing.assert_array_equal(got, np.asarray(want, np.float64), err_msg=f"{op} axis {axis}")

    def test_numpy_interpreter(self):
        self.check(False)

    @unittest.skipIf(capi.load() is None, "the C API library is not built")
    def test_c_api(self):
        self.check(True)


if __name__ == "__main__":
    unittest.main()
