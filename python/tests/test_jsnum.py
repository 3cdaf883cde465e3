"""jsnum.js_string against V8's String() of the same numbers (printed by node, copied here)."""
import unittest

from helpers import fixture  # noqa: F401
from gpuflow_dask.jsnum import js_string

# node -e 'console.log([...].map(String))'
V8 = {
    1: "1", 2.5: "2.5", -0.0: "0", 0.1: "0.1", 1e-5: "0.00001", 1e-6: "0.000001", 1e-7: "1e-7",
    1.5e-7: "1.5e-7", 123456789012345678901234.0: "1.2345678901234569e+23", 1e21: "1e+21",
    1e20: "100000000000000000000", 0.000123: "0.000123", 12345.678: "12345.678", -3.25e-9: "-3.25e-9",
    5e-324: "5e-324", 1.7976931348623157e308: "1.7976931348623157e+308",
}


class JsStringTest(unittest.TestCase):
    def test_matches_v8(self):
        for x, want in V8.items():
            self.assertEqual(js_string(x), want, x)

    def test_non_finite(self):
        self.assertEqual([js_string(float(v)) for v in ("nan", "inf", "-inf")], ["NaN", "Infinity", "-Infinity"])


if __name__ == "__main__":
    unittest.main()
