"""The bridge's `ready` says capi.cuda true only where CUDA initialises a device, not where the
library file merely exists. The oracle for "a device is here" is nvidia-smi's list of GPUs."""
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
    return any((c.parent / capi.CUDA_LIB_NAME).exists() for c in capi.candidates())


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


if __name__ == "__main__":
    unittest.main()
