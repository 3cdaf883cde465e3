"""The bridge's `ready` says capi.cuda true only where CUDA initialises a device, not where the
library file merely exists. The oracle for "a device is here" is nvidia-smi's list of GPUs."""
import ctypes
import json
import os
import shutil
import subprocess
import unittest
from unittest import mock

from helpers import fixture  # noqa: F401 - puts python/ on sys.path
from gpuflow_dask import bridge, capi


def gpus_here() -> bool:
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return False
    r = subprocess.run([smi, "-L"], capture_output=True, text=True)
    return r.returncode == 0 and "GPU " in r.stdout


def cuda_library_built() -> bool:
    return capi.cuda_library_file()


def build_info():
    """native/build/info.json of this checkout (node native/build.mjs), or None."""
    p = capi.candidates()[-1].parent / "info.json"
    return json.loads(p.read_text()) if p.exists() else None


class CudaLibraryBuilt(unittest.TestCase):
    """Where the addon was built with CUDA, the Dask workers' CUDA library must be built too: a
    Node-API object once slipped into its link (tf_napi.cc, missing from a hand-kept list), the
    link failed, and every Dask GPU worker ran its chunk programs on one CPU thread."""

    @unittest.skipUnless((build_info() or {}).get("cuda") is True, "the addon here was built without CUDA")
    def test_cuda_library_links_with_the_device_entry(self):
        info = build_info()
        self.assertEqual(info["capi"].get("cuda", {}).get("built"), True, info["capi"])
        lib = ctypes.CDLL(str(capi.candidates()[-1].parent / capi.CUDA_LIB_NAME))
        for entry in ("gf_cuda_available", "gf_cuda_run_program", "gf_cuda_run_program_on"):
            self.assertTrue(hasattr(lib, entry), entry)


class CapiStatus(unittest.TestCase):
    @unittest.skipUnless(cuda_library_built(), "libgpuflow_kernels_cuda.so is not built here")
    def test_cuda_is_what_a_device_says_not_the_file(self):
        status = bridge.capi_status()
        self.assertEqual(status["cuda"], gpus_here(), status)
        if not gpus_here():
            self.assertIn("cuda: ", status["why"])
            self.assertIn(capi.CUDA_LIB_NAME, status["why"])

    def test_device_cpu_says_no_without_looking(self):
        with mock.patch.dict(os.environ, {"GPUFLOW_DASK_DEVICE": "cpu"}):
            self.assertEqual(bridge.cuda_status(), (False, "disabled by GPUFLOW_DASK_DEVICE=cpu"))

    def test_the_check_sees_one_gpu(self):
        # The check's child initialises the driver for one device, not for every GPU the local-cuda
        # workers are creating contexts on at the same time.
        cases = [(None, "0"), ("0,1,2,3", "0"), ("2, 3", "2"), ("GPU-aa,GPU-bb", "GPU-aa"), ("", ""), ("-1", "-1")]
        self.assertEqual([bridge.first_gpu(v) for v, _ in cases], [want for _, want in cases])

    @unittest.skipUnless(cuda_library_built(), "libgpuflow_kernels_cuda.so is not built here")
    def test_the_check_child_gets_that_gpu(self):
        seen = {}

        def run(cmd, **kw):
            seen.update(kw["env"])
            return subprocess.CompletedProcess(cmd, 0, stdout='[true, ""]\n', stderr="")

        with mock.patch.dict(os.environ, {"CUDA_VISIBLE_DEVICES": "3,0,1,2"}), mock.patch.object(subprocess, "run", run):
            self.assertEqual(bridge.cuda_status(), (True, ""))
        self.assertEqual(seen["CUDA_VISIBLE_DEVICES"], "3")


if __name__ == "__main__":
    unittest.main()
