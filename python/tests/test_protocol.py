"""One protocol definition (python/gpuflow_dask/protocol.json): messages.py's inbound validation
takes each type's fields from it, its builders write the fields it lists, the wire value kinds use
its enums; the example messages of fixtures/dask-messages.json (which the TypeScript suite parses
with zod too) are valid against it."""
import json
import unittest

from helpers import FIXTURES  # noqa: F401 - puts python/ on sys.path
from gpuflow_dask import messages
from gpuflow_dask.messages import SCHEMA, BadMessage, error, failed, lost, notice, parse
from gpuflow_dask.values import COLUMN_DTYPES, DTYPES, PARTIAL_FIELDS

EXAMPLES = json.loads((FIXTURES / "dask-messages.json").read_text())


def fields_ok(msg, direction):
    spec = SCHEMA[direction][msg["type"]]
    allowed = set(spec["required"]) | set(spec["optional"])
    return set(spec["required"]) <= set(msg) <= allowed


class ProtocolSchema(unittest.TestCase):
    def test_examples_cover_every_type_and_are_valid(self):
        for direction in ("toBridge", "fromBridge"):
            self.assertEqual({m["type"] for m in EXAMPLES[direction]}, set(SCHEMA[direction]), direction)
            for m in EXAMPLES[direction]:
                self.assertTrue(fields_ok(m, direction), m)
        codes = SCHEMA["enums"]
        for m in EXAMPLES["fromBridge"]:
            if m["type"] == "failed":
                self.assertIn(m["code"], codes["failureCode"])
            if m["type"] == "error":
                self.assertIn(m["code"], codes["errorCode"])

    def test_inbound_examples_parse_and_a_missing_or_unknown_field_is_refused_by_name(self):
        for m in EXAMPLES["toBridge"]:
            parse(json.dumps(m))
            for f in SCHEMA["toBridge"][m["type"]]["required"]:
                if f == "type":
                    continue
                with self.assertRaisesRegex(BadMessage, f"missing '{f}'"):
                    parse(json.dumps({k: v for k, v in m.items() if k != f}))
            with self.assertRaisesRegex(BadMessage, "unknown field 'extra'"):
                parse(json.dumps({**m, "extra": 1}))
        with self.assertRaisesRegex(BadMessage, "unknown message type \"nope\""):
            parse('{"type": "nope"}')

    def test_builders_write_the_schema_fields(self):
        built = [
            failed("r", "no-workers", "m"),
            failed("r", "task-error", "m", "k", "n"),
            error(None, "version", "m"),
            notice("r", "m"),
            lost("tcp://127.0.0.1:1", "m"),
        ]
        for m in built:
            self.assertTrue(fields_ok(m, "fromBridge"), m)
        self.assertEqual(messages.PROTOCOL, SCHEMA["protocol"])
        with self.assertRaises(AssertionError):
            failed("r", "not-a-code", "m")

    def test_wire_values_use_the_schema_enums(self):
        e = SCHEMA["enums"]
        self.assertEqual(list(DTYPES), e["dtype"])
        self.assertEqual(set(COLUMN_DTYPES) | {"utf8"}, set(e["columnType"]))  # utf8 travels as values, not bytes
        self.assertEqual(set(PARTIAL_FIELDS), set(e["partialOp"]))


if __name__ == "__main__":
    unittest.main()
