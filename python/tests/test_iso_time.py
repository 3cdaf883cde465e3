"""iso_time.parse_iso_ms against values V8's Date.parse gave for common/expr/check.ts's
parseIsoTimestamp (node 22, written down by hand), and its refusals."""
import unittest

from helpers import fixture  # noqa: F401 - puts python/ on sys.path
from gpuflow_dask.iso_time import IsoUnsupported, parse_iso_ms

V8 = {
    "2000-01-05": 947030400000,
    "2000-01-05 12:30": 947075400000,
    "2000-01-05T12:00:00.5": 947073600500,
    "2000-01-05T12:00:00.123456789": 947073600123,
    "2000-01-05T12:00:00+05:30": 947053800000,
    "2000-01-05T12:00:00+0530": 947053800000,
    "0000-01-01": -62167219200000,
    "2000-01-05T23:59:59.9999Z": 947116799999,
    "1999-12-31T23:59:59.999-01:00": 946688399999,
}


class IsoTimeTest(unittest.TestCase):
    def test_values_agree_with_v8(self):
        for text, ms in V8.items():
            self.assertEqual(parse_iso_ms(text), ms, text)

    def test_texts_the_pattern_rejects_are_none(self):
        for text in ["2000-1-5", "5 Jan 2000", "2000-01-05T12", "2000-01-05T12:00:00.", ""]:
            self.assertIsNone(parse_iso_ms(text), text)

    def test_out_of_range_fields_are_refused_not_guessed(self):
        # V8 gives 1 March for 30 February, the next day for 24:00 and NaN for month 13.
        for text in ["2000-02-30", "2000-13-01", "2000-01-05T24:00", "2000-01-05T12:00:60"]:
            with self.assertRaises(IsoUnsupported, msg=text):
                parse_iso_ms(text)


if __name__ == "__main__":
    unittest.main()
