"""Damaged videos behave as in Java: counted, listed with path, stage and reason, skipped within the budget."""
from pathlib import Path

import pytest

from stoker import StokerError
from stoker.torch import VideoLoader


def test_damaged_videos_are_listed_and_the_good_ones_arrive(damaged_dataset):
    with VideoLoader(damaged_dataset, batch_size=2, frames=4, failure_budget=1) as loader:
        paths = [p for batch in loader for p in batch.paths]
        failures = loader.failures
    broken = sorted(str(p) for p in (damaged_dataset / "broken").iterdir())
    assert sorted(f["path"] for f in failures) == broken
    assert all(f["reason"] and f["stage"] and f["message"] for f in failures)
    assert len(paths) == 8 and not set(paths) & set(broken)


def test_a_budget_of_zero_stops_at_the_first_failure_naming_the_flag(damaged_dataset):
    with VideoLoader(damaged_dataset, batch_size=2, frames=4, failure_budget=0) as loader:
        with pytest.raises(StokerError, match="failure budget"):
            for _ in loader:
                pass


def test_real_damaged_files_are_listed_with_their_reasons(dataset, shared_videos, tmp_path):
    # Third-party files damaged in the wild (the shared samples): no moov atom; Matroska lacing that lies.
    root = tmp_path / "data"
    root.mkdir()
    for label in ("good", "broken"):
        (root / label).mkdir()
    for video in sorted(dataset.glob("*/*"))[:4]:
        (root / "good" / video.name).symlink_to(video.resolve())
    damaged = ["DERIVED_mmaction2_test_truncated_moov_missing.mp4", "libwebm_invalid_fixed_lacing_bad_lace_size.mkv"]
    for name in damaged:
        (root / "broken" / name).symlink_to(shared_videos / "damaged" / name)
    with VideoLoader(root, batch_size=2, frames=4, failure_budget=1) as loader:
        paths = [p for batch in loader for p in batch.paths]
        failures = {Path(f["path"]).name: f["reason"] for f in loader.failures}
    assert failures == {damaged[0]: "truncated", damaged[1]: "corrupt"}
    assert len(paths) == 4
