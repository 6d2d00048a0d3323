"""Damaged videos behave as in Java: counted, listed with path, stage and reason, skipped within the budget."""
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
