"""The package zip the bridge uploads to workers that lack gpuflow_dask is importable alone."""
import os
import subprocess
import sys
import tempfile
import unittest
import zipfile

from helpers import fixture  # noqa: F401
from gpuflow_dask.cluster import package_zip


class ShipTest(unittest.TestCase):
    def test_zip_imports_in_a_bare_interpreter(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "gpuflow_dask.zip")
            with open(path, "wb") as f:
                f.write(package_zip())
            names = zipfile.ZipFile(path).namelist()
            self.assertIn("gpuflow_dask/execute.py", names)
            self.assertFalse(any("__pycache__" in n or "/tests/" in n for n in names))
            code = "import sys; sys.path.insert(0, sys.argv[1]); import gpuflow_dask.execute as e, gpuflow_dask.df, gpuflow_dask.arrays; print(e.__file__)"
            out = subprocess.run([sys.executable, "-c", code, path], capture_output=True, text=True, cwd=d, env={"PATH": os.environ.get("PATH", "")})
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertIn("gpuflow_dask.zip", out.stdout)


if __name__ == "__main__":
    unittest.main()
