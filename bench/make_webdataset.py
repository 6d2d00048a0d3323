#!/usr/bin/env python3
"""Packs a ROOT/<class>/<video> dataset into WebDataset shards, OUT/train-000000.tar, ...: each video a sample
`<class>_<stem>.<ext>` beside `<class>_<stem>.cls` (its label, the class's index in sorted order), in the tree's order,
so that Stoker loads the shards in the order and with the labels it loads the tree. Python's tarfile, PAX format, no
other dependency. Written aside and moved into place, so an interrupted run leaves no half shard.

    python3 bench/make_webdataset.py ~/.cache/stoker/demo /tmp/stoker-wds/shards [--per-shard 25]
"""
import argparse
import io
import os
import re
import sys
import tarfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_common import list_videos  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("source")
    p.add_argument("out")
    p.add_argument("--per-shard", type=int, default=25, help="samples a shard (default 25)")
    a = p.parse_args()
    videos = list_videos(a.source)
    if not videos:
        sys.exit(f"make_webdataset: no videos under {a.source}")
    os.makedirs(a.out, exist_ok=True)
    for first in range(0, len(videos), a.per_shard):
        final = os.path.join(a.out, f"train-{first // a.per_shard:06d}.tar")
        with tarfile.open(final + ".part", "w", format=tarfile.PAX_FORMAT) as tar:
            for path, label in videos[first:first + a.per_shard]:
                stem, ext = os.path.splitext(os.path.basename(path))
                key = re.sub(r"[^A-Za-z0-9_-]", "_", f"{os.path.basename(os.path.dirname(path))}_{stem}")
                tar.add(path, arcname=key + ext.lower())
                info = tarfile.TarInfo(key + ".cls")
                text = str(label).encode()
                info.size = len(text)
                tar.addfile(info, io.BytesIO(text))
        os.replace(final + ".part", final)
    print(f"make_webdataset: {len(videos)} videos in {(len(videos) + a.per_shard - 1) // a.per_shard} shards in {a.out}")


if __name__ == "__main__":
    main()
