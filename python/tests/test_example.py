"""examples/train_video_classifier.py runs with both loaders: a finite loss, the summary, a valid Chrome trace."""
import json
import subprocess
import sys

import pytest

from conftest import ROOT, stoker_env


@pytest.mark.parametrize("loader", ["stoker", "pytorch"])
def test_the_training_example_trains_and_traces(dataset, tmp_path, loader):
    trace, summary = tmp_path / "trace.json", tmp_path / "summary.json"
    run = subprocess.run([sys.executable, str(ROOT / "examples" / "train_video_classifier.py"), str(dataset),
                          "--loader", loader, "--workers", "1", "--steps", "6", "--warmup", "2", "--width", "0.03",
                          "--frames", "4", "--size", "32", "--batch-size", "2", "--trace", str(trace),
                          "--json", str(summary)], capture_output=True, text=True, env=stoker_env(), timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    for line in ("step time", "samples/s", "data-wait share", "loss", "peak RSS", "PSS with"):
        assert line in run.stdout
    s = json.loads(summary.read_text())
    assert s["loader"] == loader and s["steps"] == 6
    assert s["samples_per_second"] > 0 and 0 <= s["data_wait_share"] <= 1
    assert s["loss_first"] == s["loss_first"] and s["loss_last"] < 100   # finite
    events = json.loads(trace.read_text())["traceEvents"]
    assert {e["name"] for e in events} == {"wait", "h2d", "train"}
    assert len(events) == 18 and all(e["ph"] == "X" and e["dur"] >= 0 for e in events)
