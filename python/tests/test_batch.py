"""Batching: which combines absorb their chunk programs, and that a batched graph gives the
same values as one task per chunk (under dask's threaded scheduler: no distributed needed)."""
import os
import unittest

import numpy as np

from helpers import fixture, js_value
from gpuflow_dask.batch import plan
from gpuflow_dask.messages import parse
from gpuflow_dask.runs import dask_graph
import json


def submit_of(fx):
    outs = [k for o in fx["outputs"].values() for k in (o["keys"] if "keys" in o else [o["key"]])]
    return parse(json.dumps({"type": "submit", "id": "r1", "graph": {"tasks": fx["tasks"], "outputs": outs}}))


class BatchTest(unittest.TestCase):
    def test_plan_seed(self):
        sub = submit_of(fixture("seed"))
        batches = plan(sub.tasks, sub.outputs)
        # 16 chunk programs feed two first-level combines of 8; the final combine reads combines
        self.assertEqual(sorted(batches), ["total/sum-combine0(0)", "total/sum-combine0(1)"])
        self.assertEqual(sum(len(m) for m in batches.values()), 16)
        dsk = dask_graph(sub, "r1:", batches)
        self.assertEqual(sorted(dsk), ["r1:total/sum-combine0(0)", "r1:total/sum-combine0(1)", "r1:total/sum-combine1(0)"])

    def test_no_batch_when_a_chunk_is_shared_or_an_output(self):
        sub = submit_of(fixture("linalg"))
        self.assertEqual(plan(sub.tasks, sub.outputs), {})  # linalg has no combine of leaf programs
        sub = submit_of(fixture("seed"))
        first = sub.tasks[0].key
        sub.outputs.append(first)
        batches = plan(sub.tasks, sub.outputs)
        # the combine reading that chunk is not batched at all (a batch is all of a combine's deps)
        self.assertEqual(len(batches), 1)
        self.assertNotIn(first, [m for ms in batches.values() for m in ms])

    def test_switch_off(self):
        sub = submit_of(fixture("seed"))
        os.environ["GPUFLOW_DASK_BATCH"] = "0"
        try:
            self.assertEqual(plan(sub.tasks, sub.outputs), {})
        finally:
            del os.environ["GPUFLOW_DASK_BATCH"]

    def test_batched_graph_same_answer_threaded(self):
        import dask.threaded

        fx = fixture("seed")
        sub = submit_of(fx)
        dsk = dask_graph(sub, "r1:", plan(sub.tasks, sub.outputs))
        out = fx["outputs"]["total"]["key"]
        (v,) = dask.threaded.get(dsk, ["r1:" + out])
        np.testing.assert_allclose(v, js_value(fx, out), rtol=1e-12)


if __name__ == "__main__":
    unittest.main()
