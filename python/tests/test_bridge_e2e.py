"""The bridge process end to end on a LocalCluster with 2 worker processes: the seed graph's
answer equals the js engine's, tasks ran on both workers with their events before `done`, bad
lines get `bad-message` and the bridge keeps going, an unreachable scheduler is named within
its timeout, and cancel leaves the cluster able to run the next graph."""
import os
import shutil
import tempfile
import time
import unittest

import numpy as np

from bridge_process import BridgeProcess
from helpers import arrays_of, fixture, js_value
from gpuflow_dask.values import from_wire


class BridgeOnLocalCluster(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.b = BridgeProcess()
        cls.ready = cls.b.until(lambda m: m["type"] == "ready")
        cls.b.send({"type": "connect", "id": "c1", "target": "local:2", "timeout_s": 60})
        cls.connected = cls.b.reply("c1", 180)

    @classmethod
    def tearDownClass(cls):
        cls.rc = cls.b.close()

    def test_1_ready_and_connected(self):
        self.assertEqual(self.ready["protocol"], 1)
        self.assertIsNotNone(self.ready["versions"]["distributed"])
        self.assertEqual(self.connected["type"], "connected", self.connected)
        ws = self.connected["workers"]
        self.assertEqual(sorted(w["name"] for w in ws), ["0", "1"])
        self.assertTrue(all(w["gpuflow"] and w["nthreads"] == 1 and isinstance(w["pid"], int) for w in ws))
        self.b.send({"type": "workers", "id": "q1"})
        self.assertEqual(len(self.b.reply("q1")["workers"]), 2)

    def test_2_seed_graph_matches_js(self):
        fx = fixture("seed")
        out = fx["outputs"]["total"]["key"]
        start = len(self.b.messages)
        self.b.send({"type": "submit", "id": "r1", "graph": {"tasks": fx["tasks"], "outputs": [out]}})
        end = self.b.reply("r1", 120)
        self.assertEqual(end["type"], "done", end)
        msgs = self.b.messages[start:]
        result = next(m for m in msgs if m["type"] == "result" and m["id"] == "r1")
        np.testing.assert_allclose(from_wire(result["values"][out]), js_value(fx, out), rtol=1e-12)
        tasks = [m for m in msgs if m["type"] == "task" and m["run"] == "r1"]
        self.assertEqual({m["key"] for m in tasks}, {t["key"] for t in fx["tasks"]})
        self.assertEqual({m["worker"] for m in tasks}, {"0", "1"})
        self.assertTrue(all(m["stop"] >= m["start"] and m["status"] == "done" for m in tasks))
        self.assertEqual({m["backend"] for m in tasks if m["key"].startswith("total/sum(")}, {"capi-cpu"})
        # every task event came before done
        self.assertLess(max(self.b.messages.index(m) for m in tasks), self.b.messages.index(end))

    def test_2b_groupby_graph_matches_js_bit_for_bit(self):
        fx = fixture("groupby-many")
        outs = [k for o in fx["outputs"].values() for k in o["keys"]]
        self.b.send({"type": "submit", "id": "g1", "graph": {"tasks": fx["tasks"], "outputs": outs}})
        end = self.b.reply("g1", 120)
        self.assertEqual(end["type"], "done", end)
        result = next(m for m in self.b.messages if m["type"] == "result" and m["id"] == "g1")
        for k in outs:
            mine, ref = arrays_of(from_wire(result["values"][k])), arrays_of(js_value(fx, k))
            self.assertEqual(sorted(mine), sorted(ref))
            for c in ref:
                np.testing.assert_array_equal(mine[c], ref[c], err_msg=f"{k} {c}")

    def test_3_bad_line_then_still_working(self):
        self.b.send("this is not json")
        m = self.b.until(lambda m: m["type"] == "error")
        self.assertEqual(m["code"], "bad-message")
        self.assertIsNone(m["id"])
        self.b.send({"type": "workers", "id": "q2"})
        self.assertEqual(self.b.reply("q2")["type"], "workers")

    def test_4_unsupported_op_fails_naming_it(self):
        tasks = [{"key": "t/x(0)", "deps": [], "spec": {"kind": "array-op", "op": "teleport", "params": {}}, "resource": "any", "node": "t", "op": "teleport", "outBytes": 8, "workBytes": 8}]
        self.b.send({"type": "submit", "id": "r2", "graph": {"tasks": tasks, "outputs": ["t/x(0)"]}})
        m = self.b.reply("r2")
        self.assertEqual((m["type"], m["code"], m["key"], m["node"]), ("failed", "unsupported-op", "t/x(0)", "t"))
        self.assertIn("teleport", m["message"])

    def test_6_worker_killed_mid_run_still_finishes(self):
        import os
        import signal

        from gpuflow_dask.execute import TaskPayload, run_task

        tasks = slow_graph(24, 3000, 4000)
        expected = run_task(TaskPayload("s/total", "s", tasks[-1]["spec"]), *[run_task(TaskPayload(t["key"], "s", t["spec"])) for t in tasks[:-1]])
        start = len(self.b.messages)
        self.b.send({"type": "submit", "id": "k1", "graph": {"tasks": tasks, "outputs": ["s/total"]}})
        first = self.b.until(lambda m: m["type"] == "task" and m["run"] == "k1", 120)
        victim = next(w for w in self.connected["workers"] if w["name"] == first["worker"])
        os.kill(victim["pid"], signal.SIGKILL)
        end = self.b.reply("k1", 300)
        self.assertEqual(end["type"], "done", end)
        result = next(m for m in self.b.messages[start:] if m["type"] == "result" and m["id"] == "k1")
        np.testing.assert_array_equal(from_wire(result["values"]["s/total"]), expected)
        removed = [m for m in self.b.messages[start:] if m["type"] == "worker" and m["event"] == "removed"]
        self.assertEqual([m["worker"]["name"] for m in removed], [victim["name"]])

    def test_5_cancel_then_next_run(self):
        # a graph of several seconds, cancelled at once: `cancelled`, then the cluster runs the next one
        self.b.send({"type": "submit", "id": "r3", "graph": {"tasks": slow_graph(24, 3000, 4000), "outputs": ["s/total"]}})
        self.b.send({"type": "cancel", "id": "r3"})
        self.assertEqual(self.b.reply("r3")["type"], "cancelled")
        fx = fixture("seed")
        out = fx["outputs"]["total"]["key"]
        self.b.send({"type": "submit", "id": "r4", "graph": {"tasks": fx["tasks"], "outputs": [out]}})
        self.assertEqual(self.b.reply("r4")["type"], "done")


def slow_graph(chunks: int, rows: int, cols: int):
    """`chunks` row blocks of normal(0, 1, (chunks*rows, cols)) summed, then one combine."""
    tasks = []
    shape = [chunks * rows, cols]
    for i in range(chunks):
        leaf = {"kind": "random", "dist": "normal", "seed": 11, "a": 0, "b": 1, "shape": shape,
                "region": {"start": [i * rows, 0], "step": [1, 1], "count": [rows, cols]}}
        prog = {"dtype": "float64", "shape": [rows, cols], "expr": {"kind": "leaf", "leaf": leaf}, "reduce": {"op": "sum", "axis": None}}
        tasks.append({"key": f"s/sum({i})", "deps": [], "spec": {"kind": "program", "program": prog}, "resource": "any", "node": "s", "op": "normal+sum", "outBytes": 8, "workBytes": 8})
    tasks.append({"key": "s/total", "deps": [t["key"] for t in tasks], "spec": {"kind": "combine", "finalize": True}, "resource": "any", "node": "s", "op": "sum-combine", "outBytes": 8, "workBytes": 8})
    return tasks


class BridgeWithoutCluster(unittest.TestCase):
    def test_leaves_no_temp_folder(self):
        tmp = tempfile.mkdtemp(prefix="gpuflow-bridge-tmp-")
        try:
            b = BridgeProcess({"TMPDIR": tmp})
            b.until(lambda m: m["type"] == "ready")
            self.assertEqual(b.close(), 0)
            self.assertEqual(os.listdir(tmp), [])
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def test_unreachable_scheduler_named_within_timeout(self):
        b = BridgeProcess()
        try:
            b.until(lambda m: m["type"] == "ready")
            t0 = time.time()
            b.send({"type": "connect", "id": "c9", "target": "tcp://127.0.0.1:9", "timeout_s": 3})
            m = b.reply("c9", 30)
            self.assertEqual((m["type"], m["code"]), ("error", "unreachable"))
            self.assertIn("tcp://127.0.0.1:9", m["message"])
            self.assertLess(time.time() - t0, 10)
        finally:
            self.assertEqual(b.close(), 0)

    def test_local_cuda_without_dask_cuda_is_named(self):
        try:
            import dask_cuda  # noqa: F401

            self.skipTest("dask_cuda is installed here")
        except ImportError:
            pass
        # Without dask-cuda, local-cuda starts one worker per visible GPU (test_local_cuda.py);
        # with none visible it says so.
        b = BridgeProcess({"CUDA_VISIBLE_DEVICES": ""})
        try:
            b.until(lambda m: m["type"] == "ready")
            b.send({"type": "connect", "id": "c8", "target": "local-cuda", "timeout_s": 5})
            m = b.reply("c8", 30)
            self.assertEqual((m["type"], m["code"]), ("error", "local-cuda-missing"))
            self.assertIn("no GPU is visible", m["message"])
            b.send({"type": "submit", "id": "r9", "graph": {"tasks": [], "outputs": []}})
            self.assertEqual(b.reply("r9")["code"], "internal")  # not connected
        finally:
            self.assertEqual(b.close(), 0)


if __name__ == "__main__":
    unittest.main()
