"""Drives `python -m gpuflow_dask.bridge` as main does: JSON lines on its stdin and stdout."""
from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

PYTHON_DIR = Path(__file__).resolve().parents[1]


class BridgeProcess:
    def __init__(self, env: Optional[Dict[str, str]] = None) -> None:
        e = dict(os.environ)
        e["PYTHONPATH"] = str(PYTHON_DIR) + (os.pathsep + e["PYTHONPATH"] if e.get("PYTHONPATH") else "")
        e.update(env or {})
        self.proc = subprocess.Popen([sys.executable, "-m", "gpuflow_dask.bridge"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e, text=True, cwd="/")
        self.messages: List[Dict[str, Any]] = []
        self.lines: "queue.Queue[Optional[str]]" = queue.Queue()
        self.stderr: List[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _read_err(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr.append(line)

    def send(self, msg: Any) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((msg if isinstance(msg, str) else json.dumps(msg)) + "\n")
        self.proc.stdin.flush()

    def until(self, pred: Callable[[Dict[str, Any]], bool], timeout_s: float = 120) -> Dict[str, Any]:
        """Reads messages (keeping all in `messages`) until one matches; every line must be JSON."""
        end = time.time() + timeout_s
        while True:
            left = end - time.time()
            if left <= 0:
                raise TimeoutError(f"no matching message in {timeout_s} s; stderr tail:\n{''.join(self.stderr[-30:])}")
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise EOFError(f"bridge exited; stderr tail:\n{''.join(self.stderr[-30:])}")
            msg = json.loads(line)
            assert isinstance(msg, dict) and "type" in msg, line
            self.messages.append(msg)
            if pred(msg):
                return msg

    def reply(self, id: str, timeout_s: float = 120) -> Dict[str, Any]:
        # a result comes before its done, a notice (waiting, a worker left) is no reply
        return self.until(lambda m: m.get("id") == id and m["type"] not in ("result", "notice"), timeout_s)

    def close(self) -> int:
        try:
            self.send({"type": "shutdown"})
        except (BrokenPipeError, OSError):
            pass
        try:
            rc = self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
        for s in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                s.close()  # type: ignore[union-attr]
            except OSError:
                pass
        return rc
