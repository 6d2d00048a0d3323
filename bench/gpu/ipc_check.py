"""Device batches through the bridge by CUDA IPC, on a GPU machine (bench/gpu/on-device.sh runs it).

    python3 bench/gpu/ipc_check.py DATA [batches] [decode]

Takes the same batches twice from stoker.torch.VideoLoader, same seed: host batches (decode on the CPU, shared memory)
and device batches (decode nvdec or hybrid, collated in the JVM's GPU memory, handed over by CUDA IPC). Checks what
only a GPU can: every device batch is a CUDA tensor over one of a few slots (each slot's handle opened once: the data
pointers repeat), the clips and labels are the host run's, the pixels within the NVDEC tolerance of the CPU's
(mean absolute difference <= 3.5 levels), and the JVM kept serving while the model read the batches (its release
waits on the events this process records). Prints one JSON line; exits 1 on a failed check.
"""
import json
import os
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
from stoker.torch import VideoLoader   # noqa: E402


def take(data, batches, **kwargs):
    out = []
    t0 = time.perf_counter()
    with VideoLoader(data, batch_size=8, layout="NCTHW", seed=3, drop_last=True, **kwargs) as loader:
        for batch in loader:
            # A read on the consumer's stream before the release: what the release event orders the JVM after.
            checksum = batch.video.float().mean().item()
            out.append((batch.video.data_ptr(), batch.video.is_cuda, batch.video.cpu().clone(), batch.label.cpu().tolist(),
                        list(batch.paths), checksum))
            if len(out) == batches:
                break
        stats = loader.stats()
    return out, (len(out) * 8) / (time.perf_counter() - t0), stats


def main():
    data = sys.argv[1]
    batches = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    decode = sys.argv[3] if len(sys.argv) > 3 else "nvdec"
    host, host_rate, _ = take(data, batches)
    device, device_rate, stats = take(data, batches, decode=decode, device="cuda:0")
    failures = []
    if len(device) != len(host):
        failures.append(f"{len(device)} device batches, {len(host)} host batches")
    pointers = {d[0] for d in device}
    if not all(d[1] for d in device):
        failures.append("a device batch is not a CUDA tensor")
    if len(pointers) > 12:
        failures.append(f"{len(pointers)} distinct data pointers in {len(device)} batches (expected: a few slots)")
    diffs = []
    for i, (h, d) in enumerate(zip(host, device)):
        if h[3] != d[3] or h[4] != d[4]:
            failures.append(f"batch {i}: clips or labels differ")
        diffs.append((h[2].int() - d[2].int()).abs().float().mean().item())
    mean = sum(diffs) / max(1, len(diffs))
    if mean > 3.5:
        failures.append(f"pixels: mean absolute difference {mean:.2f} (expected: <= 3.5)")
    print(json.dumps({"decode": decode, "batches": len(device), "distinct_pointers": len(pointers),
                      "mean_abs_diff": round(mean, 3), "host_samples_per_s": round(host_rate, 1),
                      "device_samples_per_s": round(device_rate, 1), "data_wait_share": stats.get("data_wait_share"),
                      "failures": failures}))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
