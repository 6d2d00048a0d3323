"""Batches onto a GPU, double buffered: batch k+1 is copied on a side stream while the model trains on batch k.

The host slots are pinned (registered with CUDA once), so each copy is an async DMA from the shared-memory slot
itself. A CUDA event recorded after a copy orders it: the consumer's stream waits on it before the batch is used,
and the host slot is released only once the event completed, so the JVM never overwrites a slot mid-copy.
"""
from collections import deque
from typing import Callable, Deque, Iterator, Optional, Tuple

import torch

from ._batch import Batch


def cuda_device(device) -> Optional[torch.device]:
    """``None`` for host batches, else the CUDA device; a CUDA device on a machine without one fails here, at once."""
    if device is None:
        return None
    try:
        # An int is a CUDA index, as torch takes it where a GPU is (without one, torch's own error says less).
        d = torch.device("cuda", device) if isinstance(device, int) and not isinstance(device, bool) else torch.device(device)
    except (RuntimeError, TypeError):   # torch's words for "cuda0", 0 on a torch that wants a string...
        raise ValueError(f"device={device!r}: expected None, 'cpu' or 'cuda[:N]'") from None
    if d.type == "cpu":
        return None
    if d.type != "cuda":
        raise ValueError(f"device={device!r}: expected None, 'cpu' or 'cuda[:N]'")
    if not torch.cuda.is_available():
        raise ValueError(f"device={device!r}: this machine has no usable CUDA device (torch.cuda.is_available() is "
                         f"False; torch {torch.__version__}, built with CUDA {torch.version.cuda}): leave device out for "
                         f"batches in host memory, or run where an NVIDIA driver and a CUDA build of torch are")
    index = d.index if d.index is not None else torch.cuda.current_device()
    if index >= torch.cuda.device_count():
        raise ValueError(f"device={device!r}: only {torch.cuda.device_count()} CUDA device(s) here")
    return torch.device("cuda", index)


class DeviceFeeder:
    """Turns host batches (``take()``) into device batches one copy ahead; ``release(batch)`` frees a host slot."""

    def __init__(self, device: torch.device, take: Callable[[], Optional[Batch]], release: Callable[[Batch], None]):
        self.device = device
        self._take = take
        self._release = release
        self._stream = torch.cuda.Stream(device=device)
        self._ahead: Optional[Tuple[Batch, Batch, torch.cuda.Event]] = None
        self._copied: Deque[Tuple[Batch, torch.cuda.Event]] = deque()
        self.h2d_seconds = 0.0

    def _copy_next(self) -> Optional[Tuple[Batch, Batch, torch.cuda.Event]]:
        host = self._take()
        if host is None:
            return None
        with torch.cuda.device(self.device), torch.cuda.stream(self._stream):
            on_device = host.to(self.device, non_blocking=True)
            done = torch.cuda.Event()
            done.record(self._stream)
        return host, on_device, done

    def __iter__(self) -> Iterator[Batch]:
        if self._ahead is None:
            self._ahead = self._copy_next()
        while self._ahead is not None:
            host, on_device, done = self._ahead
            self._copied.append((host, done))
            self._ahead = self._copy_next()   # the next copy starts before this batch is trained on
            current = torch.cuda.current_stream(self.device)
            current.wait_event(done)
            # The tensors were made on the side stream; tell the allocator the consumer's stream uses them too.
            on_device.video.record_stream(current)
            on_device.label.record_stream(current)
            self._release_copied()
            yield on_device
        self._release_copied(wait=True)

    def _release_copied(self, wait: bool = False) -> None:
        while self._copied and (wait or self._copied[0][1].query()):
            host, done = self._copied.popleft()
            done.synchronize()
            self._release(host)

    def close(self) -> None:
        if self._ahead is not None:
            self._copied.append((self._ahead[0], self._ahead[2]))
            self._ahead = None
        self._release_copied(wait=True)
