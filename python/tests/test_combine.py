"""combine/finalize against hand-computed values (worker/kernels/js/reduce.ts's rules)."""
import math
import unittest

import numpy as np

from helpers import fixture  # noqa: F401
from gpuflow_dask.reduce import combine_partials, finalize_partial
from gpuflow_dask.values import Partial


def P(op, **fields):
    shape = list(np.shape(next(iter(fields.values()))))
    return Partial(op, shape, {k: np.asarray(v, np.float64) for k, v in fields.items()})


class CombineTest(unittest.TestCase):
    def test_neumaier_sum_keeps_small_terms(self):
        # 1e16 + 1 - 1e16 is 0 in plain doubles; the compensated sum gives 1
        c = combine_partials([P("sum", sum=[1e16]), P("sum", sum=[1.0]), P("sum", sum=[-1e16])])
        self.assertEqual(c.fields["sum"][0], 1.0)

    def test_mean(self):
        c = combine_partials([P("mean", sum=[6.0, 1.0], count=[3, 1]), P("mean", sum=[4.0, 3.0], count=[1, 2])])
        np.testing.assert_array_equal(finalize_partial(c), [2.5, 4.0 / 3.0])

    def test_chan_variance(self):
        # [1, 2, 3] and [10, 20]: mean 7.2, squared deviations sum to 254.8: population var 50.96, sample (ddof 1) 63.7
        a = P("var", count=[3], mean=[2.0], m2=[2.0])
        b = P("var", count=[2], mean=[15.0], m2=[50.0])
        empty = P("var", count=[0], mean=[0.0], m2=[0.0])
        c = combine_partials([a, empty, b])
        self.assertAlmostEqual(finalize_partial(c)[0], 50.96, places=12)
        self.assertAlmostEqual(finalize_partial(c, 1)[0], 63.7, places=12)
        self.assertAlmostEqual(finalize_partial(Partial("std", c.shape, c.fields), 1)[0], math.sqrt(63.7), places=12)

    def test_prod_and_nan_reductions(self):
        # prod: 2 * 3 * 0.5 = 3; nanmin / nanmax of lanes [4, nan | 1] and [nan | nan] (all NaN: NaN);
        # nanmean of [1, 2 | 6] (skipping NaN) = 3.
        c = combine_partials([P("prod", value=[2.0]), P("prod", value=[3.0]), P("prod", value=[0.5])])
        self.assertEqual(finalize_partial(c)[0], 3.0)
        c = combine_partials([P("nanmin", value=[4.0, np.inf], count=[1, 0]), P("nanmin", value=[1.0, np.inf], count=[1, 0])])
        got = finalize_partial(c)
        self.assertEqual(got[0], 1.0)
        self.assertTrue(math.isnan(got[1]))
        c = combine_partials([P("nanmax", value=[4.0], count=[1]), P("nanmax", value=[1.0], count=[1])])
        self.assertEqual(finalize_partial(c)[0], 4.0)
        c = combine_partials([P("nanmean", sum=[3.0], count=[2]), P("nanmean", sum=[6.0], count=[1])])
        self.assertEqual(finalize_partial(c)[0], 3.0)

    def test_min_max_propagate_nan(self):
        c = combine_partials([P("min", value=[3.0, 1.0]), P("min", value=[np.nan, 0.5]), P("min", value=[-1.0, 2.0])])
        self.assertTrue(math.isnan(c.fields["value"][0]))
        self.assertEqual(c.fields["value"][1], 0.5)
        c = combine_partials([P("max", value=[3.0]), P("max", value=[7.0])])
        self.assertEqual(c.fields["value"][0], 7.0)

    def test_arg_ties_keep_smaller_index_and_nan_wins(self):
        c = combine_partials([P("argmax", value=[5.0], index=[40]), P("argmax", value=[5.0], index=[7]), P("argmax", value=[4.0], index=[1])])
        self.assertEqual(int(finalize_partial(c)[0]), 7)
        self.assertEqual(finalize_partial(c).dtype, np.int64)
        c = combine_partials([P("argmin", value=[1.0], index=[3]), P("argmin", value=[np.nan], index=[9]), P("argmin", value=[np.nan], index=[5]), P("argmin", value=[0.0], index=[0])])
        self.assertEqual(int(finalize_partial(c)[0]), 5)
        c = combine_partials([P("argmin", value=[np.inf], index=[-1]), P("argmin", value=[2.0], index=[12])])
        self.assertEqual(int(finalize_partial(c)[0]), 12)

    def test_mismatched_partials_refused(self):
        with self.assertRaisesRegex(ValueError, "mismatched"):
            combine_partials([P("sum", sum=[1.0]), P("mean", sum=[1.0], count=[1])])


if __name__ == "__main__":
    unittest.main()
