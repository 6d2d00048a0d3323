#!/usr/bin/env bash
# The GPU figures of docs/benchmarks.md (section "GPU"), on a machine with an NVIDIA GPU, 16 cores, PyTorch with
# CUDA and OpenCV, and no JDK, Maven or network: everything Java runs from the bundle and the test bundle
# (bin/make-bundle --tests), unpacked here.
#
#   bench/gpu/on-device.sh quick|full BUNDLE_DIR SECONDS
#     quick       the hardware tests, H2D, one NVDEC session, the PyTorch bridge on the GPU: what breaks
#     full        the figures: NVDEC sessions 1..14 vs FFmpeg's NVDEC, H2D vs PyTorch, loaders on 16 cores,
#                 r3d_18 training fed by Stoker, by a DataLoader + OpenCV, and from cached batches
#     BUNDLE_DIR  stoker-*-linux-x86_64.tar.gz and its -tests.tar.gz (or both in one .tar.xz), videos/ (the
#                 shared sample videos) and x264/ (bench/make-x264-dataset's dataset), if it has room
#     SECONDS     the time this may take: each step runs under what is left, the last ones are skipped
# Output: everything on stdout and in $OUT/log.txt; JSON results, traces and GPU utilisation in $OUT/results.tgz.
set -uo pipefail
phase="$1"; bundles="$(cd "$2" && pwd)"; budget="$3"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${OUT:-/tmp/stoker-gpu-out}"; mkdir -p "$out"
res="$(mktemp -d /tmp/stoker-results.XXXXXX)"
deadline=$(( $(date +%s) + budget ))
exec > >(tee -a "$out/log.txt") 2>&1
export PYTHONUNBUFFERED=1

left() { echo $(( deadline - $(date +%s) )); }
# step NAME LIMIT_SECONDS COMMAND...: runs it under min(LIMIT, time left - 10 s); skipped under 15 s left.
step() {
  local name="$1" limit="$2"; shift 2
  local budget_left=$(( $(left) - 10 ))
  if [ "$budget_left" -lt 15 ]; then echo "== SKIP $name: $(left) s left"; return 0; fi
  [ "$limit" -gt "$budget_left" ] && limit="$budget_left"
  echo "== $name (at most ${limit}s): $*"
  local t0=$(date +%s%N)
  timeout -k 5 "$limit" "$@"
  local rc=$?
  echo "== $name rc=$rc $(( ($(date +%s%N) - t0) / 1000000 )) ms"
  return 0
}
# gpu_util NAME: samples the GPU's utilisation every 100 ms until gpu_util_stop; the mean goes to the log.
gpu_util() { nvidia-smi --query-gpu=utilization.gpu,utilization.decoder --format=csv,noheader,nounits -lms 100 > "$res/util-$1.txt" 2>/dev/null & util_pid=$!; }
gpu_util_stop() {
  kill "$util_pid" 2>/dev/null; wait "$util_pid" 2>/dev/null
  awk -F', *' -v n="$1" '{ s += $1; d += $2; c++ } END { if (c) printf "GPU utilisation during %s: SMs mean %.0f%%, NVDEC mean %.0f%% over %d samples\n", n, s / c, d / c, c }' "$res/util-$1.txt"
}
finish() { tar -C "$res" -czf "$out/results.tgz" . 2>/dev/null; echo "== done, $(left) s left of the budget"; }
trap finish EXIT

echo "== machine"; nvidia-smi --query-gpu=name,driver_version,memory.total,pcie.link.gen.current,pcie.link.width.current --format=csv
nproc; free -g | sed -n 2p; uname -r
python3 -c 'import torch, cv2, numpy; print("torch", torch.__version__, "cuda", torch.version.cuda, "cv2", cv2.__version__, "numpy", numpy.__version__)'
ldconfig -p | grep -E 'libcuda.so.1|libnvcuvid.so.1' || echo "no libcuda/libnvcuvid in ldconfig"

