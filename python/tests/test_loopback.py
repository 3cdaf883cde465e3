"""A local cluster the bridge starts (`local:2`) listens on loopback only: every listening TCP
socket of the bridge process and of all its descendants (scheduler, dashboard, nannies,
workers) is bound to 127.0.0.1 or ::1, read from /proc (no psutil)."""
import os
import unittest
from typing import Dict, List, Set

from bridge_process import BridgeProcess


def descendants(root: int) -> Set[int]:
    children: Dict[int, List[int]] = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(d))
    out, todo = {root}, [root]
    while todo:
        for c in children.get(todo.pop(), []):
            if c not in out:
                out.add(c)
                todo.append(c)
    return out


def socket_inodes(pid: int) -> Set[str]:
    out = set()
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if link.startswith("socket:["):
                out.add(link[8:-1])
    except OSError:
        pass
    return out


def listening() -> Dict[str, str]:
    """inode -> local address (hex, as /proc/net/tcp writes it) of every listening TCP socket."""
    out = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            for line in f.readlines()[1:]:
                cols = line.split()
                if cols[3] == "0A":  # LISTEN
                    out[cols[9]] = cols[1]
    return out


LOOPBACK = ("0100007F", "00000000000000000000000001000000")


class LocalClusterOnLoopback(unittest.TestCase):
    def test_every_listening_socket_is_loopback(self):
        b = BridgeProcess()
        try:
            b.until(lambda m: m["type"] == "ready")
            b.send({"type": "connect", "id": "c", "target": "local:2", "timeout_s": 60})
            self.assertEqual(b.reply("c", 180)["type"], "connected")
            pids = descendants(b.proc.pid)
            self.assertGreaterEqual(len(pids), 3)  # the bridge and at least two worker processes
            table = listening()
            mine = {i: table[i] for p in pids for i in socket_inodes(p) if i in table}
            self.assertGreaterEqual(len(mine), 4, mine)  # scheduler, dashboard, and the workers' own
            for inode, addr in mine.items():
                self.assertIn(addr.split(":")[0], LOOPBACK, f"socket {inode} listens on {addr}")
        finally:
            self.assertEqual(b.close(), 0)


if __name__ == "__main__":
    unittest.main()
