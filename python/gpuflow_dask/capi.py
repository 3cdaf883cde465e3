"""ctypes binding of libgpuflow_kernels.so (native/src/capi.h), the addon's CPU kernels as a C ABI.

Looked up in GPUFLOW_CAPI_DIR, then native/build beside this package's repo. A worker without
the library (a remote machine with no build) gets None from `load()` and the NumPy fallback runs.
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import threading
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, List, Optional, Sequence, Tuple

import numpy as np

LIB_NAME = "libgpuflow_kernels.so"
ERR_LEN = 1024
INPUT_TYPES = {np.dtype(np.float64): 0, np.dtype(np.float32): 1, np.dtype(np.int32): 2}

# A worker's warm-up thread (warm.py) loads the libraries while its first task may ask for them:
# the second caller waits for the first load instead of seeing "tried, none". Both libraries'
# loaders share the lock (as they did before Loader): a caller finding a library already looked
# for never takes it.
_load_lock = threading.Lock()


class Loader:
    """One library looked for once per process: `get()` runs `find` (a library or None, and what
    was tried) on the first call only, later calls return what it found. Double-checked: the lock
    is taken only until the first look is done."""

    def __init__(self, find: Callable[[], Tuple[Optional[ctypes.CDLL], str]]):
        self._find = find
        self._lib: Optional[Any] = None
        self._why: Optional[str] = None
        self._tried = False

    def get(self) -> Optional[Any]:
        if self._tried:
            return self._lib
        with _load_lock:
            if not self._tried:
                self._lib, self._why = self._find()
                self._tried = True
        return self._lib

    def why(self) -> str:
        self.get()
        return self._why or ""

    # ---- for tests: a fresh look, a stand-in library, the state put back ----

    def reset(self) -> None:
        """Forgets what was found: the next `get()` looks again (e.g. after an environment change)."""
        with _load_lock:
            self._lib, self._why, self._tried = None, None, False

    def pin(self, lib: Optional[Any], why: str = "pinned") -> None:
        """Makes `get()` return `lib` (a stand-in library, or None: no library) without looking."""
        with _load_lock:
            self._lib, self._why, self._tried = lib, why, True

    @contextlib.contextmanager
    def kept(self) -> Iterator["Loader"]:
        """Puts this loader's state back on exit, whatever the block reset or pinned."""
        saved = (self._lib, self._why, self._tried)
        try:
            yield self
        finally:
            with _load_lock:
                self._lib, self._why, self._tried = saved


def candidates() -> List[Path]:
    """Where the library may be, in order."""
    out = []
    env = os.environ.get("GPUFLOW_CAPI_DIR")
    if env:
        out.append(Path(env) / LIB_NAME)
    out.append(Path(__file__).resolve().parents[2] / "native" / "build" / LIB_NAME)
    return out


def _bind(lib: ctypes.CDLL) -> None:
    d, i64, i32, sz, vp, cp = ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ctypes.c_int32), ctypes.c_size_t, ctypes.c_void_p, ctypes.c_char_p
    lib.gf_capi_version.restype = ctypes.c_int
    lib.gf_program_output.argtypes = [d, sz, i64, i32, ctypes.c_int32, i64, i32, cp, sz]
    lib.gf_run_program.argtypes = [d, sz, ctypes.POINTER(vp), i64, i32, ctypes.c_int32, vp, ctypes.c_int64, ctypes.c_int32, cp, sz]
    lib.gf_matmul_f64.argtypes = [d, d, d, d, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_int32, cp, sz]
    lib.gf_qr_f64.argtypes = [d, d, d, ctypes.c_int64, ctypes.c_int64, ctypes.c_int32, cp, sz]
    lib.gf_svd_f64.argtypes = [d, d, d, d, ctypes.c_int64, ctypes.c_int64, ctypes.c_int32, cp, sz]


def _first_loadable(paths: Iterable[Path], check: Callable[[ctypes.CDLL], Optional[str]]) -> Tuple[Optional[ctypes.CDLL], str]:
    """The first of `paths` that loads and passes `check` (None = usable, else why not), with
    "loaded <path>"; or None and what went wrong with each path, for why() / cuda_why()."""
    errors = []
    for p in paths:
        if not p.exists():
            errors.append(f"{p}: not found")
            continue
        try:
            lib = ctypes.CDLL(str(p))
            problem = check(lib)
        except (OSError, AttributeError) as e:
            errors.append(f"{p}: {e}")
            continue
        if problem is None:
            return lib, f"loaded {p}"
        errors.append(f"{p}: {problem}")
    return None, "; ".join(errors)


def _check_cpu(lib: ctypes.CDLL) -> Optional[str]:
    _bind(lib)
    v = lib.gf_capi_version()
    return None if v == 1 else f"C-ABI version {v}, expected 1"


