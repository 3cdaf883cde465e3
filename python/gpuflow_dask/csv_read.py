"""The `read-csv` task on a Dask worker: a port of worker/kernels/df/csv-text.ts and csv-parse.ts.

Same rules as the local kernel, so a partition holds the same rows with the same values: byte
ranges as dask's read_bytes (a line belongs to the range holding its first byte), the header from
the file's first line, RFC 4180 quoting (text after a closing quote kept, as pandas does), blank
lines skipped, empty fields null, int columns exact int64, and malformed rows raised or skipped
per `onBadLines`. Timestamp columns are ms since the epoch through iso_time.py's port of the
local ISO parser (a text it rejects is a malformed row, as there).
"""
from __future__ import annotations

import os
import re
import stat
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from .iso_time import parse_iso_ms
from .values import Column, Table

INT = re.compile(r"^[+-]?\d+$")
FLOAT = re.compile(r"^[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?|inf|infinity|nan)$", re.IGNORECASE)
BOOL = re.compile(r"^(true|false)$", re.IGNORECASE)
MAX_LINE = 16 * 1024 * 1024


class CsvError(ValueError):
    def __init__(self, file: str, line: int, detail: str) -> None:
        super().__init__(f"{file} line {line}: {detail}")


def regular_file_problem(path: str) -> Optional[str]:
    """Why `path` cannot be read as a source here (missing, not a regular file), or None."""
    try:
        st = os.stat(path)
    except OSError as e:
        return f"cannot see {path} ({e.strerror or e})"
    if not stat.S_ISREG(st.st_mode):
        return f"sees {path}, but it is not a regular file"
    return None


def _is_int64(v: str) -> bool:
    if not INT.match(v):
        return False
    return len(v.lstrip("+-")) <= 18 or -(2**63) <= int(v) < 2**63


def parse_text(text: str, d: str, ncols: int, on_bad: Callable[[int, int, str], bool]) -> Tuple[List[List[str]], List[int], int, Optional[List[str]]]:
    """csv-parse.ts parseCsvText: (columns, row lines, skipped, first row when ncols was 0)."""
    columns: List[List[str]] = [[] for _ in range(ncols)]
    lines: List[int] = []
    skipped = 0
    first: Optional[List[str]] = None
    row: List[str] = []
    line = row_line = 1
    i = row_start = 0
    n = len(text)

    def end_row(raw_start: int, raw_end: int) -> None:
        nonlocal row, ncols, columns, first, skipped
        if len(row) == 1 and row[0] == "":
            row = []
            return
        if ncols == 0:
            ncols = len(row)
            columns = [[] for _ in range(ncols)]
            first, row = row, []
            return
        if len(row) != ncols:
            if on_bad(row_line, len(row), text[raw_start:raw_end]):
                skipped += 1
            row = []
            return
        for j in range(ncols):
            columns[j].append(row[j])
        lines.append(row_line)
        row = []

    while i <= n:
        if i < n and text[i] == '"':
            s, j, closed = "", i + 1, False
            while j < n:
                q = text.find('"', j)
                if q < 0:
                    break
                s += text[j:q]
                if q + 1 < n and text[q + 1] == '"':
                    s += '"'
                    j = q + 2
                else:
                    j, closed = q + 1, True
                    break
            if not closed:
                if on_bad(row_line, len(row) + 1, text[row_start:min(n, row_start + 200)]):
                    skipped += 1
                return columns, lines, skipped, first
            line += text.count("\n", i, j)
            k = j
            while k < n and text[k] != d and text[k] != "\n":
                k += 1
            tail = text[j:k]
            if tail.endswith("\r"):
                tail = tail[:-1]
            row.append(s + tail)
            i = k
        else:
            k = i
            while k < n and text[k] != d and text[k] != "\n":
                k += 1
            end = k
            if end > i and text[end - 1] == "\r" and (k == n or text[k] == "\n"):
                end -= 1
            row.append(text[i:end])
            i = k
        if i >= n:
            if not (len(row) == 1 and row[0] == "" and i == row_start):
                end_row(row_start, n)
            break
        if text[i] == d:
            i += 1
            if i == n:
                row.append("")
                end_row(row_start, n)
                break
            continue
        end_row(row_start, i)
        i += 1
        line += 1
        row_line, row_start = line, i
        if i == n:
            break
    return columns, lines, skipped, first


def _after_newline(f: Any, pos: int, size: int, file: str) -> int:
    start = pos
    while pos < size:
        if pos - start > MAX_LINE:
            raise ValueError(f"csv: {file}: no line ends within {MAX_LINE} bytes after byte {start}, the limit on one CSV line")
        f.seek(pos)
        b = f.read(min(1 << 16, size - pos))
        k = b.find(b"\n")
        if k >= 0:
            return pos + k + 1
        pos += len(b)
    return size


