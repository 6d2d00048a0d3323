#!/usr/bin/env python3
"""The peer for WebDataset shards (docs/benchmarks.md, "WebDataset shards"): `bench/peer_pyav.py`'s DataLoader and
PyAV decode, with each video read from its tar archive: the archives are indexed once with Python's tarfile (member
offsets, as WebDataset's indexed `wids` does), and a worker reads a member's bytes at its offset and hands PyAV a
BytesIO. Labels come from each sample's `<key>.cls`. Same clips, sizes, shuffle and timing as peer_pyav.

    python3 bench/peer_webdataset.py /tmp/stoker-wds/shards --workers 2 --batches 400
"""
import io
import os
import sys
import tarfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import av  # noqa: E402
from peer_common import VIDEO_EXTENSIONS, run  # noqa: E402
from peer_pyav import ClipDataset  # noqa: E402


def list_members(root):
    """ROOT/*.tar -> [((archive, offset, size), label)] in archive then member order, labels from <key>.cls."""
    videos = []
    for name in sorted(n for n in os.listdir(root) if n.endswith(".tar")):
        archive = os.path.join(root, name)
        with tarfile.open(archive) as tar:
            members = [m for m in tar.getmembers() if m.isfile()]
            labels = {m.name.rsplit(".", 1)[0]: int(tar.extractfile(m).read()) for m in members
                      if m.name.endswith(".cls")}
            for m in members:
                if m.name.lower().endswith(VIDEO_EXTENSIONS):
                    key = m.name.split(".", 1)[0]
                    videos.append(((archive, m.offset_data, m.size), labels.get(key, 0)))
    return videos


class MemberClipDataset(ClipDataset):
    def open_source(self, member):
        archive, offset, size = member
        with open(archive, "rb") as f:
            f.seek(offset)
            return io.BytesIO(f.read(size))


if __name__ == "__main__":
    run("peer_webdataset", "PyAV", MemberClipDataset, {"av": av.__version__}, __doc__, lister=list_members)
