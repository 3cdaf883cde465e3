"""A distributed.LocalCluster for the Dask tests, shared by the tests of one file: 2 worker
processes of 1 thread, no dashboard. Prints one JSON line {"address", "workers": {name: pid}},
then serves until stdin closes (the test's afterAll), and closes the cluster."""
import json
import sys

from distributed import Client, LocalCluster

if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None)
    client = Client(cluster)
    info = client.scheduler_info()["workers"]
    pids = client.run(lambda: __import__("os").getpid())
    workers = {str(w["name"]): pids[a] for a, w in info.items()}
    print(json.dumps({"address": cluster.scheduler_address, "workers": workers}), flush=True)
    sys.stdin.read()
    client.close()
    cluster.close()
