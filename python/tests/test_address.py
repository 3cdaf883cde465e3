"""gpuflow_dask.address against the fixture of address cases main/dask/address.ts is tested
with too (test/unit/dask/address.test.ts): the same targets and the same refusals."""
import json
import unittest
from pathlib import Path

from helpers import fixture  # noqa: F401 - puts python/ on sys.path
from gpuflow_dask.address import parse_target, read_target
from gpuflow_dask.messages import BadMessage, parse

CASES = json.loads((Path(__file__).parent / "fixtures" / "dask-addresses.json").read_text())["cases"]


class AddressTest(unittest.TestCase):
    def test_fixture_cases(self):
        for c in CASES:
            with self.subTest(input=c["input"]):
                if "target" in c:
                    self.assertEqual(read_target(c["input"]), (True, c["target"]))
                else:
                    self.assertEqual(read_target(c["input"]), (False, c["error"]))

    def test_refusal_names_input_and_forms(self):
        with self.assertRaises(ValueError) as e:
            parse_target("tcp://127.0.0.1:99999")
        self.assertEqual(str(e.exception), "not a Dask cluster address 'tcp://127.0.0.1:99999': port 99999 is out of range (1-65535) (use tcp://host:8786, tls://host:8786, local:N or local-cuda)")

    def test_connect_messages_use_it(self):
        self.assertEqual(parse('{"type":"connect","id":"c","target":"127.0.0.1:8786"}').target, "tcp://127.0.0.1:8786")
        with self.assertRaises(BadMessage) as e:
            parse('{"type":"connect","id":"c","target":"ucx://h:1"}')
        self.assertIn("ucx:// is not supported", str(e.exception))


if __name__ == "__main__":
    unittest.main()
