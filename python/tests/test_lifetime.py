"""Never hang, never orphan: the JVM's death is an error, Python's death ends the JVM and its file.

No wall-clock bound is asserted here (a loaded machine stretches any of them): how fast each of these happens is
measured by ``bench/kill_points.py`` (a killed JVM to the error) and ``bench/lifetime_times.py`` (Python's death, or
Ctrl-C, to the JVM gone), recorded in docs/benchmarks.md. What a test waits on, it waits on as an event: a line the
child printed, the process gone (polled, with a hang guard far above any real time)."""
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time

import pytest

from conftest import stoker_env
from stoker import StokerError
from stoker.torch import VideoLoader


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


HANG_GUARD_SECONDS = 120


def gone(pid: int) -> bool:
    """Whether the process ends: polled until it has, or the hang guard (far above any real time) passed."""
    deadline = time.monotonic() + HANG_GUARD_SECONDS
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.01)   # a poll, not a wait for time to pass
    return not alive(pid)


def across_epochs(loader):
    # An epoch of this dataset is 4 batches: the JVM may have announced all of them and the epoch's end before the
    # kill, and the end of an epoch is not the error this test waits for; the next epoch's first take is.
    while True:
        yield from loader


def test_a_killed_jvm_is_an_error_naming_the_signal(dataset):
    with VideoLoader(dataset, batch_size=2, frames=4) as loader:
        batches = across_epochs(loader)
        next(batches)
        os.kill(loader.pid, signal.SIGKILL)
        with pytest.raises(StokerError, match="killed by signal 9"):
            for _ in range(100):   # the few batches already announced may still come; then the error
                next(batches)


def test_close_stops_the_jvm_and_removes_the_file(dataset):
    loader = VideoLoader(dataset, batch_size=2, frames=4)
    next(iter(loader))
    pid, file = loader.pid, loader.file
    assert os.path.exists(file)
    loader.close()
    assert not alive(pid), "close() returned with the JVM still running"
    assert not os.path.exists(file)


