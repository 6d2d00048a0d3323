#!/usr/bin/env python3
"""A dead JVM is never an end of data: the Stoker JVM SIGKILLed at points drawn at random, each an error.

Each trial opens a ``VideoLoader`` on DATA, kills its JVM at one of four points and reads on, across epochs, until
the loader raises; the trial is good when that is a ``JvmDiedError`` naming signal 9 and no epoch ended short of
``len(loader)`` batches on the way (a short epoch, or an end with no error, is the silent loss this guards against):

  before-hello    the JVM killed as it starts, before it said hello
  mid-epoch       after k batches of an epoch (k drawn from 1 to len - 1)
  epoch-boundary  after an epoch's last batch, before its end was read (the end may already be in the pipe)
  during-close    epochs=1: after the last batch, while the JVM ends its run (and then waits for the close)

At during-close the kill can come after the JVM said its run's end (under load it mostly does: the JVM runs ahead
of the consumer, then waits for the close): the run is then complete, and the trial is good when the loader ends with
every epoch whole and no error. Those trials are counted apart, never drawn again, so that the points a seed
draws are the points tried, whatever the load. The figure
this script gives beside the count is the time from the kill to the error, with every core kept busy
(``--load``), for docs/benchmarks.md; the tests (python/tests/test_restart.py) run the same trials and assert
the count only.

    bench/kill_points.py DATA [--trials 50] [--seed 1] [--load 2]
"""
import argparse
import os
import random
import signal
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

POINTS = ("before-hello", "mid-epoch", "epoch-boundary", "during-close")


@dataclass
class Trial:
    point: str
    error: Optional[str]          # the error's text; None when the loader never raised
    died_error: bool              # the error was a JvmDiedError naming signal 9
    short_epochs: int             # epochs that ended short of len(loader) batches
    seconds: Optional[float]      # from the kill to the error
    ended_first: bool = False     # during-close: the JVM said its run's end before the kill (nothing to raise)


def _killed_at_start(loader_module):
    """A ServeProcess that is SIGKILLed the moment it started: before it can say hello."""
    base = loader_module.ServeProcess

    class KilledAtStart(base):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            os.kill(self.pid, signal.SIGKILL)
            KilledAtStart.killed_at = time.monotonic()

    return base, KilledAtStart


def _read_until_error(loader, per_epoch: int, epochs_cap: int = 50):
    """Reads epochs until the loader raises or says its run's end; returns (error, short epochs, when it raised)."""
    short = 0
    for _ in range(epochs_cap):
        try:
            got = sum(1 for _ in loader)
        except Exception as e:  # noqa: BLE001 - what was raised is the measurement
            return e, short, time.monotonic()
        if loader._ended:
            break   # the run is over: the empty iteration after its end is not a short epoch
        if got < per_epoch:
            short += 1
    return None, short, time.monotonic()


def one_trial(dataset, point: str, rng: random.Random, **loader_options) -> Optional[Trial]:
    """One kill at ``point``; None when there was no JVM to kill (nothing was proved)."""
    import stoker.torch as loader_module
    from stoker import JvmDiedError

    options = dict(batch_size=2, frames=4, stride=1, size=32, seed=rng.randrange(1 << 30))
    options.update(loader_options)
    if point == "during-close":
        options["epochs"] = 1
    if point == "before-hello":
        base, killed = _killed_at_start(loader_module)
        loader_module.ServeProcess = killed
        try:
            loader = loader_module.VideoLoader(dataset, **options)
            try:
                len(loader)
                error, seconds = None, None
            except Exception as e:  # noqa: BLE001
                error, seconds = e, time.monotonic() - killed.killed_at
            finally:
                loader.close()
        finally:
            loader_module.ServeProcess = base
        return Trial(point, None if error is None else str(error),
                     isinstance(error, JvmDiedError) and "signal 9" in str(error), 0, seconds)

    with loader_module.VideoLoader(dataset, **options) as loader:
        per_epoch = len(loader)
        taken = 0
        stop_after = rng.randrange(1, per_epoch) if point == "mid-epoch" else per_epoch
        batches = iter(loader)
        for _ in batches:
            taken += 1
            if taken == stop_after:
                break
        process = loader._process
        if process is None:
            return None
        if process.status() is None:
            os.kill(process.pid, signal.SIGKILL)   # a JVM that already exited is read to its end below
        killed_at = time.monotonic()
        # The rest of this epoch, then epochs until the error.
        short = 0
        error = None
        try:
            for _ in batches:
                taken += 1
            if taken < per_epoch:
                short += 1
        except Exception as e:  # noqa: BLE001
            error, raised_at = e, time.monotonic()
        if error is None:
            error, more_short, raised_at = _read_until_error(loader, per_epoch)
            short += more_short
            if error is None and loader._ended:
                # The JVM said its run's end before the kill reached it: nothing was cut short, nothing to raise.
                return Trial(point, None, False, short, None, ended_first=True)
    return Trial(point, None if error is None else str(error),
                 isinstance(error, JvmDiedError) and "signal 9" in str(error), short,
                 None if error is None else raised_at - killed_at)


def run_trials(dataset, trials: int, seed: int, **loader_options) -> List[Trial]:
    """``trials`` kills, the points drawn by ``seed``; a void trial (no JVM to kill) is drawn again."""
    rng = random.Random(seed)
    done: List[Trial] = []
    voids = 0
    while len(done) < trials:
        trial = one_trial(dataset, rng.choice(POINTS), rng, **loader_options)
        if trial is None:
            voids += 1
            if voids > 10 * trials:
                raise RuntimeError(f"{voids} trials found the JVM gone before the kill: nothing was proved")
            continue
        done.append(trial)
    return done


def _burn(cores: int):
    import multiprocessing
    procs = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(cores)]
    for p in procs:
        p.start()
    return procs


def _spin():
    while True:
        pass


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("data", help="a video dataset, ROOT/<class>/<video> (e.g. stoker demo-data DIR --clips 4)")
    p.add_argument("--trials", type=int, default=50)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--load", type=int, default=os.cpu_count(), help="busy processes beside (default: one a core)")
    a = p.parse_args()
    try:
        import stoker  # noqa: F401 - the installed package, else the checkout's
    except ImportError:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
    burners = _burn(a.load)
    try:
        trials = run_trials(a.data, a.trials, a.seed)
    finally:
        for b in burners:
            b.terminate()
    errors = sum(t.died_error for t in trials)
    ended = sum(t.ended_first and t.point == "during-close" and t.error is None for t in trials)
    quiet = sum((t.error is None and not t.ended_first) or t.short_epochs > 0 for t in trials)
    print(f"{len(trials)} kills under {a.load} busy processes on {os.cpu_count()} cores: {errors} JvmDiedErrors naming "
          f"signal 9, {ended} after the run's end (complete, no error), {quiet} silent ends or short epochs")
    for point in POINTS:
        times = sorted(t.seconds for t in trials if t.point == point and t.seconds is not None)
        if times:
            print(f"  {point:15} {len(times):3} kills: kill to error median {statistics.median(times):.3f} s, "
                  f"max {times[-1]:.3f} s")
    worst = max((t.seconds for t in trials if t.seconds is not None), default=None)
    print(f"slowest: {worst:.3f} s" if worst is not None else "no error was raised")
    sys.exit(0 if errors + ended == len(trials) and quiet == 0 else 1)


if __name__ == "__main__":
    main()
