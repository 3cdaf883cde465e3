"""Device-resident chunks on GPU workers (gpuflow_dask/device.py, program.run's device path),
exercised without a GPU: a fake `cupy` whose "device" arrays live in host memory, and a fake CUDA
library whose device entry (gf_cuda_run_program_on) is played by the real CPU library
(libgpuflow_kernels.so) on those addresses, recording which inputs came on the device. The
oracle is the NumPy interpreter (program.run with use_capi=False).

Checked: a chain of programs keeps its chunk on the device (the second program reads it in
place, the first writes into a device array); a device chunk pickles as a plain NumPy array (what
a CPU worker, the client and a spill see); array ops and the result message get host values; on a
real cluster (Debian's distributed, two worker processes) a chunk made on the "GPU" worker is
read by a CPU worker without CuPy, with the NumPy interpreter's value.
"""
import contextlib
import pickle
import sys
import types
import unittest
from types import SimpleNamespace

import numpy as np

from helpers import PYTHON_DIR  # noqa: F401 - puts python/ on sys.path
from gpuflow_dask import capi, device
from gpuflow_dask.execute import TaskPayload, run_task
from gpuflow_dask.program import run
from gpuflow_dask.values import Partial, to_wire

ROWS, COLS = 6, 5


def region(shape):
    return {"start": [0] * len(shape), "step": [1] * len(shape), "count": list(shape)}


class FakeDeviceArray(np.ndarray):
    """A "device" array: host memory, with CuPy's `.data.ptr` and `.get()`."""

    @property
    def data(self):  # type: ignore[override]
        return SimpleNamespace(ptr=self.ctypes.data)

    def get(self):
        return np.array(self)


def fake_cupy() -> types.ModuleType:
    cp = types.ModuleType("cupy")
    cp.float64 = np.float64
    cp.empty = lambda n, dtype: np.empty(n, dtype).view(FakeDeviceArray)
    cp.ascontiguousarray = lambda a: np.ascontiguousarray(a).view(FakeDeviceArray)
    cp.cuda = SimpleNamespace(runtime=SimpleNamespace(getDeviceCount=lambda: 1), get_current_stream=lambda: SimpleNamespace(synchronize=lambda: None))
    return cp


class FakeCudaLib:
    """gf_cuda_run_program_on played by the CPU library's gf_run_program (same code, same layout)."""

    def __init__(self, cpu):
        self.cpu = cpu
        self.calls = []

    def gf_cuda_run_program_on(self, code, code_len, ptrs, lengths, types_, flags, n, out, out_len, out_on_device, err, err_len):
        self.calls.append(([int(flags[i]) for i in range(n)], int(out_on_device)))
        return self.cpu.gf_run_program(code, code_len, ptrs, lengths, types_, n, out, out_len, 1, err, err_len)

    def gf_cuda_run_program(self, code, code_len, ptrs, lengths, types_, n, out, out_len, err, err_len):
        self.calls.append("host buffers")
        return self.cpu.gf_run_program(code, code_len, ptrs, lengths, types_, n, out, out_len, 1, err, err_len)


@contextlib.contextmanager
def fake_gpu():
    """This process as a GPU worker with CuPy: yields the fake library (its calls)."""
    saved = device._found
    lib = FakeCudaLib(capi.load())
    with capi.cuda_loader.kept():
        capi.cuda_loader.pin(lib, "a fake CUDA library")
        device._found = (fake_cupy(), "")
        try:
            yield lib
        finally:
            device._found = saved


def install_fake_gpu() -> bool:
    """On a Dask worker (client.run): this worker process becomes the fake GPU worker for good."""
    capi.cuda_loader.pin(FakeCudaLib(capi.load()), "a fake CUDA library")
    device._found = (fake_cupy(), "")
    return True


# x = arange(30).reshape(6, 5) * 0.5 - 3: a program without a reduction (its chunk stays on the device)
MAKE = {"kind": "program", "program": {"dtype": "float64", "shape": [ROWS, COLS], "reduce": None, "expr": {
    "kind": "binary", "op": "sub",
    "a": {"kind": "binary", "op": "mul", "a": {"kind": "leaf", "leaf": {"kind": "arange", "start": 0, "step": 1, "shape": [ROWS, COLS], "region": region([ROWS, COLS])}},
          "b": {"kind": "leaf", "leaf": {"kind": "fill", "value": 0.5}}},
    "b": {"kind": "leaf", "leaf": {"kind": "fill", "value": 3}}}}}
# sum over rows of square(x): a program reading the first one's chunk, with a reduction
SQUARE_SUM = {"kind": "program", "program": {"dtype": "float64", "shape": [ROWS, COLS], "reduce": {"op": "sum", "axis": 0}, "expr": {
    "kind": "unary", "op": "square", "arg": {"kind": "leaf", "leaf": {"kind": "input", "dep": 0, "region": region([ROWS, COLS])}}}}}


def expected_x() -> np.ndarray:
    return (np.arange(ROWS * COLS, dtype=np.float64) * 0.5 - 3).reshape(ROWS, COLS)


