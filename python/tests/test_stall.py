"""A cluster that has workers but makes no progress (issue 28, "no hang, ever"): the one worker
of a real `dask scheduler` / `dask worker` pair is SIGSTOPped after connect, so the scheduler
keeps the run's tasks `processing` on it and nothing fails. The run must say so (a notice
naming what the scheduler reports) and fail with `no-progress` at the --dask-wait deadline,
rather than wait forever as it did; a run that keeps finishing tasks runs past the deadline."""
import signal
import time
import unittest

from distributed import Client

from bridge_process import BridgeProcess
from helpers import fixture
from test_bridge_e2e import slow_graph
from test_faults import start_scheduler, start_worker


class StalledWorker(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.scheduler, _, cls.address = start_scheduler()
        cls.worker = start_worker(cls.address)
        with Client(cls.address, timeout=30) as c:
            c.wait_for_workers(1, timeout=60)

    @classmethod
    def tearDownClass(cls):
        for p in (cls.worker, cls.scheduler):
            if p.poll() is None:
                p.send_signal(signal.SIGCONT)
                p.kill()
            p.wait()

    def test_1_steady_run_longer_than_the_deadline_finishes(self):
        b = BridgeProcess()
        try:
            b.until(lambda m: m["type"] == "ready")
            b.send({"type": "connect", "id": "c", "target": self.address, "timeout_s": 10, "wait_s": 3})
            self.assertEqual(b.reply("c", 60)["type"], "connected")
            t0 = time.time()
            # 160 tasks of 1e6 normals each: tasks finish far more often than every 3 s, while the
            # whole run takes longer than that. (Small tasks: at 4e6 normals a task took over 3 s on
            # a 2-core machine at load 10, a false stall.)
            b.send({"type": "submit", "id": "ok", "graph": {"tasks": slow_graph(160, 1000, 1000), "outputs": ["s/total"]}})
            end = b.reply("ok", 120)
            self.assertEqual(end["type"], "done", end)
            self.assertGreater(time.time() - t0, 3)
            self.assertFalse([m for m in b.messages if m["type"] == "notice" and m["id"] == "ok"])
        finally:
            self.assertEqual(b.close(), 0)

    def test_2_stopped_worker_notice_then_no_progress_failure(self):
        b = BridgeProcess()
        try:
            b.until(lambda m: m["type"] == "ready")
            b.send({"type": "connect", "id": "c", "target": self.address, "timeout_s": 10, "wait_s": 6})
            connected = b.reply("c", 60)
            # connect uploads gpuflow_dask to the one worker, which must still be running then.
            self.assertEqual((connected["type"], len(connected["workers"])), ("connected", 1), connected)
            self.worker.send_signal(signal.SIGSTOP)
            fx = fixture("seed")
            t0 = time.time()
            b.send({"type": "submit", "id": "st", "graph": {"tasks": fx["tasks"], "outputs": [fx["outputs"]["total"]["key"]]}})
            note = b.until(lambda m: m["type"] == "notice" and m["id"] == "st", 30)
            self.assertIn("no task of this run started or finished", note["message"])
            self.assertIn("processing", note["message"])
            self.assertIn("127.0.0.1", note["message"])  # the worker the tasks sit on
            self.assertIn("workers' logs: no answer from 1 worker(s)", note["message"])  # it is stopped
            end = b.reply("st", 60)
            self.assertEqual((end["type"], end["code"]), ("failed", "no-progress"), end)
            self.assertIn("--dask-wait", end["message"])
            self.assertIn("processing", end["message"])
            self.assertGreaterEqual(time.time() - t0, 6)
        finally:
            self.worker.send_signal(signal.SIGCONT)
            self.assertEqual(b.close(), 0)


if __name__ == "__main__":
    unittest.main()
