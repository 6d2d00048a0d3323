#!/usr/bin/env bash
# WebDataset shards, side by side (docs/benchmarks.md, "WebDataset shards"): the demo videos from their files, the
# same videos packed into .tar shards and read in place, and a PyTorch DataLoader + PyAV reading the same members from
# the same shards (bench/peer_webdataset.py); alternated in ROUNDS rounds.
#
#   PYTHON=/path/to/python-with-torch-av bench/webdataset.sh [WORK_DIR] [BATCHES] [ROUNDS]
#
# Makes WORK_DIR/{demo,shards} when missing (the shards are the videos' size again).
set -euo pipefail
cd "$(dirname "$0")/.."
work="${1:-/tmp/stoker-wds}"; batches="${2:-300}"; rounds="${3:-3}"; python="${PYTHON:-python3}"
[ -d "$work/demo" ] || ./stoker demo-data "$work/demo"
[ -d "$work/shards" ] || "$python" bench/make_webdataset.py "$work/demo" "$work/shards"
for round in $(seq "$rounds"); do
  echo "== round $round"
  echo "-- files";  ./stoker bench "$work/demo" --batches "$batches" --no-reference 2>&1 | grep -E "^samples/s|^decoded/clip"
  echo "-- shards"; ./stoker bench "$work/shards" --batches "$batches" --no-reference 2>&1 | grep -E "^samples/s|^decoded/clip"
  echo "-- peer";   "$python" bench/peer_webdataset.py "$work/shards" --workers 2 --batches "$batches" 2>&1 | grep "^peer"
done
