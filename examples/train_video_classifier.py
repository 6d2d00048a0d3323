#!/usr/bin/python3
"""Train torchvision's R3D-18 on a video dataset fed by Stoker (or, to compare, by a PyTorch DataLoader + PyAV).

    /usr/bin/python3 examples/train_video_classifier.py                       # demo dataset, Stoker, CPU, width 0.125
    /usr/bin/python3 examples/train_video_classifier.py --loader pytorch --workers 2
    /usr/bin/python3 examples/train_video_classifier.py DATA --device cuda:0 --width 1 --steps 500

The model is torchvision's ``r3d_18(num_classes=K)`` (no weights download) at ``--width 1``; a smaller width scales
every stage's channels (the same stem, 4 stages of 2 BasicBlocks of 3x3x3 convolutions from torchvision's building
blocks), so that a step takes about 100 ms on 2 CPU cores at width 0.125. SGD with momentum; bf16 autocast on CUDA.

``--loader stoker`` is ``stoker.torch.VideoLoader`` (clips decoded in the Stoker JVM, batches handed over through
shared memory with no copy); ``--loader pytorch`` is ``torch.utils.data.DataLoader`` with ``--workers`` processes
decoding with PyAV (``bench/peer_pyav.py``'s dataset: the same files and clip spec, written as a competent user
would; ``--decoder cv2`` decodes with OpenCV instead, ``bench/peer_cv2.py``, for machines without PyAV); ``--loader
cached`` replays ``--cached`` Stoker batches from the training device's memory: the compute floor, what the step
costs when the loop never waits for data. All yield uint8 clips; the loop normalises them on the training device.

It prints step time p50/p99, samples/s, the data-wait share (the time the loop waited for its next batch over the
whole loop's time, after ``--warmup`` steps), the first and last loss, the peak RSS of this process and the
peak PSS of it with the processes it started (the JVM, or the DataLoader's workers), and writes a Chrome trace (ui.perfetto.dev) with ``wait``, ``h2d`` and ``train`` slices per step.
"""
import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import torch
from torch import nn

ROOT = Path(__file__).resolve().parents[1]
DEMO = Path.home() / ".cache" / "stoker" / "demo-kinetics"
MEAN = (0.43216, 0.394666, 0.37645)   # Kinetics-400, as torchvision's video models use
STD = (0.22803, 0.22145, 0.216989)


def r3d(num_classes: int, width: float) -> nn.Module:
    """torchvision's r3d_18 at width 1; at another width the same architecture with channels x width."""
    from torchvision.models.video import r3d_18
    from torchvision.models.video.resnet import BasicBlock, Conv3DSimple
    if width == 1:
        return r3d_18(weights=None, num_classes=num_classes)
    channels = [max(4, round(c * width)) for c in (64, 128, 256, 512)]
    layers = [nn.Conv3d(3, channels[0], (3, 7, 7), (1, 2, 2), (1, 3, 3), bias=False), nn.BatchNorm3d(channels[0]),
              nn.ReLU(inplace=True)]
    inplanes = channels[0]
    for i, planes in enumerate(channels):
        stride = 1 if i == 0 else 2
        downsample = None
        if stride != 1 or inplanes != planes:
            downsample = nn.Sequential(nn.Conv3d(inplanes, planes, 1, stride=Conv3DSimple.get_downsample_stride(stride),
                                                 bias=False), nn.BatchNorm3d(planes))
        layers += [BasicBlock(inplanes, planes, Conv3DSimple, stride, downsample), BasicBlock(planes, planes, Conv3DSimple)]
        inplanes = planes
    layers += [nn.AdaptiveAvgPool3d(1), nn.Flatten(), nn.Linear(inplanes, num_classes)]
    return nn.Sequential(*layers)


def use_checkout_if_not_installed() -> None:
    """The installed stoker package (pip install of the wheel), else the one in this checkout's python/."""
    if importlib.util.find_spec("stoker") is None:
        sys.path.insert(0, str(ROOT / "python"))


def ensure_demo(path: Path) -> Path:
    if not path.is_dir():
        print(f"making the demo dataset in {path} (once; about a minute on 2 cores)...", file=sys.stderr)
        use_checkout_if_not_installed()
        from stoker import stoker_command   # the wheel's bundle, the checkout's ./stoker, or STOKER_HOME's
        subprocess.run([stoker_command(), "demo-data", str(path)], check=True)
    return path


def stoker_batches(a, device):
    """(video uint8 NCTHW, label) per step, epoch after epoch, from Stoker."""
    use_checkout_if_not_installed()
    from stoker.torch import VideoLoader
    concurrency = {k: int(v) for k, v in (kv.split("=", 1) for kv in a.concurrency)} if a.concurrency else None
    loader = VideoLoader(a.data, frames=a.frames, stride=a.stride, size=a.size, batch_size=a.batch_size,
                         layout="NCTHW", seed=a.seed, drop_last=True, concurrency=concurrency,
                         device=device if device.type == "cuda" else None, decode=a.decode,
                         nvdec_sessions=a.nvdec_sessions, workload=a.workload)

    def batches():
        with loader:
            epoch = 0
            while True:
                loader.set_epoch(epoch)
                for batch in loader:
                    yield batch.video, batch.label
                epoch += 1
    return batches(), len(loader.classes)


