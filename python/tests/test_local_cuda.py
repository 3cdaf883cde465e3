"""`local-cuda` without dask-cuda (gpuflow_dask/cuda_cluster.py) on this GPU-less machine, with
GPU lists given by hand: the visible GPUs read as dask-cuda reads them, one Nanny spec per GPU
pinned with CUDA_VISIBLE_DEVICES (its GPU first, dask-cuda's rotation), the pin reaching each
worker process, and the bridge running a graph on such a cluster."""
import json
import os
import stat
import tempfile
import unittest
from pathlib import Path

import numpy as np

from bridge_process import BridgeProcess
from helpers import fixture, js_value
from gpuflow_dask.cuda_cluster import gpu_threads, pinned, start_cuda_cluster, visible_gpus, worker_specs
from gpuflow_dask.values import from_wire


class VisibleGpus(unittest.TestCase):
    def test_from_cuda_visible_devices(self):
        self.assertEqual(visible_gpus({"CUDA_VISIBLE_DEVICES": "2, 3"}), ["2", "3"])
        self.assertEqual(visible_gpus({"CUDA_VISIBLE_DEVICES": "GPU-aa,GPU-bb"}), ["GPU-aa", "GPU-bb"])
        self.assertEqual(visible_gpus({"CUDA_VISIBLE_DEVICES": ""}), [])
        self.assertEqual(visible_gpus({"CUDA_VISIBLE_DEVICES": "-1"}), [])

    def test_fixture_cases(self):
        # The cases main/dask/compile-options.ts counts the same way (test/unit/dask/compile-options.test.ts).
        cases = json.loads((Path(__file__).parent / "fixtures" / "cuda-visible-devices.json").read_text())["cases"]
        for c in cases:
            self.assertEqual(visible_gpus({"CUDA_VISIBLE_DEVICES": c["value"]}), c["gpus"], c["value"])

    def test_from_nvidia_smi(self):
        with tempfile.TemporaryDirectory() as d:
            smi = os.path.join(d, "nvidia-smi")
            with open(smi, "w") as f:
                f.write("#!/bin/sh\nprintf '0\\n1\\n2\\n3\\n'\n")
            os.chmod(smi, stat.S_IRWXU)
            self.assertEqual(visible_gpus({}, smi), ["0", "1", "2", "3"])
        self.assertEqual(visible_gpus({}, "/nonexistent/nvidia-smi"), [])


class WorkerSpecs(unittest.TestCase):
    def test_one_pinned_nanny_per_gpu(self):
        from distributed import Nanny

        specs = worker_specs(["0", "1", "2", "3"])
        self.assertEqual(list(specs), ["gpu-0", "gpu-1", "gpu-2", "gpu-3"])
        self.assertEqual([s["options"]["env"]["CUDA_VISIBLE_DEVICES"] for s in specs.values()], ["0,1,2,3", "1,2,3,0", "2,3,0,1", "3,0,1,2"])
        for s in specs.values():
            self.assertIs(s["cls"], Nanny)
            self.assertEqual((s["options"]["host"], s["options"]["nthreads"], s["options"]["resources"]), ("127.0.0.1", 1, {"GPU": 1}))
        self.assertEqual(pinned(["5", "7"], 1, {}), "7,5")

    def test_each_worker_alone_on_its_gpu_when_asked(self):
        self.assertEqual([pinned(["0", "1", "2", "3"], i, {"GPUFLOW_DASK_PIN": "own"}) for i in range(4)], ["0", "1", "2", "3"])
        self.assertEqual(pinned(["GPU-aa", "GPU-bb"], 1, {"GPUFLOW_DASK_PIN": "own"}), "GPU-bb")
        self.assertEqual(pinned(["5", "7"], 1, {"GPUFLOW_DASK_PIN": "rotate"}), "7,5")
        with self.assertRaisesRegex(ValueError, "GPUFLOW_DASK_PIN.*'alone'"):
            pinned(["5", "7"], 1, {"GPUFLOW_DASK_PIN": "alone"})

    def test_threads_per_gpu_worker(self):
        # 1 (dask-cuda's default) unless GPUFLOW_DASK_GPU_THREADS says otherwise; nonsense refused.
        self.assertEqual((gpu_threads({}), gpu_threads({"GPUFLOW_DASK_GPU_THREADS": "3"})), (1, 3))
        for bad in ("0", "two"):
            with self.assertRaisesRegex(ValueError, "GPUFLOW_DASK_GPU_THREADS"):
                gpu_threads({"GPUFLOW_DASK_GPU_THREADS": bad})

    def test_the_pin_reaches_each_worker_process(self):
        from unittest import mock

        from distributed import Client

        with mock.patch.dict(os.environ, {"GPUFLOW_DASK_GPU_THREADS": "2"}):
            cluster = start_cuda_cluster(["0", "1"])
        try:
            with Client(cluster) as client:
                seen = client.run(lambda: os.environ.get("CUDA_VISIBLE_DEVICES"))
                workers = client.scheduler_info()["workers"]
                names = {a: w["name"] for a, w in workers.items()}
                self.assertEqual({names[a]: v for a, v in seen.items()}, {"gpu-0": "0,1", "gpu-1": "1,0"})
                self.assertEqual(sorted(w["nthreads"] for w in workers.values()), [2, 2])
        finally:
            cluster.close()