def _check_cuda(lib: ctypes.CDLL) -> Optional[str]:
    d, i64, i32, sz, vp, cp = ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ctypes.c_int32), ctypes.c_size_t, ctypes.c_void_p, ctypes.c_char_p
    lib.gf_cuda_available.argtypes = [cp, sz]
    lib.gf_cuda_run_program.argtypes = [d, sz, ctypes.POINTER(vp), i64, i32, ctypes.c_int32, vp, ctypes.c_int64, cp, sz]
    # The device-resident entry (device.py's chunks) where this build has it; an older library
    # still runs programs with host buffers.
    if hasattr(lib, "gf_cuda_run_program_on"):
        lib.gf_cuda_run_program_on.argtypes = [d, sz, ctypes.POINTER(vp), i64, i32, ctypes.POINTER(ctypes.c_int8), ctypes.c_int32, vp, ctypes.c_int64, ctypes.c_int32, cp, sz]
    err = ctypes.create_string_buffer(ERR_LEN)
    return err.value.decode("utf-8", "replace") if lib.gf_cuda_available(err, ERR_LEN) else None


def _find_cpu() -> Tuple[Optional[ctypes.CDLL], str]:
    if os.environ.get("GPUFLOW_NO_CAPI") == "1":
        return None, "disabled by GPUFLOW_NO_CAPI=1"
    return _first_loadable(candidates(), _check_cpu)


cpu_loader = Loader(_find_cpu)


def load() -> Optional[ctypes.CDLL]:
    """The library, or None (then `why()` says what was tried)."""
    return cpu_loader.get()


def why() -> str:
    return cpu_loader.why()


def _ptr(a: np.ndarray, t: type = ctypes.c_double) -> "ctypes._Pointer":
    return a.ctypes.data_as(ctypes.POINTER(t))


def as_input(v: object) -> np.ndarray:
    """An input as the library takes it: int64 -> float64, a non-array -> an empty float64 array."""
    if not isinstance(v, np.ndarray):
        return np.zeros(0, np.float64)
    if v.dtype == np.int64:
        return np.ascontiguousarray(v, dtype=np.float64).ravel()
    if v.dtype not in INPUT_TYPES:
        return np.ascontiguousarray(v, dtype=np.float64).ravel()
    return np.ascontiguousarray(v).ravel()


class _ProgramCall:
    """A program's arguments as both C entries take them, and its output array, sized by the CPU
    library's gf_program_output (the CUDA library has no sizing entry of its own)."""

    def __init__(self, cpu: ctypes.CDLL, code: np.ndarray, inputs: Sequence[Any], addrs: Optional[Sequence[int]] = None):
        """`inputs` have .size and .dtype; `addrs` their data addresses (default: host arrays')."""
        self.code = np.ascontiguousarray(code, dtype=np.float64)
        self.n = len(inputs)
        self.lengths = np.array([a.size for a in inputs], dtype=np.int64)
        self.types = np.array([INPUT_TYPES[np.dtype(a.dtype)] for a in inputs], dtype=np.int32)
        self.ptrs = (ctypes.c_void_p * max(self.n, 1))(*(addrs if addrs is not None else [a.ctypes.data for a in inputs]))
        self.err = ctypes.create_string_buffer(ERR_LEN)
        out_len = ctypes.c_int64(0)
        out_f32 = ctypes.c_int32(0)
        if cpu.gf_program_output(_ptr(self.code), self.code.size, _ptr(self.lengths, ctypes.c_int64), _ptr(self.types, ctypes.c_int32), self.n, ctypes.byref(out_len), ctypes.byref(out_f32), self.err, ERR_LEN):
            raise ValueError(self.message())
        self.out = np.empty(out_len.value, dtype=np.float32 if out_f32.value else np.float64)

    def head(self) -> tuple:
        """The arguments both entries start with: code, inputs, their lengths and types, the output."""
        return (_ptr(self.code), self.code.size, self.ptrs, _ptr(self.lengths, ctypes.c_int64), _ptr(self.types, ctypes.c_int32), self.n, self.out.ctypes.data, self.out.size)

    def message(self) -> str:
        return self.err.value.decode("utf-8", "replace")


def run_program(lib: ctypes.CDLL, code: np.ndarray, inputs: Sequence[np.ndarray], threads: int = 1) -> np.ndarray:
    """Runs program `code` (float64) over flat inputs; returns the flat output (values or partial fields)."""
    call = _ProgramCall(lib, code, inputs)
    if lib.gf_run_program(*call.head(), threads, call.err, ERR_LEN):
        raise ValueError(call.message())
    return call.out


