"""supported.json (read by main/dask/supported.ts to refuse graphs before any connection) names
exactly the ops this package has handlers for, and the groupby aggregates it refuses."""
import json
import unittest
from pathlib import Path

import gpuflow_dask
from gpuflow_dask import groupby
from gpuflow_dask.arrays import HANDLERS as ARRAY_OPS
from gpuflow_dask.df import HANDLERS as DF_OPS

SUPPORTED = json.loads((Path(gpuflow_dask.__file__).parent / "supported.json").read_text())


class SupportedListTest(unittest.TestCase):
    def test_lists_match_the_handler_registries(self):
        self.assertEqual(set(SUPPORTED["array-op"]), set(ARRAY_OPS))
        self.assertEqual(set(SUPPORTED["df"]), set(DF_OPS))

    def test_refused_aggregates_are_refused_by_groupby(self):
        for agg in SUPPORTED["refusedAggs"]:
            with self.assertRaises(groupby.Unsupported):
                groupby.validate({"by": ["k"], "aggs": [{"agg": agg, "column": "x"}]}, "test")

    def test_ops_refused_with_a_reason_have_no_handler(self):
        for op in SUPPORTED["reasons"]:
            self.assertNotIn(op, DF_OPS)
            self.assertNotIn(op, ARRAY_OPS)
        self.assertNotIn("trial", SUPPORTED["kinds"])


if __name__ == "__main__":
    unittest.main()
