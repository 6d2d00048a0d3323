"""Bad arguments fail in Python, naming the argument, before a JVM starts; so does a GPU request without a GPU."""
import os
import subprocess

import pytest
import torch

from stoker import StokerError, stoker_command
from stoker.torch import VideoLoader


@pytest.fixture
def started(monkeypatch):
    """Every process started while the test runs (its argument lists): the JVM is one, so none means no JVM. A
    record of what happened, not a bound on how long it took (under load, starting nothing can take a second)."""
    commands = []
    popen = subprocess.Popen

    def recording(args, *rest, **kwargs):
        commands.append(list(args) if isinstance(args, (list, tuple)) else [args])
        return popen(args, *rest, **kwargs)

    monkeypatch.setattr(subprocess, "Popen", recording)
    return commands


@pytest.mark.parametrize("kwargs, error, names", [
    ({"layout": "NHWC"}, ValueError, "layout='NHWC'"),
    ({"size": 0}, ValueError, "size=0"),
    ({"size": "12xy"}, ValueError, "size='12xy'"),
    ({"frames": 0}, ValueError, "frames=0"),
    ({"batch_size": 2.5}, ValueError, "batch_size=2.5"),
    ({"rank": 2, "world_size": 2}, ValueError, "rank=2"),
    ({"concurrency": {"decode": 0}}, ValueError, "concurrency={'decode': 0}: config.stages.decode.concurrency: 0 (expected: 1+)"),
    ({"resize": "nearest"}, ValueError, "resize='nearest': size.mode: \"nearest\" (expected: one of SHORT_SIDE_CENTER_CROP"),
    ({"crop": "left"}, ValueError, "crop='left': expected 'center', 'random' or 'random-resized'"),
    ({"options": {"clip": {"framez": 8}}}, ValueError, "options: clip.framez: not an option (expected: one of frames,"),
    ({"framez": 8}, TypeError, "unexpected keyword argument 'framez' (did you mean 'frames'?)"),
    ({"split_after": "resize"}, ValueError, "split_after='resize'"),
    ({"failure_budget": 1.5}, ValueError, "failure_budget=1.5"),
    ({"config": "/nonexistent/config.json"}, FileNotFoundError, "config='/nonexistent/config.json'"),
    ({"shm_dir": "/nonexistent/shm"}, FileNotFoundError, "shm_dir='/nonexistent/shm'"),
    ({"restart": -1}, ValueError, "restart=-1: expected 0 or more"),
    ({"restart": 1.5}, ValueError, "restart=1.5: expected an integer"),
    ({"s3_endpoint": "minio:9000"}, ValueError, "s3_endpoint='minio:9000'"),
    ({"cache_bytes": "4G"}, ValueError, "cache_bytes='4G': given without cache_dir"),
    ({"cache_dir": "/tmp/c", "cache_bytes": "4 GiB"}, ValueError, "cache_bytes='4 GiB'"),
    ({"max_lead_frames": -2}, ValueError, "max_lead_frames=-2: clip.maxLeadFrames: -2 (expected: -1+)"),
    ({"max_lead_frames": 2.5}, ValueError, "max_lead_frames=2.5: clip.maxLeadFrames: 2.5 (expected: an integer)"),
    ({"clip_window": "0.5:0"}, ValueError, "clip_window='0.5:0': expected 'FROM:TO'"),
    ({"workload": "spdl"}, ValueError, "workload='spdl'"),
    ({"size": (64,)}, ValueError, "size=(64,): expected a positive S, (W, H) or 'WxH'"),
    ({"frame_folder_fps": 0}, ValueError, "frame_folder_fps=0: clip.frameFolderFps: 0 (expected: 0.001..1000)"),
    ({"area_min": -0.5}, ValueError, "area_min=-0.5: size.areaMin: -0.5 (expected: above 0, at most 1)"),
    # int() would read these as 5 and 1000; the CLI's --size refuses them too.
    ({"size": "+5"}, ValueError, "size='+5': expected S, (W, H) or 'WxH'"),
    ({"size": "1_000"}, ValueError, "size='1_000': expected S, (W, H) or 'WxH'"),
    # NaN passes every comparison with a bound, and no JSON carries it to the JVM.
    ({"area_min": float("nan")}, ValueError, "area_min=nan: size.areaMin: NaN (expected: a finite number)"),
    ({"clip_window": (0, float("inf"))}, ValueError, "clip_window=(0, inf): expected 'FROM:TO'"),
    ({"device": "cuda0"}, ValueError, "device='cuda0': expected None, 'cpu' or 'cuda[:N]'"),
    ({"frames": 10 ** 12}, ValueError, "frames=1000000000000: clip.frames: 1000000000000 (expected: an integer of 32 bits)"),
    ({"seed": 2 ** 64}, ValueError, "seed=18446744073709551616: sampling.seed: 18446744073709551616 (expected: an integer of 64"),
])
def test_a_bad_argument_is_named_before_any_jvm_starts(dataset, kwargs, error, names, started):
    with pytest.raises(error) as raised:
        VideoLoader(dataset, **kwargs)
    assert names in str(raised.value)
    assert started == [], "a JVM was started"


