"""The loader keywords are the options document's: generated from the schema the JVM publishes, checked here with the
JVM's rules and words, sent as one document, and only what was given (the JVM's defaults stand for the rest)."""
import inspect
import json
import subprocess
import sys

import pytest

from conftest import SOURCE
from stoker import _document
from stoker._options import SCHEMA
from stoker.torch import VideoLoader

sys.path.insert(0, str(SOURCE / "python"))
import gen_options  # noqa: E402


def test_the_generated_module_is_the_published_schemas():
    published = json.loads((SOURCE / "docs" / "options.schema.json").read_text())
    assert SCHEMA == published, "the package's _options.py is stale: run python3 python/gen_options.py"
    assert (SOURCE / "python" / "stoker" / "_options.py").read_text() == gen_options.render(published), \
        "python/stoker/_options.py is stale: run python3 python/gen_options.py"


def test_every_keyword_sets_its_place_and_nothing_else():
    doc = _document.document({"frames": 8, "stride": 4, "batch_size": 16, "layout": "ncthw", "seed": 7,
                              "decoder_threads": 2, "failure_budget": "0.3@100", "concurrency": {"decode": 3},
                              "queue_capacity": {"decode": 12}, "resize": "random-crop"})
    assert doc == {"clip": {"frames": 8, "strideFrames": 4}, "batch": {"size": 16, "layout": "NCTHW"},
                   "sampling": {"seed": 7}, "decode": {"threads": 2}, "failureBudget": "0.3@100",
                   "config": {"stages": {"decode": {"concurrency": 3, "queueCapacity": 12}}},
                   "size": {"mode": "SHORT_SIDE_RANDOM_CROP"}}
    assert _document.document({}) == {}, "nothing given, nothing sent: the JVM's defaults stand"


def test_keywords_lie_over_an_options_document():
    doc = _document.document({"frames": 8}, options={"clip": {"frames": 4, "strideFrames": 3}, "decode": {"threads": 2}})
    assert doc == {"clip": {"frames": 8, "strideFrames": 3}, "decode": {"threads": 2}}


def test_every_keyword_of_the_schema_is_in_help_with_its_default():
    text = inspect.getdoc(VideoLoader)
    for keyword, (path, node) in _document.KEYWORDS.items():
        assert f"{keyword}" in text and f"[{path}]" in text
        if "default" in node:
            assert f"{keyword} (default {node['default']!r})" in text
    assert "concurrency [config.stages.STAGE.concurrency]" in text
    parameters = inspect.signature(VideoLoader).parameters
    assert all(p.kind in (p.KEYWORD_ONLY, p.VAR_KEYWORD) for name, p in parameters.items() if name != "dataset")


def test_the_package_is_typed():
    import importlib.resources
    assert importlib.resources.files("stoker").joinpath("py.typed").is_file(), "PEP 561 marker missing"
    assert inspect.signature(VideoLoader).parameters["loader_options"].kind is inspect.Parameter.VAR_KEYWORD


def test_the_jvm_refuses_what_python_refuses_with_the_same_words(stoker):
    # The same documents through both checks: the JVM's message (a usage error of stoker options) is Python's.
    for document in ({"clip": {"frames": 0}}, {"batch": {"layout": "NHWC"}}, {"decode": {"threadz": 2}},
                     {"config": {"stages": {"decode": {"concurrency": "3"}}}}, {"failureBudget": "lots"},
                     {"size": {"areaMin": -0.5}}, {"clip": {"frameFolderFps": 0}}):
        with pytest.raises(_document.OptionsError) as python:
            _document.check_document(document)
        run = subprocess.run([stoker, "options", "--options", json.dumps(document)], capture_output=True, text=True,
                             timeout=120)
        assert run.returncode == 2, run.stderr
        assert f"--options: {python.value}" in run.stderr


def test_the_document_reaches_the_jvm(dataset):
    with VideoLoader(dataset, frames=4, stride=1, size=(48, 32), batch_size=2, layout="NCTHW", seed=3) as loader:
        batch = next(iter(loader))
        assert tuple(batch.video.shape) == (2, 3, 4, 32, 48)
