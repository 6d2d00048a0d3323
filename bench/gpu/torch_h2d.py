#!/usr/bin/env python3
"""Host-to-device GB/s of PyTorch from pinned memory, the reference for `GpuBench h2d` (same size, same copies):
    python3 bench/gpu/torch_h2d.py [MB] [copies]"""
import sys

import torch

megabytes = int(sys.argv[1]) if len(sys.argv) > 1 else 64
copies = int(sys.argv[2]) if len(sys.argv) > 2 else 50
size = megabytes * 1_000_000
host = torch.ones(size, dtype=torch.uint8).pin_memory()
device = torch.empty(size, dtype=torch.uint8, device="cuda:0")
device.copy_(host, non_blocking=True)   # warm-up
torch.cuda.synchronize()
start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
start.record()
for _ in range(copies):
    device.copy_(host, non_blocking=True)
end.record()
end.synchronize()
seconds = start.elapsed_time(end) / 1e3
print(f"{'torch pinned, copy_(non_blocking) (device time)':40s} {size * copies / seconds / 1e9:8.2f} GB/s")
pageable = torch.ones(size, dtype=torch.uint8)
torch.cuda.synchronize()
start.record()
for _ in range(copies):
    device.copy_(pageable)
end.record()
end.synchronize()
print(f"{'torch pageable, copy_ (device time)':40s} {size * copies / (start.elapsed_time(end) / 1e3) / 1e9:8.2f} GB/s")
