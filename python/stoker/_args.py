"""The loader's arguments: checked here, before a JVM starts, and turned into ``stoker serve`` flags."""
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple, Union

LAYOUTS = ("NTHWC", "NCTHW")
# The stages --split-after and --concurrency name (dev.stoker.video.loader.LoaderStage).
STAGES = ("fetch", "demux", "decode", "convert", "batch", "collate")
SHARD_MANIFEST = "stoker-shards.json"
# Arguments that are None unless given, and the stoker serve flag each becomes.
OPTIONAL_FLAGS = (("split_after", "--split-after"), ("failure_budget", "--failure-budget"), ("quarantine", "--quarantine"),
                  ("publish", "--publish"), ("s3_endpoint", "--s3-endpoint"), ("cache_dir", "--cache-dir"),
                  ("cache_bytes", "--cache-bytes"), ("max_lead_frames", "--max-lead-frames"), ("workload", "--workload"))
# The named clip recipes --workload takes (dev.stoker.video.loader.Workload).
WORKLOADS = ("spdl-example",)


@dataclass(frozen=True)
class LoaderArgs:
    """Everything a ``VideoLoader`` was given, checked. ``flags()`` is the ``stoker serve`` command line."""
    dataset: str
    frames: int = 16
    stride: int = 2
    size: Tuple[int, int] = (112, 112)
    batch_size: int = 8
    layout: str = "NTHWC"
    seed: int = 0
    rank: int = 0
    world_size: int = 1
    drop_last: bool = False
    config: Optional[str] = None
    concurrency: Dict[str, int] = field(default_factory=dict)
    split_after: Optional[str] = None
    failure_budget: Optional[str] = None
    quarantine: Optional[str] = None
    clips_per_video: int = 1
    prefetch: int = 4
    hold: int = 0
    shm_dir: str = "/dev/shm"
    publish: Optional[int] = None
    s3_endpoint: Optional[str] = None
    cache_dir: Optional[str] = None
    cache_bytes: Optional[str] = None
    max_lead_frames: Optional[int] = None
    workload: Optional[str] = None

    def flags(self) -> List[str]:
        defaults = LoaderArgs(dataset=self.dataset)
        # Beside a config file or a workload, only what differs from the defaults, so that their values stand.
        explicit = self.config is None and self.workload is None

        def given(name):
            return explicit or getattr(self, name) != getattr(defaults, name)

        args = [self.dataset]
        if self.config is not None:
            args += ["--config", self.config]
        if given("frames"):
            args += ["--frames", str(self.frames)]
        if given("stride"):
            args += ["--stride", str(self.stride)]
        if given("size"):
            w, h = self.size
            args += ["--size", str(w) if w == h else f"{w}x{h}"]
        if given("batch_size"):
            args += ["--batch", str(self.batch_size)]
        if given("layout"):
            args += ["--layout", self.layout]
        if given("seed"):
            args += ["--seed", str(self.seed)]
        if given("clips_per_video"):
            args += ["--clips-per-video", str(self.clips_per_video)]
        for stage, n in self.concurrency.items():
            args += ["--concurrency", f"{stage}={n}"]
        for name, flag in OPTIONAL_FLAGS:
            if getattr(self, name) is not None:
                args += [flag, str(getattr(self, name))]
        args += ["--rank", str(self.rank), "--world-size", str(self.world_size), "--prefetch", str(self.prefetch),
                 "--hold", str(self.hold), "--shm-dir", self.shm_dir]
        if self.drop_last:
            args.append("--drop-last")
        return args


def positive_int(name: str, value, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name}={value!r}: expected an integer")
    if value < minimum:
        raise ValueError(f"{name}={value}: expected {minimum} or more")
    return value


