"""Does a GPU process's launch and small-copy cost grow when other processes use their own GPUs at
the same time? (issue 26: MNIST-shaped trials ran 1.0-1.6 s on four GPUs at once against 0.66-0.96 s
alone, with the host 9-10 % busy.) Each process times, on its own GPU (CUDA_VISIBLE_DEVICES), N
rounds of: 150 tiny kernel launches (a trial batch's count), one 512-byte host-to-device copy and
one 4-byte device-to-host read (the batch's indices and its loss). Run alone, then as K processes
at once; one JSON line a process.

  python3 bench/scaling/launch_contention.py [K] [N]      (CuPy; the GPU machine)
"""
import json
import os
import subprocess
import sys
import time


def child(n: int) -> None:
    import cupy as cp
    import numpy as np

    a = cp.zeros(128, dtype=cp.float32)
    host = np.arange(128, dtype=np.int32)
    add = cp.ElementwiseKernel("float32 x", "float32 y", "y = x + 1", "gf_add1")
    for _ in range(20):  # warm: module load, pools
        add(a, a)
    cp.cuda.Device().synchronize()
    t0 = time.perf_counter()
    launch = copy = read = 0.0
    for _ in range(n):
        s = time.perf_counter()
        for _ in range(150):
            add(a, a)
        s1 = time.perf_counter()
        d = cp.asarray(host)
        s2 = time.perf_counter()
        float(a[0])
        s3 = time.perf_counter()
        launch += s1 - s
        copy += s2 - s1
        read += s3 - s2
        del d
    total = time.perf_counter() - t0
    print(json.dumps({"gpu": os.environ.get("CUDA_VISIBLE_DEVICES"), "rounds": n, "msPerRound": round(1e3 * total / n, 3), "launchUsEach": round(1e6 * launch / n / 150, 2), "copyUs": round(1e6 * copy / n, 1), "readUs": round(1e6 * read / n, 1)}), flush=True)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(int(sys.argv[2]))
        return
    k = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    for label, gpus in (("alone", [0]), (f"{k} at once", list(range(k)))):
        procs = [subprocess.Popen([sys.executable, __file__, "--child", str(n)], env={**os.environ, "CUDA_VISIBLE_DEVICES": str(g)}, stdout=subprocess.PIPE, text=True) for g in gpus]
        for p in procs:
            out, _ = p.communicate()
            for line in out.splitlines():
                print(json.dumps({"run": label, **json.loads(line)}), flush=True)


if __name__ == "__main__":
    main()
