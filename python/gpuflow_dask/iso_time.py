"""common/expr/check.ts's parseIsoTimestamp on a worker: ms since the epoch of an ISO date text,
for CSV timestamp columns (csv_read.py).

The local kernel hands the text, once its regex matches, to V8's Date.parse. The port computes the
same value for the well-formed subset, checked against V8: a date, optional [T ]hh:mm[:ss[.f]],
UTC unless a zone (Z, +hh:mm or +hhmm) is given, fractions truncated to milliseconds. A text the
regex rejects is NaN there and None here (the caller's malformed row). A text the regex accepts
but whose fields are out of range (month 13, 30 February, hour 24, second 60) is one where
Date.parse rolls over or gives NaN by rules not ported: it raises IsoUnsupported, so the task
fails with unsupported-op and never gives another value than the local engine.
"""
from __future__ import annotations

import re
from typing import Optional

ISO_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|[+-]\d{2}:?\d{2})?$")
DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]


class IsoUnsupported(ValueError):
    """A text matching the ISO pattern whose value the port does not compute."""


def _days_from_civil(y: int, m: int, d: int) -> int:
    # H. Hinnant's days_from_civil, as worker/kernels/df/expr-eval.ts's civil() inverts it.
    y -= m <= 2
    era = (y if y >= 0 else y - 399) // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _leap(y: int) -> bool:
    return y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)


def parse_iso_ms(s: str) -> Optional[int]:
    """ms since the epoch, UTC unless `s` names a zone; None where the local parser gives NaN by its regex."""
    m = ISO_DATE.match(s)
    if m is None:
        return None
    y, mo, d = int(m[1]), int(m[2]), int(m[3])
    hh, mi, ss = int(m[4] or 0), int(m[5] or 0), int(m[6] or 0)
    last = 29 if mo == 2 and _leap(y) else DAYS[mo - 1] if 1 <= mo <= 12 else 0
    if not (1 <= mo <= 12 and 1 <= d <= last and hh <= 23 and mi <= 59 and ss <= 59):
        raise IsoUnsupported(f"timestamp text '{s}' (a field out of range)")
    ms = int((m[7] or "0")[:3].ljust(3, "0"))
    zone = m[8]
    offset = 0
    if zone and zone != "Z":
        zh, zm = int(zone[1:3]), int(zone[-2:])
        if zh > 23 or zm > 59:
            raise IsoUnsupported(f"timestamp text '{s}' (zone out of range)")
        offset = (zh * 60 + zm) * (1 if zone[0] == "+" else -1)
    return ((_days_from_civil(y, mo, d) * 24 + hh) * 60 + mi - offset) * 60000 + ss * 1000 + ms