def test_remote_shards_and_their_endpoint_reach_the_jvm_as_given():
    # s3:// and https:// datasets are the JVM's to open (ServeRemoteShardsTest serves shards from S3 there).
    from stoker._args import ServeArgs, check_dataset
    location = check_dataset("s3://bucket/shards/train")
    flags = ServeArgs(dataset=location, options={}, s3_endpoint="http://minio:9000").flags()
    assert flags[0] == "s3://bucket/shards/train"
    assert flags[flags.index("--s3-endpoint") + 1] == "http://minio:9000"
    assert "--s3-endpoint" not in ServeArgs(dataset=location, options={}).flags()


def test_a_stage_the_loader_lacks_is_a_value_error_from_the_jvm(dataset):
    # Stage names are the loader's (video files and shards have different ones): the JVM judges them, by name.
    with pytest.raises(ValueError, match="config.stages.decoder: not a stage of this loader"):
        len(VideoLoader(dataset, concurrency={"decoder": 2}))


def test_a_decode_budget_a_clip_window_and_a_workload_reach_the_jvm():
    import json
    from stoker import _document
    from stoker._args import ServeArgs
    assert _document.document({"max_lead_frames": 0}) == {"clip": {"maxLeadFrames": 0}}
    assert _document.document({"window_from_seconds": 0, "window_to_seconds": 0.5}) == \
        {"clip": {"window": {"fromSeconds": 0, "toSeconds": 0.5}}}
    # A workload is a recipe the document lies over: only what was given beside it goes, so its size and frames stand.
    flags = ServeArgs(dataset="d", options=_document.document({"batch_size": 16}), workload="spdl-example").flags()
    assert flags[flags.index("--workload") + 1] == "spdl-example"
    assert json.loads(flags[flags.index("--options") + 1]) == {"batch": {"size": 16}}


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
def test_cuda_without_a_gpu_fails_at_once_in_one_line_naming_the_cause_and_the_fix(dataset, started):
    with pytest.raises(ValueError, match="device='cuda:0': this machine has no usable CUDA device") as raised:
        VideoLoader(dataset, device="cuda:0")
    assert "\n" not in str(raised.value) and "leave device out for batches in host memory" in str(raised.value)
    with pytest.raises(ValueError, match="pin_memory=True: .* leave pin_memory off"):
        VideoLoader(dataset, pin_memory=True)
    assert started == [], "a JVM was started"


def test_a_cache_folder_that_cannot_be_made_is_named_before_any_jvm_starts(dataset, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("in the way")
    with pytest.raises(ValueError, match=r"cache_dir='.*a-file/cache': .*a-file is a file, not a folder") as raised:
        VideoLoader(dataset, cache_dir=blocker / "cache", cache_bytes="64M")
    assert "\n" not in str(raised.value)
    read_only = tmp_path / "read-only"
    read_only.mkdir(mode=0o500)
    if not os.access(read_only, os.W_OK):   # file modes do not stop root
        with pytest.raises(ValueError, match="not writable by this user"):
            VideoLoader(dataset, cache_dir=read_only / "cache")


def test_a_missing_shm_folder_says_what_to_pass_instead(dataset):
    with pytest.raises(FileNotFoundError, match=r"shm_dir='/nonexistent/shm': no such folder \(expected: a tmpfs"):
        VideoLoader(dataset, shm_dir="/nonexistent/shm")


def test_the_stoker_command_is_found_or_the_error_says_how_to_set_it(tmp_path, monkeypatch):
    with pytest.raises(StokerError, match="stoker_home= .*: no stoker launcher there"):
        stoker_command(str(tmp_path))
    monkeypatch.setenv("STOKER_HOME", str(tmp_path))
    with pytest.raises(StokerError, match="STOKER_HOME .*: no stoker launcher there"):
        stoker_command()
    monkeypatch.delenv("STOKER_HOME")
    assert os.access(stoker_command(), os.X_OK)   # the wheel's bundle, or the checkout this package sits in


def test_webdataset_archives_a_link_to_one_and_a_shard_pattern_are_datasets(tmp_path):
    """A .tar archive is a dataset, and so is a link named x.tar (a hub cache's, to a blob of another name: passed as
    the link, not what it points to), a folder of them, and WebDataset's pattern, which the JVM expands."""
    from stoker._args import check_dataset

    blob = tmp_path / "blobs" / "aa11"
    blob.parent.mkdir()
    blob.write_bytes(b"\0" * 1024)
    link = tmp_path / "snapshot" / "train-000.tar"
    link.parent.mkdir()
    link.symlink_to(blob)
    assert check_dataset(link) == str(link)
    assert check_dataset(link.parent) == str(link.parent)
    pattern = tmp_path / "snapshot" / "train-{000..009}.tar"
    assert check_dataset(pattern) == str(pattern)
    with pytest.raises(FileNotFoundError, match="no such file or folder"):
        check_dataset(tmp_path / "missing.tar")
