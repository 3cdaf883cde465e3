"""Which clusters fork their workers from multiprocessing's forkserver (forkserver.pays): GPU
workers always, CPU workers where the workers and the bridge outnumber the cores (the 2-core
measurement in docs/dask.md), unless GPUFLOW_DASK_FORKSERVER says otherwise; and the forkserver
started early (forkserver.start_early, as the prestart does) is the one the cluster's workers are
forked from, with our preload list kept."""
import json
import os
import subprocess
import sys
import unittest
from unittest import mock

from helpers import PYTHON_DIR
from gpuflow_dask.forkserver import pays


class ForkserverRule(unittest.TestCase):
    def test_only_where_cores_are_short(self):
        self.assertTrue(pays(2, 2, {}))  # local:2 on 2 cores: 2.94 s against 3.46 s spawned
        self.assertFalse(pays(1, 2, {}))  # local:1 on 2 cores: 2.39 s against 2.30 s
        self.assertFalse(pays(4, 16, {}))  # four CPU workers on a 16-core host
        self.assertTrue(pays(16, 16, {}))

    def test_gpu_workers_always(self):
        # Four GPU workers on a 16-core host: 5.67 s against 5.84 s spawned, killed in 18 ms against 0.39 s.
        self.assertTrue(pays(4, 16, {}, gpus=True))
        self.assertTrue(pays(1, 16, {}, gpus=True))
        self.assertFalse(pays(4, 16, {"GPUFLOW_DASK_FORKSERVER": "0"}, gpus=True))

    def test_the_environment_decides_when_set(self):
        self.assertFalse(pays(2, 2, {"GPUFLOW_DASK_FORKSERVER": "0"}))
        self.assertTrue(pays(1, 64, {"GPUFLOW_DASK_FORKSERVER": "1"}))
        self.assertTrue(pays(2, 2, {"GPUFLOW_DASK_FORKSERVER": "yes"}))  # not 0 / 1: the rule

    def test_each_cluster_sets_the_method_again(self):
        # serve may start local:1 (spawned on this 2-core machine) after local-cuda (forked) in one bridge.
        import dask
        import distributed  # noqa: F401 - its configuration's defaults

        from gpuflow_dask import forkserver

        key = "distributed.worker.multiprocessing-method"
        with dask.config.set({key: dask.config.get(key)}), mock.patch.dict(os.environ, {"GPUFLOW_DASK_FORKSERVER": ""}), \
                mock.patch.object(os, "cpu_count", lambda: 2):
            forkserver.use("local-cuda")
            self.assertEqual(dask.config.get(key), "forkserver")
            forkserver.use("local:1")
            self.assertEqual(dask.config.get(key), "spawn")


# A bridge's start in a process of its own (multiprocessing's forkserver is one per process).
_SCRIPT = r"""
import json, os
from gpuflow_dask import forkserver
from gpuflow_dask.cluster import start
from multiprocessing import forkserver as mpf

early = forkserver.start_early("local:1")
server = mpf._forkserver._forkserver_pid
client, cluster = start("local:1", 60)
try:
    parents = client.run(os.getppid)
    env = {}
    if server is not None:
        with open(f"/proc/{server}/environ", "rb") as f:
            env = dict(e.decode().split("=", 1) for e in f.read().split(b"\0") if b"=" in e)
    print(json.dumps({"early": early, "server": server, "parents": list(parents.values()),
                      "serverEnv": {k: env.get(k) for k in ("OMP_NUM_THREADS", "MALLOC_TRIM_THRESHOLD_")},
                      "preload": mpf._forkserver._preload_modules == forkserver.PRELOAD}))
finally:
    client.close()
    cluster.close()
"""


class EarlyForkserver(unittest.TestCase):
    def run_bridge(self, forkserver: str):
        env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "MALLOC_TRIM_THRESHOLD_")}
        env = {**env, "GPUFLOW_DASK_FORKSERVER": forkserver, "GPUFLOW_DASK_WARM": "0",
               "PYTHONPATH": str(PYTHON_DIR) + os.pathsep + os.environ.get("PYTHONPATH", "")}
        r = subprocess.run([sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr[-2000:])
        return json.loads(r.stdout.strip().splitlines()[-1])

    def test_workers_are_forked_from_the_early_forkserver(self):
        got = self.run_bridge("1")
        self.assertTrue(got["early"])
        self.assertIsInstance(got["server"], int)
        self.assertEqual(got["parents"], [got["server"]])
        # distributed was told the preload is set: it kept ours (and did not import its own list here).
        self.assertTrue(got["preload"])
        # It started with distributed's pre-spawn environment, which its workers' NumPy and malloc
        # inherit (a forkserver started by distributed starts after the first Nanny set it).
        self.assertEqual(got["serverEnv"], {"OMP_NUM_THREADS": "1", "MALLOC_TRIM_THRESHOLD_": "65536"})

    def test_nothing_started_where_it_does_not_pay(self):
        got = self.run_bridge("0")
        self.assertFalse(got["early"])
        self.assertIsNone(got["server"])
        self.assertNotEqual(got["parents"], [None])


if __name__ == "__main__":
    unittest.main()
