"""What the two DataLoader peers (`peer_pyav.py`, `peer_cv2.py`) share: the dataset listing, the epoch order, the
Dataset shape and the steady-state measurement. Only how a clip is decoded differs between them, so that a
difference in their figures is the decoder's.

`examples/train_video_classifier.py --loader pytorch` uses `list_videos`, `EpochSampler` and a peer's
`ClipDataset`.
"""

import argparse
import json
import math
import os
import random
import sys
import time

import torch
from torch.utils.data import DataLoader, Dataset, Sampler

VIDEO_EXTENSIONS = (".mp4", ".webm", ".mkv", ".avi", ".mov", ".m4v")


def list_videos(root):
    """ROOT/<class>/<video> -> sorted [(path, label)], labels by sorted class name."""
    classes = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
    videos = []
    for label, c in enumerate(classes):
        for name in sorted(os.listdir(os.path.join(root, c))):
            if name.lower().endswith(VIDEO_EXTENSIONS):
                videos.append((os.path.join(root, c, name), label))
    return videos


class EpochSampler(Sampler):
    """Yields (epoch, video index) keys: a seeded shuffle of the videos per epoch, as many as needed."""

    def __init__(self, n_videos, n_samples, seed):
        self.n_videos, self.n_samples, self.seed = n_videos, n_samples, seed

    def __iter__(self):
        emitted, epoch = 0, 0
        while emitted < self.n_samples:
            order = list(range(self.n_videos))
            random.Random(self.seed * 1_000_003 + epoch).shuffle(order)
            for v in order:
                if emitted == self.n_samples:
                    return
                yield (epoch, v)
                emitted += 1
            epoch += 1

    def __len__(self):
        return self.n_samples


class PeerClipDataset(Dataset):
    """One seeded random clip of video `index` in `epoch`: (uint8 clip [T, H, W, C], label, frames decoded).

    A subclass decodes: `load_clip(path, rng) -> (clip, decoded)`, decoded = -1 for a file it could not read (the
    summary counts those rather than the run crashing, as a user's loader would)."""

    def __init__(self, videos, frames, stride, size, seed):
        self.videos, self.frames, self.stride, self.size, self.seed = videos, frames, stride, size, seed

    def __len__(self):
        return len(self.videos)

    def __getitem__(self, key):
        epoch, index = key
        path, label = self.videos[index]
        rng = random.Random((self.seed, epoch, index).__hash__())
        clip, decoded = self.load_clip(path, rng)
        return torch.from_numpy(clip), label, decoded

    def load_clip(self, path, rng):
        raise NotImplementedError


# Stoker's default clip: 16 frames at stride 2, 112x112 (`stoker bench`'s defaults), so that both sides do one work.
CLIP_DEFAULTS = {"frames": 16, "stride": 2, "size": 112}


def add_clip_arguments(parser):
    """--frames, --stride, --size with Stoker's defaults."""
    for option, default in CLIP_DEFAULTS.items():
        parser.add_argument(f"--{option}", type=int, default=default, help=f"clip {option} (default {default})")


def run(name, label, dataset_class, versions, doc, default_dataset=None, lister=None):
    """The peer's command line: a DataLoader over `dataset_class`, timed as `stoker bench` times itself (steady
    state from the end of a warm-up of max(2, batches/10) batches to the last batch). `lister(root)` lists the
    dataset as [(path, label)]: `list_videos` unless given."""
    p = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    if default_dataset:
        p.add_argument("dataset", nargs="?", default=default_dataset)
    else:
        p.add_argument("dataset")
    p.add_argument("--workers", type=int, default=2, help="DataLoader num_workers (default 2)")
    add_clip_arguments(p)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--batches", type=int, default=100)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--prefetch", type=int, default=2, help="DataLoader prefetch_factor (default 2)")
    p.add_argument("--json", help="write the results as JSON")
    a = p.parse_args()

    videos = (lister or list_videos)(a.dataset)
    if not videos:
        sys.exit(f"{name}: no videos under {a.dataset}")
    dataset = dataset_class(videos, a.frames, a.stride, a.size, a.seed)
    sampler = EpochSampler(len(videos), a.batches * a.batch, a.seed)
    kwargs = dict(num_workers=a.workers)
    if a.workers > 0:
        kwargs.update(prefetch_factor=a.prefetch, persistent_workers=False)
    loader = DataLoader(dataset, batch_size=a.batch, sampler=sampler, drop_last=True, **kwargs)

    warmup = max(2, a.batches // 10)
    t0 = time.perf_counter()
    first_batch, steady_t0, steady_samples = None, None, 0
    samples, decoded_frames, batches, failed = 0, 0, 0, 0
    for clips, labels, decoded in loader:
        assert clips.shape == (a.batch, a.frames, a.size, a.size, 3) and clips.dtype == torch.uint8
        batches += 1
        samples += clips.shape[0]
        failed += int((decoded < 0).sum())
        decoded_frames += int(decoded.clamp(min=0).sum())
        now = time.perf_counter()
        if first_batch is None:
            first_batch = now - t0
        if steady_t0 is None and batches >= warmup:
            steady_t0, steady_samples = now, samples
    end = time.perf_counter()
    seconds = end - t0
    sps = (samples - steady_samples) / (end - steady_t0) if steady_t0 is not None and samples > steady_samples \
        else samples / seconds
    result = {
        "peer": f"pytorch-dataloader+{label.lower()}", "torch": torch.__version__, **versions,
        "dataset": a.dataset, "videos": len(videos), "workers": a.workers, "cores": os.cpu_count(),
        "batches": batches, "samples": samples, "seconds": seconds, "samples_per_second": sps,
        "frames_per_second": sps * a.frames, "first_batch_seconds": first_batch,
        "decoded_frames_per_clip": decoded_frames / samples if samples else math.nan, "unreadable_clips": failed,
        "options": {"frames": a.frames, "stride": a.stride, "size": a.size, "batch": a.batch,
                    "seed": a.seed, "prefetch_factor": a.prefetch, "warmup_batches": warmup},
    }
    print(f"peer (PyTorch DataLoader + {label}, {a.workers} workers): {sps:.1f} samples/s steady, "
          f"{sps * a.frames:.0f} frames/s, {result['decoded_frames_per_clip']:.1f} decoded frames/clip, "
          f"first batch {first_batch:.2f} s, {batches} batches in {seconds:.1f} s, {failed} unreadable clips")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=2)
        print(f"wrote results to {a.json}")