def test_a_jvm_whose_python_died_while_it_started_exits(dataset, stoker):
    # Python names itself to the JVM; one that died before the JVM asked for its parent left the JVM to init, whose
    # exit never comes. Here the named process is gone already, and standard input stays open (no end of the pipe).
    dead = subprocess.Popen(["true"])
    dead.wait()
    env = dict(stoker_env(), STOKER_CONSUMER_PID=str(dead.pid))
    jvm = subprocess.Popen([stoker, "serve", str(dataset), "--batch", "2", "--frames", "4"], stdin=subprocess.PIPE,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    try:
        jvm.wait(timeout=HANG_GUARD_SECONDS)   # not communicate(), which would close standard input
        err = jvm.stderr.read()
    finally:
        jvm.kill()
        jvm.stdin.close()
        jvm.stderr.close()
    assert jvm.returncode == 3, err
    assert f"its consumer, process {dead.pid} (STOKER_CONSUMER_PID), has exited" in err


def test_when_python_dies_the_jvm_exits_and_removes_the_file(dataset):
    script = textwrap.dedent(f"""
        import os, signal
        from stoker.torch import VideoLoader
        loader = VideoLoader({str(dataset)!r}, batch_size=2, frames=4)
        next(iter(loader))
        print(loader.pid, loader.file, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=stoker_env(), timeout=120)
    assert run.returncode == -signal.SIGKILL, run.stderr
    pid, file = run.stdout.split()
    assert gone(int(pid)), f"the JVM outlived Python by {HANG_GUARD_SECONDS} s"
    assert not os.path.exists(file)


def test_when_python_dies_while_the_dataset_opens_the_jvm_exits():
    # A server that takes connections and never answers: the JVM is still copying the dataset (a remote manifest)
    # when Python dies, long before its hello; it must see the closed pipe then, not be left running orphaned.
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    url = f"http://127.0.0.1:{server.getsockname()[1]}/train.csv"
    script = textwrap.dedent(f"""
        import os, signal, threading, time
        from stoker.torch import VideoLoader
        loader = VideoLoader({url!r}, batch_size=2, frames=4)
        threading.Thread(target=lambda: len(loader), daemon=True).start()

        def children():
            found = []
            for stat in os.listdir("/proc"):
                try:
                    fields = open(f"/proc/{{stat}}/stat").read().rsplit(")", 1)[1].split()
                except (OSError, IndexError):
                    continue
                if stat.isdigit() and int(fields[1]) == os.getpid():
                    found.append(int(stat))
            return found

        while not children():
            time.sleep(0.05)
        time.sleep(1)   # the JVM starts and asks the server for the manifest
        print(children()[0], flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    try:
        run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=stoker_env(),
                             timeout=120)
        assert run.returncode == -signal.SIGKILL, run.stderr
        assert gone(int(run.stdout.split()[0])), f"the JVM outlived Python by {HANG_GUARD_SECONDS} s"
    finally:
        server.close()


def test_a_stale_file_of_a_dead_run_is_removed_at_the_next_start(dataset, tmp_path):
    dead = subprocess.Popen(["true"])
    dead.wait()
    own = tmp_path / f"stoker-{os.getuid()}"   # the files are in this user's folder of shm_dir
    own.mkdir(mode=0o700)
    stale = own / f"stoker-{dead.pid}-0123456789abcdef.shm"
    stale.write_bytes(b"\0" * 4096)
    with VideoLoader(dataset, batch_size=2, frames=4, shm_dir=str(tmp_path)) as loader:
        next(iter(loader))
        assert not stale.exists()
        assert os.path.dirname(loader.file) == str(own)


def test_too_little_shared_memory_is_an_error_naming_the_bytes_and_the_fix(dataset):
    # 64 clips of 64 frames of 2048x2048 RGB: 48 GiB a batch, more than any /dev/shm here.
    with pytest.raises(StokerError, match=r"\d+ bytes.*--shm-size") as raised:
        with VideoLoader(dataset, batch_size=64, frames=64, size=2048) as loader:
            len(loader)
    assert "\n" not in str(raised.value), "one line"


def test_debug_mode_faults_on_a_released_batch_instead_of_reading_new_data(dataset):
    script = textwrap.dedent(f"""
        import faulthandler, sys, torch
        torch.set_num_threads(1)   # one thread reads: two faulting at once cut faulthandler's report short
        from stoker.torch import VideoLoader
        loader = VideoLoader({str(dataset)!r}, batch_size=2, frames=4, debug=True)
        batches = iter(loader)
        first = next(batches)
        kept = first.video
        assert int(kept.sum()) >= 0          # readable while live
        second = next(batches)               # hold=0: the first batch is released now
        print("released", first.live, flush=True)
        total = int(kept.sum())              # reads released memory
        print("read", total, flush=True)
    """)
    run = subprocess.run([sys.executable, "-X", "faulthandler", "-c", script], capture_output=True, text=True,
                         env=stoker_env(), timeout=120)
    assert "released False" in run.stdout
    assert "read" not in run.stdout.replace("released", "")
    assert run.returncode == -signal.SIGSEGV
    line = script.splitlines().index("total = int(kept.sum())              # reads released memory") + 1
    assert "Segmentation fault" in run.stderr and f"line {line}" in run.stderr, run.stderr


def test_ctrl_c_in_the_training_loop_stops_the_jvm(dataset):
    # The child says when it is in the training loop (a batch taken), and the interrupt comes then: no sleep.
    # Python leaves SIGINT ignored when its parent ignored it (a test run started in the background by a
    # non-interactive shell): the child makes Ctrl-C a KeyboardInterrupt itself, as in a terminal.
    script = textwrap.dedent(f"""
        import signal
        signal.signal(signal.SIGINT, signal.default_int_handler)
        from stoker.torch import VideoLoader
        with VideoLoader({str(dataset)!r}, batch_size=2, frames=4) as loader:
            len(loader)   # starts the JVM
            print(loader.pid, loader.file, flush=True)
            training = False
            while True:
                for batch in loader:
                    if not training:
                        print("training", flush=True)
                        training = True
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=stoker_env())
    pid, file = proc.stdout.readline().split()
    assert proc.stdout.readline().strip() == "training"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=HANG_GUARD_SECONDS)
    assert "KeyboardInterrupt" in err
    assert gone(int(pid)), f"the JVM outlived the interrupted loop by {HANG_GUARD_SECONDS} s"
    assert not os.path.exists(file)
