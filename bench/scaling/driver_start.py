"""The bare driver start a GPU worker pays, without gpuflow or any framework: cuInit, the primary
context, one 1 MiB allocation through libcuda (ctypes), in one process alone and in one process per
GPU started together (each pinned by CUDA_VISIBLE_DEVICES), for bench/scaling/device.sh: the floor
under `gpuflow run`'s start-up with several GPUs (issue 30: 0.29-0.47 s alone, 1.1-1.6 s each of four).

  python3 bench/scaling/driver_start.py GPU_COUNT REPS   -> one JSON line per measurement
"""
import ctypes
import json
import os
import subprocess
import sys
import time


def child() -> None:
    t0 = time.perf_counter()
    cuda = ctypes.CDLL("libcuda.so.1")
    dev, ctx, ptr = ctypes.c_int(), ctypes.c_void_p(), ctypes.c_uint64()
    ok = cuda.cuInit(0) == 0 and cuda.cuDeviceGet(ctypes.byref(dev), 0) == 0
    ok = ok and cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev) == 0 and cuda.cuCtxSetCurrent(ctx) == 0
    ok = ok and cuda.cuMemAlloc_v2(ctypes.byref(ptr), 1 << 20) == 0
    print(json.dumps({"ok": bool(ok), "seconds": time.perf_counter() - t0}), flush=True)


def together(n: int) -> dict:
    t0 = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, __file__, "--child"], env={**os.environ, "CUDA_VISIBLE_DEVICES": str(i)}, stdout=subprocess.PIPE, text=True) for i in range(n)]
    outs = [json.loads(p.communicate()[0]) for p in procs]
    return {"kind": "driver-start", "processes": n, "wallSeconds": time.perf_counter() - t0, "each": [o["seconds"] for o in outs], "ok": all(o["ok"] for o in outs)}


if __name__ == "__main__":
    if sys.argv[1:] == ["--child"]:
        child()
    else:
        gpus, reps = int(sys.argv[1]), int(sys.argv[2])
        for rep in range(reps):
            for n in sorted({1, 2, gpus}):
                print(json.dumps({**together(n), "rep": rep + 1}), flush=True)
