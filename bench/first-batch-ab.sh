#!/usr/bin/env bash
# First batch, A/B: two checkouts (each with its own ./stoker build), alternated, the order flipped every
# pair, so that a machine getting busier or quieter moves both. Prints "a|b pair seconds" per run.
#   git worktree add --detach /tmp/base <commit>   # the other side
#   bench/first-batch-ab.sh /tmp/base . 8
set -euo pipefail
a="$1" b="$2" pairs="${3:-8}"
out="$(mktemp -d)"
for i in $(seq 1 "$pairs"); do
  if [ $((i % 2)) = 1 ]; then order="a b"; else order="b a"; fi
  for side in $order; do
    dir="$a"; [ "$side" = b ] && dir="$b"
    (cd "$dir" && ./stoker bench --batches 2 --no-reference --json "$out/$side-$i.json" >/dev/null 2>&1)
    python3 -c "import json,sys; print('$side', $i, round(json.load(open(sys.argv[1]))['first_batch_seconds'], 3))" "$out/$side-$i.json"
  done
done
uptime
