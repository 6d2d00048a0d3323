"""Fixtures of the bridge's tests: the checkout's ``stoker`` command and small datasets of real videos.

The videos come from ``../shared/videos`` beside the checkout (real third-party files); tests that need them skip
with the reason where that folder is absent.
"""
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
SHARED = ROOT.parent / "shared" / "videos"

# Two classes of real, decodable videos of a few seconds each (MANIFEST.txt has their properties).
GOOD = {
    "flowers": ["mdn_flower_960x540.mp4", "mdn_friday_640x480.mp4", "mmaction2_demo_kinetics_340x256.mp4",
                "mdn_stream_of_water_vp8.webm"],
    "actions": ["decord_flipping_a_pancake.mkv", "mmaction2_test_mpeg4_mp3.avi", "torchcodec_nasa_13013.mp4",
                "torchcodec_var_fps_128x128.mp4"],
}
DAMAGED = ["DERIVED_mmaction2_test_truncated_moov_missing.mp4", "libwebm_invalid_fixed_lacing_bad_lace_size.mkv"]


def _link_dataset(root: Path, classes: dict, source: Path) -> Path:
    for label, names in classes.items():
        (root / label).mkdir(parents=True, exist_ok=True)
        for name in names:
            (root / label / name).symlink_to(source / name)
    return root


@pytest.fixture(scope="session")
def shared_videos() -> Path:
    if not SHARED.is_dir():
        pytest.skip(f"no sample videos: {SHARED} is absent (the shared folder beside the checkout)")
    return SHARED


@pytest.fixture(scope="session")
def dataset(tmp_path_factory, shared_videos) -> Path:
    """ROOT/<class>/<video>: 8 real videos in 2 classes."""
    return _link_dataset(tmp_path_factory.mktemp("dataset"), GOOD, shared_videos)


@pytest.fixture(scope="session")
def damaged_dataset(tmp_path_factory, shared_videos) -> Path:
    """The good videos plus a class of two damaged files (no moov atom; bad lace sizes)."""
    root = _link_dataset(tmp_path_factory.mktemp("damaged"), GOOD, shared_videos)
    return _link_dataset(root, {"broken": DAMAGED}, shared_videos / "damaged")


@pytest.fixture(scope="session")
def stoker() -> str:
    return str(ROOT / "stoker")


def stoker_env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "python") + os.pathsep + env.get("PYTHONPATH", "")
    return env