def matmul(lib: ctypes.CDLL, a: np.ndarray, b: np.ndarray, c0: Optional[np.ndarray], threads: int = 1) -> np.ndarray:
    """C = A B (+ C0), float64, by the addon's CPU matmul."""
    a = np.ascontiguousarray(a, np.float64)
    b = np.ascontiguousarray(b, np.float64)
    m, k = a.shape
    n = b.shape[1]
    c = np.empty((m, n), np.float64)
    c0p = _ptr(np.ascontiguousarray(c0, np.float64)) if c0 is not None else None
    err = ctypes.create_string_buffer(ERR_LEN)
    if lib.gf_matmul_f64(_ptr(a), _ptr(b), c0p, _ptr(c), m, k, n, threads, err, ERR_LEN):
        raise ValueError(err.value.decode("utf-8", "replace"))
    return c


def qr(lib: ctypes.CDLL, a: np.ndarray, threads: int = 1) -> Tuple[np.ndarray, np.ndarray]:
    """Reduced QR with diag(R) >= 0, float64."""
    a = np.ascontiguousarray(a, np.float64)
    m, n = a.shape
    q = np.empty((m, n), np.float64)
    r = np.empty((n, n), np.float64)
    err = ctypes.create_string_buffer(ERR_LEN)
    if lib.gf_qr_f64(_ptr(a), _ptr(q), _ptr(r), m, n, threads, err, ERR_LEN):
        raise ValueError(err.value.decode("utf-8", "replace"))
    return q, r


def svd(lib: ctypes.CDLL, a: np.ndarray, threads: int = 1) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Thin SVD with the js reference's sign rule, float64."""
    a = np.ascontiguousarray(a, np.float64)
    m, n = a.shape
    p = min(m, n)
    u = np.empty((m, p), np.float64)
    s = np.empty(p, np.float64)
    vt = np.empty((p, n), np.float64)
    err = ctypes.create_string_buffer(ERR_LEN)
    if lib.gf_svd_f64(_ptr(a), _ptr(u), _ptr(s), _ptr(vt), m, n, threads, err, ERR_LEN):
        raise ValueError(err.value.decode("utf-8", "replace"))
    return u, s, vt


# ---- the CUDA variant (libgpuflow_kernels_cuda.so: the addon's CUDA program kernel) ----

CUDA_LIB_NAME = "libgpuflow_kernels_cuda.so"


def cuda_library_file() -> bool:
    """Whether a CUDA library file is where load_cuda looks (nothing loaded: it may still fail)."""
    return any((c.parent / CUDA_LIB_NAME).exists() for c in candidates())


def _find_cuda() -> Tuple[Optional[ctypes.CDLL], str]:
    if os.environ.get("GPUFLOW_DASK_DEVICE") == "cpu":
        return None, "disabled by GPUFLOW_DASK_DEVICE=cpu"
    return _first_loadable([c.parent / CUDA_LIB_NAME for c in candidates()], _check_cuda)


cuda_loader = Loader(_find_cuda)


def load_cuda() -> Optional[ctypes.CDLL]:
    """The CUDA library when it loads AND a device is usable, else None (`cuda_why()` says why).
    GPUFLOW_DASK_DEVICE=cpu keeps programs on the CPU library."""
    return cuda_loader.get()


def cuda_why() -> str:
    return cuda_loader.why()


def run_program_cuda(lib: ctypes.CDLL, cpu: ctypes.CDLL, code: np.ndarray, inputs: Sequence[np.ndarray]) -> np.ndarray:
    """As run_program, on the device (host buffers in and out; the CPU library sizes the output)."""
    call = _ProgramCall(cpu, code, inputs)
    if lib.gf_cuda_run_program(*call.head(), call.err, ERR_LEN):
        raise RuntimeError(call.message())
    return call.out


def takes_device_inputs(lib: ctypes.CDLL) -> bool:
    """Whether this CUDA library has the device-resident entry (gf_cuda_run_program_on)."""
    return hasattr(lib, "gf_cuda_run_program_on")


def run_program_cuda_on(lib: ctypes.CDLL, cpu: ctypes.CDLL, code: np.ndarray, inputs: Sequence[Any], on_device: Sequence[bool], new_device_array: Optional[Callable[[int, np.dtype], Any]] = None) -> Any:
    """As run_program_cuda, where inputs[i] may be a device array (on_device[i]: a CuPy array of
    this device, contiguous, of an input type) read in place; with `new_device_array(n, dtype)`
    (a program without a reduction) the output is a device array it made, else a host array."""
    addrs = [int(a.data.ptr) if dev else int(a.ctypes.data) for a, dev in zip(inputs, on_device)]
    call = _ProgramCall(cpu, code, inputs, addrs)
    flags = (ctypes.c_int8 * max(call.n, 1))(*[1 if dev else 0 for dev in on_device])
    out: Any = call.out
    if new_device_array is not None:
        out = new_device_array(call.out.size, call.out.dtype)
    addr = int(out.data.ptr) if new_device_array is not None else int(out.ctypes.data)
    head = call.head()
    if lib.gf_cuda_run_program_on(*head[:5], flags, call.n, addr, call.out.size, 1 if new_device_array is not None else 0, call.err, ERR_LEN):
        raise RuntimeError(call.message())
    return out
