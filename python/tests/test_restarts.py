"""A Dask worker that keeps restarting under its memory limit is named, and the run ends.

Against real processes: a `dask scheduler` and one `dask worker` WITH its nanny, named 'hungry',
whose memory limit (250 MB) is below what the run's one task needs (a timeseries partition of 60
million float64 x values: 480 MB and more while it is made). The nanny kills and restarts the
worker each time; the bridge tells each departure as a notice naming the worker and fails the run
with `worker-restarting` naming it (and its memory limit) after the third, before Dask's own
KilledWorker. Also the pure logic: RunDepartures and the KilledWorker message."""
import os
import subprocess
import sys
import time
import unittest

from bridge_process import BridgeProcess, PYTHON_DIR
from helpers import fixture  # noqa: F401 - puts python/ on sys.path
from test_faults import free_port, wait_port
from gpuflow_dask.restarts import RESTART_LIMIT, Departures, RunDepartures, killed_worker_message


def hog_graph(rows: int):
    spec = {"kind": "df", "op": "timeseries", "params": {"seed": 1, "partition": 0, "rows": rows, "columns": ["x"]}}
    return {"tasks": [{"key": "hog", "deps": [], "spec": spec, "resource": "any", "node": "big", "op": "timeseries", "outBytes": rows * 8, "workBytes": rows * 16}], "outputs": ["hog"]}


class RestartingWorker(unittest.TestCase):
    def test_a_worker_killed_at_its_memory_limit_again_and_again_is_named(self):
        port = free_port()
        address = f"tcp://127.0.0.1:{port}"
        env = {**os.environ, "DASK_DISTRIBUTED__DIAGNOSTICS__NVML": "False", "PYTHONPATH": str(PYTHON_DIR)}
        procs = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", str(port), "--dashboard-address", "127.0.0.1:0"], env=env, cwd="/", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
        b = None
        try:
            wait_port(port)
            procs.append(subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1", "--name", "hungry", "--memory-limit", "250MB", "--host", "127.0.0.1", "--dashboard-address", "127.0.0.1:0"], env=env, cwd="/", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            b = BridgeProcess()
            b.until(lambda m: m["type"] == "ready")
            b.send({"type": "connect", "id": "c", "target": address, "timeout_s": 10, "wait_s": 120})
            self.assertEqual(b.reply("c", 60)["type"], "connected")
            b.send({"type": "submit", "id": "r", "graph": hog_graph(60_000_000)})
            end = b.until(lambda m: m["type"] in ("failed", "done") and m.get("id") == "r", 240)
            self.assertEqual((end["type"], end["code"]), ("failed", "worker-restarting"), end)
            # Our count of departures or Dask's KilledWorker, whichever comes first: both name it.
            self.assertIn("worker 'hungry' (tcp://127.0.0.1:", end["message"])
            self.assertIn("memory limit 250 MB", end["message"])
            self.assertRegex(end["message"], f"left {RESTART_LIMIT} times during this run|Dask gave up on task hog after")
            notes = [m["message"] for m in b.messages if m["type"] == "notice" and m["id"] == "r"]
            self.assertTrue(any("Dask worker 'hungry'" in n and "left mid-run (1 of" in n for n in notes), notes)
        finally:
            if b is not None:
                self.assertEqual(b.close(), 0)
            for p in reversed(procs):
                p.kill()
                p.wait()


class WorkerState:  # the shape of distributed's WorkerState that KilledWorker carries
    def __init__(self, address, name):
        self.address, self.name = address, name


class KilledWorker(Exception):
    pass


class PureLogic(unittest.TestCase):
    def test_departures_of_one_identity_notice_then_fail(self):
        d = Departures()
        w = {"name": "w0", "nanny": "tcp://127.0.0.1:9", "memory_limit": 250_000_000}
        d.count("tcp://127.0.0.1:1", {"name": "other"})  # before the run: not counted
        run = RunDepartures(d)
        self.assertEqual(run.check(), ([], None))
        d.count("tcp://127.0.0.1:2", w)
        notes, fail = run.check()
        self.assertEqual(notes, ["Dask worker 'w0' (tcp://127.0.0.1:2, memory limit 250 MB, nanny tcp://127.0.0.1:9) left mid-run (1 of at most 2 times); Dask reruns its tasks"])
        self.assertIsNone(fail)
        self.assertEqual(run.check(), ([], None))  # told once
        d.count("tcp://127.0.0.1:3", {**w})  # new address, same nanny: the same worker
        d.count("tcp://127.0.0.1:4", {"name": "x"})  # another worker leaving once
        d.count("tcp://127.0.0.1:5", {**w})
        notes, fail = run.check()
        self.assertEqual(len(notes), 1)
        self.assertIn("'x'", notes[0])
        self.assertTrue(fail.startswith("Dask worker 'w0' (tcp://127.0.0.1:5, memory limit 250 MB, nanny tcp://127.0.0.1:9) left 3 times during this run"), fail)

    def test_killed_worker_names_task_and_last_worker(self):
        e = KilledWorker("run-abc-def:x/3", WorkerState("tcp://127.0.0.1:7", "w1"), 3)
        self.assertTrue(killed_worker_message(e, "x/3").startswith("Dask gave up on task x/3 after 3 workers died running it (the last: worker 'w1' (tcp://127.0.0.1:7));"), killed_worker_message(e, "x/3"))
        self.assertIsNone(killed_worker_message(ValueError("x"), "k"))


if __name__ == "__main__":
    unittest.main()