def cached_batches(a, device):
    """The compute floor: --cached batches from Stoker, kept in the training device's memory and replayed, so the
    loop never waits for data (what the step alone costs; the headspace analysis's ceiling)."""
    source, classes = stoker_batches(a, device)
    # Copies: the loader's batches are views of slots (or device buffers) that it reuses.
    kept = [(video.to(device, copy=True), label.to(device, copy=True)) for video, label in (next(source) for _ in range(a.cached))]
    source.close()

    def batches():
        step = 0
        while True:
            yield kept[step % len(kept)]
            step += 1
    return batches(), classes


def pytorch_batches(a, device):
    """The peer: DataLoader + PyAV (or OpenCV) workers; clips arrive NTHWC and are permuted on the device."""
    peer_name = "peer_pyav" if a.decoder == "pyav" else "peer_cv2"
    spec = importlib.util.spec_from_file_location(peer_name, ROOT / "bench" / f"{peer_name}.py")
    peer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(peer)
    from torch.utils.data import DataLoader
    videos = peer.list_videos(str(a.data))
    classes = len({label for _, label in videos})
    dataset = peer.ClipDataset(videos, a.frames, a.stride, a.size, a.seed)
    sampler = peer.EpochSampler(len(videos), (a.steps + 1) * a.batch_size, a.seed)
    kwargs = dict(num_workers=a.workers, pin_memory=device.type == "cuda")
    if a.workers > 0:
        kwargs.update(prefetch_factor=2, persistent_workers=False)
    loader = DataLoader(dataset, batch_size=a.batch_size, sampler=sampler, drop_last=True, **kwargs)

    def batches():
        for clips, labels, _ in loader:
            yield clips.permute(0, 4, 1, 2, 3), labels
    return batches(), classes


def _descendants(pid: int):
    try:
        children = [int(c) for t in os.listdir(f"/proc/{pid}/task")
                    for c in open(f"/proc/{pid}/task/{t}/children").read().split()]
    except OSError:
        return []
    return children + [d for c in children for d in _descendants(c)]