def check_max_lead_frames(value) -> Optional[int]:
    """A decode budget: clips start at most N frames after the keyframe decoding starts at (0: on keyframes)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"max_lead_frames={value!r}: expected 0 or more frames (0: clips start on keyframes)")
    return value


def check_workload(value) -> Optional[str]:
    if value is None:
        return None
    if value not in WORKLOADS:
        raise ValueError(f"workload={value!r}: expected one of {', '.join(WORKLOADS)}")
    return value


def parse_size(size: Union[int, Tuple[int, int], str]) -> Tuple[int, int]:
    """``112``, ``(160, 120)`` (width, height) or ``"160x120"``."""
    if isinstance(size, str):
        parts = size.lower().split("x")
        try:
            values = tuple(int(p) for p in parts)
        except ValueError:
            raise ValueError(f"size={size!r}: expected S, (W, H) or 'WxH'") from None
    elif isinstance(size, (tuple, list)):
        values = tuple(size)
    else:
        values = (size,)
    if len(values) == 1:
        values = (values[0], values[0])
    if len(values) != 2 or any(isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in values):
        raise ValueError(f"size={size!r}: expected a positive S, (W, H) or 'WxH'")
    return values


def check_dataset(dataset) -> str:
    """The dataset as a string; a missing path or a folder that is not a dataset fails here, not in the JVM."""
    text = os.fspath(dataset)
    if "://" in text:
        return text  # object storage or HTTP: the JVM reads it
    path = Path(text).expanduser()
    if not path.exists():
        raise FileNotFoundError(f"dataset={text!r}: no such file or folder")
    if path.is_file():
        if path.suffix.lower() != ".csv":
            raise ValueError(f"dataset={text!r}: a file, but not a CSV manifest (expected a folder ROOT/<class>/<video>, "
                             f"a .csv manifest, or a shard folder made by stoker ingest)")
        return str(path.resolve())
    if (path / SHARD_MANIFEST).is_file():
        return str(path.resolve())
    has_class = any(c.is_dir() and any(f.is_file() for f in c.iterdir()) for c in path.iterdir())
    if not has_class:
        raise ValueError(f"dataset={text!r}: not a dataset: no class folder with files in it (expected "
                         f"ROOT/<class>/<video>, a .csv manifest, or a shard folder with {SHARD_MANIFEST})")
    return str(path.resolve())


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
    if cache_bytes is None:
        return os.fspath(cache_dir), None
    count = None if isinstance(cache_bytes, bool) else BYTE_COUNT.fullmatch(str(cache_bytes))
    if count is None or int(count.group(1)) < 1:
        raise ValueError(f"cache_bytes={cache_bytes!r}: expected a byte count, e.g. 4294967296 or '4G'")
    return os.fspath(cache_dir), str(cache_bytes).strip()


def check_concurrency(concurrency) -> Dict[str, int]:
    if concurrency is None:
        return {}
    if not isinstance(concurrency, dict):
        raise ValueError(f"concurrency={concurrency!r}: expected a dict of stage to threads, e.g. {{'decode': 3}}")
    for stage, n in concurrency.items():
        if stage not in STAGES:
            raise ValueError(f"concurrency: unknown stage {stage!r} (expected one of {', '.join(STAGES)})")
        positive_int(f"concurrency[{stage!r}]", n)
    return dict(concurrency)


def check_failure_budget(budget) -> Optional[str]:
    """``0.3``, ``"0.3@100"`` (a rate, once that many items were seen), ``0`` (stop at the first), ``1`` (never)."""
    if budget is None:
        return None
    text = str(budget)
    rate, _, minimum = text.partition("@")
    try:
        ok = 0.0 <= float(rate) <= 1.0 and (not minimum or int(minimum) >= 0)
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(f"failure_budget={budget!r}: expected RATE or 'RATE@MIN_ITEMS' with RATE in [0, 1]")
    return text


def check_existing_file(name: str, value) -> Optional[str]:
    if value is None:
        return None
    path = Path(os.fspath(value)).expanduser()
    if not path.is_file():
        raise FileNotFoundError(f"{name}={os.fspath(value)!r}: no such file")
    return str(path.resolve())
