#!/usr/bin/env bash
# Videos stored as folders of frames, side by side (docs/benchmarks.md, "Videos stored as folders of frames"): the demo
# videos from their files, the same videos extracted as JPEG frames (mmaction2's rawframes), a PyTorch DataLoader + Pillow
# on those folders, and JPEG shards of the frames; alternated in ROUNDS rounds.
#
#   PYTHON=/path/to/python-with-torch-pillow-av bench/frame-folders.sh [WORK_DIR] [BATCHES] [ROUNDS]
#
# Makes WORK_DIR/{demo,rawframes,rf-jpeg} when missing (about 1.1 GB: the frames are 13x the videos).
set -euo pipefail
cd "$(dirname "$0")/.."
work="${1:-/tmp/stoker-frame-folders}"; batches="${2:-400}"; rounds="${3:-3}"; python="${PYTHON:-python3}"
[ -d "$work/demo" ] || ./stoker demo-data "$work/demo"
if [ ! -d "$work/rawframes" ]; then   # extracted aside, then moved: an interrupted run leaves no half dataset
  rm -rf "$work/rawframes.part"
  "$python" bench/make_frame_folders.py "$work/demo" "$work/rawframes.part" && mv "$work/rawframes.part" "$work/rawframes"
fi
[ -f "$work/rf-jpeg/stoker-shards.json" ] || ./stoker ingest "$work/rawframes" "$work/rf-jpeg" --format jpeg --size 256
for round in $(seq "$rounds"); do
  echo "== round $round"
  echo "-- videos";     ./stoker bench "$work/demo" --batches "$batches" --no-reference 2>&1 | grep -E "^samples/s|^decoded/clip"
  echo "-- rawframes";  ./stoker bench "$work/rawframes" --batches "$batches" --no-reference 2>&1 | grep -E "^samples/s|^decoded/clip"
  echo "-- peer";       "$python" bench/peer_rawframes.py "$work/rawframes" --workers 2 --batches "$batches" 2>&1 | grep "^peer"
  echo "-- jpeg shards"; ./stoker bench "$work/rf-jpeg" --batches "$batches" --no-reference 2>&1 | grep -E "^samples/s|^decoded/clip"
done