def _pss_mib(pid: int) -> float:
    """Proportional set size: shared pages (the forked workers' copy-on-write pages, the shared-memory batches)
    are split among the processes that map them, so a sum over processes counts each page once."""
    try:
        for line in open(f"/proc/{pid}/smaps_rollup"):
            if line.startswith("Pss:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


class MemoryPeaks:
    """Peak memory of the training process, and of it with every process it started (the JVM, or the workers)."""

    def __init__(self):
        self.tree_pss_mib = 0.0

    def sample(self) -> None:
        me = os.getpid()
        self.tree_pss_mib = max(self.tree_pss_mib, sum(_pss_mib(p) for p in [me] + _descendants(me)))

    @staticmethod
    def own_peak_rss_mib() -> float:
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return 0.0


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("data", nargs="?", default=None, help="ROOT/<class>/<video> (default: the demo dataset)")
    p.add_argument("--loader", choices=("stoker", "pytorch", "cached"), default="stoker",
                   help="stoker, pytorch (DataLoader), or cached: --cached Stoker batches replayed from the device's "
                        "memory (the compute floor)")
    p.add_argument("--decoder", choices=("pyav", "cv2"), default="pyav", help="the pytorch loader's decoder")
    p.add_argument("--cached", type=int, default=8, help="batches the cached loader replays (default 8)")
    p.add_argument("--workers", type=int, default=2, help="the pytorch loader's worker processes (default 2)")
    p.add_argument("--concurrency", action="append", metavar="STAGE=N", help="a Stoker stage's threads, e.g. decode=2")
    p.add_argument("--decode", choices=("cpu", "nvdec", "hybrid", "auto"), default="cpu",
                   help="where Stoker decodes (nvdec, hybrid: on the GPU too, batches handed over by CUDA IPC)")
    p.add_argument("--nvdec-sessions", type=int, default=None, help="NVDEC sessions (default: one per engine)")
    p.add_argument("--workload", default=None, help="a named clip recipe, e.g. spdl-example (docs/python.md)")
    p.add_argument("--steps", type=int, default=60)
    p.add_argument("--warmup", type=int, default=5, help="steps left out of the timings (default 5)")
    p.add_argument("--width", type=float, default=0.125, help="channels x width (1: torchvision's r3d_18)")
    p.add_argument("--device", default="cpu", help="cpu or cuda:N")
    p.add_argument("--threads", type=int, default=os.cpu_count(), help="torch's intra-op threads (default: the cores)")
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--frames", type=int, default=16)
    p.add_argument("--stride", type=int, default=2)
    p.add_argument("--size", type=int, default=112)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--trace", default="pipeline_trace.json", help="Chrome trace of wait/h2d/train per step")
    p.add_argument("--json", help="write the summary as JSON")
    a = p.parse_args()
    a.data = Path(a.data) if a.data else ensure_demo(DEMO)
    if a.steps <= a.warmup:
        p.error(f"--steps {a.steps}: must exceed --warmup {a.warmup}")

    device = torch.device(a.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        p.error(f"--device {a.device}: this machine has no usable CUDA device")
    torch.manual_seed(a.seed)
    torch.set_num_threads(a.threads)   # Debian's torch starts with one thread
    batches, classes = {"stoker": stoker_batches, "pytorch": pytorch_batches, "cached": cached_batches}[a.loader](a, device)
    model = r3d(classes, a.width).to(device)
    optimiser = torch.optim.SGD(model.parameters(), lr=a.lr, momentum=0.9)
    mean = torch.tensor(MEAN, device=device).view(1, 3, 1, 1, 1)
    std = torch.tensor(STD, device=device).view(1, 3, 1, 1, 1)
    autocast = torch.autocast("cuda", dtype=torch.bfloat16) if device.type == "cuda" else None

    def sync():
        if device.type == "cuda":
            torch.cuda.synchronize(device)

    events, waits, steps, losses = [], [], [], []
    t_origin = time.perf_counter()

    def slice_(name, start, end, step):
        events.append({"name": name, "ph": "X", "pid": os.getpid(), "tid": 1, "ts": (start - t_origin) * 1e6,
                       "dur": (end - start) * 1e6, "args": {"step": step}})

    model.train()
    memory = MemoryPeaks()
    loop_start = None
    for step in range(a.steps):
        if step == a.warmup:
            loop_start = time.perf_counter()
        t0 = time.perf_counter()
        video, label = next(batches)
        t1 = time.perf_counter()
        video = video.to(device, non_blocking=True)
        label = label.to(device, non_blocking=True)
        sync()
        t2 = time.perf_counter()
        x = (video.float().div_(255) - mean) / std
        if autocast is not None:
            with autocast:
                loss = nn.functional.cross_entropy(model(x), label)
        else:
            loss = nn.functional.cross_entropy(model(x), label)
        optimiser.zero_grad(set_to_none=True)
        loss.backward()
        optimiser.step()
        losses.append(float(loss))   # also waits for the step on a GPU
        t3 = time.perf_counter()
        slice_("wait", t0, t1, step)
        slice_("h2d", t1, t2, step)
        slice_("train", t2, t3, step)
        if step >= a.warmup:
            waits.append(t1 - t0)
            steps.append(t3 - t0)
        if step % 5 == 0 or step == a.steps - 1:
            memory.sample()
        if step % 10 == 0 or step == a.steps - 1:
            print(f"step {step:5d}  loss {losses[-1]:.4f}  wait {1000 * (t1 - t0):7.1f} ms  "
                  f"train {1000 * (t3 - t2):7.1f} ms", flush=True)
    loop_seconds = time.perf_counter() - loop_start
    batches.close()   # stops the loader: the JVM, or the DataLoader's workers

    ordered = sorted(steps)
    own_rss, tree_pss = memory.own_peak_rss_mib(), memory.tree_pss_mib
    summary = {
        "loader": a.loader, "decoder": a.decoder if a.loader == "pytorch" else None,
        "workers": a.workers if a.loader == "pytorch" else 0, "device": str(device),
        "width": a.width, "steps": a.steps, "warmup": a.warmup, "batch_size": a.batch_size,
        "step_ms_p50": 1000 * ordered[len(ordered) // 2],
        "step_ms_p99": 1000 * ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))],
        "samples_per_second": len(steps) * a.batch_size / loop_seconds,
        "data_wait_share": sum(waits) / loop_seconds,
        "loss_first": losses[0], "loss_last": losses[-1],
        "peak_rss_mib": own_rss, "peak_pss_with_children_mib": tree_pss,
    }
    with open(a.trace, "w") as f:
        json.dump({"traceEvents": events, "displayTimeUnit": "ms"}, f)
    print(f"\n{a.loader} loader{' (' + str(a.workers) + ' workers)' if a.loader == 'pytorch' else ''}, "
          f"r3d width {a.width} on {device}, {a.steps} steps of {a.batch_size} (first {a.warmup} not timed)")
    print(f"step time       p50 {summary['step_ms_p50']:.1f} ms   p99 {summary['step_ms_p99']:.1f} ms")
    print(f"samples/s       {summary['samples_per_second']:.1f}")
    print(f"data-wait share {summary['data_wait_share']:.3f}")
    print(f"loss            {summary['loss_first']:.4f} -> {summary['loss_last']:.4f}")
    print(f"peak RSS        {own_rss:.0f} MiB (this process); PSS with the processes it started "
          f"({'the JVM' if a.loader == 'stoker' else 'the workers'}): {tree_pss:.0f} MiB")
    print(f"trace           {a.trace} (ui.perfetto.dev)")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(summary, f, indent=2)


if __name__ == "__main__":
    main()
