#!/usr/bin/python3
"""stoker.torch.VideoLoader vs the PyTorch DataLoader + PyAV peer, alternated in one run.

Loading (per round): the Python consumer of `bench/torch_vs_bench.py` (steady-state samples/s over `--batches`)
and `bench/peer_pyav.py` with 0, 1 and 2 workers (its own steady-state figure); the ratio is Stoker over the best
peer of the round. Training (`--train`): `examples/train_video_classifier.py` on CPU with each loader, reporting
the data-wait share, samples/s and the peak RSS of the training process and of its largest child (the JVM for
Stoker, a DataLoader worker for the peer).

    bench/make-x264-dataset    # ~/.cache/stoker/x264-kinetics
    /usr/bin/python3 bench/torch_vs_peer.py ~/.cache/stoker/x264-kinetics --batches 100 --rounds 2 --train
"""
import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _module(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def peer(data, batches, workers, opts):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run([sys.executable, str(ROOT / "bench" / "peer_pyav.py"), str(data), "--workers", str(workers),
                        "--batches", str(batches), "--batch", str(opts["batch_size"]), "--frames", str(opts["frames"]),
                        "--stride", str(opts["stride"]), "--size", str(opts["size"]), "--json", out.name],
                       check=True, stdout=subprocess.DEVNULL)
        return json.load(open(out.name))["samples_per_second"]


def train(data, loader, args):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run([sys.executable, str(ROOT / "examples" / "train_video_classifier.py"), str(data), "--loader",
                        loader, "--workers", str(args.train_workers), "--steps", str(args.train_steps), "--width",
                        str(args.width), "--size", str(args.train_size), "--trace", os.devnull, "--json", out.name],
                       check=True, stdout=subprocess.DEVNULL)
        return json.load(open(out.name))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("data")
    p.add_argument("--batches", type=int, default=100)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--train", action="store_true", help="also compare the training example (CPU)")
    p.add_argument("--train-steps", type=int, default=40)
    p.add_argument("--train-workers", type=int, default=2)
    p.add_argument("--train-size", type=int, default=112)
    p.add_argument("--width", type=float, default=0.125)
    a = p.parse_args()
    opts = dict(batch_size=8, frames=16, stride=2, size=112)
    python_consumer = _module("torch_vs_bench", ROOT / "bench" / "torch_vs_bench.py").python_consumer
    print(f"{os.cpu_count()} cores; {a.data}; {a.batches} batches of 8 x 16 x 112^2, stride 2")
    print(f"{'round':>5} {'stoker.torch':>12} {'peer w0':>8} {'peer w1':>8} {'peer w2':>8} {'ratio':>6}")
    ratios = []
    for r in range(1, a.rounds + 1):
        ours, _ = python_consumer(a.data, a.batches, opts)
        peers = [peer(a.data, a.batches, w, opts) for w in (0, 1, 2)]
        ratios.append(ours / max(peers))
        print(f"{r:>5} {ours:>12.1f} {peers[0]:>8.1f} {peers[1]:>8.1f} {peers[2]:>8.1f} {ratios[-1]:>6.2f}", flush=True)
    if ratios:
        print(f"median ratio stoker.torch / best peer: {statistics.median(ratios):.2f}")
    if a.train:
        print(f"\ntraining example, r3d width {a.width}, {a.train_size}^2, {a.train_steps} steps, CPU "
              f"(peer: {a.train_workers} workers)")
        print(f"{'loader':>8} {'step p50 ms':>11} {'samples/s':>9} {'data-wait':>9} {'RSS MiB':>8} {'+children PSS':>13}")
        for loader in ("stoker", "pytorch", "stoker", "pytorch"):
            s = train(a.data, loader, a)
            print(f"{loader:>8} {s['step_ms_p50']:>11.0f} {s['samples_per_second']:>9.1f} {s['data_wait_share']:>9.3f} "
                  f"{s['peak_rss_mib']:>8.0f} {s['peak_pss_with_children_mib']:>13.0f}", flush=True)


if __name__ == "__main__":
    main()
