"""VideoLoader's keywords, checked here before a JVM starts, turned into ``stoker serve``'s arguments (the options
document and the session's own settings)."""
import os
from typing import Mapping, Optional, Tuple, Union

import torch

from . import _document
from ._args import (ServeArgs, check_cache, check_dataset, check_existing_file, check_s3_endpoint, check_workload,
                    parse_clip_window, parse_size, positive_int)
from ._device import cuda_device


def serve_args(dataset, *, size: Union[None, int, Tuple[int, int], str], crop: Optional[str],
               clip_window: Union[None, str, Tuple[float, float]], workload: Optional[str], options: Optional[Mapping],
               config, device, hold: int, prefetch: Optional[int], shm_dir: Optional[str], publish: Optional[int],
               s3_endpoint: Optional[str], cache_dir, cache_bytes, loader_options: Mapping) -> ServeArgs:
    given = dict(loader_options)
    if size is not None:
        if "width" in given or "height" in given:
            raise ValueError(f"size={size!r}: given with width or height (expected one or the other)")
        given["width"], given["height"] = parse_size(size)
    if crop is not None:
        if "resize" in given:
            raise ValueError(f"crop={crop!r}: given with resize (expected one or the other)")
        if crop not in ("center", "random", "random-resized"):
            raise ValueError(f"crop={crop!r}: expected 'center', 'random' or 'random-resized'")
        given["resize"] = crop
    if clip_window is not None:
        given["window_from_seconds"], given["window_to_seconds"] = parse_clip_window(clip_window)
    rank, world_size = _rank_and_world(given.get("rank"), given.get("world_size"))
    if rank != 0 or "rank" in given:
        given["rank"] = rank
    if world_size != 1 or "world_size" in given:
        given["world_size"] = world_size
    document = _document.document(given, options)
    sampling = document.get("sampling", {})
    if sampling.get("rank", 0) >= sampling.get("worldSize", 1):
        raise ValueError(f"rank={sampling.get('rank')}: expected below world_size={sampling.get('worldSize', 1)}")
    if publish is not None and not (0 <= positive_int("publish", publish, minimum=0) <= 65535):
        raise ValueError(f"publish={publish}: expected a port, 0 to 65535 (0: any free port)")
    if shm_dir is not None and not os.path.isdir(shm_dir):
        raise FileNotFoundError(f"shm_dir={shm_dir!r}: no such folder (expected: a tmpfs folder such as /dev/shm; "
                                f"pass shm_dir= another, or mount one: docker run --shm-size=...)")
    cache_dir, cache_bytes = check_cache(cache_dir, cache_bytes)
    decoding = document.get("decode", {})
    device_batches = _device_batches(decoding.get("device", "cpu"), decoding.get("nvdecSessions"), device)
    return ServeArgs(
        dataset=check_dataset(dataset), options=document, hold=positive_int("hold", hold, minimum=0),
        config=check_existing_file("config", config), workload=check_workload(workload),
        prefetch=None if prefetch is None else positive_int("prefetch", prefetch), shm_dir=shm_dir,
        publish=publish, s3_endpoint=check_s3_endpoint(s3_endpoint), cache_dir=cache_dir, cache_bytes=cache_bytes,
        serve_device=device_batches)


def _device_batches(decode: str, nvdec_sessions: Optional[int], device) -> Optional[str]:
    """The JVM's ``--device`` for ``decode`` (checked by the schema already): batches decoded on NVDEC stay on the GPU
    (CUDA IPC), so they need one."""
    if nvdec_sessions:
        if decode == "cpu":
            raise ValueError(f"nvdec_sessions={nvdec_sessions}: only with decode='nvdec', 'hybrid' or 'auto'")
    if decode == "cpu":
        return None
    d = cuda_device(device)
    if d is None:
        if decode == "auto":
            return None   # host batches: auto decodes on the CPU for them
        raise ValueError(f"decode={decode!r}: batches decoded on NVDEC stay on the GPU (expected: device='cuda:N')")
    return f"cuda:{d.index}"


def _rank_and_world(rank, world_size):
    if rank is not None and world_size is not None:
        return rank, world_size
    dist = torch.distributed
    if dist.is_available() and dist.is_initialized():
        return (dist.get_rank() if rank is None else rank), (dist.get_world_size() if world_size is None else world_size)
    return (0 if rank is None else rank), (1 if world_size is None else world_size)