@unittest.skipIf(capi.load() is None, "the C API library is not built (node native/build.mjs)")
class DeviceChunkTest(unittest.TestCase):
    def setUp(self):
        # The fixture's MAKE program really is arange * 0.5 - 3 (its arange leaf as encode.py reads it).
        v, _ = run(MAKE, [], use_capi=False)
        np.testing.assert_array_equal(v, expected_x())

    def test_chain_stays_on_device(self):
        want, _ = run(SQUARE_SUM, [expected_x()], use_capi=False)
        with fake_gpu() as lib:
            x, backend = run(MAKE, [])
            self.assertEqual(backend, "capi-cuda")
            self.assertIsInstance(x, device.DeviceChunk)
            self.assertEqual((x.shape, x.dtype), ((ROWS, COLS), np.dtype(np.float64)))
            got, backend = run(SQUARE_SUM, [x])
        self.assertEqual(backend, "capi-cuda")
        # MAKE wrote into a device array; SQUARE_SUM read it in place and wrote its partial to host.
        self.assertEqual(lib.calls, [([], 1), ([1], 0)])
        # A host input beside a device chunk is uploaded by the kernel, not flagged.
        with fake_gpu() as lib:
            run({"kind": "program", "program": {**SQUARE_SUM["program"], "expr": {"kind": "binary", "op": "add", "a": SQUARE_SUM["program"]["expr"],
                 "b": {"kind": "leaf", "leaf": {"kind": "input", "dep": 1, "region": region([ROWS, COLS])}}}}}, [x, expected_x()])
        self.assertEqual(lib.calls, [([1, 0], 0)])
        self.assertIsInstance(got, Partial)
        np.testing.assert_allclose(got.fields["sum"], want.fields["sum"], rtol=0, atol=1e-12)
        np.testing.assert_array_equal(x.host(), expected_x())

    def test_reduction_of_host_inputs_takes_the_host_entry(self):
        # No chunk to keep: CuPy is not needed (the seed's chunks), the plain entry runs it.
        with fake_gpu() as lib:
            got, backend = run(SQUARE_SUM, [expected_x()])
        self.assertEqual((lib.calls, backend), (["host buffers"], "capi-cuda"))
        want, _ = run(SQUARE_SUM, [expected_x()], use_capi=False)
        np.testing.assert_allclose(got.fields["sum"], want.fields["sum"], rtol=0, atol=1e-12)

    def test_int64_device_chunk_read_as_float64(self):
        ints = np.arange(ROWS * COLS, dtype=np.int64).reshape(ROWS, COLS)
        with fake_gpu() as lib:
            got, _ = run(SQUARE_SUM, [device.DeviceChunk(ints.view(FakeDeviceArray))])
        self.assertEqual(lib.calls, [([1], 0)])
        np.testing.assert_array_equal(got.fields["sum"], (ints.astype(np.float64) ** 2).sum(axis=0))

    def test_pickles_as_host_numpy(self):
        chunk = device.DeviceChunk(expected_x().view(FakeDeviceArray))
        for proto in (2, 4, 5):
            back = pickle.loads(pickle.dumps(chunk, protocol=proto))
            self.assertIs(type(back), np.ndarray, f"protocol {proto}")
            np.testing.assert_array_equal(back, expected_x())
        from distributed.protocol import deserialize, serialize

        back = deserialize(*serialize(chunk, serializers=("dask", "pickle")))
        self.assertIs(type(back), np.ndarray)
        np.testing.assert_array_equal(back, expected_x())
        self.assertEqual(sys.getsizeof(chunk) >= chunk.nbytes, True)

    def test_other_handlers_and_the_wire_get_host_values(self):
        chunk = device.DeviceChunk(expected_x().view(FakeDeviceArray))
        t = run_task(TaskPayload("t", "node", {"kind": "array-op", "op": "transpose", "params": {}}), chunk)
        self.assertIs(type(t), np.ndarray)
        np.testing.assert_array_equal(t, expected_x().T)
        self.assertEqual(to_wire(chunk), to_wire(expected_x()))

    def test_without_cupy_the_host_path_runs(self):
        with fake_gpu():
            device._found = (None, "no cupy")
            capi.cuda_loader.pin(None, "no device")  # a CPU worker: the CPU library, host arrays
            x, backend = run(MAKE, [])
        self.assertEqual(backend, "capi-cpu")
        self.assertIs(type(x), np.ndarray)


@unittest.skipIf(capi.load() is None, "the C API library is not built (node native/build.mjs)")
class DeviceChunkOnClusterTest(unittest.TestCase):
    """Two worker processes of a real LocalCluster: one made a (fake) GPU worker, one left a CPU
    worker without CuPy."""

    @classmethod
    def setUpClass(cls):
        import dask
        from distributed import Client, LocalCluster

        # Without the active memory manager: its ReduceReplicas policy (on by default, every 2 s)
        # may drop the GPU worker's copy of x once the CPU worker holds one too, and the test
        # reads it there (a KeyError in CI under load, 2026-11-27).
        with dask.config.set({"distributed.scheduler.active-memory-manager.start": False}):
            cls.cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0", worker_dashboard_address="127.0.0.1:0")
        cls.client = Client(cls.cluster)
        cls.gpu, cls.cpu = sorted(cls.client.scheduler_info()["workers"])
        cls.client.run(install_fake_gpu, workers=[cls.gpu])

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.cluster.close()

    def test_gpu_chunk_read_on_a_cpu_worker(self):
        c = self.client
        x = c.submit(run_task, TaskPayload("x", "x", MAKE), workers=[self.gpu], pure=False)
        s = c.submit(run_task, TaskPayload("s", "s", SQUARE_SUM), x, workers=[self.cpu], pure=False)
        got = s.result(timeout=60)
        held = c.run(lambda dask_worker, key=x.key: type(dask_worker.data[key]).__name__, workers=[self.gpu])
        self.assertEqual(held, {self.gpu: "DeviceChunk"})  # kept on the (fake) device where it was made
        want, _ = run(SQUARE_SUM, [expected_x()], use_capi=False)
        np.testing.assert_allclose(got.fields["sum"], want.fields["sum"], rtol=0, atol=1e-12)
        # The client gathers host NumPy.
        back = x.result(timeout=60)
        self.assertIs(type(back), np.ndarray)
        np.testing.assert_array_equal(back, expected_x())


if __name__ == "__main__":
    unittest.main()
