"""The failure a task raises on a worker; the bridge turns it into a `failed` message.

It pickles by its args only, so it crosses from worker to client intact in every distributed
version (Dask re-raises the worker's exception on the client).
"""
from __future__ import annotations

from typing import Optional


class TaskFailure(Exception):
    """A task of ours that cannot run: `code` is the protocol's failure code."""

    def __init__(self, code: str, message: str, key: Optional[str] = None, node: Optional[str] = None) -> None:
        super().__init__(code, message, key, node)
        self.code = code
        self.message = message
        self.key = key
        self.node = node

    def __str__(self) -> str:
        return self.message


def unsupported(what: str, key: Optional[str], node: Optional[str]) -> TaskFailure:
    """The `unsupported-op` failure: the Python executor lacks `what` (never a wrong answer)."""
    return TaskFailure("unsupported-op", f"{what} is not implemented by gpuflow_dask (task {key}, node {node})", key, node)
