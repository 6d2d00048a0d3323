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

import os
import sys

import av
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_common import EpochSampler, PeerClipDataset, list_videos, run  # noqa: E402,F401 (the example uses them)


class ClipDataset(PeerClipDataset):
    def open_source(self, path):
        """What av.open reads: the file (a peer over archives gives the member's bytes instead)."""
        return path

    def load_clip(self, path, rng):
        span = (self.frames - 1) * self.stride + 1  # source frames a clip covers
        with av.open(self.open_source(path)) as container:
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


if __name__ == "__main__":
    run("peer_pyav", "PyAV", ClipDataset, {"av": av.__version__}, __doc__, default_dataset=os.path.expanduser("~/.cache/stoker/x264-kinetics"))
