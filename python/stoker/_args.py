"""The session's arguments (dataset, shared memory, storage): checked here, before a JVM starts, and turned into
``stoker serve`` flags with the options document (``_document``)."""
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Tuple, Union

from ._document import _plain, to_json
from ._options import SCHEMA

SHARD_MANIFEST = "stoker-shards.json"


@dataclass(frozen=True)
class ServeArgs:
    """What ``stoker serve`` is started with: the dataset, the options document (only what was given: the JVM's
    defaults stand for the rest), and the session's own settings. ``flags()`` is its command line."""
    dataset: str
    options: dict
    hold: int = 0
    config: Optional[str] = None
    prefetch: Optional[int] = None
    shm_dir: Optional[str] = None
    publish: Optional[int] = None
    s3_endpoint: Optional[str] = None
    cache_dir: Optional[str] = None
    cache_bytes: Optional[str] = None
    serve_device: Optional[str] = None    # "cuda:N": device batches by CUDA IPC (decode nvdec, hybrid or auto)
    workload: Optional[str] = None        # a named clip recipe the document lies over ("spdl-example")

    def flags(self) -> List[str]:
        args = [self.dataset, "--options", to_json(self.options), "--hold", str(self.hold)]
        for name in ("config", "workload", "prefetch", "shm_dir", "publish", "s3_endpoint", "cache_dir", "cache_bytes"):
            value = getattr(self, name)
            if value is not None:
                args += ["--" + name.replace("_", "-"), str(value)]
        if self.serve_device is not None:
            args += ["--device", self.serve_device]
        return args


def positive_int(name: str, value, minimum: int = 1) -> int:
    value = _plain(value)   # a numpy or torch integer scalar
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name}={value!r}: expected an integer")
    if value < minimum:
        raise ValueError(f"{name}={value}: expected {minimum} or more")
    return value


def parse_size(size: Union[int, Tuple[int, int], str]) -> Tuple[int, int]:
    """``112``, ``(160, 120)`` (width, height) or ``"160x120"``."""
    if isinstance(size, str):
        # Digits only, as the CLI's --size takes them: int() alone would also take "+5", " 5" and "1_000".
        if not re.fullmatch(r"[0-9]+(?:[xX][0-9]+)?", size):
            raise ValueError(f"size={size!r}: expected S, (W, H) or 'WxH'")
        values = tuple(int(p) for p in size.lower().split("x"))
    elif isinstance(size, (tuple, list)):
        values = tuple(_plain(v) for v in size)   # (W, H) only: a 1-tuple is a mistake, not a square
    else:
        values = (_plain(size), _plain(size))
    if len(values) == 1 and isinstance(size, str):
        values = (values[0], values[0])
    if len(values) != 2 or any(isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in values):
        raise ValueError(f"size={size!r}: expected a positive S, (W, H) or 'WxH'")
    return values


def parse_clip_window(window: Union[str, Tuple[float, float]]) -> Tuple[float, float]:
    """``"0:0.5"`` or ``(0, 0.5)``: seconds from each video's first frame (the window's bounds, checked by the schema
    and the JVM: ``0 <= FROM < TO``)."""
    parts = window.split(":") if isinstance(window, str) else list(window) if isinstance(window, (tuple, list)) else []
    try:
        if len(parts) == 2:
            low, high = (float(p) for p in parts)
            if 0 <= low < high < math.inf:
                return low, high
    except (TypeError, ValueError):
        pass
    raise ValueError(f"clip_window={window!r}: expected 'FROM:TO' or (FROM, TO) seconds with 0 <= FROM < TO")


