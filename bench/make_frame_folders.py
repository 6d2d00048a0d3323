#!/usr/bin/env python3
"""Extracts every frame of a ROOT/<class>/<video> dataset into ROOT'/<class>/<video>/img_00001.jpg: the rawframes
layout mmaction2's build_rawframes.py writes (and EPIC-KITCHENS ships), for benchmarks of videos stored as folders of
images. Decodes with PyAV, writes JPEG with Pillow at quality 95 (OpenCV's imwrite default, which build_rawframes
uses), full-size frames unless --short-side says otherwise.

    python3 bench/make_frame_folders.py ~/.cache/stoker/demo /tmp/rawframes [--quality 95] [--short-side 256]
"""
import argparse
import os
import sys

import av
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_common import list_videos  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("source")
    p.add_argument("out")
    p.add_argument("--quality", type=int, default=95)
    p.add_argument("--short-side", type=int, default=0, help="scale frames to this short side first (0: as decoded)")
    a = p.parse_args()
    videos = list_videos(a.source)
    if not videos:
        sys.exit(f"make_frame_folders: no videos under {a.source}")
    frames, written = 0, 0
    for path, _ in videos:
        relative = os.path.relpath(path, a.source)
        folder = os.path.join(a.out, os.path.splitext(relative)[0])
        os.makedirs(folder, exist_ok=True)
        with av.open(path) as container:
            for i, frame in enumerate(container.decode(container.streams.video[0])):
                image = frame.to_image()
                if a.short_side:
                    scale = a.short_side / min(image.size)
                    image = image.resize((round(image.size[0] * scale), round(image.size[1] * scale)), Image.BILINEAR)
                target = os.path.join(folder, f"img_{i + 1:05d}.jpg")
                image.save(target, quality=a.quality)
                written += os.path.getsize(target)
                frames += 1
    print(f"make_frame_folders: {len(videos)} videos, {frames} frames, {written / 2**20:.1f} MiB of JPEG in {a.out}")


if __name__ == "__main__":
    main()