# The bundle and the test bundle, as made (two .tar.gz), or repacked into one .tar.xz to travel lighter.
mkdir -p /tmp/stoker
for archive in "$bundles"/stoker-*-linux-x86_64.tar.gz "$bundles"/stoker-*-linux-x86_64-tests.tar.gz "$bundles"/*.tar.xz; do
  [ -f "$archive" ] && python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$archive" /tmp/stoker
done
B="$(ls -d /tmp/stoker/stoker-*-linux-x86_64)"
# A jar rebuilt after the bundle was packed (a fix between two calls) goes over the bundle's own.
[ -d "$bundles/patch" ] && cp -r "$bundles/patch/." "$B/"
export STOKER_HOME="$B" PATH="$B/bin:$PATH"
videos="$bundles/videos"
GB=(env STOKER_BUNDLE_MAIN=dev.stoker.bench.GpuBench "$B/bin/stoker")   # GpuBench from the bundle
step version 60 stoker --version
demo="$HOME/.cache/stoker/demo-kinetics"
step demo-data 120 stoker demo-data "$demo"
x264="$bundles/x264"; [ -d "$x264" ] || x264=""

if [ "$phase" = quick ]; then
  step hardware-tests 200 stoker-tests --videos "$videos" --select-package dev.stoker.gpu
  step h2d 40 "${GB[@]}" h2d 64 50
  step nvdec-1 40 "${GB[@]}" nvdec "$videos/mmaction2_ntu_S001C001P001R001A001_1080p.avi" 300 112 1
  step ffmpeg-nvdec-1 40 "${GB[@]}" ffmpeg "$videos/mmaction2_ntu_S001C001P001R001A001_1080p.avi" 300 1
  step bench-device 90 stoker bench "$demo" --batches 40 --device cuda:0 --no-reference --json "$res/quick-device.json"
  step bench-nvdec 90 stoker bench "$demo" --batches 40 --decode nvdec --no-reference --json "$res/quick-nvdec.json"
  step torch-bridge-cuda 90 python3 "$root/examples/train_video_classifier.py" "$demo" --device cuda:0 --width 0.25 \
    --steps 12 --warmup 2 --trace "$res/quick-train.trace.json" --json "$res/quick-train.json"
  exit 0
fi

# ---- full ----
step hardware-tests 120 stoker-tests --videos "$videos" --select-class dev.stoker.gpu.GpuHardwareTest
big="$videos/mmaction2_ntu_S001C001P001R001A001_1080p.avi"     # H.264 High 1920x1080
small="$videos/mmaction2_test_340x256.mp4"                     # H.264 High 340x256, Kinetics-like
for f in "$big" "$small"; do
  for s in 1 2 4 7 14; do
    gpu_util "nvdec-$s-$(basename "$f")"
    step "nvdec-$s" 40 "${GB[@]}" nvdec "$f" 900 112 "$s"
    gpu_util_stop "nvdec-$s-$(basename "$f")"
    gpu_util "ffmpeg-$s-$(basename "$f")"
    step "ffmpeg-nvdec-$s" 40 "${GB[@]}" ffmpeg "$f" 900 "$s"
    gpu_util_stop "ffmpeg-$s-$(basename "$f")"
  done
done
step h2d 40 "${GB[@]}" h2d 64 50
step torch-h2d 40 python3 "$root/bench/gpu/torch_h2d.py" 64 50

for data in "$demo" $x264; do
  tag="$(basename "$data")"
  step "ceiling-$tag" 120 stoker bench "$data" --batches 500 --ceiling --json "$res/ceiling-$tag.json"
  step "device-$tag" 90 stoker bench "$data" --batches 500 --device cuda:0 --no-reference --json "$res/device-$tag.json"
  step "nvdec-$tag" 90 stoker bench "$data" --batches 500 --decode nvdec --no-reference --json "$res/nvdec-$tag.json"
  step "nvdec7-$tag" 90 stoker bench "$data" --batches 500 --decode nvdec --nvdec-sessions 7 --no-reference --json "$res/nvdec7-$tag.json"
done

train="$root/examples/train_video_classifier.py"
tdata="${x264:-$demo}"
common=(--device cuda:0 --width 1 --batch-size 32 --steps 150 --warmup 20)
for run in cached stoker cv2-8 cv2-16; do
  case "$run" in
    cached) args=(--loader cached) ;;
    stoker) args=(--loader stoker) ;;
    cv2-*) args=(--loader pytorch --decoder cv2 --workers "${run#cv2-}") ;;
  esac
  gpu_util "$run"
  step "train-$run" 120 python3 "$train" "$tdata" "${common[@]}" "${args[@]}" --trace "$res/train-$run.trace.json" --json "$res/train-$run.json"
  gpu_util_stop "$run"
done

for c in 1 2 4 8 12 16; do
  step "sweep-decode-$c" 60 stoker bench "${x264:-$demo}" --batches 300 --concurrency "decode=$c" --no-reference --json "$res/sweep-$c.json"
done
