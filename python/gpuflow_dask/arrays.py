"""`array-op` handlers (worker/kernels/arrays): filled in op by op; the rest is `unsupported-op`."""
from __future__ import annotations

from typing import Any, Callable, Dict

HANDLERS: Dict[str, Callable[..., Any]] = {}
