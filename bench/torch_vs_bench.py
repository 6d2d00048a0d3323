#!/usr/bin/python3
"""Python consumer vs `stoker bench`: the same dataset, options and batches, alternated, in one run.

Each round runs `stoker bench DATA --batches N` (the Java consumer) and then `stoker.torch.VideoLoader` over the
same dataset with the same options (the Python consumer, which only takes each batch and releases it), and
measures samples/s the way `stoker bench` does: steady state, from the end of a warm-up of max(2, N/10) batches
to the last batch. The ratio is the cost of the bridge; the hand-over time is, per batch, from the JVM sending
"slot ready" to the tensor in Python's hands, for batches Python was already waiting for (so that queueing
behind a slow consumer is not counted).

    /usr/bin/python3 bench/torch_vs_bench.py ~/.cache/stoker/demo-kinetics --batches 150 --rounds 3
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

from peer_common import add_clip_arguments  # noqa: E402 (bench/ is this script's folder)
from stoker.torch import VideoLoader  # noqa: E402


def java_consumer(data, batches, opts):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run([str(ROOT / "stoker"), "bench", str(data), "--batches", str(batches), "--no-reference",
                        "--batch", str(opts["batch_size"]), "--frames", str(opts["frames"]), "--stride",
                        str(opts["stride"]), "--size", str(opts["size"]), "--seed", "0", "--json", out.name],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return json.load(open(out.name))["samples_per_second"]


def python_consumer(data, batches, opts):
    warmup = max(2, batches // 10)
    taken, clips, start = 0, 0, None
    handover = []
    with VideoLoader(data, seed=0, **opts) as loader:
        while taken < batches:
            for batch in loader:
                taken += 1
                if taken == warmup:
                    start = time.perf_counter()
                elif taken > warmup:
                    clips += len(batch)
                if taken >= batches:
                    break
        elapsed = time.perf_counter() - start
        handover = loader.handover_micros()
    return clips / elapsed, handover


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("data")
    p.add_argument("--batches", type=int, default=150)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--batch", type=int, default=8)
    add_clip_arguments(p)
    a = p.parse_args()
    opts = dict(batch_size=a.batch, frames=a.frames, stride=a.stride, size=a.size)
    print(f"{os.cpu_count()} cores; {a.data}; {a.batches} batches of {a.batch} x {a.frames} x {a.size}^2, stride {a.stride}")
    print(f"{'round':>5} {'stoker bench':>13} {'python':>9} {'ratio':>6} {'hand-over p50/p99 us':>21}")
    ratios = []
    for r in range(1, a.rounds + 1):
        java = java_consumer(a.data, a.batches, opts)
        py, handover = python_consumer(a.data, a.batches, opts)
        ratios.append(py / java)
        hq = sorted(handover)
        p50 = hq[len(hq) // 2] if hq else float("nan")
        p99 = hq[min(len(hq) - 1, int(len(hq) * 0.99))] if hq else float("nan")
        print(f"{r:>5} {java:>13.1f} {py:>9.1f} {py / java:>6.3f} {p50:>10.0f} / {p99:<8.0f} (n={len(hq)})")
    print(f"median ratio python/java: {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main()
