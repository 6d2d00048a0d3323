"""Bad arguments fail in Python, naming the argument, before a JVM starts; so does a GPU request without a GPU."""
import os
import time

import pytest
import torch

from stoker import StokerError, stoker_command
from stoker.torch import VideoLoader


@pytest.mark.parametrize("kwargs, error, names", [
    ({"layout": "NHWC"}, ValueError, "layout='NHWC'"),
    ({"size": 0}, ValueError, "size=0"),
    ({"size": "12xy"}, ValueError, "size='12xy'"),
    ({"frames": 0}, ValueError, "frames=0"),
    ({"batch_size": 2.5}, ValueError, "batch_size=2.5"),
    ({"rank": 2, "world_size": 2}, ValueError, "rank=2"),
    ({"concurrency": {"decoder": 2}}, ValueError, "unknown stage 'decoder'"),
    ({"split_after": "resize"}, ValueError, "split_after='resize'"),
    ({"failure_budget": 1.5}, ValueError, "failure_budget=1.5"),
    ({"config": "/nonexistent/config.json"}, FileNotFoundError, "config='/nonexistent/config.json'"),
    ({"shm_dir": "/nonexistent/shm"}, FileNotFoundError, "shm_dir='/nonexistent/shm'"),
    ({"s3_endpoint": "minio:9000"}, ValueError, "s3_endpoint='minio:9000'"),
    ({"cache_bytes": "4G"}, ValueError, "cache_bytes='4G': given without cache_dir"),
    ({"cache_dir": "/tmp/c", "cache_bytes": "4 GiB"}, ValueError, "cache_bytes='4 GiB'"),
    ({"max_lead_frames": -1}, ValueError, "max_lead_frames=-1"),
    ({"max_lead_frames": 2.5}, ValueError, "max_lead_frames=2.5"),
    ({"workload": "spdl"}, ValueError, "workload='spdl'"),
])
def test_a_bad_argument_is_named_before_any_jvm_starts(dataset, kwargs, error, names):
    start = time.monotonic()
    with pytest.raises(error) as raised:
        VideoLoader(dataset, **kwargs)
    assert names in str(raised.value)
    assert time.monotonic() - start < 1.0   # no JVM was started


def test_remote_shards_and_their_endpoint_reach_the_jvm_as_given():
    # s3:// and https:// datasets are the JVM's to open (ServeRemoteShardsTest serves shards from S3 there).
    from stoker._args import LoaderArgs, check_dataset
    location = check_dataset("s3://bucket/shards/train")
    flags = LoaderArgs(dataset=location, s3_endpoint="http://minio:9000").flags()
    assert flags[0] == "s3://bucket/shards/train"
    assert flags[flags.index("--s3-endpoint") + 1] == "http://minio:9000"
    assert "--s3-endpoint" not in LoaderArgs(dataset=location).flags()


def test_a_decode_budget_and_a_workload_reach_the_jvm_as_flags():
    from stoker._args import LoaderArgs
    flags = LoaderArgs(dataset="d", max_lead_frames=0).flags()
    assert flags[flags.index("--max-lead-frames") + 1] == "0"
    assert "--max-lead-frames" not in LoaderArgs(dataset="d").flags()
    # Beside a workload only what differs from the defaults goes, so that the workload's size and frames stand.
    flags = LoaderArgs(dataset="d", workload="spdl-example", batch_size=16).flags()
    assert flags[flags.index("--workload") + 1] == "spdl-example"
    assert "--size" not in flags and "--frames" not in flags and flags[flags.index("--batch") + 1] == "16"


def test_cache_bytes_are_read_as_the_jvm_reads_them():
    from stoker._args import check_cache
    for given in ("4G", "4GB", "512m", "1T", 4294967296, " 64 MB "):
        assert check_cache("/tmp/c", given) == ("/tmp/c", str(given).strip())
    for bad in ("0", "4 GiB", "-1G", "4.5G", True):
        with pytest.raises(ValueError, match="cache_bytes="):
            check_cache("/tmp/c", bad)


def test_a_missing_dataset_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError, match="dataset='/nonexistent/data': no such file or folder"):
        VideoLoader("/nonexistent/data")


def test_a_folder_that_is_no_dataset_is_a_value_error(tmp_path):
    (tmp_path / "notes.txt").write_text("not videos")
    with pytest.raises(ValueError, match="not a dataset"):
        VideoLoader(tmp_path)
    with pytest.raises(ValueError, match="not a CSV manifest"):
        VideoLoader(tmp_path / "notes.txt")


def test_a_usage_error_found_by_the_jvm_is_a_value_error_naming_the_flag(dataset, tmp_path):
    config = tmp_path / "config.json"
    config.write_text("{ not json")
    with pytest.raises(ValueError, match="--config"):
        len(VideoLoader(dataset, config=config))


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU: the no-GPU error cannot show")
def test_cuda_without_a_gpu_fails_at_once_with_a_clear_message(dataset):
    with pytest.raises(ValueError, match="device='cuda:0': this machine has no usable CUDA device"):
        VideoLoader(dataset, device="cuda:0")
    with pytest.raises(ValueError, match="pin_memory=True"):
        VideoLoader(dataset, pin_memory=True)


def test_the_stoker_command_is_found_or_the_error_says_how_to_set_it(tmp_path, monkeypatch):
    with pytest.raises(StokerError, match="stoker_home= .*: no stoker launcher there"):
        stoker_command(str(tmp_path))
    monkeypatch.setenv("STOKER_HOME", str(tmp_path))
    with pytest.raises(StokerError, match="STOKER_HOME .*: no stoker launcher there"):
        stoker_command()
    monkeypatch.delenv("STOKER_HOME")
    assert os.access(stoker_command(), os.X_OK)   # the checkout this package sits in


def test_an_installed_copy_finds_the_checkout_it_was_built_from(tmp_path):
    import shutil
    import subprocess
    import sys
    from conftest import ROOT
    site = tmp_path / "site"
    shutil.copytree(ROOT / "python" / "stoker", site / "stoker", ignore=shutil.ignore_patterns("__pycache__"))
    (site / "stoker" / "_checkout.txt").write_text(f"{ROOT}\n")   # what setup.py's build step writes
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(site)}
    run = subprocess.run([sys.executable, "-c", "from stoker import stoker_command; print(stoker_command())"],
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == str(ROOT / "stoker")