class BridgeOnLocalCuda(unittest.TestCase):
    def connect_two(self, b: BridgeProcess):
        """Connects `b` to local-cuda with two GPUs listed; its `connected` message."""
        b.until(lambda m: m["type"] == "ready")
        b.send({"type": "connect", "id": "c", "target": "local-cuda", "timeout_s": 60})
        c = b.reply("c", 180)
        self.assertEqual(c["type"], "connected", c)
        self.assertEqual(sorted(w["name"] for w in c["workers"]), ["gpu-0", "gpu-1"])
        return c

    def test_runs_the_seed_graph_on_one_worker_per_gpu(self):
        b = BridgeProcess({"CUDA_VISIBLE_DEVICES": "0,1"})
        try:
            self.connect_two(b)
            fx = fixture("seed")
            out = fx["outputs"]["total"]["key"]
            start = len(b.messages)
            b.send({"type": "submit", "id": "g", "graph": {"tasks": fx["tasks"], "outputs": [out]}})
            end = b.reply("g", 120)
            self.assertEqual(end["type"], "done", end)
            result = next(m for m in b.messages[start:] if m["type"] == "result" and m["id"] == "g")
            np.testing.assert_allclose(from_wire(result["values"][out]), js_value(fx, out), rtol=1e-12)
        finally:
            self.assertEqual(b.close(), 0)

    def test_prestarted_workers_are_forks_of_the_early_forkserver(self):
        # As `gpuflow run --dask local-cuda` starts it (main/dask/early.ts): the forkserver is
        # started before distributed is imported, and each pinned worker is forked from it.
        b = BridgeProcess({"CUDA_VISIBLE_DEVICES": "0,1", "GPUFLOW_DASK_PRESTART": "local-cuda", "GPUFLOW_TRACE_START": "1"})
        try:
            c = self.connect_two(b)
            parents = {_ppid(w["pid"]) for w in c["workers"]}
            self.assertEqual(len(parents), 1)  # one process forked both
            server = parents.pop()
            self.assertNotEqual(server, b.proc.pid)
            self.assertEqual(_ppid(server), b.proc.pid)  # the bridge's forkserver
            labels = [line.split()[2] for line in b.stderr if line.startswith("gpuflow-trace bridge ")]
            self.assertLess(labels.index("forkserver-started"), labels.index("distributed-imported"))
        finally:
            self.assertEqual(b.close(), 0)


def _ppid(pid: int) -> int:
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])


if __name__ == "__main__":
    unittest.main()
