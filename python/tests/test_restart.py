"""A dead JVM is never an end of data: it is an error naming how it died, or, with ``restart=N``, a new JVM that goes
on from the state after the last batch taken, so that the clips delivered are an uninterrupted run's."""
import importlib.util
import logging
import os
import queue
import signal
import subprocess
import time
import types

import pytest

import stoker._serve as serve_module
import stoker.torch as loader_module
from conftest import SOURCE
from stoker import JvmDiedError, StokerError
from stoker.torch import VideoLoader

BATCH = 2   # 8 videos: 4 batches an epoch
BATCHES_AN_EPOCH = 4
MAX_EPOCHS = 8


def kill_points():
    """bench/kill_points.py, whose trials this suite runs (the script adds a CPU load and the times)."""
    spec = importlib.util.spec_from_file_location("kill_points", SOURCE / "bench" / "kill_points.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_fifty_kills_at_random_points_are_fifty_errors_and_never_a_short_epoch(dataset):
    points = kill_points()
    trials = points.run_trials(dataset, 50, seed=1)
    assert len(trials) == 50
    assert {t.point for t in trials} == set(points.POINTS)
    for t in trials:
        if t.ended_first:
            # The JVM said its run's end before the kill: the run is whole, and there is nothing to raise.
            assert t.point == "during-close", f"a kill {t.point} came after the run's end"
            assert t.error is None and t.short_epochs == 0, f"a kill after the run's end gave {t.error!r}"
            continue
        assert t.died_error, f"a kill {t.point} gave {t.error!r}, not a JvmDiedError naming signal 9"
        assert t.short_epochs == 0, f"a kill {t.point} ended {t.short_epochs} epoch(s) short before the error"


def clips_of_stoker_bench(stoker, dataset, tmp_path, batches):
    clips_out = tmp_path / "clips.tsv"
    subprocess.run([stoker, "bench", str(dataset), "--batch", str(BATCH), "--seed", "7", "--batches", str(batches),
                    "--no-reference", "--clips-out", str(clips_out)], check=True, capture_output=True, timeout=300)
    expected = {}
    for line in clips_out.read_text().splitlines():
        batch, path, _, times = line.split("\t")
        expected.setdefault(int(batch), []).append((path, [round(float(t), 6) for t in times.split(",")]))
    return [expected[k] for k in sorted(expected)]


def test_restarts_deliver_exactly_the_clips_of_an_uninterrupted_run(dataset, stoker, tmp_path, caplog):
    # 3 epochs at least; more while a kill is still due: a JVM may have announced several batches before it died, and
    # under load the kills can fall behind the batches they were meant for (below).
    expected = clips_of_stoker_bench(stoker, dataset, tmp_path, BATCHES_AN_EPOCH * MAX_EPOCHS)
    # Killed mid-epoch, right after an epoch's last batch, twice with one batch between (restart=1: a restart that
    # delivers a batch resets the count), and at the start of the last epoch.
    kill_after = {1, 4, 6, 7, 8}
    got, killed, pending, epochs = [], [], 0, 0
    caplog.set_level(logging.WARNING, logger="stoker")
    with VideoLoader(dataset, batch_size=BATCH, seed=7, restart=1) as loader:
        while epochs < 3 or (pending and epochs < MAX_EPOCHS):
            epochs += 1
            for batch in loader:
                got.append([(p, [round(t, 6) for t in ts]) for p, ts in zip(batch.paths, batch.frame_seconds)])
                pending += len(got) in kill_after
                # A batch the dead JVM announced before it died is whole and still comes: the next kill waits for
                # a batch of the JVM that took over, so that each kill ends a JVM of its own.
                if pending and loader.pid not in killed:
                    killed.append(loader.pid)
                    os.kill(loader.pid, signal.SIGKILL)
                    pending -= 1
        stats = loader.stats()
    assert len(got) == BATCHES_AN_EPOCH * epochs, "an epoch short or long across the restarts"
    assert got == expected[:len(got)], "the clips across restarts differ from stoker bench's uninterrupted run"
    assert len(killed) == len(kill_after), f"{len(kill_after) - len(killed)} kill(s) still due after {epochs} epochs"
    assert stats["restarts"] == len(killed)
    assert all("killed by signal 9" in cause for cause in stats["restart_causes"])
    restarts = [r for r in caplog.records if "restarting it" in r.getMessage()]
    assert len(restarts) == len(killed) and all("signal 9" in r.getMessage() for r in restarts)


def test_a_run_the_jvm_served_whole_before_python_mapped_its_file_loses_nothing(dataset, stoker, tmp_path,
                                                                              monkeypatch):
    # Under load the JVM can serve a short run (epochs=1, every batch fits the slots) and say its end before Python
    # has read the hello and mapped the file. The JVM then waits for the close: the batches are all there, and stats
    # still answer.
    expected = clips_of_stoker_bench(stoker, dataset, tmp_path, BATCHES_AN_EPOCH)

    class SlowToMap(loader_module.ServeProcess):
        @classmethod
        def start(cls, args, resume=None):
            process, hello = super().start(args, resume)
            guard = time.monotonic() + 300   # a hang guard only: the JVM says its end in well under a second
            while not any(isinstance(m, dict) and m.get("type") == "end" for m in list(process._stream.queue)):
                if process.status() is not None or time.monotonic() > guard:
                    break   # gone first (the bug this guards against), or never ended: the loader below says which
                time.sleep(0.01)
            return process, hello

    monkeypatch.setattr(loader_module, "ServeProcess", SlowToMap)
    with VideoLoader(dataset, batch_size=BATCH, seed=7, epochs=1, prefetch=BATCHES_AN_EPOCH) as loader:
        got = []
        for b in loader:
            # Read from the file mapped after the end: the collated frames, not the zeros of a fresh file.
            assert b.video.float().mean() > 0, f"batch {b.id} read as zeros"
            got.append([(p, [round(t, 6) for t in ts]) for p, ts in zip(b.paths, b.frame_seconds)])
        assert list(loader) == [], "an iteration after the run's end"
        stats = loader.stats()
        assert loader._process.status() is None, "the JVM left before the consumer closed it"
    assert got == expected
    assert stats["restarts"] == 0


def test_a_jvm_that_dies_after_the_runs_end_is_not_restarted(dataset):
    # After its last epoch the JVM only waits for the close: nothing is left to serve, so a death then (the OOM
    # killer, an operator) is not restarted, which would start a JVM for nothing and answer stats() with its empty
    # figures. stats() says the death; the iteration stays ended, and where the loader stands is still known.
    with VideoLoader(dataset, batch_size=BATCH, seed=7, epochs=1, restart=2) as loader:
        taken = 0
        for _ in loader:
            taken += 1
            if taken == 2:
                after_two = loader.state_dict()
        assert taken == len(loader) > 2
        position = loader.state_dict()
        pid = loader.pid
        os.kill(pid, signal.SIGKILL)
        with pytest.raises(JvmDiedError, match="killed by signal 9") as raised:
            loader.stats()
        assert raised.value.pid == pid
        assert "the run had ended" in str(raised.value)
        assert loader.pid is None, "a JVM was started after the run's end"
        assert list(loader) == [], "an iteration after the run's end"
        assert loader.state_dict() == position
        assert loader.pid is None, "a JVM was started after the run's end"
        assert loader.failures == []
        assert len(loader) == taken
        # Placed at a start again, the loader goes on from there: the epoch again, then the end.
        loader.set_epoch(0)
        assert sum(1 for _ in loader) == taken
        assert list(loader) == []
        assert loader.stats()["restarts"] == 0
        # And from a state inside the run: the batches after it.
        loader.load_state_dict(after_two)
        assert sum(1 for _ in loader) == taken - 2


def test_deaths_in_a_row_beyond_restart_are_an_error_naming_every_death(dataset):
    base, killed_at_start = kill_points()._killed_at_start(loader_module)
    loader_module.ServeProcess = killed_at_start
    try:
        with VideoLoader(dataset, batch_size=BATCH, restart=2) as loader:
            with pytest.raises(JvmDiedError) as raised:
                len(loader)
    finally:
        loader_module.ServeProcess = base
    message = str(raised.value)
    assert "died 3 times in a row" in message and "restart=2" in message
    assert all(f"{i}. the Stoker JVM (pid" in message for i in (1, 2, 3))
    assert message.count("killed by signal 9") >= 3


def test_without_restart_a_death_is_the_error_itself(dataset):
    with VideoLoader(dataset, batch_size=BATCH) as loader:
        batches = iter(loader)
        next(batches)
        os.kill(loader.pid, signal.SIGKILL)
        taken = 1
        with pytest.raises(JvmDiedError, match="killed by signal 9") as raised:
            # The batches the JVM announced before it died come first (all of this epoch's, and its end, if it was
            # that far ahead); then the error. An epoch that ended short of its batches would be the silent loss.
            for _ in range(100):
                taken += sum(1 for _ in batches)
                assert taken % len(loader) == 0, f"an epoch ended after {taken} batches, short of {len(loader)}"
                batches = iter(loader)
        assert raised.value.status == -signal.SIGKILL


class _DropsABatch(queue.Queue):
    """The stream's queue with one batch message lost on the way: the fourth, the epoch's last, so that the JVM
    needs no slot it holds to reach the epoch's end."""

    def __init__(self):
        super().__init__()
        self.batches = 0

    def put(self, item, *args, **kwargs):
        if isinstance(item, dict) and item.get("type") == "batch":
            self.batches += 1
            if self.batches == 4:
                return
        super().put(item, *args, **kwargs)


def test_an_epoch_end_whose_count_disagrees_is_an_error_not_an_end(dataset, monkeypatch):
    made = []

    def queues():   # the first queue a ServeProcess makes is its stream
        q = _DropsABatch() if not made else queue.Queue()
        made.append(q)
        return q

    monkeypatch.setattr(serve_module, "queue", types.SimpleNamespace(Queue=queues, Empty=queue.Empty))
    with VideoLoader(dataset, batch_size=BATCH, prefetch=4) as loader:
        with pytest.raises(JvmDiedError, match="saying it sent 4 batches, and 3 arrived"):
            for _ in loader:
                pass


def test_an_error_the_jvm_reports_is_not_restarted(damaged_dataset):
    # A failure budget of 0 spent on a damaged file: the JVM says so and exits; a restart would only say it again.
    with VideoLoader(damaged_dataset, batch_size=BATCH, frames=4, failure_budget=0, restart=3) as loader:
        with pytest.raises(StokerError, match="failure budget") as raised:
            for _ in loader:
                pass
        assert not isinstance(raised.value, JvmDiedError)
        assert loader._restarts.total == 0
