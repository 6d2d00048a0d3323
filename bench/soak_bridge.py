#!/usr/bin/env python3
"""Soak through the PyTorch bridge: ``VideoLoader(restart=...)`` over BATCHES batches with its JVM SIGKILLed every
KILL_SECONDS, then the same seed undisturbed; ``bench/soak.sh bridge`` runs it.

Checks and prints: every clip exactly once in each whole epoch, the clips of the disturbed run equal to the
undisturbed run's (none lost, repeated or moved), the restarts the loader counted against the kills made, the RSS
of this process after warm-up and at the end, each JVM's RSS just before it was killed (flat across lives: a JVM
that starts anew must not start bigger), and the shared-memory files left in SHM_DIR. Exit status 0 when all hold.

    bench/soak_bridge.py [--batches 5000] [--kill-seconds 30] [--out DIR] [--data DIR]
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OPTIONS = dict(batch_size=4, stride=2, seed=7)   # with --frames and --size


def rss_kib(pid) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError):
        pass
    return 0


def shm_files(folder: Path):
    """The serving JVMs' files: in this user's folder of the shm folder (and any an older version left beside it)."""
    return sorted(str(p) for p in list(folder.glob("stoker-*.shm")) + list(folder.glob(f"stoker-{os.getuid()}/*.shm")))


def run(data, batches, kill_seconds, shm_dir, clips_file, videos, log):
    """Writes each batch's clips to ``clips_file`` (so that this process holds nothing per batch: its RSS is the
    loader's); returns (batches, whole epochs, epochs not each clip once, kills, stats, python RSS, JVM RSS at kills)."""
    from stoker.torch import VideoLoader
    kills, jvm_rss_at_kill, py_rss = [], [], []
    taken = whole = bad_epochs = 0
    done = threading.Event()
    with open(clips_file, "w") as out, VideoLoader(data, restart=1000, shm_dir=str(shm_dir), **OPTIONS) as loader:
        per_epoch = len(loader) * OPTIONS["batch_size"]

        def killer():
            while not done.wait(kill_seconds):
                pid = loader.pid
                if pid is not None:
                    jvm_rss_at_kill.append(rss_kib(pid))
                    try:
                        os.kill(pid, signal.SIGKILL)
                        kills.append(time.monotonic())
                        log(f"  {time.strftime('%T')} SIGKILL JVM {pid} (#{len(kills)}) after {taken} batches")
                    except ProcessLookupError:
                        jvm_rss_at_kill.pop()

        if kill_seconds > 0:
            threading.Thread(target=killer, daemon=True).start()
        while taken < batches:
            epoch = []
            for batch in loader:
                out.write("\t".join(f"{p}@{s:.6f}" for p, s in zip(batch.paths, batch.start_seconds)) + "\n")
                epoch.extend(batch.paths)
                taken += 1
                if taken % 500 == 0:
                    py_rss.append((taken, rss_kib(os.getpid())))
                if taken == batches:
                    break
            if len(epoch) == per_epoch:
                whole += 1
                bad_epochs += sorted(epoch) != videos
        done.set()
        stats = loader.stats()
    return taken, whole, bad_epochs, kills, stats, py_rss, jvm_rss_at_kill


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--batches", type=int, default=5000)
    p.add_argument("--kill-seconds", type=float, default=30)
    p.add_argument("--out", default=None, help="where the dataset and soak.json go (default: a temp folder)")
    p.add_argument("--data", default=None, help="a dataset (default: stoker demo-data, 16 videos of 3 s)")
    p.add_argument("--shm-dir", default="/dev/shm")
    p.add_argument("--frames", type=int, default=8)
    p.add_argument("--size", type=int, default=64, help="square clips of this side (default 64)")
    a = p.parse_args()
    OPTIONS.update(frames=a.frames, size=a.size)
    try:
        import stoker  # noqa: F401 - the installed package, else the checkout's
    except ImportError:
        sys.path.insert(0, str(ROOT / "python"))
    from stoker import stoker_command
    out = Path(a.out or subprocess.check_output(["mktemp", "-d"], text=True).strip())
    out.mkdir(parents=True, exist_ok=True)
    data = Path(a.data) if a.data else out / "data"
    if not a.data and not data.exists():
        subprocess.run([stoker_command(), "demo-data", str(data), "--classes", "2", "--clips", "8", "--seconds", "3"],
                       check=True, capture_output=True)
    videos = sorted(str(v) for v in data.glob("*/*"))
    shm = Path(a.shm_dir)
    before = set(shm_files(shm))

    def log(line):
        print(line, flush=True)

    log(f"soak through the bridge: {a.batches} batches, the JVM SIGKILLed every {a.kill_seconds:g} s, "
        f"{len(videos)} videos, {OPTIONS}")
    t0 = time.monotonic()
    taken, whole, bad_epochs, kills, stats, py_rss, jvm_rss = run(data, a.batches, a.kill_seconds, shm,
                                                                   out / "disturbed.tsv", videos, log)
    disturbed_s = time.monotonic() - t0
    left = sorted(set(shm_files(shm)) - before)
    log(f"disturbed run: {taken} batches in {disturbed_s:.0f} s, {len(kills)} kills, {stats['restarts']} restarts")
    t0 = time.monotonic()
    run(data, a.batches, 0, shm, out / "undisturbed.tsv", videos, lambda line: None)
    log(f"undisturbed run: {a.batches} batches in {time.monotonic() - t0:.0f} s")

    clips = (out / "disturbed.tsv").read_text().splitlines()
    reference = (out / "undisturbed.tsv").read_text().splitlines()
    once = bad_epochs == 0
    lost = sum(1 for x, y in zip(clips, reference) if x != y)
    warm = [kib for n, kib in py_rss if n >= min(1000, a.batches // 5)]
    py_growth = (warm[-1] / warm[0] - 1) if len(warm) >= 2 else 0.0
    jvm_growth = (jvm_rss[-1] / jvm_rss[1] - 1) if len(jvm_rss) >= 3 else 0.0
    verdicts = {
        "every clip once in each whole epoch": once and whole >= 1,
        "clips equal the undisturbed run's": lost == 0 and len(clips) == len(reference),
        "a restart for every kill": stats["restarts"] == len(kills),
        "python RSS flat after warm-up (<= +5%)": py_growth <= 0.05,
        "each JVM's RSS at its kill flat (<= +5%)": jvm_growth <= 0.05,
        "no file left in the shm folder": not left,
    }
    result = dict(batches=len(clips), kills=len(kills), restarts=stats["restarts"], whole_epochs=whole,
                  batches_differing=lost, python_rss_kib=py_rss, jvm_rss_kib_at_kills=jvm_rss,
                  python_rss_growth=py_growth, jvm_rss_growth=jvm_growth, shm_files_left=left,
                  restart_causes=stats["restart_causes"],
                  disturbed_seconds=disturbed_s, verdicts=verdicts)
    (out / "soak.json").write_text(json.dumps(result, indent=1))
    log(f"whole epochs: {whole} ({bad_epochs} not each clip once); batches differing from the undisturbed run: {lost}")
    log(f"python RSS after warm-up: {warm[0] if warm else '-'} -> {warm[-1] if warm else '-'} KiB ({py_growth:+.1%})")
    log(f"JVM RSS at each kill (KiB): {jvm_rss} (2nd to last: {jvm_growth:+.1%})")
    log(f"shm files left: {left or 'none'}")
    for name, ok in verdicts.items():
        log(f"  {'ok  ' if ok else 'FAIL'} {name}")
    log(f"result: {out / 'soak.json'}")
    sys.exit(0 if all(verdicts.values()) else 1)


if __name__ == "__main__":
    main()
