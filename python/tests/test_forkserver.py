"""Which clusters fork their workers from distributed's forkserver (cluster.forkserver_pays):
where the workers and the bridge outnumber the cores (the 2-core measurement in docs/dask.md),
unless GPUFLOW_DASK_FORKSERVER says otherwise."""
import unittest

from helpers import fixture  # noqa: F401 - puts python/ on sys.path
from gpuflow_dask.cluster import forkserver_pays


class ForkserverRule(unittest.TestCase):
    def test_only_where_cores_are_short(self):
        self.assertTrue(forkserver_pays(2, 2, {}))  # local:2 on 2 cores: 2.94 s against 3.46 s spawned
        self.assertFalse(forkserver_pays(1, 2, {}))  # local:1 on 2 cores: 2.39 s against 2.30 s
        self.assertFalse(forkserver_pays(4, 16, {}))  # four GPU workers on a 16-core host
        self.assertTrue(forkserver_pays(16, 16, {}))

    def test_the_environment_decides_when_set(self):
        self.assertFalse(forkserver_pays(2, 2, {"GPUFLOW_DASK_FORKSERVER": "0"}))
        self.assertTrue(forkserver_pays(1, 64, {"GPUFLOW_DASK_FORKSERVER": "1"}))
        self.assertTrue(forkserver_pays(2, 2, {"GPUFLOW_DASK_FORKSERVER": "yes"}))  # not 0 / 1: the rule


if __name__ == "__main__":
    unittest.main()
