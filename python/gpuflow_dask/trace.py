"""The phase trace of a `--dask` run (GPUFLOW_TRACE_START=1, as common/start-trace.ts on the Node
side): one stderr line per phase, `gpuflow-trace <process> <label> <ms> <epoch ms>`, where <ms>
counts from GPUFLOW_TRACE_ORIGIN (the epoch ms at which the gpuflow process that started this
bridge began, so the CLI's and the bridge's lines read on one clock) or, without it, from this
process's own start. Off by default: one environment read, nothing written.

`at(label, epoch_s)` places a phase that happened elsewhere (a worker process's start, a task's
end on a worker, both in epoch seconds) on the same line format.
"""
from __future__ import annotations

import logging
import os
import sys
import time
from typing import Any, Dict, List

ON = os.environ.get("GPUFLOW_TRACE_START") == "1"


def _origin_ms() -> float:
    given = os.environ.get("GPUFLOW_TRACE_ORIGIN")
    if given:
        try:
            return float(given)
        except ValueError:
            pass
    return process_started_s(os.getpid()) * 1000.0


def process_started_s(pid: int) -> float:
    """When process `pid` started, epoch seconds (Linux /proc, to the clock tick; now where that
    cannot be read). The boot time comes from /proc/uptime (centiseconds), not /proc/stat's
    btime, which is whole seconds."""
    try:
        ticks = int(stat_fields(pid)[19])
        with open("/proc/uptime", encoding="ascii") as f:
            boot = time.time() - float(f.read().split()[0])
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return time.time()


def stat_fields(pid: int) -> List[str]:
    """The fields of /proc/<pid>/stat after the command name (state first, then ppid, ...);
    OSError where the process is gone."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        # The command name may hold spaces: fields count from after its closing parenthesis.
        return f.read().rsplit(")", 1)[1].split()


_ORIGIN_MS = _origin_ms() if ON else 0.0
WHO = os.environ.get("GPUFLOW_TRACE_NAME", "bridge")


def at(label: str, epoch_s: float, who: str = WHO) -> None:
    """One trace line for a phase that ended at `epoch_s`."""
    if not ON:
        return
    ms = epoch_s * 1000.0
    sys.stderr.write(f"gpuflow-trace {who} {'-'.join(label.split())} {ms - _ORIGIN_MS:.1f} {ms:.1f}\n")
    sys.stderr.flush()


def trace(label: str) -> None:
    """One trace line for a phase that ends now."""
    if ON:
        at(label, time.time())


def workers(client: Any, info: Dict[str, Any], probes: Dict[str, Dict[str, Any]], local: bool) -> None:
    """The trace's per-worker phases: the scheduler's start, each worker's registration (the
    scheduler's add-worker events) and, for a cluster on this machine, its process's start."""
    started = info.get("started")
    if isinstance(started, (int, float)):
        at("scheduler-started", float(started))
    names = {a: str(w.get("name", a)) for a, w in info.get("workers", {}).items()}
    if local:
        for addr, p in probes.items():
            if isinstance(p, dict) and isinstance(p.get("pid"), int):
                at(f"worker-{names.get(addr, addr)}-process", process_started_s(p["pid"]))
    try:
        for when, ev in client.get_events("all"):
            if isinstance(ev, dict) and ev.get("action") == "add-worker" and ev.get("worker") in names:
                at(f"worker-{names[ev['worker']]}-registered", float(when))
    except Exception as e:  # noqa: BLE001 - the trace is best effort
        logging.getLogger("gpuflow_dask").warning("trace: the scheduler's events: %s", e)
