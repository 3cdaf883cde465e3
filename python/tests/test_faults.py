"""The bridge against real `dask scheduler` / `dask worker` processes (distributed's own CLI
modules), for the faults that used to hang or mislead: a scheduler without workers (a notice at
once, then a `no-workers` failure at the deadline), a worker that joins after connect and cannot
import gpuflow_dask (the package plugin gives it the package; the run finishes), and the
scheduler killed mid-run (`scheduler-lost`, a `lost` message, and the next submit refused at
once with the same reason). One scheduler process serves the tests in order."""
import os
import signal
import socket
import subprocess
import sys
import time
import unittest

import numpy as np

from bridge_process import BridgeProcess
from helpers import fixture, js_value
from gpuflow_dask.values import from_wire
from test_bridge_e2e import slow_graph


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def bare_env() -> dict:
    """A worker environment in which gpuflow_dask is NOT importable (no PYTHONPATH)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "GPUFLOW_CAPI_DIR")}
    env["DASK_DISTRIBUTED__DIAGNOSTICS__NVML"] = "False"
    return env


def wait_port(port: int, timeout_s: float = 60) -> None:
    end = time.time() + timeout_s
    while time.time() < end:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port}")


def start_scheduler() -> tuple:
    """A `dask scheduler` on a free loopback port, listening: (process, port, address)."""
    port = free_port()
    p = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", str(port), "--dashboard-address", "127.0.0.1:0"], env=bare_env(), cwd="/", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_port(port)
    return p, port, f"tcp://127.0.0.1:{port}"


def start_worker(address: str) -> subprocess.Popen:
    """A one-thread `dask worker` without a nanny and without gpuflow_dask on its path."""
    return subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1", "--no-nanny", "--host", "127.0.0.1", "--dashboard-address", "127.0.0.1:0"], env=bare_env(), cwd="/", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


class FaultsOnRealProcesses(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.scheduler, cls.port, cls.address = start_scheduler()
        cls.workers = []

    @classmethod
    def tearDownClass(cls):
        for p in [*cls.workers, cls.scheduler]:
            if p.poll() is None:
                p.kill()
            p.wait()

    def start_worker(self) -> subprocess.Popen:
        w = start_worker(self.address)
        self.workers.append(w)
        return w

    def connect(self, wait_s: float) -> BridgeProcess:
        b = BridgeProcess()
        b.until(lambda m: m["type"] == "ready")
        b.send({"type": "connect", "id": "c", "target": self.address, "timeout_s": 10, "wait_s": wait_s})
        self.assertEqual(b.reply("c", 60)["type"], "connected")
        return b

    def test_1_no_workers_notice_then_deadline(self):
        b = self.connect(2)
        try:
            fx = fixture("seed")
            t0 = time.time()
            b.send({"type": "submit", "id": "z", "graph": {"tasks": fx["tasks"], "outputs": [fx["outputs"]["total"]["key"]]}})
            note = b.until(lambda m: m["type"] == "notice" and m["id"] == "z", 10)
            self.assertIn(f"waiting for workers on {self.address}", note["message"])
            end = b.reply("z", 30)
            self.assertEqual((end["type"], end["code"]), ("failed", "no-workers"), end)
            self.assertIn(self.address, end["message"])
            self.assertIn("--dask-wait", end["message"])
            self.assertGreaterEqual(time.time() - t0, 2)
        finally:
            self.assertEqual(b.close(), 0)

    def test_2_worker_joining_later_gets_the_package(self):
        b = self.connect(60)
        try:
            fx = fixture("seed")
            out = fx["outputs"]["total"]["key"]
            start = len(b.messages)
            b.send({"type": "submit", "id": "late", "graph": {"tasks": fx["tasks"], "outputs": [out]}})
            b.until(lambda m: m["type"] == "notice" and m["id"] == "late", 10)
            self.start_worker()
            end = b.reply("late", 120)
            self.assertEqual(end["type"], "done", end)
            result = next(m for m in b.messages[start:] if m["type"] == "result" and m["id"] == "late")
            np.testing.assert_allclose(from_wire(result["values"][out]), js_value(fx, out), rtol=1e-12)
        finally:
            self.assertEqual(b.close(), 0)

    def test_3_scheduler_killed_mid_run_is_named(self):
        b = self.connect(60)
        try:
            b.send({"type": "submit", "id": "k", "graph": {"tasks": slow_graph(40, 2000, 2000), "outputs": ["s/total"]}})
            b.until(lambda m: m["type"] == "task" and m["run"] == "k", 120)
            self.scheduler.send_signal(signal.SIGKILL)
            self.scheduler.wait()
            end = b.reply("k", 60)
            self.assertEqual((end["type"], end["code"]), ("failed", "scheduler-lost"), end)
            self.assertIn(f"lost the scheduler at {self.address}", end["message"])
            self.assertNotIn("CancelledError", end["message"])
            if not any(m["type"] == "lost" for m in b.messages):
                b.until(lambda m: m["type"] == "lost", 30)
            b.send({"type": "submit", "id": "k2", "graph": {"tasks": slow_graph(2, 10, 10), "outputs": ["s/total"]}})
            again = b.reply("k2", 10)
            self.assertEqual((again["type"], again["code"]), ("failed", "scheduler-lost"))
        finally:
            self.assertEqual(b.close(), 0)


if __name__ == "__main__":
    unittest.main()