def check_dataset(dataset) -> str:
    """The dataset as a string; a missing path or a folder that is not a dataset fails here, not in the JVM."""
    text = os.fspath(dataset)
    if "://" in text:
        return text  # object storage or HTTP: the JVM reads it
    path = Path(text).expanduser()
    if not path.exists() and re.search(r"\{[^{}]*\}", str(path)):
        return os.path.abspath(path)  # WebDataset's train-{000..009}.tar: the JVM expands it and names what is missing
    if not path.exists():
        raise FileNotFoundError(f"dataset={text!r}: no such file or folder")
    # Absolute but not resolved: a link named x.tar (a hub cache's) may point to a blob of another name.
    if path.is_file():
        if path.suffix.lower() not in (".csv", ".tar"):
            raise ValueError(f"dataset={text!r}: a file, but not a CSV manifest or a .tar archive (expected a folder "
                             f"ROOT/<class>/<video>, a .csv manifest, WebDataset .tar archives, or a shard folder made "
                             f"by stoker ingest)")
        return os.path.abspath(path)
    if (path / SHARD_MANIFEST).is_file():
        return os.path.abspath(path)
    # A video is a file, or a folder of its frames as images (mmaction2's rawframes), as the JVM's listing takes them.
    def is_video(v):
        if v.name.startswith("."):
            return False
        if v.is_file():
            return True
        return v.is_dir() and not v.name.startswith("@") and any(
            f.suffix.lower() in (".jpg", ".jpeg", ".png") and not f.name.startswith(".") for f in v.iterdir())

    children = list(path.iterdir())
    has_class = any(c.is_dir() and any(is_video(v) for v in c.iterdir()) for c in children)
    # WebDataset shards: .tar archives directly in the folder, read in place when there is no class folder.
    has_archives = not any(c.is_dir() and not c.name.startswith(".") for c in children) and any(
        c.is_file() and c.suffix.lower() == ".tar" and not c.name.startswith(".") for c in children)
    if not has_class and not has_archives:
        raise ValueError(f"dataset={text!r}: not a dataset: no class folder with videos in it (expected "
                         f"ROOT/<class>/<video>, a video file or a folder of its frames; .tar archives of WebDataset "
                         f"samples; a .csv manifest; or a shard folder with {SHARD_MANIFEST})")
    return os.path.abspath(path)


def check_s3_endpoint(endpoint) -> Optional[str]:
    """An S3-compatible server's URL (MinIO, Ceph, s3proxy) for s3:// datasets; None: AWS's own."""
    if endpoint is None:
        return None
    text = str(endpoint)
    if not text.startswith(("http://", "https://")):
        raise ValueError(f"s3_endpoint={endpoint!r}: expected an http:// or https:// URL")
    return text


# A byte count as the JVM reads one (IngestOptions.parseBytes): digits, then k, M, G or T, then an optional B.
BYTE_COUNT = re.compile(r"\s*([0-9]+)\s*[kmgt]?b?\s*", re.IGNORECASE)


def check_cache(cache_dir, cache_bytes) -> Tuple[Optional[str], Optional[str]]:
    """A folder for the block cache of remote shards and its budget: bytes, or a count with k, M, G or T ("20G")."""
    if cache_dir is None:
        if cache_bytes is not None:
            raise ValueError(f"cache_bytes={cache_bytes!r}: given without cache_dir")
        return None, None
    check_writable_folder("cache_dir", cache_dir)
    if cache_bytes is None:
        return os.fspath(cache_dir), None
    count = None if isinstance(cache_bytes, bool) else BYTE_COUNT.fullmatch(str(cache_bytes))
    if count is None or int(count.group(1)) < 1:
        raise ValueError(f"cache_bytes={cache_bytes!r}: expected a byte count, e.g. 4294967296 or '4G'")
    return os.fspath(cache_dir), str(cache_bytes).strip()


def check_writable_folder(name: str, folder) -> None:
    """A folder this process may write, or may make: else a ValueError naming it and why, before any JVM starts."""
    path = Path(os.fspath(folder)).expanduser()
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise ValueError(f"{name}={os.fspath(folder)!r}: {existing} is a file, not a folder; pass a folder to keep it in")
    if not os.access(existing, os.W_OK | os.X_OK):
        made = "" if existing == path else f" (its nearest existing folder, {existing}, is read-only)"
        raise ValueError(f"{name}={os.fspath(folder)!r}: not writable by this user{made}; pass a folder you can write")


def check_workload(workload) -> Optional[str]:
    """A named clip recipe (``stoker bench --workload``): one of the schema's ``x-workloads``."""
    if workload is None:
        return None
    names = SCHEMA["x-workloads"]
    if workload not in names:
        raise ValueError(f"workload={workload!r}: expected one of {', '.join(names)}")
    return workload


def check_existing_file(name: str, value) -> Optional[str]:
    if value is None:
        return None
    path = Path(os.fspath(value)).expanduser()
    if not path.is_file():
        raise FileNotFoundError(f"{name}={os.fspath(value)!r}: no such file")
    return str(path.resolve())
