#!/usr/bin/env python3
"""The peer for `stoker bench` on videos stored as folders of images: a PyTorch DataLoader over Pillow, the way
mmaction2's RawFrameDataset reads them (`SampleFrames` then `RawFrameDecode` with the Pillow backend).

Same work as Stoker's default bench: one seeded random clip per folder per epoch, folders shuffled each epoch;
per clip, the frame files listed and sorted, a random start, 16 frames at stride 2 opened and decoded (only those),
each scaled to a 112 short side (bilinear) and centre-cropped to 112x112; stacked to a uint8 clip [T, H, W, C];
batches of 8 collated by the DataLoader. samples/s is steady state, as `stoker bench` measures it.

    python3 bench/make_frame_folders.py ~/.cache/stoker/demo /tmp/rawframes
    python3 bench/peer_rawframes.py /tmp/rawframes --workers 2 --batches 100
"""
import os
import sys

import numpy as np
import PIL
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_common import PeerClipDataset, run  # noqa: E402

IMAGE_EXTENSIONS = (".jpg", ".jpeg", ".png")


def list_frame_folders(root):
    """ROOT/<class>/<video>/ folders of images -> sorted [(folder, label)], labels by sorted class name."""
    classes = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
    folders = []
    for label, c in enumerate(classes):
        for name in sorted(os.listdir(os.path.join(root, c))):
            folder = os.path.join(root, c, name)
            if name.startswith((".", "@")) or not os.path.isdir(folder):
                continue
            if any(n.lower().endswith(IMAGE_EXTENSIONS) for n in os.listdir(folder)):
                folders.append((folder, label))
    return folders


class ClipDataset(PeerClipDataset):
    def load_clip(self, path, rng):
        names = sorted(n for n in os.listdir(path) if n.lower().endswith(IMAGE_EXTENSIONS) and not n.startswith("."))
        if not names:
            return np.zeros((self.frames, self.size, self.size, 3), dtype=np.uint8), -1   # counted as unreadable
        span = (self.frames - 1) * self.stride + 1
        first = rng.randint(0, max(0, len(names) - span))
        out = np.empty((self.frames, self.size, self.size, 3), dtype=np.uint8)
        for k in range(self.frames):
            index = min(first + k * self.stride, len(names) - 1)   # past the end: the last frame again
            with Image.open(os.path.join(path, names[index])) as image:
                image = image.convert("RGB")
                w, h = image.size
                scale = self.size / min(w, h)
                sw, sh = max(self.size, round(w * scale)), max(self.size, round(h * scale))
                image = image.resize((sw, sh), Image.BILINEAR)
                x0, y0 = (sw - self.size) // 2, (sh - self.size) // 2
                out[k] = np.asarray(image)[y0:y0 + self.size, x0:x0 + self.size]
        return out, self.frames


if __name__ == "__main__":
    run("peer_rawframes", "Pillow", ClipDataset, {"pillow": PIL.__version__}, __doc__, lister=list_frame_folders)
