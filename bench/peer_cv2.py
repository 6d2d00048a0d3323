#!/usr/bin/python3
"""The peer for machines without PyAV (the GPU machine has OpenCV): a PyTorch DataLoader over OpenCV.

The same work as `bench/peer_pyav.py` (and Stoker's default bench): one seeded random clip per video per epoch,
videos shuffled each epoch; per clip, seek to the clip's first frame (`CAP_PROP_POS_FRAMES`: OpenCV's FFmpeg
backend seeks to the keyframe before it and decodes forward), read forward keeping 16 frames at stride 2,
scale to a 112 short side (`cv2.resize`, bilinear) and centre-crop 112x112, BGR to RGB; stack to a uint8 clip
[T, H, W, C]; batches collated by the DataLoader's default collate into [N, T, H, W, C]. OpenCV converts every
decoded frame to BGR (it has no way to skip the conversion of frames a clip does not keep): that is part of
what it costs a user who picks it.

    python3 bench/peer_cv2.py DATA --workers 8 --batches 200 --json peer.json

`list_videos`, `EpochSampler` and `ClipDataset` are what `examples/train_video_classifier.py --loader pytorch
--decoder cv2` uses.
"""

import argparse
import json
import math
import os
import random
import sys
import time

import cv2
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, Sampler

VIDEO_EXTENSIONS = (".mp4", ".webm", ".mkv", ".avi", ".mov", ".m4v")


def list_videos(root):
    """ROOT/<class>/<video> -> sorted [(path, label)], labels by sorted class name (as peer_pyav.py)."""
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


class ClipDataset(Dataset):
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
        # One OpenCV thread per worker: the DataLoader's workers are the parallelism, as in peer_pyav.py.
        cv2.setNumThreads(1)
        span = (self.frames - 1) * self.stride + 1
        capture = cv2.VideoCapture(path, cv2.CAP_FFMPEG)
        if not capture.isOpened():
            # What a user's loader does with a file it cannot read, rather than crash the run: a black clip, and
            # decoded = -1 marks it (the summary counts them).
            print(f"peer_cv2: {path}: OpenCV cannot open it", file=sys.stderr)
            return np.zeros((self.frames, self.size, self.size, 3), dtype=np.uint8), -1
        try:
            n_frames = int(capture.get(cv2.CAP_PROP_FRAME_COUNT))
            first = rng.randint(0, max(0, n_frames - span))
            wanted = [first + k * self.stride for k in range(self.frames)]
            if first > 0:
                capture.set(cv2.CAP_PROP_POS_FRAMES, first)
            out = np.empty((self.frames, self.size, self.size, 3), dtype=np.uint8)
            k, index, decoded = 0, first, 0
            while k < self.frames:
                ok, frame = capture.read()
                if not ok:
                    break
                decoded += 1
                while k < self.frames and index >= wanted[k]:
                    h, w = frame.shape[:2]
                    scale = self.size / min(w, h)
                    sw, sh = max(self.size, round(w * scale)), max(self.size, round(h * scale))
                    small = cv2.resize(frame, (sw, sh), interpolation=cv2.INTER_LINEAR)
                    x0, y0 = (sw - self.size) // 2, (sh - self.size) // 2
                    out[k] = cv2.cvtColor(small[y0:y0 + self.size, x0:x0 + self.size], cv2.COLOR_BGR2RGB)
                    k += 1
                index += 1
            if k == 0:
                print(f"peer_cv2: {path}: no frame decoded", file=sys.stderr)
                out[:] = 0
                decoded = -1
            elif k < self.frames:  # past the end: repeat the last frame
                out[k:] = out[k - 1]
        finally:
            capture.release()
        return out, decoded


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dataset")
    p.add_argument("--workers", type=int, default=2, help="DataLoader num_workers (default 2)")
    p.add_argument("--frames", type=int, default=16)
    p.add_argument("--stride", type=int, default=2)
    p.add_argument("--size", type=int, default=112)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--batches", type=int, default=100)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--prefetch", type=int, default=2, help="DataLoader prefetch_factor (default 2)")
    p.add_argument("--json", help="write the results as JSON")
    a = p.parse_args()

    videos = list_videos(a.dataset)
    if not videos:
        sys.exit(f"peer_cv2: no videos under {a.dataset}")
    dataset = ClipDataset(videos, a.frames, a.stride, a.size, a.seed)
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
        "peer": "pytorch-dataloader+opencv", "torch": torch.__version__, "cv2": cv2.__version__,
        "dataset": a.dataset, "videos": len(videos), "workers": a.workers, "cores": os.cpu_count(),
        "batches": batches, "samples": samples, "seconds": seconds, "samples_per_second": sps,
        "frames_per_second": sps * a.frames, "first_batch_seconds": first_batch,
        "decoded_frames_per_clip": decoded_frames / samples if samples else math.nan, "unreadable_clips": failed,
        "options": {"frames": a.frames, "stride": a.stride, "size": a.size, "batch": a.batch,
                    "seed": a.seed, "prefetch_factor": a.prefetch, "warmup_batches": warmup},
    }
    print(f"peer (PyTorch DataLoader + OpenCV, {a.workers} workers): {sps:.1f} samples/s steady, "
          f"{result['decoded_frames_per_clip']:.1f} decoded frames/clip, first batch {first_batch:.2f} s, "
          f"{batches} batches in {seconds:.1f} s, {failed} unreadable clips")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
