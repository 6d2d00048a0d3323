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

import os
import sys

import cv2
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_common import EpochSampler, PeerClipDataset, list_videos, run  # noqa: E402,F401 (the example uses them)


class ClipDataset(PeerClipDataset):
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


if __name__ == "__main__":
    run("peer_cv2", "OpenCV", ClipDataset, {"cv2": cv2.__version__}, __doc__)
