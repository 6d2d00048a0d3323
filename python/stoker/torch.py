"""Stoker as a PyTorch data loader for video: ``from stoker.torch import VideoLoader``.

A ``stoker serve`` JVM decodes, samples, resizes and collates; each batch lands in a slot of a shared-memory file
that this process maps once, and reaches the training loop as a tensor over that slot: no copy, no pickling, no
worker processes holding copies (see docs/torch.md for the protocol and the lifetime rules).
"""
import math
import time
import weakref
from collections import deque
from typing import Deque, List, Mapping, Optional, Tuple, Union

try:
    from typing import Unpack
except ImportError:  # Python 3.10: torch brings typing_extensions
    from typing_extensions import Unpack

import torch

from . import _document
from ._args import positive_int
from ._batch import Batch
from ._consumer import ConsumerClock
from ._device import DeviceFeeder, cuda_device
from ._errors import JvmDiedError, StokerError
from ._ipc import CudaIpc, DeviceSlots
from ._home import stoker_command
from ._keywords import serve_args
from ._options import LoaderOptionArgs
from ._restarts import Restarts
from ._serve import ServeProcess
from ._slots import SlotMap

__all__ = ["VideoLoader", "Batch", "StokerError", "JvmDiedError"]



class VideoLoader:
    """Batches of clips from a video dataset (``ROOT/<class>/<video>``, a CSV manifest, WebDataset ``.tar`` shards or
    their pattern ``train-{000000..000099}.tar``) or shards written by ``stoker ingest`` (a folder, or
    ``s3://bucket/prefix`` / ``https://…``, read in place; ``s3_endpoint`` for an S3-compatible server; ``cache_dir``,
    ``cache_bytes="20G"``: keep the downloaded blocks on local disk, so that later epochs and runs read them from
    there).

    Iterating yields the batches of one epoch; ``set_epoch(e)`` places the loader at the start of epoch ``e``
    (without it, each iteration continues with the next epoch). Host batches are views of shared memory, valid
    until the batch ``hold + 1`` after them is taken; ``copy=True`` (or ``batch.detach()``) gives batches to keep.
    With ``device="cuda:N"`` batches arrive on the GPU, copied one ahead on a side stream; with
    ``decode="nvdec"`` or ``"hybrid"`` (and ``device="cuda:N"``) clips are decoded on the GPU's NVDEC engines (hybrid:
    and on the CPU at once) and batches never touch the host: the JVM collates them in GPU memory and hands them over
    by CUDA IPC (``"auto"``: hybrid, nvdec or cpu, from what the machine has).

    Every argument after ``dataset`` is a keyword. The loader keywords (below) are the options document's
    (``docs/options.schema.json``): each sets one value of it, checked here before a JVM starts; a keyword not given
    keeps the JVM's default. ``options={...}`` gives a document (or part of one) directly, under the keywords;
    ``config="file.json"`` a file of one (``stoker options``, ``--save-config``), under both. Shorthands: ``size``
    (``112``, ``(W, H)`` or ``"WxH"``: width and height), ``crop`` (``"center"``, ``"random"`` or
    ``"random-resized"``: the resize mode), ``clip_window`` (``"FROM:TO"`` or ``(FROM, TO)`` seconds: one clip a video of that window's frames, by linspace).
    ``rank`` and ``world_size`` default to ``torch.distributed``'s when it is initialised.

    Decoding less: ``max_lead_frames=N`` starts clips only at most N frames after the keyframe decoding must start at
    (0: on keyframes); ``workload="spdl-example"`` loads SPDL's video classification example's clips (the first 0.5 s
    of each video, 16 frames by linspace, 112x112), the keywords given beside it laid over it.

    The session's own keywords: ``device``, ``pin_memory``, ``copy``, ``debug``, ``hold`` (batches kept valid
    besides the newest, default 0), ``prefetch`` (batches ready ahead, default 4), ``shm_dir`` (default /dev/shm),
    ``publish`` (a port for ``stoker monitor``), ``s3_endpoint``, ``cache_dir``, ``cache_bytes``, ``stoker_home``,
    ``restart`` (default 0: a JVM that dies is a :class:`JvmDiedError`; N: it is restarted from the state after the
    last batch taken, up to N times in a row, so that no clip is lost or repeated; each restart is logged on the
    ``stoker`` logger and counted in ``stats()``), ``timeout`` (seconds a batch may take to come from a JVM that is
    still running before a :class:`StokerError`, as DataLoader's ``timeout=``; default None: wait; the loader may be
    iterated on after it).

    Loader keywords [their place in the document] (the table is the schema's, appended here at import):
"""

    def __init__(self, dataset, *, size: Union[None, int, Tuple[int, int], str] = None, crop: Optional[str] = None,
                 clip_window: Union[None, str, Tuple[float, float]] = None, workload: Optional[str] = None,
                 options: Optional[Mapping] = None, config=None, device=None, pin_memory: bool = False,
                 copy: bool = False, debug: bool = False, hold: int = 0, prefetch: Optional[int] = None,
                 shm_dir: Optional[str] = None, publish: Optional[int] = None, s3_endpoint: Optional[str] = None,
                 cache_dir=None, cache_bytes=None, stoker_home: Optional[str] = None, restart: int = 0,
                 timeout: Optional[float] = None,
                 **loader_options: Unpack[LoaderOptionArgs]):
        self._args = serve_args(dataset, size=size, crop=crop, clip_window=clip_window, workload=workload,
                                options=options, config=config, device=device, hold=hold, prefetch=prefetch,
                                shm_dir=shm_dir, publish=publish, s3_endpoint=s3_endpoint, cache_dir=cache_dir,
                                cache_bytes=cache_bytes, loader_options=loader_options)
        self._device = cuda_device(device)
        self._pin = bool(pin_memory) or self._device is not None
        if self._pin and not torch.cuda.is_available():
            raise ValueError("pin_memory=True: this machine has no usable CUDA device (torch.cuda.is_available() is False): "
                             "leave pin_memory off; pinned memory only speeds up copies to a GPU")
        self._copy = bool(copy)
        self._restarts = Restarts(positive_int("restart", restart, minimum=0))
        if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                                    or not 0 < timeout < math.inf):
            raise ValueError(f"timeout={timeout!r}: expected None, or seconds above 0")
        self._timeout = timeout
        self._interrupted_epoch: Optional[int] = None   # the epoch being taken when a JVM died, until the next take
        # The JVM said its last epoch was served (epochs=N): iterations are empty until set_epoch/load_state_dict.
        self._ended = False
        self._death_after_end: Optional[JvmDiedError] = None   # its JVM died after that end: never restarted
        self._debug = bool(debug)
        self._command = stoker_command(stoker_home)
        self._process: Optional[ServeProcess] = None
        self._slots: Optional[SlotMap] = None
        self._device_slots: Optional[DeviceSlots] = None
        self._hello: Optional[dict] = None
        self._held: Deque[Batch] = deque()
        self._feeder: Optional[DeviceFeeder] = None
        self._position: Optional[dict] = None     # the state after the last batch or epoch end taken
        self._next_epoch_start: Optional[int] = None   # the epoch whose first batch comes next, if one does
        self._resume: Optional[dict] = None       # a state to start the next JVM from
        self._wanted_epoch: Optional[int] = None
        self._failures: List[dict] = []
        # Batches yielded in the epoch being taken (None: not known, after a state saved without it); with world_size
        # > 1 an epoch that lost samples to failures is padded up to len(loader) with copies of its last batch.
        self._epoch_batches: Optional[int] = 0
        self._padded = 0
        self._clock = ConsumerClock()
        self._closed = False
        self._finalizer = weakref.finalize(self, VideoLoader._stop, [None])

    # ---- lifecycle -------------------------------------------------------------------------------------------

    def _start(self) -> None:
        if self._closed:
            raise StokerError("the loader was closed")
        if self._death_after_end is not None:
            return   # the run was served whole: no JVM is started for nothing (len, classes, state are known)
        while self._process is None:
            try:
                self._start_process()
            except JvmDiedError as e:   # it died before it could serve: restarted (in _recover) or raised there
                self._recover(e)

    def _start_process(self) -> None:
        self._process, hello = ServeProcess.start([self._command, "serve"] + self._args.flags(), self._resume)
        self._finalizer.detach()
        self._finalizer = weakref.finalize(self, VideoLoader._stop, [self._process])
        self._hello = hello
        self._position = hello["state"]
        p = self._position
        self._next_epoch_start = p["epoch"] if (p["position"], p["clipsDelivered"]) == (0, 0) else None
        self._resume = None
        if "device" in hello:
            # Decoded on NVDEC, collated in the JVM's GPU memory: batches come by CUDA IPC, no host copy, no feeder.
            self._device_slots = DeviceSlots(CudaIpc(self._device))
            return
        try:
            self._slots = SlotMap(hello["file"], hello["slot_bytes"], hello["slots"], debug=self._debug)
        except FileNotFoundError:
            # The JVM removes its file as it exits: it stopped between its hello and this open (a failure budget
            # of 0 spent on the first video, say). Its error message, next on the pipe, says why.
            error = self._process.error_after_hello()
            self._stop_process()
            raise error from None
        if self._pin:
            self._slots.pin()
        if self._device is not None and self._feeder is None:   # a restarted JVM feeds the feeder already there
            self._feeder = DeviceFeeder(self._device, self._take_host, self._release)

    def _recover(self, death: JvmDiedError) -> None:
        """A JVM that died: with restarts left in a row, a new one from the state after the last batch taken (the
        next one it sends is the batch after it); else the error, naming every death in the row. After the run's end
        (epochs=N) nothing is left to serve: the death is the error, and no JVM is started again."""
        if self._ended:
            self._abandon_process()
            self._death_after_end = JvmDiedError(f"the run had ended (every batch was served) when {death}", death.pid,
                                                 death.status)
            raise self._death_after_end from death
        if self._process is not None and self._process.epoch_open is not None:
            self._interrupted_epoch = self._process.epoch_open
        if self._position is not None:
            p = self._position
            # After an epoch's end the stream stands at the next epoch's start (a drop_last tail is not served).
            # Kept when no restart is left too: state_dict() and a later iteration go on from the last batch taken.
            self._resume = (dict(p, epoch=self._next_epoch_start, position=0, clipsDelivered=0)
                            if self._next_epoch_start is not None else dict(p))
        try:
            self._restarts.died(death)
        finally:
            self._abandon_process(dead=True)   # with a restart left, the caller's loop starts the next one

    def _abandon_process(self, dead: bool = False) -> None:
        """Lets go of a dead JVM. Its batches the consumer holds stay readable (their mapping lives while a tensor
        refers to it, and nobody writes it any more) but are never given back, to it or to the next JVM; device
        batches (CUDA IPC) died with it. A JVM that died could not remove its shared-memory file: it goes here (the
        mapping outlives the name)."""
        if self._device_slots is not None:
            for batch in self._held:
                batch._live = False
        self._held.clear()
        if self._process is not None:
            self._process.close()
            self._process = None
        if self._slots is not None:
            if dead:
                self._slots.unlink()
            self._slots.close()
            self._slots = None
        if self._device_slots is not None:
            self._device_slots.close()
            self._device_slots = None

    def _stop_process(self) -> None:
        """Stops the JVM in order (the feeder gives back what it copied first); every batch held is then dead."""
        if self._feeder is not None:
            try:
                self._feeder.close()
            except Exception:  # noqa: BLE001 - the JVM may be gone; closing goes on
                pass
            self._feeder = None
        for batch in self._held:
            batch._live = False
        self._abandon_process()

    @staticmethod
    def _stop(holder):
        if holder and holder[0] is not None:
            holder[0].close()

    def close(self) -> None:
        """Stops the JVM (and every thread and process it started) and unmaps the batches."""
        if self._closed:
            return
        self._stop_process()
        self._closed = True
        self._finalizer.detach()

    def __enter__(self) -> "VideoLoader":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    # ---- epochs and batches ----------------------------------------------------------------------------------

    def __len__(self) -> int:
        """Batches in one epoch of this rank."""
        self._start()
        return int(self._hello["batches_per_epoch"])

    @property
    def classes(self) -> List[str]:
        self._start()
        return list(self._hello["classes"])

    def set_epoch(self, epoch: int) -> None:
        """Starts the next iteration at the beginning of ``epoch`` (restarting the JVM if it is elsewhere)."""
        self._wanted_epoch = positive_int("epoch", epoch, minimum=0)

    def _place(self) -> None:
        """Honours set_epoch: the stream must stand at the start of the wanted epoch."""
        wanted, self._wanted_epoch = self._wanted_epoch, None
        if wanted is None:
            return
        if self._hello is None and self._resume is None and wanted == 0:
            return   # never started: the first JVM starts at epoch 0
        if self._process is None and self._resume is not None and self._resume.get("epoch") == wanted:
            return   # a state loaded (or kept from a JVM that died) in that epoch: the epoch goes on from it
        self._start()
        if self._next_epoch_start == wanted:
            return
        self._go_on_from(dict(self._position, epoch=wanted, position=0, clipsDelivered=0))
        self._start()

    def __iter__(self):
        self._place()
        self._start()
        if self._next_epoch_start is not None:
            self._epoch_batches = 0
        batches = iter(self._feeder) if self._feeder is not None else self._host_batches()
        return self._even(batches) if self._ranks_step_together() else batches

    def _ranks_step_together(self) -> bool:
        """Whether other ranks take this loader's epochs in step with it (DDP's collectives): world_size > 1."""
        return int(self._hello.get("world_size", 1)) > 1

    def _even(self, batches):
        """Every rank steps as often: an epoch whose rank lost samples to failures ends with copies of its last batch
        up to ``len(loader)`` (as DistributedSampler pads with repeated samples); else the ranks' collectives would
        pair one rank's next epoch with another's last steps and hang or fail."""
        last = None
        for batch in batches:
            last = batch
            if self._epoch_batches is not None:
                self._epoch_batches += 1
            yield batch
        if last is None or self._epoch_batches is None:
            return   # nothing taken in this iteration (the run had ended), or a count not known after a resume
        missing = int(self._hello["batches_per_epoch"]) - self._epoch_batches
        for _ in range(max(0, missing)):
            self._padded += 1
            self._epoch_batches += 1
            yield last.detach()
        self._epoch_batches = 0

    def _host_batches(self):
        while True:
            batch = self._take_host()
            if batch is None:
                return
            self._held.append(batch)
            while len(self._held) > self._args.hold + 1:
                self._release(self._held.popleft())
            if self._copy:
                yield batch.detach()
            else:
                yield batch

    def _take_host(self) -> Optional[Batch]:
        """The next batch of this epoch, or None at its end: an end the JVM said, with the count of batches it sent
        equal to the count taken. A JVM that dies is restarted (``restart``) or a JvmDiedError, never an end."""
        if self._ended:
            return None
        started = time.perf_counter()
        waiting_since_us = time.time_ns() // 1000
        try:
            while True:
                self._start()
                if self._interrupted_epoch is not None:
                    interrupted, self._interrupted_epoch = self._interrupted_epoch, None
                    if self._next_epoch_start is not None and self._next_epoch_start > interrupted:
                        # Its last batch was taken before the JVM died, and the new one starts at the next epoch:
                        # the end of this one, which the dead JVM could not send.
                        return None
                try:
                    m = self._process.take(self._timeout)
                    kind = m.get("type")
                    if kind == "batch":
                        batch = self._batch(m)
                        self._clock.took(len(batch), m.get("sent_us"), waiting_since_us)
                        return batch
                    if kind == "epoch_end":
                        # With drop_last the state still stands in this epoch (its dropped tail); the stream does not.
                        self._next_epoch_start = m["epoch"] + 1
                        self._position = m["state"]
                        self._failures = m.get("failures", [])
                        # The last epoch (epochs=N): the run has ended now, not only once its end message is read.
                        self._ended = bool(m.get("last"))
                        return None
                    if kind == "end":
                        self._ended = True
                        return None
                    if kind == "error":
                        raise StokerError(f"stoker serve: {m.get('message')} ({m.get('kind')})")
                except JvmDiedError as death:
                    self._recover(death)
        finally:
            self._clock.waited(time.perf_counter() - started)

    def _batch(self, m: dict) -> Batch:
        if self._device_slots is not None:
            video = self._device_slots.tensor(m)
            label = torch.tensor(m["labels"], dtype=torch.int64).to(video.device, non_blocking=True)
        else:
            video = self._slots.tensor(m["id"], m["slot"], m["offset"], m["nbytes"], m["shape"])
            label = torch.tensor(m["labels"], dtype=torch.int64)
        batch = Batch(m["id"], m["epoch"], video, label, m["paths"], m["start_seconds"], m["frame_seconds"], m["state"],
                      m["texts"])
        batch._source = self._process
        self._restarts.delivered()
        self._position = m["state"]
        self._next_epoch_start = None
        return batch

    def _release(self, batch: Batch) -> None:
        batch._live = False
        if self._process is None or batch._source is not self._process:
            return   # the JVM that wrote it is gone: nothing to give back (its ids mean other batches to the next)
        release = {"op": "release", "id": batch.id}
        if self._slots is not None:
            self._slots.released(batch.id)
        if self._device_slots is not None:
            event = self._device_slots.released(batch.id)
            if event is not None:
                release["event"] = event
        self._process.send(release)

    # ---- state, stats, failures ------------------------------------------------------------------------------

    def state_dict(self) -> dict:
        """Where this loader stands: the state after the last batch taken (exact, mid-epoch too)."""
        self._start()
        state = {"stoker_state": dict(self._position)}
        if self._epoch_batches is not None and self._ranks_step_together():
            state["epoch_batches"] = self._epoch_batches
        return state

    def load_state_dict(self, state: dict) -> None:
        """Continues from a ``state_dict()``: the next batch is the one after the batch the state was taken at."""
        if not isinstance(state, dict) or "stoker_state" not in state:
            raise ValueError("load_state_dict: expected a dict from VideoLoader.state_dict() (with 'stoker_state')")
        self._go_on_from(dict(state["stoker_state"]))
        self._epoch_batches = state.get("epoch_batches")
        self._wanted_epoch = None

    def _go_on_from(self, state: dict) -> None:
        """The next JVM starts from ``state``: a run that had ended goes on from there (past its last epoch, the JVM
        says the end again)."""
        self._stop_process()
        self._resume = state
        self._ended = False
        self._death_after_end = None

    def stats(self) -> dict:
        """The JVM pipeline's per-stage stats, with this consumer's samples/s and data-wait share, and the JVM's
        memory under ``process`` (``offheap_bytes``, and ``memory_bytes`` by kind: pooled buffers, shared memory...)."""
        reply = self._request("stats")
        stats = dict(reply.get("stats", {}))
        stats["process"] = reply.get("process", {})   # the JVM's memory: heap, RSS, off-heap by kind
        stats.update(self._clock.figures(), restarts=self._restarts.total, restart_causes=list(self._restarts.causes),
                     padded_batches=self._padded)
        self._failures = reply.get("failures", self._failures)
        return stats

    def _request(self, op: str) -> dict:
        while True:
            self._start()
            if self._death_after_end is not None:
                raise self._death_after_end
            try:
                return self._process.request(op)
            except JvmDiedError as death:
                self._recover(death)

    def handover_micros(self) -> List[int]:
        """Per batch (the last 10,000): microseconds from the JVM announcing it to its tensor in this process,
        counted from when this process began waiting if that was later (a batch queued behind a slow consumer
        is not hand-over time)."""
        return self._clock.handover_micros()

    @property
    def failures(self) -> List[dict]:
        """Every sample that failed so far: ``{path, stage, reason, message}``."""
        if self._process is not None:
            try:
                self._failures = self._process.request("failures").get("failures", self._failures)
            except StokerError:
                pass  # the JVM is gone: the last list known stands
        return list(self._failures)

    @property
    def file(self) -> Optional[str]:
        """The shared-memory file of the running JVM (for tests and debugging)."""
        return None if self._hello is None or self._process is None else self._hello["file"]

    @property
    def pid(self) -> Optional[int]:
        return None if self._process is None else self._process.pid


VideoLoader.__doc__ += _document.describe() + "\n"
