#!/usr/bin/env python3
"""How fast the Stoker JVM goes when its Python goes: the figures python/tests/test_lifetime.py no longer asserts.

Three ways a training process ends, each timed from the moment it happens to the JVM's exit, over several trials,
with every core kept busy (``--load``):

  python-killed   the training process SIGKILLed (no close, no atexit): the JVM sees its standard input end
  ctrl-c          SIGINT in the training loop: KeyboardInterrupt, the ``with`` block closes the loader
  close           ``loader.close()`` after a batch: how long the call takes (it returns once the JVM exited)

Each trial is a fresh interpreter running a ``VideoLoader`` on DATA; its shared-memory file must be gone too. The
tests assert only that the JVM goes and its file with it (docs/benchmarks.md, "No flaky test").

    bench/lifetime_times.py DATA [--trials 10] [--load 2]
"""
import argparse
import os
import signal
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from kill_points import _burn   # beside this script: the same busy processes

WAYS = ("python-killed", "ctrl-c", "close")
GUARD_SECONDS = 120


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _gone_after(pid: int, since: float) -> float:
    """Seconds from ``since`` until ``pid`` is gone (polled every millisecond)."""
    deadline = time.monotonic() + GUARD_SECONDS
    while _alive(pid):
        if time.monotonic() > deadline:
            raise RuntimeError(f"the JVM (pid {pid}) outlived its Python by {GUARD_SECONDS} s")
        time.sleep(0.001)
    return time.monotonic() - since


def _script(data: str, way: str) -> str:
    # The child prints the JVM's pid and file once a batch was taken; for close, it times the call itself.
    return textwrap.dedent(f"""
        import os, signal, sys, time
        signal.signal(signal.SIGINT, signal.default_int_handler)   # ignored if the shell that started us ignored it
        from stoker.torch import VideoLoader
        loader = VideoLoader({data!r}, batch_size=2, frames=4)
        batches = iter(loader)
        next(batches)
        print(loader.pid, loader.file, flush=True)
        if {way!r} == "close":
            start = time.monotonic()
            loader.close()
            print(time.monotonic() - start, flush=True)
            sys.exit(0)
        try:
            while True:
                for batch in loader:
                    pass
        except KeyboardInterrupt:
            loader.close()
            raise
    """)


def one_trial(data: str, way: str) -> float:
    env = dict(os.environ)
    try:
        import stoker
        env["PYTHONPATH"] = str(Path(stoker.__file__).resolve().parents[1]) + os.pathsep + env.get("PYTHONPATH", "")
    except ImportError:
        pass
    proc = subprocess.Popen([sys.executable, "-c", _script(data, way)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    pid, file = proc.stdout.readline().split()
    pid = int(pid)
    if way == "close":
        seconds = float(proc.stdout.readline())
        proc.communicate(timeout=GUARD_SECONDS)
    else:
        since = time.monotonic()
        proc.send_signal(signal.SIGKILL if way == "python-killed" else signal.SIGINT)
        seconds = _gone_after(pid, since)
        proc.communicate(timeout=GUARD_SECONDS)
    if _alive(pid) or os.path.exists(file):
        raise RuntimeError(f"{way}: the JVM (pid {pid}) or its file {file} is left")
    return seconds


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("data", help="a video dataset, ROOT/<class>/<video> (e.g. stoker demo-data DIR --clips 4)")
    p.add_argument("--trials", type=int, default=10)
    p.add_argument("--load", type=int, default=os.cpu_count(), help="busy processes beside (default: one a core)")
    a = p.parse_args()
    burners = _burn(a.load)
    try:
        times = {way: [one_trial(a.data, way) for _ in range(a.trials)] for way in WAYS}
    finally:
        for b in burners:
            b.terminate()
    print(f"{a.trials} trials a way under {a.load} busy processes on {os.cpu_count()} cores; the JVM and its file gone "
          f"every time")
    for way in WAYS:
        t = sorted(times[way])
        print(f"  {way:14} to the JVM gone: median {statistics.median(t):.3f} s, max {t[-1]:.3f} s")


if __name__ == "__main__":
    main()
