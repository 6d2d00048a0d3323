"""Device batches by CUDA IPC (``decode="nvdec"|"hybrid"``, ``device="cuda:N"``), without a GPU: the CUDA calls sit
behind ``CudaIpc`` and a fake stands in for it here. What is checked: arguments (a GPU decode needs a CUDA device;
``auto`` without one decodes on the CPU), the flags the JVM gets, each slot's memory handle opened once and its tensor
made once a slot and shape, the release event recorded at each release with its handle sent on the slot's first
release only, the protocol's errors (a second handle for a slot, a slot whose handle never came). What only a GPU
proves (the handle opens in this process, the tensor aliases the JVM's slot, the event holds the JVM back until the
model's reads are done) is ``bench/gpu/ipc_check.py``'s, which ``bench/gpu/on-device.sh`` runs.
"""
import json

import pytest
import torch

from stoker import StokerError
from stoker import _document
from stoker._args import ServeArgs
from stoker._ipc import DeviceSlots, _CudaArray
from stoker._keywords import _device_batches
from stoker.torch import VideoLoader


class FakeIpc:
    """Slots as host tensors; opened handles, made tensors and recorded events counted."""

    def __init__(self):
        self.memory = {}
        self.opened = []
        self.wrapped = []
        self.recorded = []
        self.closed = []
        self.events = 0

    def open_memory(self, handle: bytes) -> int:
        assert len(handle) == 64
        pointer = 0x1000 * (len(self.opened) + 1)
        self.opened.append(handle)
        self.memory[pointer] = torch.zeros(1 << 16, dtype=torch.uint8)
        return pointer

    def close_memory(self, pointer: int) -> None:
        self.closed.append(pointer)

    def wrap(self, pointer, shape):
        self.wrapped.append((pointer, tuple(shape)))
        n = 1
        for d in shape:
            n *= d
        return self.memory[pointer][:n].view(*shape)

    def new_release_event(self):
        self.events += 1
        return {"records": 0, "handle": bytes([self.events]) * 64}

    def record(self, event) -> bytes:
        event["records"] += 1
        self.recorded.append(event)
        return event["handle"]


def message(batch_id, slot, memory=None, shape=(2, 4, 8, 8, 3)):
    m = {"type": "batch", "id": batch_id, "slot": slot, "offset": 0, "shape": list(shape), "ipc": {}}
    if memory is not None:
        m["ipc"]["memory"] = memory
    return m


def test_each_slot_is_opened_once_and_its_tensor_made_once_a_shape():
    ipc = FakeIpc()
    slots = DeviceSlots(ipc)
    a = slots.tensor(message(1, 0, "aa" * 64))
    b = slots.tensor(message(2, 1, "bb" * 64))
    again = slots.tensor(message(3, 0))
    short = slots.tensor(message(4, 0, shape=(1, 4, 8, 8, 3)))
    assert ipc.opened == [bytes.fromhex("aa" * 64), bytes.fromhex("bb" * 64)]
    assert again is a and b is not a
    assert short.shape == (1, 4, 8, 8, 3)
    assert ipc.wrapped == [(0x1000, (2, 4, 8, 8, 3)), (0x2000, (2, 4, 8, 8, 3)), (0x1000, (1, 4, 8, 8, 3))]
    assert slots.opened == 2
    slots.close()
    assert ipc.closed == [0x1000, 0x2000]


def test_a_release_records_the_slots_event_and_sends_its_handle_with_the_first_release_only():
    ipc = FakeIpc()
    slots = DeviceSlots(ipc)
    slots.tensor(message(1, 0, "aa" * 64))
    slots.tensor(message(2, 1, "bb" * 64))
    first = slots.released(1)
    slots.tensor(message(3, 0))
    second = slots.released(3)
    other = slots.released(2)
    assert first == "01" * 64 and second is None and other == "02" * 64
    assert [e["records"] for e in ipc.recorded] == [2, 2, 1]   # slot 0's event twice, slot 1's once
    assert ipc.events == 2


def test_the_protocols_errors_are_named():
    slots = DeviceSlots(FakeIpc())
    with pytest.raises(StokerError, match="slot 3 whose memory handle never came"):
        slots.tensor(message(1, 3))
    slots.tensor(message(2, 0, "aa" * 64))
    with pytest.raises(StokerError, match="a second memory handle for slot 0"):
        slots.tensor(message(3, 0, "cc" * 64))


def test_the_tensor_wraps_the_slot_through_the_cuda_array_interface():
    array = _CudaArray(0xDEAD0000, (2, 3))
    assert array.__cuda_array_interface__ == {"shape": (2, 3), "typestr": "|u1", "data": (0xDEAD0000, False),
                                              "version": 3, "strides": None, "stream": None}


def test_gpu_decoding_needs_a_cuda_device_and_auto_decodes_on_the_cpu_without_one(dataset):
    assert _device_batches("cpu", None, None) is None
    assert _device_batches("auto", None, None) is None
    with pytest.raises(ValueError, match="decode='nvdec': batches decoded on NVDEC stay on the GPU"):
        VideoLoader(dataset, decode="nvdec")
    with pytest.raises(ValueError, match="decode='tpu': decode.device: \"tpu\" \\(expected: one of cpu, nvdec, hybrid, auto\\)"):
        VideoLoader(dataset, decode="tpu")
    with pytest.raises(ValueError, match="nvdec_sessions=3: only with decode"):
        VideoLoader(dataset, nvdec_sessions=3)
    with pytest.raises(ValueError, match="nvdec_sessions=-1: decode.nvdecSessions: -1 \\(expected: 0\\+\\)"):
        VideoLoader(dataset, decode="hybrid", nvdec_sessions=-1, device="cuda:0")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="this machine has no usable CUDA device"):
            VideoLoader(dataset, decode="hybrid", device="cuda:0")


def test_the_jvm_gets_the_decode_options_and_the_device():
    document = _document.document({"decode": "HYBRID", "nvdec_sessions": 7})
    assert document == {"decode": {"device": "hybrid", "nvdecSessions": 7}}
    flags = ServeArgs(dataset="/data", options=document, serve_device="cuda:1").flags()
    assert json.loads(flags[flags.index("--options") + 1]) == document
    assert flags[flags.index("--device") + 1] == "cuda:1"
    assert "--device" not in ServeArgs(dataset="/data", options={}).flags()
