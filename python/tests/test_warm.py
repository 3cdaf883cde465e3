"""A worker's warm-up (warm.py) runs beside its first task: loads asked for at once from several
threads all see the library (none sees "tried, nothing found" while another thread is still
loading it), and the warm-up's one-element program gives the value the NumPy Philox gives."""
import threading
import unittest
from unittest import mock

import numpy as np

from helpers import fixture  # noqa: F401 - puts python/ on sys.path
from gpuflow_dask import capi, device, program, warm
from test_device_chunks import fake_cupy, fake_gpu


class ConcurrentLoads(unittest.TestCase):
    @unittest.skipIf(capi.load() is None, "libgpuflow_kernels.so is not built here (node native/build.mjs)")
    def test_every_thread_sees_the_library(self):
        real = capi._first_loadable

        def slow(*a, **k):
            # A load as slow as a CUDA library's first dlopen, so the threads overlap it.
            threading.Event().wait(0.05)
            return real(*a, **k)

        with capi.cpu_loader.kept():
            for _ in range(5):
                capi.cpu_loader.reset()
                go = threading.Barrier(8)
                seen = []

                def load():
                    go.wait()
                    seen.append(capi.load())

                with mock.patch.object(capi, "_first_loadable", slow):
                    threads = [threading.Thread(target=load) for _ in range(8)]
                    for t in threads:
                        t.start()
                    for t in threads:
                        t.join()
                self.assertEqual(len(seen), 8)
                self.assertTrue(all(lib is not None for lib in seen), f"{sum(lib is None for lib in seen)} of 8 threads saw no library")


class WarmUp(unittest.TestCase):
    def test_the_tiny_program_gives_the_numpy_value(self):
        backend = warm.warm("test")
        self.assertIn(backend, ("capi-cpu", "capi-cuda", "numpy"))
        value, _ = program.run(warm._TINY, [], use_capi=False)
        mine, _ = program.run(warm._TINY, [])
        np.testing.assert_allclose(mine.fields["sum"], value.fields["sum"], rtol=1e-12)
        # normal(10, 1) + 1: a value near 11, the same draw every time (seed 0).
        self.assertTrue(5 < float(np.ravel(value.fields["sum"])[0]) < 17)

    @unittest.skipIf(capi.load() is None, "libgpuflow_kernels.so is not built here (node native/build.mjs)")
    def test_on_a_gpu_worker_the_program_runs_on_the_device_and_cupy_is_imported(self):
        with fake_gpu() as lib, mock.patch.object(device, "_found", None), mock.patch.object(device, "_look", lambda: (fake_cupy(), "")):
            self.assertEqual(warm.warm("gpu"), "capi-cuda")
            self.assertEqual(lib.calls, ["host buffers"])  # the seed's path: a reduction over no input
            self.assertIsNotNone(device._found)  # CuPy looked for (imported) by the warm-up

    @unittest.skipIf(capi.load() is None, "libgpuflow_kernels.so is not built here (node native/build.mjs)")
    def test_cupy_is_imported_while_the_cuda_library_loads(self):
        looked = threading.Event()
        during = []

        def look():
            looked.set()
            return fake_cupy(), ""

        def load_cuda(real=capi.load_cuda):
            # The CUDA context's creation: CuPy's import has begun meanwhile (it used to come after).
            during.append(looked.wait(10))
            return real()

        with fake_gpu(), mock.patch.object(device, "_found", None), mock.patch.object(device, "_look", look), \
                mock.patch.object(capi, "load_cuda", load_cuda), mock.patch.object(warm, "_cupy_may_help", lambda: True):
            self.assertEqual(warm.warm("gpu"), "capi-cuda")
            self.assertIsNotNone(device._found)
        self.assertTrue(during and all(during), during)

    def test_start_is_once_per_process_and_can_be_turned_off(self):
        with mock.patch.dict("os.environ", {"GPUFLOW_DASK_WARM": "0"}), mock.patch.object(warm, "_started", None):
            warm.start("x")
            self.assertIsNone(warm._started)
        with mock.patch.object(warm, "_started", None):
            warm.start("x")
            first = warm._started
            self.assertIsNotNone(first)
            warm.start("x")
            self.assertIs(warm._started, first)
            first.join(30)


if __name__ == "__main__":
    unittest.main()
