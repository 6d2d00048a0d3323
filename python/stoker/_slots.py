"""The shared-memory file of a ``stoker serve`` session, mapped into this process.

The JVM's collate writes each batch into one of a few fixed slots of the file; a batch handed to the user is a
``torch.from_numpy`` view of its slot: no copy and no allocation per batch (the views are made once a slot and
shape, so ``video.data_ptr()`` takes as many values as there are slots).

Debug mode maps every batch at an address of its own instead and, when the batch is released, turns that mapping's
pages to ``PROT_NONE``: a tensor kept past its release then stops the process with a segmentation fault and
Python's faulthandler traceback at the line that read it, instead of silently reading a newer batch.
"""
import ctypes
import mmap
import os
from typing import Dict, List, Tuple

import numpy as np
import torch

_PROT_NONE = 0
_libc = None


def _mprotect_none(address: int, length: int) -> None:
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
        _libc.mprotect.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    if _libc.mprotect(ctypes.c_void_p(address), ctypes.c_size_t(length), _PROT_NONE) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"mprotect(PROT_NONE) of a released batch: {os.strerror(err)}")


class SlotMap:
    def __init__(self, path: str, slot_bytes: int, slots: int, debug: bool = False):
        self.path = path
        self.slot_bytes = slot_bytes
        self.slots = slots
        self.debug = debug
        self._fd = os.open(path, os.O_RDWR)
        self._whole = mmap.mmap(self._fd, slot_bytes * slots, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        self._array = np.frombuffer(self._whole, dtype=np.uint8)
        self._views: Dict[Tuple[int, Tuple[int, ...]], torch.Tensor] = {}
        self._own: Dict[int, Tuple[mmap.mmap, int]] = {}   # debug: batch id -> its mapping and address
        self._protected: List[mmap.mmap] = []
        self.pinned = False

    @property
    def address(self) -> int:
        return self._array.__array_interface__["data"][0]

    def tensor(self, batch_id: int, slot: int, offset: int, nbytes: int, shape) -> torch.Tensor:
        shape = tuple(int(d) for d in shape)
        if self.debug:
            return self._own_mapping(batch_id, offset, nbytes, shape)
        key = (slot, shape)
        view = self._views.get(key)
        if view is None:
            view = torch.from_numpy(self._array[offset:offset + nbytes].reshape(shape))
            self._views[key] = view
        return view

    def _own_mapping(self, batch_id, offset, nbytes, shape):
        mapped = mmap.mmap(self._fd, self.slot_bytes, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE, offset=offset)
        array = np.frombuffer(mapped, dtype=np.uint8, count=nbytes)
        self._own[batch_id] = (mapped, array.__array_interface__["data"][0])
        return torch.from_numpy(array.reshape(shape))

    def released(self, batch_id: int) -> None:
        """The JVM may now write this batch's slot again; in debug mode, reading it from here now faults."""
        entry = self._own.pop(batch_id, None)
        if entry is None:
            return
        mapped, address = entry
        _mprotect_none(address, self.slot_bytes)
        self._protected.append(mapped)
        # Unmap those no tensor refers to any more, so a long debug run keeps few mappings.
        still = []
        for m in self._protected:
            try:
                m.close()
            except BufferError:
                still.append(m)
        self._protected = still

    def pin(self) -> None:
        """Registers the whole mapping with CUDA once, so host-to-device copies run async from the slots."""
        cudart = torch.cuda.cudart()
        status = cudart.cudaHostRegister(self.address, self.slot_bytes * self.slots, 0)
        if int(status) != 0:
            raise RuntimeError(f"cudaHostRegister of the {self.slot_bytes * self.slots} byte batch mapping failed "
                               f"(cudaError {int(status)})")
        self.pinned = True

    def unlink(self) -> None:
        """Removes the file's name (its JVM died and could not); the mapping lives on while a tensor refers to it."""
        try:
            os.unlink(self.path)
        except OSError:
            pass

    def close(self) -> None:
        if self.pinned:
            try:
                torch.cuda.cudart().cudaHostUnregister(self.address)
            except Exception:  # noqa: BLE001 - closing must go on
                pass
            self.pinned = False
        self._views.clear()
        self._array = None
        for m in [m for m, _ in self._own.values()] + self._protected:
            try:
                m.close()
            except BufferError:
                pass  # a tensor still refers to it: unmapped when the tensor goes
        self._own.clear()
        self._protected = []
        try:
            self._whole.close()
        except BufferError:
            pass
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
