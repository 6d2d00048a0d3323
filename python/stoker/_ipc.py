"""Device batches by CUDA IPC: the JVM decodes on NVDEC, collates into its GPU memory, and shares each batch slot.

Each slot (a device buffer of the JVM) comes with its ``cuIpcGetMemHandle`` handle in the slot's first batch message;
it is opened once here (``cuIpcOpenMemHandle``) and wrapped as a tensor through ``__cuda_array_interface__``, with no
copy. A batch is complete on the GPU when its message arrives (the JVM waited for its collate copies). Releasing a
batch records an interprocess event of this process for its slot on the current stream (the handle goes with the
slot's first release); the JVM waits on it before the slot is written again, so the loader never overwrites a slot
the model still reads. The lifetime rules are the host batches': a batch is valid until the ``hold + 1``-th after it.

The CUDA calls sit behind ``CudaIpc`` so that the protocol is tested without a GPU (tests give a fake).
"""
import ctypes
from typing import Dict, Optional, Tuple

import torch

from ._errors import StokerError

_CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS = 1


class _IpcMemHandle(ctypes.Structure):
    _fields_ = [("reserved", ctypes.c_char * 64)]


class _CudaArray:
    """A device buffer as ``__cuda_array_interface__`` (version 3) describes it: uint8, C order, no stream sync."""

    def __init__(self, pointer: int, shape: Tuple[int, ...]):
        self.__cuda_array_interface__ = {"shape": tuple(shape), "typestr": "|u1", "data": (pointer, False),
                                         "version": 3, "strides": None, "stream": None}


class CudaIpc:
    """The CUDA side: ``libcuda.so.1`` through ctypes for memory handles, torch for events and tensors."""

    def __init__(self, device: torch.device):
        self.device = device
        try:
            self._cuda = ctypes.CDLL("libcuda.so.1")
        except OSError as e:
            raise StokerError(f"device batches need libcuda.so.1 (the NVIDIA driver): {e}") from None
        self._cuda.cuIpcOpenMemHandle_v2.argtypes = [ctypes.POINTER(ctypes.c_uint64), _IpcMemHandle, ctypes.c_uint]
        self._cuda.cuIpcCloseMemHandle.argtypes = [ctypes.c_uint64]
        # The primary context of the device must be current on this thread for the driver calls: torch makes it so.
        torch.zeros(1, device=device)

    def _check(self, result: int, call: str) -> None:
        if result != 0:
            name = ctypes.c_char_p()
            self._cuda.cuGetErrorName(result, ctypes.byref(name))
            raise StokerError(f"{call} failed: {name.value.decode() if name.value else result}")

    def open_memory(self, handle: bytes) -> int:
        with torch.cuda.device(self.device):
            pointer = ctypes.c_uint64()
            self._check(self._cuda.cuIpcOpenMemHandle_v2(ctypes.byref(pointer), _IpcMemHandle(handle),
                                                         _CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS), "cuIpcOpenMemHandle")
            return pointer.value

    def close_memory(self, pointer: int) -> None:
        with torch.cuda.device(self.device):
            self._check(self._cuda.cuIpcCloseMemHandle(pointer), "cuIpcCloseMemHandle")

    def wrap(self, pointer: int, shape: Tuple[int, ...]) -> torch.Tensor:
        return torch.as_tensor(_CudaArray(pointer, shape), device=self.device)

    def new_release_event(self):
        return torch.cuda.Event(interprocess=True)

    def record(self, event) -> bytes:
        """Records ``event`` on the device's current stream; returns its IPC handle."""
        event.record(torch.cuda.current_stream(self.device))
        return bytes(event.ipc_handle())


class DeviceSlots:
    """The JVM's batch slots in this process: each opened once, tensors made once a slot and shape."""

    def __init__(self, ipc):
        self._ipc = ipc
        self._pointers: Dict[int, int] = {}
        self._tensors: Dict[Tuple[int, Tuple[int, ...]], torch.Tensor] = {}
        self._events: Dict[int, object] = {}
        self._slot_of: Dict[int, int] = {}
        self.opened = 0

    def tensor(self, m: dict) -> torch.Tensor:
        slot = m["slot"]
        handle = (m.get("ipc") or {}).get("memory")
        if handle is not None:
            if slot in self._pointers:
                raise StokerError(f"batch {m['id']}: a second memory handle for slot {slot} (expected: one, with the "
                                  f"slot's first batch)")
            self._pointers[slot] = self._ipc.open_memory(bytes.fromhex(handle))
            self.opened += 1
        elif slot not in self._pointers:
            raise StokerError(f"batch {m['id']}: slot {slot} whose memory handle never came")
        if m.get("offset", 0) != 0:
            raise StokerError(f"batch {m['id']}: offset {m['offset']} in a device slot (expected: 0)")
        shape = tuple(m["shape"])
        key = (slot, shape)
        if key not in self._tensors:
            self._tensors[key] = self._ipc.wrap(self._pointers[slot], shape)
        self._slot_of[m["id"]] = slot
        return self._tensors[key]

    def released(self, batch_id: int) -> Optional[str]:
        """Orders the release after this process's GPU work so far; the event's handle (hex) on the slot's first one."""
        slot = self._slot_of.pop(batch_id)
        first = slot not in self._events
        if first:
            self._events[slot] = self._ipc.new_release_event()
        handle = self._ipc.record(self._events[slot])
        return handle.hex() if first else None

    def close(self) -> None:
        self._tensors.clear()
        for pointer in self._pointers.values():
            try:
                self._ipc.close_memory(pointer)
            except Exception:  # noqa: BLE001 - the JVM may be gone; closing goes on
                pass
        self._pointers.clear()
