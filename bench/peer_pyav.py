#!/usr/bin/python3
"""The peer for `stoker bench`: a PyTorch DataLoader over PyAV, written the way a competent user would.

Same work as Stoker's default bench: one seeded random clip per video per epoch, videos shuffled each
epoch; per clip, seek to the keyframe at or before the clip start (container.seek(backward=True,
any_frame=False) on the video stream) and decode forward; keep 16 frames at stride 2 (source frame
indices from the frame timestamps); scale to a 112 short side (swscale bilinear, RGB24, inside PyAV's
frame.reformat) and centre-crop 112x112; stack to a uint8 clip [T, H, W, C]; batches of 8 collated by the
DataLoader's default collate into [N, T, H, W, C]. Only the 16 kept frames are converted; every decoded
frame is counted (the decoder's output frames from the seek to the last kept frame).

samples/s is steady state: measured from the end of a warm-up of max(2, batches/10) batches to the last
batch, as `stoker bench` does. Uses Debian's python3-torch (1.13) and python3-av (10):
    apt-get install -y python3-torch python3-av
    /usr/bin/python3 bench/peer_pyav.py ~/.cache/stoker/x264-kinetics --workers 2 --batches 150 --json peer.json
"""

import argparse
import json
import math
import os
import random
import sys
import time

import av
import numpy as np
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
        span = (self.frames - 1) * self.stride + 1  # source frames a clip covers
        with av.open(path) as container:
            stream = container.streams.video[0]
            fps = float(stream.average_rate or stream.guessed_rate)
            tb = float(stream.time_base)
            start_pts = stream.start_time or 0
            # Matroska/WebM streams carry no frame count or duration of their own: the container's then.
            seconds = float(stream.duration * stream.time_base) if stream.duration else (container.duration or 0) / 1e6
            n_frames = stream.frames or int(seconds * fps)
            last_start = max(0, n_frames - span)
            first = rng.randint(0, last_start)  # first source frame of the clip
            wanted = [first + k * self.stride for k in range(self.frames)]
            target_pts = start_pts + int(round(first / fps / tb))
            # The keyframe at or before the clip start, then decode forward.
            container.seek(target_pts, backward=True, any_frame=False, stream=stream)

            # Scale so the short side is `size`, then centre-crop size x size (Stoker's center-crop).
            w, h = stream.codec_context.width, stream.codec_context.height
            scale = self.size / min(w, h)
            sw, sh = max(self.size, round(w * scale)), max(self.size, round(h * scale))
            x0, y0 = (sw - self.size) // 2, (sh - self.size) // 2

            out = np.empty((self.frames, self.size, self.size, 3), dtype=np.uint8)
            k, decoded = 0, 0
            for frame in container.decode(stream):
                decoded += 1
                if frame.pts is None:
                    continue
                index = int(round((frame.pts - start_pts) * tb * fps))
                rgb = None
                while k < self.frames and index >= wanted[k]:
                    # index > wanted[k] only if a wanted frame is missing (not on CFR files): repeat this one.
                    if rgb is None:
                        rgb = frame.to_ndarray(width=sw, height=sh, format="rgb24")[y0:y0 + self.size, x0:x0 + self.size]
                    out[k] = rgb
                    k += 1
                if k == self.frames:
                    break
            if k < self.frames:  # past the end: repeat the last frame
                out[k:] = out[k - 1] if k > 0 else 0
        return out, decoded


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dataset", nargs="?", default=os.path.expanduser("~/.cache/stoker/x264-kinetics"))
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
        sys.exit(f"peer_pyav: no videos under {a.dataset}")
    dataset = ClipDataset(videos, a.frames, a.stride, a.size, a.seed)
    sampler = EpochSampler(len(videos), a.batches * a.batch, a.seed)
    kwargs = dict(num_workers=a.workers)
    if a.workers > 0:
        kwargs.update(prefetch_factor=a.prefetch, persistent_workers=False)
    loader = DataLoader(dataset, batch_size=a.batch, sampler=sampler, drop_last=True, **kwargs)

    warmup = max(2, a.batches // 10)
    t0 = time.perf_counter()
    first_batch = None
    steady_t0, steady_samples = None, 0
    samples = 0
    decoded_frames = 0
    batches = 0
    for clips, labels, decoded in loader:
        assert clips.shape == (a.batch, a.frames, a.size, a.size, 3) and clips.dtype == torch.uint8
        batches += 1
        samples += clips.shape[0]
        decoded_frames += int(decoded.sum())
        now = time.perf_counter()
        if first_batch is None:
            first_batch = now - t0
        if steady_t0 is None and batches >= warmup:
            steady_t0, steady_samples = now, samples
    end = time.perf_counter()
    seconds = end - t0
    if steady_t0 is not None and samples > steady_samples:
        sps = (samples - steady_samples) / (end - steady_t0)
    else:
        sps = samples / seconds
    result = {
        "peer": "pytorch-dataloader+pyav",
        "torch": torch.__version__,
        "av": av.__version__,
        "dataset": a.dataset,
        "videos": len(videos),
        "workers": a.workers,
        "cores": os.cpu_count(),
        "batches": batches,
        "samples": samples,
        "seconds": seconds,
        "samples_per_second": sps,
        "frames_per_second": sps * a.frames,
        "first_batch_seconds": first_batch,
        "decoded_frames_per_clip": decoded_frames / samples if samples else math.nan,
        "options": {"frames": a.frames, "stride": a.stride, "size": a.size, "batch": a.batch,
                    "seed": a.seed, "prefetch_factor": a.prefetch, "warmup_batches": warmup},
    }
    print(f"peer (PyTorch DataLoader + PyAV, {a.workers} workers): {sps:.1f} samples/s steady, "
          f"{sps * a.frames:.0f} frames/s, {result['decoded_frames_per_clip']:.1f} decoded frames/clip, "
          f"first batch {first_batch:.2f} s, {batches} batches in {seconds:.1f} s")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=2)
        print(f"wrote results to {a.json}")


if __name__ == "__main__":
    main()
