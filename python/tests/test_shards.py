"""Shards written by ``stoker ingest``, read by the bridge from a folder and, in place, from a web server."""
import functools
import http.server
import socket
import subprocess
import threading
from contextlib import contextmanager

import pytest

from stoker import StokerError
from stoker.torch import VideoLoader

BATCH = 3


@pytest.fixture(scope="module")
def shards(dataset, stoker, tmp_path_factory):
    """The 8 videos as video shards (short side 64, 8 fps): small, so that ingest takes seconds."""
    root = tmp_path_factory.mktemp("served")
    folder = root / "shards"
    subprocess.run([stoker, "ingest", str(dataset), str(folder), "--size", "64", "--fps", "8"],
                   check=True, capture_output=True, timeout=600)
    return folder


@contextmanager
def web_server(folder):
    """``folder`` over HTTP on a free local port (Python's file server: no Range support, the JVM slices bodies)."""
    handler = functools.partial(QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    requests = []

    def log_message(self, format, *args):  # the JVM's GETs and HEADs, recorded instead of printed
        QuietHandler.requests.append(self.requestline)


def epoch(loader):
    return [(list(b.paths), b.label.tolist(), b.video.numpy().tobytes()) for b in loader]


def test_a_shard_folder_gives_every_sample_once_per_epoch(shards):
    with VideoLoader(shards, frames=4, size=64, batch_size=BATCH, seed=3) as loader:
        batches = epoch(loader)
        assert len(loader) == len(batches) == 3  # 8 samples: 3, 3, 2
    paths = [p for b in batches for p in b[0]]
    assert len(paths) == 8 == len(set(paths))
    assert all(len(b[2]) == len(b[0]) * 4 * 64 * 64 * 3 for b in batches)


def test_shards_on_a_web_server_are_read_in_place_and_give_the_folders_batches(shards):
    with VideoLoader(shards, frames=4, size=64, batch_size=BATCH, seed=3) as local:
        want = epoch(local)
    QuietHandler.requests.clear()
    with web_server(shards.parent) as base:
        with VideoLoader(f"{base}/shards/", frames=4, size=64, batch_size=BATCH, seed=3) as remote:
            got = epoch(remote)
    assert got == want
    # Read where they are: the manifest, then the shard files, from the server.
    assert any("stoker-shards.json" in r for r in QuietHandler.requests)
    assert any(r.startswith("GET ") and ".json" not in r for r in QuietHandler.requests)


def test_an_unreachable_s3_endpoint_is_an_error_naming_the_location(monkeypatch):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    for name, value in {"AWS_ACCESS_KEY_ID": "stoker", "AWS_SECRET_ACCESS_KEY": "stoker", "AWS_REGION": "us-east-1"}.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(StokerError, match="s3://stoker-no-such-bucket/shards") as failure:
        with VideoLoader("s3://stoker-no-such-bucket/shards", s3_endpoint=f"http://127.0.0.1:{port}") as loader:
            next(iter(loader))
    assert f"127.0.0.1:{port}" in str(failure.value)


def test_a_block_cache_serves_a_later_session_from_local_disk(shards, tmp_path):
    def shard_gets():
        return sum(r.startswith("GET ") and ".json" not in r for r in QuietHandler.requests)

    cache = tmp_path / "block-cache"
    with web_server(shards.parent) as base:
        epochs = []
        for _ in range(2):
            QuietHandler.requests.clear()
            with VideoLoader(f"{base}/shards/", frames=4, size=64, batch_size=BATCH, seed=3,
                             cache_dir=cache, cache_bytes="64M") as loader:
                epochs.append((epoch(loader), shard_gets()))
    (first, first_gets), (second, second_gets) = epochs
    assert second == first
    assert first_gets > 0 and second_gets == 0  # every block came from the cache the first session filled
    assert any(cache.iterdir())
