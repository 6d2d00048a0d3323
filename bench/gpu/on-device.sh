#!/usr/bin/env bash
# Issue 26's proof on a GPU machine (docs/benchmarks.md, "GPU"): an NVIDIA H100 or H200 with 16 cores, PyTorch with
# CUDA and OpenCV, no JDK, Maven or network. Everything Java runs from the bundle and the test bundle
# (bin/make-bundle --tests), unpacked here.
#
#   bench/gpu/on-device.sh proof|quick BUNDLE_DIR SECONDS
#     proof       every proof item, in order of importance, each under a time limit (about 9 minutes in all):
#                  1 the GPU hardware tests (NVDEC session vs CPU pixels, loaders, fallback)
#                  2 the NVDEC ceiling (decode only, nothing mapped) at 340x256 and 1080p, one session per engine,
#                    with the engines' busy share (nvidia-smi utilization.decoder, sampled every 100 ms)
#                  3 Stoker's NVDEC (decode, map, convert) vs FFmpeg's own NVDEC, same files, same sessions
#                  4 the demo dataset: --decode nvdec and --decode hybrid vs the CPU (the --ceiling run, which is
#                    also the 16-core decode ceiling after the QuarantineGate fix)
#                  5 r3d_18 (width 1, batch 32, bf16) through the bridge: cached floor, CPU decode, hybrid with device
#                    batches (CUDA IPC), video shards, and the SPDL example's workload by CPU decode (issue 27);
#                    then the IPC check (bench/gpu/ipc_check.py)
#                  6 stoker tune --start-all 8 --compare-default on 16 cores
#     quick       1, one ceiling, one NVDEC vs FFmpeg pair, the IPC check: what breaks, in about 3 minutes
#     BUNDLE_DIR  what bench/gpu/prepare.sh writes: stoker-*-linux-x86_64.tar.gz and its -tests.tar.gz (or both in
#                 one .tar.xz), videos/ (the shared sample videos and DERIVED_ntu_1080p_h264.mp4)
#     SECONDS     the time this may take: each step runs under what is left, the last ones are skipped
# Output: everything on stdout and in $OUT/log.txt; JSON results, traces and utilisation samples in $OUT/results.tgz,
# and $OUT/summary.txt: one line per figure, for docs/benchmarks.md.
set -uo pipefail
phase="$1"; bundles="$(cd "$2" && pwd)"; budget="$3"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${OUT:-/tmp/stoker-gpu-out}"; mkdir -p "$out"
res="$(mktemp -d /tmp/stoker-results.XXXXXX)"
deadline=$(( $(date +%s) + budget ))
exec > >(tee -a "$out/log.txt") 2>&1
export PYTHONUNBUFFERED=1
summary="$out/summary.txt"; : > "$summary"

left() { echo $(( deadline - $(date +%s) )); }
# step NAME LIMIT_SECONDS COMMAND...: runs it under min(LIMIT, time left - 10 s); skipped under 15 s left.
step() {
  local name="$1" limit="$2"; shift 2
  local budget_left=$(( $(left) - 10 ))
  if [ "$budget_left" -lt 15 ]; then echo "== SKIP $name: $(left) s left"; echo "SKIPPED $name" >> "$summary"; return 0; fi
  [ "$limit" -gt "$budget_left" ] && limit="$budget_left"
  echo "== $name (at most ${limit}s): $*"
  local t0=$(date +%s%N)
  timeout -k 5 "$limit" "$@" 2>&1 | tee "$res/$name.txt"
  local rc=${PIPESTATUS[0]}
  echo "== $name rc=$rc $(( ($(date +%s%N) - t0) / 1000000 )) ms"
  echo "$name rc=$rc: $(grep -E 'frames/s|samples/s|engines|^pool |decoded by|^nvdec:|tests (successful|failed)|mean_abs|step time|data-wait|efficiency|ceiling|bottleneck|trial' "$res/$name.txt" | grep -vE '^step +[0-9]' | tail -8 | tr '\n' ' ')" >> "$summary"
  return 0
}
# util NAME COMMAND...: step NAME with the GPU's SM and NVDEC utilisation sampled every 100 ms; the means go to the log.
util() {
  local name="$1"; shift
  nvidia-smi --query-gpu=utilization.gpu,utilization.decoder --format=csv,noheader,nounits -lms 100 > "$res/util-$name.txt" 2>/dev/null &
  local sampler=$!
  step "$name" "$@"
  kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null
  local line
  line=$(awk -F', *' -v n="$name" '{ s += $1; d += $2; if ($2 > m) m = $2; c++ } END { if (c) printf "utilisation during %s: SMs mean %.0f%%, NVDEC mean %.0f%% (max %d%%) over %d samples", n, s / c, d / c, m, c }' "$res/util-$name.txt")
  echo "$line"; echo "$line" >> "$summary"
}
finish() { tar -C "$res" -czf "$out/results.tgz" . 2>/dev/null; cp "$summary" "$res/" 2>/dev/null; echo "== done, $(left) s left of the budget"; }
trap finish EXIT

echo "== machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,pcie.link.gen.current,pcie.link.width.current --format=csv | tee -a "$summary"
echo "cores $(nproc), $(free -g | awk 'NR==2 {print $2}') GiB, kernel $(uname -r)" | tee -a "$summary"
python3 -c 'import torch, cv2, numpy; print("torch", torch.__version__, "cuda", torch.version.cuda, "cv2", cv2.__version__, "numpy", numpy.__version__)' | tee -a "$summary"
ldconfig -p | grep -E 'libcuda.so.1|libnvcuvid.so.1' || echo "no libcuda/libnvcuvid in ldconfig"

