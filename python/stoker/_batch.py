"""One batch as the training loop sees it."""
from collections.abc import Mapping
from typing import List, Optional

import torch


class Batch:
    """``video`` (uint8, ``[N,T,H,W,C]`` or ``[N,C,T,H,W]``), ``label`` (int64 ``[N]``) and per-clip metadata.

    ``texts`` holds each clip's text from the dataset (a caption: a ``.txt`` beside the video or in its WebDataset
    sample, or a manifest's text field), as stored; ``None`` for a clip whose sample has none (or an empty one).

    On the host, ``video`` is a view of a shared-memory slot: valid until the loader hands out the batch
    ``hold + 1`` after it (``hold=0``: until the next one). :meth:`detach` returns a copy to keep.
    ``batch["video"]`` works as ``batch.video`` does, for code written against dict batches: a batch is a
    ``Mapping`` of those keys (so Lightning finds its batch size), though ``len(batch)`` is its count of clips.
    """

    __slots__ = ("id", "epoch", "video", "label", "paths", "texts", "start_seconds", "frame_seconds", "state", "_live",
                 "_source")

    def __init__(self, batch_id: int, epoch: int, video: torch.Tensor, label: torch.Tensor, paths: List[str],
                 start_seconds: List[float], frame_seconds: List[List[float]], state: dict,
                 texts: Optional[List[Optional[str]]] = None):
        self.id = batch_id
        self.epoch = epoch
        self.video = video
        self.label = label
        self.paths = paths
        self.texts = texts if texts is not None else [None] * len(paths)
        self.start_seconds = start_seconds
        self.frame_seconds = frame_seconds
        self.state = state
        self._live = True
        self._source = None   # the JVM session that wrote it (the loader gives a slot back only to that one)

    _KEYS = ("video", "label", "paths", "texts", "start_seconds", "frame_seconds")

    def __getitem__(self, key: str):
        if key not in Batch._KEYS:
            raise KeyError(f"{key!r} (a batch has: {', '.join(Batch._KEYS)})")
        return getattr(self, key)

    def keys(self):
        return Batch._KEYS

    def __iter__(self):
        return iter(Batch._KEYS)

    def __contains__(self, key) -> bool:
        return key in Batch._KEYS

    def values(self):
        return [getattr(self, k) for k in Batch._KEYS]

    def items(self):
        return [(k, getattr(self, k)) for k in Batch._KEYS]

    def get(self, key, default=None):
        return getattr(self, key) if key in Batch._KEYS else default

    def __len__(self) -> int:
        return int(self.label.shape[0])

    @property
    def live(self) -> bool:
        """False once the loader released the batch's slot (its ``video`` may then hold a newer batch)."""
        return self._live

    def detach(self) -> "Batch":
        """A copy that owns its memory: keep it as long as you like."""
        copy = Batch(self.id, self.epoch, self.video.clone(), self.label.clone(), list(self.paths),
                     list(self.start_seconds), [list(t) for t in self.frame_seconds], dict(self.state),
                     list(self.texts))
        copy._live = True
        return copy

    def to(self, device, non_blocking: bool = False) -> "Batch":
        """The batch on ``device``; given a dtype (``batch.to(torch.float32)``), the video in it and the labels kept
        int64. Itself when nothing moves (then still the loader's view, valid as long as this batch is)."""
        if isinstance(device, torch.dtype):
            video, label = self.video.to(device, non_blocking=non_blocking), self.label
        else:
            video = self.video.to(device, non_blocking=non_blocking)
            label = self.label.to(device, non_blocking=non_blocking)
        if video is self.video and label is self.label:
            return self
        return Batch(self.id, self.epoch, video, label, self.paths, self.start_seconds, self.frame_seconds, self.state,
                     self.texts)

    def __repr__(self) -> str:
        where: Optional[str] = str(self.video.device)
        return (f"Batch(id={self.id}, epoch={self.epoch}, video={tuple(self.video.shape)} {self.video.dtype} on {where}, "
                f"labels={self.label.tolist()})")


Mapping.register(Batch)
