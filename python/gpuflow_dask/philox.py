"""Philox4x32-10 and the counter-to-float mapping of docs/random.md, vectorised with NumPy.

This is the fallback of the C-ABI library (capi.py) on workers without a native build, so it
must give the same uniforms bit for bit: all integer work is done in uint64 lanes holding
uint32 values, and the float64 uniform is the exact integer k times 2^-53.
"""
from __future__ import annotations

import numpy as np

M0 = np.uint64(0xD2511F53)
M1 = np.uint64(0xCD9E8D57)
W0 = 0x9E3779B9
W1 = 0xBB67AE85
MASK = np.uint64(0xFFFFFFFF)
TWO_PI = 6.283185307179586  # 2 * Math.PI as the js reference rounds it
SHIFT32 = np.uint64(32)


def seed_key(seed: int) -> tuple[int, int]:
    """The Philox key (k0, k1) of a seed in [0, 2^53)."""
    if not isinstance(seed, int) or seed < 0 or seed >= 2**53:
        raise ValueError(f"seed must be an integer in [0, 2^53), got {seed!r}")
    return seed & 0xFFFFFFFF, seed >> 32


def philox(block: np.ndarray, k0: int, k1: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Philox4x32-10 of counters (block mod 2^32, block >> 32, 0, 0): four uint64 arrays of uint32 words."""
    b = block.astype(np.uint64, copy=False)
    c0 = b & MASK
    c1 = b >> SHIFT32
    c2 = np.zeros_like(c0)
    c3 = np.zeros_like(c0)
    for r in range(10):
        if r > 0:
            k0 = (k0 + W0) & 0xFFFFFFFF
            k1 = (k1 + W1) & 0xFFFFFFFF
        p0 = M0 * c0  # < 2^64: exact in uint64
        p1 = M1 * c2
        hi0, lo0 = p0 >> SHIFT32, p0 & MASK
        hi1, lo1 = p1 >> SHIFT32, p1 & MASK
        c0 = hi1 ^ c1 ^ np.uint64(k0)
        c1 = lo1
        c2 = hi0 ^ c3 ^ np.uint64(k1)
        c3 = lo0
    return c0, c1, c2, c3


def uniform64(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """u = ((a >> 5) * 2^26 + (b >> 6) + 1) * 2^-53 in (0, 1], exact."""
    k = ((a >> np.uint64(5)) << np.uint64(26)) + (b >> np.uint64(6)) + np.uint64(1)
    return k.astype(np.float64) * 1.1102230246251565e-16


def uniform32(w: np.ndarray) -> np.ndarray:
    """u = ((w >> 8) + 1) * 2^-24 in float32, exact."""
    return ((w >> np.uint64(8)) + np.uint64(1)).astype(np.float32) * np.float32(5.9604644775390625e-8)


def random64(idx: np.ndarray, normal: bool, k0: int, k1: int, a: float, b: float) -> np.ndarray:
    """float64 values of flat indices `idx` (int64, any shape) of a random leaf."""
    idx = idx.astype(np.uint64)
    w0, w1, w2, w3 = philox(idx >> np.uint64(1), k0, k1)
    odd = (idx & np.uint64(1)).astype(bool)
    if not normal:
        u = np.where(odd, uniform64(w2, w3), uniform64(w0, w1))
        return a + (b - a) * u
    r = np.sqrt(-2.0 * np.log(uniform64(w0, w1)))
    t = TWO_PI * uniform64(w2, w3)
    return a + b * (r * np.where(odd, np.sin(t), np.cos(t)))


def random32(idx: np.ndarray, normal: bool, k0: int, k1: int, a: float, b: float) -> np.ndarray:
    """float32 values (as float32) of flat indices `idx` of a random leaf (4 elements per call)."""
    idx = idx.astype(np.uint64)
    w = philox(idx >> np.uint64(2), k0, k1)
    q = (idx & np.uint64(3)).astype(np.int64)
    if not normal:
        word = np.choose(q, w)
        lo = np.float32(a)
        span = np.float32(b) - lo
        return lo + span * uniform32(word)
    second = q >= 2
    u1 = uniform32(np.where(second, w[2], w[0]))
    u2 = uniform32(np.where(second, w[3], w[1]))
    # As the host C++ does: transcendentals in double, each result rounded to float32.
    lg = np.log(u1.astype(np.float64)).astype(np.float32)
    r = np.sqrt((np.float32(-2.0) * lg).astype(np.float64)).astype(np.float32)
    t = np.float32(TWO_PI) * u2
    odd = (q & 1).astype(bool)
    cs = np.where(odd, np.sin(t.astype(np.float64)), np.cos(t.astype(np.float64))).astype(np.float32)
    return np.float32(a) + np.float32(b) * (r * cs)