# The bundle and the test bundle, as made (two .tar.gz), or repacked into one .tar.xz to travel lighter.
unpacked="$(mktemp -d /tmp/stoker-bundle.XXXXXX)"
for archive in "$bundles"/stoker-*-linux-x86_64.tar.gz "$bundles"/stoker-*-linux-x86_64-tests.tar.gz "$bundles"/*.tar.xz; do
  [ -f "$archive" ] && python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$archive" "$unpacked"
done
B="$(ls -d "$unpacked"/stoker-*-linux-x86_64 | head -1)"
[ -d "$bundles/patch" ] && cp -r "$bundles/patch/." "$B/"   # a jar rebuilt after the bundle was packed
export STOKER_HOME="$B" PATH="$B/bin:$PATH"
videos="$bundles/videos"
GB=(env STOKER_BUNDLE_MAIN=dev.stoker.bench.internal.GpuBench "$B/bin/stoker")   # GpuBench from the bundle
small="$videos/mmaction2_test_340x256.mp4"                          # H.264 High 340x256, Kinetics-like (MP4: Stoker's session)
big="$videos/DERIVED_ntu_1080p_h264.mp4"                           # 1920x1080 H.264 High, remuxed by prepare.sh
[ -f "$big" ] || { echo "no $big (bench/gpu/prepare.sh makes it): the 1080p figures use the 960x540 file"; big="$videos/mdn_flower_960x540.mp4"; }
demo="${STOKER_GPU_DEMO:-/tmp/stoker-gpu-demo}"   # the demo dataset (stoker demo-data's default, 100 videos)
train="$root/examples/train_video_classifier.py"
step demo-data 150 stoker demo-data "$demo"
engines=$("${GB[@]}" engines 2>/dev/null | awk '/NVDEC engines/ {print $3}'); engines="${engines:-7}"
echo "NVDEC engines: $engines" | tee -a "$summary"

# 1: the hardware tests (every stoker-gpu test with a GPU: the session's pixels, loaders, fallback, IPC's Java side).
step hardware-tests 150 stoker-tests --videos "$videos" --select-class dev.stoker.gpu.GpuHardwareTest

# 2 and 3: the ceiling, and Stoker's NVDEC vs FFmpeg's own, one session per engine, on the same files.
for f in "$small" "$big"; do
  tag="$(basename "$f" .mp4)"
  util "ceiling-$tag" 40 "${GB[@]}" ceiling "$f" 3000 "$engines"
  util "stoker-nvdec-$tag" 40 "${GB[@]}" nvdec "$f" 900 112 "$engines"
  util "ffmpeg-nvdec-$tag" 40 "${GB[@]}" ffmpeg "$f" 900 "$engines"
  [ "$phase" = quick ] && break
done

if [ "$phase" = quick ]; then
  step ipc-check 90 python3 "$root/bench/gpu/ipc_check.py" "$demo" 12 nvdec
  exit 0
fi

# 4: the demo dataset on 16 cores: the CPU (with the machine's decode ceiling), NVDEC, hybrid; side by side.
step bench-cpu-ceiling 150 stoker bench "$demo" --batches 400 --ceiling --json "$res/bench-cpu.json"
util bench-nvdec 70 stoker bench "$demo" --batches 400 --decode nvdec --no-reference --json "$res/bench-nvdec.json"
util bench-hybrid 70 stoker bench "$demo" --batches 400 --decode hybrid --no-reference --json "$res/bench-hybrid.json"

# 5: r3d_18 through the bridge: the floor, CPU decode, hybrid with device batches, shards.
common=(--device cuda:0 --width 1 --batch-size 32 --steps 70 --warmup 15)
util train-cached 60 python3 "$train" "$demo" "${common[@]}" --loader cached --json "$res/train-cached.json" --trace "$res/t-cached.json"
util train-cpu 70 python3 "$train" "$demo" "${common[@]}" --loader stoker --json "$res/train-cpu.json" --trace "$res/t-cpu.json"
# Issue 27's GPU row: the SPDL example's workload (the first 0.5 s of each video, 16 frames by linspace) by CPU decode.
util train-spdl-cpu 70 python3 "$train" "$demo" "${common[@]}" --loader stoker --workload spdl-example --json "$res/train-spdl-cpu.json" --trace "$res/t-spdl-cpu.json"
util train-hybrid 70 python3 "$train" "$demo" "${common[@]}" --loader stoker --decode hybrid --json "$res/train-hybrid.json" --trace "$res/t-hybrid.json"
step ingest 90 stoker ingest "$demo" /tmp/demo-shards --size 128
util train-shards 70 python3 "$train" /tmp/demo-shards "${common[@]}" --loader stoker --json "$res/train-shards.json" --trace "$res/t-shards.json"
step ipc-check 60 python3 "$root/bench/gpu/ipc_check.py" "$demo" 12 hybrid

# 6: the tuner on 16 cores.
step tune-16 150 stoker tune "$demo" --out /tmp/tune-16 --start-all 8 --compare-default --trials 4 --repeats 1 \
  --batches 60 --trial-seconds 30 --total-minutes 3 --no-decode-ceiling
