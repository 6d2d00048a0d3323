"""examples/train_video_classifier.py runs with both loaders: a finite loss, the summary, a valid Chrome trace.

The example's model is torchvision's r3d_18, and torchvision wheels that load with a CPU torch 2.13 are not on this
machine: the example runs on an interpreter that has torchvision (this one, else Debian's ``/usr/bin/python3`` with
torch 1.13, the oldest torch the package declares), given this package and nothing else of this environment.
"""
import json
import subprocess
import sys

import pytest

from conftest import SOURCE, package_only_path


def python_with_torchvision():
    for python in (sys.executable, "/usr/bin/python3"):
        try:
            found = subprocess.run([python, "-c", "import torchvision, av, torch; print(torch.__version__)"],
                                   capture_output=True, text=True, timeout=120)
        except OSError:
            continue
        if found.returncode == 0:
            return python, found.stdout.strip()
    pytest.skip("no Python here has torch, torchvision and av (Debian: python3-torchvision python3-av)")


@pytest.mark.parametrize("loader", ["stoker", "pytorch"])
def test_the_training_example_trains_and_traces(dataset, tmp_path, loader):
    python, torch_version = python_with_torchvision()
    trace, summary = tmp_path / "trace.json", tmp_path / "summary.json"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": package_only_path(tmp_path)}
    run = subprocess.run([python, str(SOURCE / "examples" / "train_video_classifier.py"), str(dataset),
                          "--loader", loader, "--workers", "1", "--steps", "6", "--warmup", "2", "--width", "0.03",
                          "--frames", "4", "--size", "32", "--batch-size", "2", "--trace", str(trace),
                          "--json", str(summary)], capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, f"{python} (torch {torch_version}):\n{run.stderr[-3000:]}"
    for line in ("step time", "samples/s", "data-wait share", "loss", "peak RSS", "PSS with"):
        assert line in run.stdout
    s = json.loads(summary.read_text())
    assert s["loader"] == loader and s["steps"] == 6
    assert s["samples_per_second"] > 0 and 0 <= s["data_wait_share"] <= 1
    assert s["loss_first"] == s["loss_first"] and s["loss_last"] < 100   # finite
    events = json.loads(trace.read_text())["traceEvents"]
    assert {e["name"] for e in events} == {"wait", "h2d", "train"}
    assert len(events) == 18 and all(e["ph"] == "X" and e["dur"] >= 0 for e in events)


def test_the_example_ran_the_package_under_test(tmp_path):
    python, _ = python_with_torchvision()
    import stoker
    run = subprocess.run([python, "-c", "import stoker, torch; print(stoker.__file__, stoker.__version__)"],
                         capture_output=True, text=True, timeout=120,
                         env={"PATH": "/usr/bin:/bin", "PYTHONPATH": package_only_path(tmp_path)})
    assert run.returncode == 0, run.stderr
    path, version = run.stdout.split()
    assert version == stoker.__version__ and path.startswith(package_only_path(tmp_path))


def test_the_declared_torch_floor_is_a_torch_the_tests_run_on():
    # The wheel's metadata says torch>=X.Y; the oldest torch among the interpreters these tests run (Debian's 1.13 for
    # the example, beside the environment's) must be that floor, so that the claim is tested, not guessed. Raise the
    # floor when the oldest torch the tests run on moves.
    from importlib import metadata
    try:
        requires = metadata.requires("stoker") or []
    except metadata.PackageNotFoundError:
        pytest.skip("stoker is not installed (its metadata is the wheel's)")
    floor = next(r for r in (q.replace(" ", "").replace("(", "").replace(")", "") for q in requires)
                 if r.startswith("torch>=")).split(">=")[1].split(";")[0]
    versions = []
    for python in (sys.executable, "/usr/bin/python3"):
        try:
            found = subprocess.run([python, "-c", "import torch; print(torch.__version__)"], capture_output=True,
                                   text=True, timeout=120)
        except OSError:
            continue
        if found.returncode == 0:
            versions.append(tuple(int(p) for p in found.stdout.strip().split("+")[0].split(".")[:2]))
    assert min(versions) == tuple(int(p) for p in floor.split(".")[:2]), f"declared torch>={floor}; tests run {versions}"
