"""The loops users write around a loader: ranks stepping together when samples fail, a resume loop that calls
set_epoch, a checkpoint taken after a dead JVM, Lightning's logging, numpy arguments."""
import os
import signal

import numpy as np
import pytest
import torch

from stoker import JvmDiedError, StokerError
from stoker.torch import VideoLoader


def test_ranks_yield_len_batches_when_a_rank_loses_samples_to_failures(damaged_dataset):
    # 10 videos, 2 damaged: 5 a rank, batches of 2, so len is 3. A rank that meets a damaged video has fewer clips;
    # under DDP a rank that steps fewer times leaves the others waiting in a collective (gloo: an error, NCCL: a hang).
    real, padded = [], 0
    for rank in range(2):
        with VideoLoader(damaged_dataset, batch_size=2, frames=4, rank=rank, world_size=2, failure_budget=1) as loader:
            assert len(loader) == 3
            for epoch in range(2):
                loader.set_epoch(epoch)
                batches = [(list(b.paths), b.video.clone()) for b in loader]
                assert len(batches) == len(loader), f"rank {rank}, epoch {epoch}"
                own = len({tuple(p) for p, _ in batches})
                for paths, video in batches[own:]:   # the padding repeats the rank's last batch
                    assert paths == batches[own - 1][0] and torch.equal(video, batches[own - 1][1])
                if epoch == 0:
                    real.append([p for paths, _ in batches[:own] for p in paths])
            padded += loader.stats()["padded_batches"]
    broken = {str(p) for p in (damaged_dataset / "broken").iterdir()}
    assert not set(real[0]) & set(real[1]) and not (set(real[0]) | set(real[1])) & broken
    assert len(real[0]) + len(real[1]) == 8
    assert padded >= 2, "2 epochs, a rank short in each"


def test_a_resume_loop_that_calls_set_epoch_goes_on_mid_epoch(dataset):
    with VideoLoader(dataset, batch_size=2, frames=4, seed=3) as loader:
        loader.set_epoch(1)
        whole = [list(b.paths) for b in loader]
    with VideoLoader(dataset, batch_size=2, frames=4, seed=3) as loader:
        loader.set_epoch(1)
        batches = iter(loader)
        first = [list(next(batches).paths)]
        state = loader.state_dict()
    with VideoLoader(dataset, batch_size=2, frames=4, seed=3) as loader:
        loader.load_state_dict(state)
        for epoch in range(state["stoker_state"]["epoch"], 2):   # the usual loop, resumed
            loader.set_epoch(epoch)
            rest = [list(b.paths) for b in loader]
    assert first + rest == whole


def test_after_a_jvm_dies_without_restart_the_state_is_the_last_batch_taken(dataset):
    with VideoLoader(dataset, batch_size=2, frames=4, seed=3) as loader:
        reference = [list(b.paths) for b in loader]
    with VideoLoader(dataset, batch_size=2, frames=4, seed=3, prefetch=1) as loader:
        batches = iter(loader)
        taken = [list(next(batches).paths) for _ in range(2)]
        state = loader.state_dict()
        file = loader.file
        os.kill(loader.pid, signal.SIGKILL)
        with pytest.raises(JvmDiedError):
            for _ in range(100):
                taken.append(list(next(batches).paths))   # what the JVM had announced before it died, then the error
        assert not os.path.exists(file), "the dead JVM's shared-memory file was left behind"
        after = loader.state_dict()
        assert after["stoker_state"]["epoch"] == 0
        assert after["stoker_state"]["position"] >= state["stoker_state"]["position"]
        rest = [list(b.paths) for b in loader]
    assert taken + rest == reference


def test_lightning_finds_the_batch_size_and_arguments_may_be_numpy_scalars(dataset):
    from lightning.pytorch.utilities.data import extract_batch_size
    with VideoLoader(dataset, batch_size=np.int64(2), frames=np.int64(4), size=np.int64(32), seed=np.int64(1),
                     hold=np.int64(0)) as loader:
        batch = next(iter(loader))
        assert tuple(batch.video.shape) == (2, 4, 32, 32, 3)
        assert extract_batch_size(batch) == 2
        assert dict(batch.items())["label"] is batch.label and "video" in batch
        as_float = batch.to(torch.float32)
        assert as_float.video.dtype == torch.float32 and as_float.label.dtype == torch.int64
        assert batch.to("cpu") is batch   # nothing moved: the same view, live as long as the batch is


def test_a_jvm_that_sends_nothing_for_timeout_seconds_is_an_error_and_the_loader_goes_on(dataset):
    with VideoLoader(dataset, batch_size=2, frames=4, seed=3) as loader:
        reference = [list(b.paths) for b in loader]
    with VideoLoader(dataset, batch_size=2, frames=4, seed=3, timeout=2) as loader:
        batches = iter(loader)
        taken = [list(next(batches).paths)]
        os.kill(loader.pid, signal.SIGSTOP)   # alive, sending nothing: a hung mount looks so
        try:
            with pytest.raises(StokerError, match=r"is running but sent nothing for 2 s \(timeout=\)"):
                for _ in range(100):   # what the JVM had announced before it stopped comes first
                    taken.append(list(next(batches).paths))
        finally:
            os.kill(loader.pid, signal.SIGCONT)
        rest = [list(b.paths) for b in loader]   # the same JVM goes on with the rest of the epoch
    assert taken + rest == reference


@pytest.mark.parametrize("timeout", [0, -1, float("nan"), "5", True])
def test_a_bad_timeout_is_named(dataset, timeout):
    with pytest.raises(ValueError, match="timeout="):
        VideoLoader(dataset, timeout=timeout)


def test_the_first_batchs_wait_is_start_up_and_not_in_the_data_wait_share():
    # The loader tells the clock a take's wait after the batch is in hand: the first one came after took() had
    # started the clock, and counted the JVM's start-up (seconds) as waiting for data.
    from stoker._consumer import ConsumerClock
    clock = ConsumerClock()
    clock.took(2, None, 0)
    clock.waited(30.0)   # the start-up
    clock.took(2, None, 0)
    clock.waited(0.0)
    assert clock.figures()["data_wait_share"] == 0.0
    clock.took(2, None, 0)
    clock.waited(1e9)   # a steady-state wait counts
    assert clock.figures()["data_wait_share"] == 1.0
