"""NumPy Philox against the Random123 known answers, and against the C-ABI library element by element."""
import unittest

import numpy as np

from helpers import fixture  # noqa: F401
from gpuflow_dask import capi, program
from gpuflow_dask.philox import philox, random64


def program_code(dtype_f32, normal, seed, a, b, shape, off=0, coef=None, reduce=0):
    """A program of one random leaf (native/program-code.ts's layout), written out by hand."""
    nd = len(shape)
    coef = coef if coef is not None else [int(np.prod(shape[d + 1:])) for d in range(nd)]
    return np.array([1, dtype_f32, nd, *shape, reduce, -1, 0, *([0] * nd), 1, 1, 0 if normal else 1, seed, a, b, off, *coef], np.float64)


class PhiloxTest(unittest.TestCase):
    def test_known_answers(self):
        # docs/random.md's table (Random123 kat_vectors); counters with c2 = c3 = 0 only are reachable
        w = philox(np.array([0], np.uint64), 0, 0)
        self.assertEqual([int(x[0]) for x in w], [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8])

    def test_uniform_is_exact_mapping(self):
        # element 0 of uniform(0, 1) with seed 0 is U(w0, w1) of block 0: ((w0>>5)*2^26 + (w1>>6) + 1) * 2^-53
        k = ((0x6627E8D5 >> 5) * 2**26 + (0xE169C58D >> 6) + 1) * 2.0**-53
        self.assertEqual(random64(np.array([0]), False, 0, 0, 0.0, 1.0)[0], k)
        k2 = ((0xBC57AC4C >> 5) * 2**26 + (0x9B00DBD8 >> 6) + 1) * 2.0**-53
        self.assertEqual(random64(np.array([1]), False, 0, 0, 0.0, 1.0)[0], k2)


@unittest.skipIf(capi.load() is None, f"libgpuflow_kernels.so not loadable: {capi.why()}")
class NumpyVsCapiTest(unittest.TestCase):
    def run_both(self, code):
        lib = capi.load()
        c = capi.run_program(lib, code, [])
        n = program.evaluate(program.decode(code), []).ravel()
        return c, n

    def test_uniforms_bit_exact(self):
        for f32 in (0, 1):
            for seed in (0, 12345, 2**40 + 3):
                c, n = self.run_both(program_code(f32, False, seed, -2.5, 7.0, [37, 53]))
                np.testing.assert_array_equal(c, n)

    def test_normals_within_1e12(self):
        c, n = self.run_both(program_code(0, True, 99, 10.0, 2.0, [64, 33]))
        np.testing.assert_allclose(n, c, rtol=1e-12)
        c, n = self.run_both(program_code(1, True, 99, 10.0, 2.0, [64, 33]))
        np.testing.assert_allclose(n, c, rtol=1e-6)

    def test_strided_leaf(self):
        # every other element of a 40x40 array's rows and columns: flat index 80*i + 2*j + 1
        c, n = self.run_both(program_code(0, False, 5, 0.0, 1.0, [20, 20], off=1, coef=[80, 2]))
        np.testing.assert_array_equal(c, n)

    def test_sum_reduction(self):
        code = program_code(0, True, 3, 10.0, 1.0, [100, 100], reduce=1)
        c = capi.run_program(capi.load(), code, [])
        p = program.decode(code)
        n = program.reduce_numpy(p, program.evaluate(p, []))["sum"]
        np.testing.assert_allclose(n, c, rtol=1e-13)

    def test_invalid_code_is_an_error_string(self):
        with self.assertRaisesRegex(ValueError, "trailing"):
            capi.run_program(capi.load(), np.append(program_code(0, False, 1, 0, 1, [4]), 7.0), [])
        with self.assertRaisesRegex(ValueError, "dependency 0"):
            capi.run_program(capi.load(), np.array([1, 0, 1, 4, 0, -1, 0, 0, 1, 4, 0, 0, 1]), [])
        with self.assertRaisesRegex(ValueError, "trailing"):
            program.decode(np.append(program_code(0, False, 1, 0, 1, [4]), 7.0))


if __name__ == "__main__":
    unittest.main()