def _line_start_from(f: Any, pos: int, size: int, file: str) -> int:
    if pos == 0 or pos >= size:
        return min(pos, size)
    f.seek(pos - 1)
    return pos if f.read(1) == b"\n" else _after_newline(f, pos, size, file)


def _decode(b: bytes, at_start: bool) -> str:
    s = b.decode("utf-8", errors="replace")
    return s[1:] if at_start and s.startswith("\ufeff") else s


def _column(name: str, values: List[str], typ: str, keep: np.ndarray) -> Column:
    vals = [v for v, k in zip(values, keep) if k]
    valid = np.array([v != "" for v in vals], dtype=bool)
    if typ == "string":
        return Column(name, "utf8", [v if v != "" else None for v in vals], valid)
    if typ == "int":
        return Column(name, "int64", np.array([int(v) if v != "" else 0 for v in vals], dtype=np.int64), valid)
    if typ == "bool":
        return Column(name, "bool", np.array([v.lower() == "true" for v in vals], dtype=bool), valid)
    if typ == "float":
        # float() reads every text FLOAT admits, inf / infinity / nan in any case included.
        return Column(name, "float64", np.array([float(v) if v != "" else 0.0 for v in vals], dtype=np.float64), valid)
    if typ == "timestamp":
        ms = [parse_iso_ms(v) if v != "" else 0 for v in vals]
        return Column(name, "timestamp[ms]", np.array([0 if x is None else x for x in ms], dtype=np.int64), valid)
    raise ValueError(f"csv: column '{name}': type {typ} is not read by gpuflow_dask")


def read_csv(p: Dict[str, Any]) -> Table:
    """One `read-csv` task's partition (params as main/engine/ops/df/sources.ts emits them)."""
    file, d = p["path"], p.get("delimiter", ",")
    header, policy, types = p.get("header", True), p.get("onBadLines", "error"), p["types"]
    with open(file, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        end = min(p["end"] if p.get("end") is not None else size, size)
        start = int(p["start"])
        if start < 0 or start > size or end < start:
            raise ValueError(f"csv: {file}: byte range [{start}, {p.get('end')}) is outside the file ({size} bytes)")
        frm = _line_start_from(f, start, size, file)
        to = size if end >= size else _line_start_from(f, end, size, file)
        body = frm
        names: Optional[List[str]] = None
        if header:
            head_end = _after_newline(f, 0, size, file)
            f.seek(0)
            names = parse_text(_decode(f.read(head_end), True), d, 0, lambda *_: True)[3] or []
            if not names:
                raise CsvError(file, 1, "expected a header line naming the columns, found an empty line")
            if frm == 0:
                body = head_end
        f.seek(body)
        text = _decode(f.read(to - body), body == 0) if body < to else ""
    ncols = len(names) if names else 0

    def before() -> int:
        # Lines before the range, counted only for an error's message (never on the happy path:
        # every partition reading its whole prefix would make a big file's read quadratic).
        with open(file, "rb") as g:
            count = pos = 0
            while pos < body:
                chunk = g.read(min(1 << 16, body - pos))
                if not chunk:
                    break
                count, pos = count + chunk.count(b"\n"), pos + len(chunk)
            return count

    def on_bad(line: int, found: int, raw: str) -> bool:
        if policy == "skip":
            return True
        raise CsvError(file, before() + line, f"expected {ncols} fields, found {found}: {raw[:80]}")

    columns, lines, skipped, first = parse_text(text, d, ncols, on_bad)
    if names is None:
        names = [f"c{j}" for j in range(len(columns))]
        if first is not None:
            for j, c in enumerate(columns):
                c.insert(0, first[j])
            lines.insert(0, 1)
    rows = len(columns[0]) if columns else 0
    keep = np.ones(rows, dtype=bool)
    checks = {"int": _is_int64, "float": lambda v: bool(FLOAT.match(v)), "bool": lambda v: bool(BOOL.match(v)), "timestamp": lambda v: parse_iso_ms(v) is not None}
    for j, name in enumerate(names):
        typ = types[name]
        ok = checks.get(typ)
        if ok is None:
            continue
        for r, v in enumerate(columns[j]):
            if v != "" and keep[r] and not ok(v):
                if policy == "error":
                    raise CsvError(file, before() + lines[r], f"column '{name}': expected {typ}, found '{v}'")
                keep[r] = False
    kept = int(keep.sum())
    return Table(kept, [_column(name, columns[j], types[name], keep) for j, name in enumerate(names)])
