#!/usr/bin/env bash
# Soak: the loader with its demux in a child JVM (--split-after demux), over the real sample videos plus the
# damaged ones, the child killed with SIGKILL every KILL_SECONDS; then the same seed undisturbed. Prints the
# samples delivered, the delivered clip lists compared (lost, repeated, moved), the failures by reason, the
# child restarts and the RSS of both JVMs at start and end. Files land in OUT (default: a temp folder).
#   bench/soak.sh [BATCHES] [KILL_SECONDS] [OUT] -- [extra stoker bench flags]
#   bench/soak.sh 5000 30 /tmp/soak -- --quarantine /tmp/soak/q.jsonl
# The damaged files fail (3 of 28 items an epoch without a quarantine, over the default 10% budget): the budget
# is raised to 0.5. The clip is small (4 frames, stride 2, 32x32, batch 1) so that 5,000 batches fit a 2 vCPU VM in minutes.
#
#   bench/soak.sh bridge [--batches 5000] [--kill-seconds 30] [--out DIR] [--data DIR]
# The same through the PyTorch bridge instead (bench/soak_bridge.py): VideoLoader(restart=...) with its whole JVM
# SIGKILLed; PYTHON picks an interpreter with torch (default python3).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ "${1:-}" = bridge ]; then
  shift
  exec "${PYTHON:-python3}" "$root/bench/soak_bridge.py" "$@"
fi
batches="${1:-5000}" kill_every="${2:-30}" out="${3:-$(mktemp -d)}"
shift $(( $# < 3 ? $# : 3 )); [ "${1:-}" = -- ] && shift
videos="${STOKER_SOAK_VIDEOS:-$root/../shared/videos}"
mkdir -p "$out/data/real" "$out/data/damaged"
for f in "$videos"/*.*; do [ "$(basename "$f")" = MANIFEST.txt ] || ln -sf "$f" "$out/data/real/"; done
for f in "$videos"/damaged/*; do ln -sf "$f" "$out/data/damaged/"; done
flags=(--failure-budget 0.5 --split-after demux --batches "$batches" --batch 1 --frames 4 --stride 2 --size 32 --seed 7
       --no-reference "$@")

rss_kib() { awk '/^VmRSS/ {print $2}' "/proc/$1/status" 2>/dev/null || echo -; }
# The bench JVM: the java process the launcher started (the launcher may exec it: then it is $1 itself).
bench_jvm() { if grep -q java "/proc/$1/comm" 2>/dev/null; then echo "$1"; else pgrep -P "$1" java | head -1; fi; }
child_of() { local p; for p in $(pgrep -P "$1" 2>/dev/null); do
  grep -q ChildMain "/proc/$p/cmdline" 2>/dev/null && { echo "$p"; return; }; done; }

cd "$root"
echo "soak: $batches batches, SIGKILL to the child every ${kill_every}s, files in $out"
./stoker bench "$out/data" "${flags[@]}" --clips-out "$out/soak.tsv" --json "$out/soak.json" >"$out/soak.log" 2>&1 &
launcher=$!
jvm=""; child=""; kills=0; start_rss=""; last_rss=""
while kill -0 "$launcher" 2>/dev/null; do
  # Found again while the one found is gone: the launcher runs short-lived JVMs (probes) before the real one.
  if [ -z "$jvm" ] || ! kill -0 "$jvm" 2>/dev/null; then jvm="$(bench_jvm "$launcher" || true)"; fi
  [ -n "$jvm" ] && child="$(child_of "$jvm" || true)"
  if [ -n "$child" ]; then
    [ -z "$start_rss" ] && { sleep 5; start_rss="parent $(rss_kib "$jvm") KiB, child $(rss_kib "$child") KiB"; next_kill=$((SECONDS + kill_every)); }
    last_rss="parent $(rss_kib "$jvm") KiB, child $(rss_kib "$child") KiB"
    if [ "$SECONDS" -ge "${next_kill:-0}" ]; then
      kill -KILL "$child" 2>/dev/null && kills=$((kills + 1)) && echo "  $(date +%T) SIGKILL child $child (#$kills)"
      next_kill=$((SECONDS + kill_every))
    fi
  fi
  sleep 1
done
wait "$launcher" && rc=0 || rc=$?
soak_seconds=$SECONDS
echo "disturbed run: exit $rc, ${soak_seconds}s, $kills kills; RSS at start: $start_rss; at end: $last_rss"
SECONDS=0
./stoker bench "$out/data" "${flags[@]}" --clips-out "$out/base.tsv" --json "$out/base.json" >"$out/base.log" 2>&1 \
  && base_rc=0 || base_rc=$?
echo "undisturbed run: exit $base_rc, ${SECONDS}s"
python3 - "$out" <<'EOF'
import collections, json, sys
out = sys.argv[1]
def clips(name):
    return [l.split('\t', 1)[1].rstrip('\n') for l in open(f"{out}/{name}.tsv")]
soak, base = clips("soak"), clips("base")
s, b = collections.Counter(soak), collections.Counter(base)
for name in ("soak", "base"):
    r = json.load(open(f"{out}/{name}.json"))
    print(f"{name}: {r['batches']} batches, {r['samples']} samples, {r['samples_per_second']:.1f} samples/s, "
          f"failures by reason {r.get('failures_by_reason')}")
print(f"clips delivered: soak {len(soak)}, undisturbed {len(base)}; same list in the same order: {soak == base}")
print(f"lost (in undisturbed, missing from soak): {sum((b - s).values())}; "
      f"extra or repeated in soak: {sum((s - b).values())}; repeated within soak: {sum(v - 1 for v in s.values() if v > 1)} "
      f"(undisturbed repeats {sum(v - 1 for v in b.values() if v > 1)}: a clip drawn twice by the sampler)")
first = next((i for i, (x, y) in enumerate(zip(soak, base)) if x != y), None)
if first is not None:
    print(f"first difference at clip {first}: soak {soak[first]!r} vs undisturbed {base[first]!r}")
EOF
