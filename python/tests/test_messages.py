"""Inbound message validation: every bad field is refused with a message naming it."""
import json
import unittest

from helpers import fixture  # noqa: F401 - puts python/ on sys.path
from gpuflow_dask.messages import BadMessage, Cancel, Connect, Shutdown, Submit, WorkersQuery, parse

TASK = {"key": "a", "deps": [], "spec": {"kind": "combine", "finalize": True}, "resource": "any", "node": "n", "op": "sum", "outBytes": 8, "workBytes": 8}


def submit(tasks, outputs):
    return json.dumps({"type": "submit", "id": "r1", "graph": {"tasks": tasks, "outputs": outputs}})


class ParseTest(unittest.TestCase):
    def test_valid_messages(self):
        self.assertEqual(parse('{"type":"connect","id":"c1","target":"tcp://h:8786","timeout_s":5}'), Connect("c1", "tcp://h:8786", 5.0))
        self.assertEqual(parse('{"type":"connect","id":"c1","target":"local:2"}').timeout_s, 10.0)
        self.assertIsInstance(parse('{"type":"workers","id":"q"}'), WorkersQuery)
        self.assertIsInstance(parse('{"type":"cancel","id":"r"}'), Cancel)
        self.assertEqual(parse('{"type":"shutdown"}'), Shutdown(False))
        self.assertEqual(parse('{"type":"shutdown","fast":true}'), Shutdown(True))
        s = parse(submit([TASK, {**TASK, "key": "b", "deps": ["a"]}], ["b", "b"]))
        self.assertIsInstance(s, Submit)
        self.assertEqual([t.key for t in s.tasks], ["a", "b"])
        self.assertEqual(s.outputs, ["b"])

    def assertBad(self, line, *words):
        with self.assertRaises(BadMessage) as cm:
            parse(line)
        for w in words:
            self.assertIn(w, str(cm.exception))
        return cm.exception

    def test_bad_messages_name_the_problem(self):
        self.assertBad("{nope", "not JSON")
        self.assertBad("[1]", "JSON object")
        self.assertBad('{"type":"launch","id":"x"}', "unknown message type", '"launch"')
        self.assertBad('{"type":"connect","id":"c1","target":"http://x"}', "http://x", "not a Dask cluster address")
        self.assertBad('{"type":"connect","id":"c1","target":"local:2","timeout_s":-1}', "timeout_s")
        self.assertBad('{"type":"workers"}', "'id'")
        self.assertBad('{"type":"shutdown","fast":"yes"}', "'fast'", "true or false")
        e = self.assertBad(submit([{**TASK, "deps": ["zz"]}], ["a"]), "'a'", "'zz'", "not in the graph")
        self.assertEqual(e.id, "r1")
        self.assertBad(submit([TASK], ["nope"]), "outputs")
        self.assertBad(submit([TASK, TASK], ["a"]), "duplicate")
        self.assertBad(submit([{**TASK, "spec": {"kind": "magic"}}], ["a"]), "spec.kind")
        self.assertBad(submit([{**TASK, "spec": {"kind": "combine"}}], ["a"]), "finalize")
        self.assertBad(submit([{**TASK, "spec": {"kind": "program", "program": {}, "code": 3}}], ["a"]), "spec.code")
        self.assertBad(submit([{**TASK, "resource": "tpu"}], ["a"]), "resource")


class BoundedFailureTest(unittest.TestCase):
    def test_a_failure_message_stored_with_a_run_is_bounded(self):
        from gpuflow_dask.messages import MESSAGE_LIMIT, failed

        m = failed("r", "task-error", "CancelledError: " + "x" * 5000)
        self.assertLessEqual(len(m["message"]), MESSAGE_LIMIT + 40)
        self.assertTrue(m["message"].endswith("(4016 more characters)"), m["message"][-40:])

    def test_connect_takes_a_wait_deadline(self):
        self.assertEqual(parse('{"type":"connect","id":"c","target":"tcp://h:1","wait_s":2.5}').wait_s, 2.5)
        self.assertEqual(parse('{"type":"connect","id":"c","target":"tcp://h:1"}').wait_s, 60.0)
        with self.assertRaises(BadMessage):
            parse('{"type":"connect","id":"c","target":"tcp://h:1","wait_s":0}')


if __name__ == "__main__":
    unittest.main()
