"""The killed cluster's wait (fast_exit._wait_dead): a killed process counts as stopped once it
runs no more code (gone, a zombie, or exiting: the kernel's PF_EXITING flag), not once the
kernel has torn it down (a GPU worker's CUDA context, ~0.1 s each on the four-GPU machine)."""
import os
import signal
import subprocess
import sys
import time
import unittest
from unittest import mock

from helpers import PYTHON_DIR  # noqa: F401 - puts python/ on sys.path
from gpuflow_dask import fast_exit, trace


def stat(state: str, ppid: int, flags: int):
    # /proc/<pid>/stat's fields after the command name: state, ppid, pgrp, session, tty, tpgid, flags, ...
    return [state, str(ppid), "1", "1", "0", "-1", str(flags)] + ["0"] * 45


class Stopped(unittest.TestCase):
    def test_the_state_and_flags_decide(self):
        cases = [
            (stat("S", 1, 0x400040), False),  # sleeping: alive
            (stat("R", 1, 0x400000), False),  # running
            (stat("D", 1, 0x400044), True),  # killed, its teardown in the driver (PF_EXITING)
            (stat("R", 1, 0x4), True),
            (stat("Z", 1, 0x40000c), True),  # a zombie of another parent
        ]
        for fields, want in cases:
            with mock.patch.object(trace, "stat_fields", return_value=fields):
                self.assertIs(fast_exit._stopped(12345), want, fields[:7])

    def test_gone_is_stopped(self):
        with mock.patch.object(trace, "stat_fields", side_effect=FileNotFoundError("/proc/12345/stat")):
            self.assertTrue(fast_exit._stopped(12345))

    def test_a_killed_child_is_reaped(self):
        p = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        try:
            self.assertFalse(fast_exit._stopped(p.pid))
            os.kill(p.pid, signal.SIGKILL)
            end = time.time() + 30
            while not fast_exit._stopped(p.pid) and time.time() < end:
                time.sleep(0.01)
            fast_exit._wait_dead([p], timeout_s=30)
            # A zombie child is reaped by the wait: its /proc entry is gone.
            end = time.time() + 30
            while os.path.exists(f"/proc/{p.pid}") and time.time() < end:
                fast_exit._stopped(p.pid)
                time.sleep(0.01)
            self.assertFalse(os.path.exists(f"/proc/{p.pid}"))
        finally:
            if p.poll() is None and os.path.exists(f"/proc/{p.pid}"):
                p.kill()


if __name__ == "__main__":
    unittest.main()
