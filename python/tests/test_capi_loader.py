"""capi.Loader, the once-per-process look both libraries use: one look however many threads ask at
once, what it found kept, and the test hooks (reset, pin, kept) doing what they say."""
import threading
import unittest
from unittest import mock

from helpers import fixture  # noqa: F401 - puts python/ on sys.path
from gpuflow_dask import capi


class LoaderTest(unittest.TestCase):
    def test_one_look_for_many_threads(self):
        looks = []

        def find():
            looks.append(1)
            threading.Event().wait(0.05)  # slow enough that the threads overlap the look
            return "lib", "loaded here"

        loader = capi.Loader(find)
        go = threading.Barrier(6)
        seen = []

        def get():
            go.wait()
            seen.append(loader.get())

        threads = [threading.Thread(target=get) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(seen, ["lib"] * 6)
        self.assertEqual(len(looks), 1)
        self.assertEqual(loader.why(), "loaded here")
        self.assertEqual(len(looks), 1)

    def test_reset_pin_and_kept(self):
        finds = iter([("first", "a"), ("second", "b")])
        loader = capi.Loader(lambda: next(finds))
        self.assertEqual(loader.get(), "first")
        with loader.kept():
            loader.reset()
            self.assertEqual(loader.get(), "second")
            loader.pin(None, "no device")
            self.assertIsNone(loader.get())
            self.assertEqual(loader.why(), "no device")
        self.assertEqual(loader.get(), "first")
        self.assertEqual(loader.why(), "a")

    def test_the_cuda_loader_reads_its_switch_on_a_fresh_look(self):
        with capi.cuda_loader.kept(), mock.patch.dict("os.environ", {"GPUFLOW_DASK_DEVICE": "cpu"}):
            capi.cuda_loader.reset()
            self.assertIsNone(capi.load_cuda())
            self.assertEqual(capi.cuda_why(), "disabled by GPUFLOW_DASK_DEVICE=cpu")


if __name__ == "__main__":
    unittest.main()
