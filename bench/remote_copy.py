"""How long copying a remote dataset takes: a manifest of N videos behind a local HTTP server that answers each request
after a fixed latency (an object store's time to first byte), copied by two stoker commands in turn, each into a fresh
cache. Prints the copy's seconds (from stoker's "copying" line to its "N files" line) for each, and their ratios.

    python bench/remote_copy.py OLD_STOKER NEW_STOKER --video V.mp4 --files 240 --latency-ms 20 --rounds 3
"""
import argparse
import http.server
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path


def serve(root: Path, latency: float):
    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(root), **kwargs)

        def log_message(self, *args):
            pass

        def send_head(self):
            time.sleep(latency)
            path = Path(self.translate_path(self.path))
            if not path.is_file():
                self.send_error(404)
                return None
            data = path.read_bytes()
            match = re.fullmatch(r"bytes=(\d+)-(\d+)", self.headers.get("Range", ""))
            if match:
                start, end = int(match.group(1)), min(int(match.group(2)), len(data) - 1)
                self.send_response(206)
                self.send_header("Content-Range", f"bytes {start}-{end}/{len(data)}")
                data = data[start:end + 1]
            else:
                self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("ETag", f'"{path.stat().st_mtime_ns:x}"')
            self.end_headers()
            import io
            return io.BytesIO(data)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def copy_seconds(stoker: str, url: str, cache: Path) -> float:
    env = dict(os.environ, STOKER_CACHE=str(cache))
    process = subprocess.Popen([stoker, "bench", url, "--batches", "1", "--frames", "4", "--size", "32"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    started = ended = None
    for line in process.stdout:
        if line.startswith("copying the videos of"):
            started = time.monotonic()
        elif started and ended is None and re.match(r"\d+ files: \d+ downloaded", line):
            ended = time.monotonic()
    process.wait()
    if started is None or ended is None:
        raise SystemExit(f"{stoker}: no copy seen (exit {process.returncode})")
    return ended - started


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--video", required=True)
    parser.add_argument("--files", type=int, default=240)
    parser.add_argument("--latency-ms", type=float, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    a = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="stoker-remote-copy-"))
    try:
        served = work / "served"
        rows = []
        for i in range(a.files):
            target = served / f"c{i % 2}" / f"v{i:05d}{Path(a.video).suffix}"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(a.video, target)
            rows.append(f"{target.relative_to(served)},c{i % 2}")
        (served / "train.csv").write_text("\n".join(rows) + "\n")
        server = serve(served, a.latency_ms / 1000)
        url = f"http://127.0.0.1:{server.server_address[1]}/train.csv"
        print(f"{a.files} files of {os.path.getsize(a.video)} bytes, {a.latency_ms:g} ms a request")
        for r in range(a.rounds):
            times = {}
            for name, stoker in (("old", a.old), ("new", a.new)) if r % 2 == 0 else (("new", a.new), ("old", a.old)):
                times[name] = copy_seconds(stoker, url, work / f"cache-{name}-{r}")
            print(f"round {r + 1}: old {times['old']:.2f} s, new {times['new']:.2f} s, old/new {times['old'] / times['new']:.2f}x",
                  flush=True)
        server.shutdown()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
