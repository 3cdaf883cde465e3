"""The one reading of a cluster address on the Python side: the same parser as main/dask/address.ts
(both test suites read python/tests/fixtures/dask-addresses.json). `tcp://host:port`,
`tls://host:port`, `host:port` (tcp), `local:N` or `local-cuda`; anything else is refused with
the reason (a port out of range, no port, ucx:// or inproc://)."""
from __future__ import annotations

import re
from typing import Tuple

MAX_LOCAL_WORKERS = 256
SUPPORTED = ("tcp", "tls")
OTHER_DASK = ("ucx", "inproc", "ws", "wss")
HOST_PORT = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9][A-Za-z0-9.-]*)(?::([0-9]+))?$")
SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://(.*)$", re.S)


def read_target(text: str) -> Tuple[bool, str]:
    """(True, target in the bridge's form) or (False, why it is not an address)."""
    t = text.strip()
    if t == "":
        return False, "the address is empty"
    if t == "local-cuda":
        return True, t
    local = re.match(r"^local:([0-9]+)$", t)
    if local:
        n = int(local.group(1))
        return (True, f"local:{n}") if 1 <= n <= MAX_LOCAL_WORKERS else (False, f"local:N needs 1 <= N <= {MAX_LOCAL_WORKERS}")
    m = SCHEME.match(t)
    proto = m.group(1).lower() if m else "tcp"
    rest = m.group(2) if m else t
    if proto not in SUPPORTED:
        if proto in OTHER_DASK:
            return False, f"{proto}:// is not supported (gpuflow connects over tcp:// or tls://)"
        return False, f"{proto}:// is not a Dask scheduler protocol"
    hp = HOST_PORT.match(rest)
    if not hp:
        return False, f"'{rest}' is not host:port"
    host, port = hp.group(1), hp.group(2)
    if port is None:
        return False, f"{proto}://{host} needs a port, e.g. {proto}://{host}:8786"
    if not 1 <= int(port) <= 65535:
        return False, f"port {port} is out of range (1-65535)"
    return True, f"{proto}://{host}:{int(port)}"


def parse_target(text: str) -> str:
    """read_target, raising ValueError that names the input and the forms accepted."""
    ok, value = read_target(text)
    if ok:
        return value
    raise ValueError(f"not a Dask cluster address '{text.strip()}': {value} (use tcp://host:8786, tls://host:8786, local:N or local-cuda)")


