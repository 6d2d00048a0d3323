#!/usr/bin/env bash
# No flaky test (issue 30, item 5): the tests that failed under load, and the whole PyTorch bridge suite, run again
# and again while every core is kept busy, counting the runs that failed. Prints one line a run and a summary; the
# logs of failed runs are kept in OUT. Exit status 0 when no run failed.
#
#   bench/flaky-proof.sh [--runs 20] [--java-only | --python-only] [--python-k EXPR] [--load N] [--wheel WHEEL] [--out DIR]
#     --runs N       runs of each part (default 20)
#     --python-k E   only the Python tests pytest's -k E selects (e.g. "lifetime or restart": a run of the whole
#                    suite under a busy loop a core takes about 20 minutes on 2 cores)
#     --load N       busy loops beside the tests (default: one a core, nproc)
#     --wheel WHEEL  test this wheel (else: Maven packages the CLI, bin/make-wheel --no-build makes one)
#     --out DIR      where the logs go (default: a temp folder)
#
# The Java part: the tests that failed under load or waited on time (java_tests below: the tuners', the headspace's,
# SplitAfterAnyStageTest's child killed after collate, the gates' and pools' blocking, the read-aheads', the stats
# publisher's; mvn -o verify of their modules, surefire's reruns off), N times. The Python part: bin/test-wheel (the
# whole suite, or what --python-k selects) N times. Both under the same load; the machine's other
# work (other builds) comes on top. docs/benchmarks.md, "No flaky test", records a run.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs=20 parts="java python" load="$(nproc)" wheel="" out="" python_k=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift ;;
    --java-only) parts=java ;;
    --python-only) parts=python ;;
    --python-k) python_k=(-k "$2"); shift ;;
    --load) load="$2"; shift ;;
    --wheel) wheel="$(readlink -f "$2")"; shift ;;
    --out) out="$2"; shift ;;
    -h|--help) sed -n '2,18s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "flaky-proof: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
out="${out:-$(mktemp -d "${TMPDIR:-/tmp}/flaky-proof.XXXXXX")}"
mkdir -p "$out"
cd "$root"
. bin/jdk.sh
stoker_find_jdk || exit 1
export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"

# The named tests (SplitAfterAnyStageTest: only the child killed after collate).
java_tests='AutotuneOnlineSettlesTest,TunerFindsKnownOptimaTest,HeadspaceWaitingForDataTest,SplitAfterAnyStageTest#childKilledMidRunAfterCollateLosesNoBatchAndRepeatsNone,QuarantineGateTest,BatchPoolBackpressureTest,SubprocessBackpressureTest,PrefetchBudgetTest,ShardReadAheadTest,RemoteReadAheadTest,StatsPublisherTest'
java_modules=stoker-tune,stoker-store,stoker-observe
mvn_tests=(mvn -q -o -B -Dstyle.color=never -pl "$java_modules" -am verify "-Dtest=$java_tests"
           -Dsurefire.failIfNoSpecifiedTests=false -Dsurefire.rerunFailingTestsCount=0)

if [[ " $parts " == *" python "* ]] && [ -z "$wheel" ]; then
  echo "flaky-proof: packaging the CLI and making the wheel (no load yet)..."
  mvn -q -o -B -Dstyle.color=never -pl stoker-cli -am package -DskipTests > "$out/package.log" 2>&1
  wheel="$(bin/make-wheel --no-build --out "$out/dist" 2>> "$out/package.log")"
fi
if [[ " $parts " == *" java "* ]]; then
  echo "flaky-proof: compiling the Java tests (no load yet)..."
  mvn -q -o -B -Dstyle.color=never -pl "$java_modules" -am test-compile > "$out/compile.log" 2>&1
fi

burners=()
stop_load() { local pid; for pid in "${burners[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap stop_load EXIT
for _ in $(seq "$load"); do
  ( while :; do :; done ) &
  burners+=($!)
done
echo "flaky-proof: $load busy loops on $(nproc) cores; $runs runs of: $parts; logs in $out"

failed=0
declare -A failures=([java]=0 [python]=0)
for part in $parts; do
  for i in $(seq "$runs"); do
    log="$out/$part-$i.log"
    start=$(date +%s)
    status=0
    if [ "$part" = java ]; then
      rm -rf stoker-*/target/surefire-reports
      "${mvn_tests[@]}" > "$log" 2>&1 || status=$?
      summary="$(cat stoker-*/target/surefire-reports/*.txt 2>/dev/null \
        | awk '/^Tests run:/ {t += $3; f += $5; e += $7} END {printf "%d tests, %d failures, %d errors", t, f, e}' || true)"
    else
      bin/test-wheel "$wheel" --basetemp "$out/pytest-$i" "${python_k[@]}" > "$log" 2>&1 || status=$?
      summary="$(tail -n 1 "$log" || true)"
      rm -rf "$out/pytest-$i"
    fi
    seconds=$(( $(date +%s) - start ))
    if [ "$status" = 0 ]; then
      rm -f "$log"
      echo "$part run $i: passed ($summary; ${seconds} s; load $(cut -d' ' -f1 /proc/loadavg))"
    else
      failures[$part]=$(( ${failures[$part]} + 1 ))
      failed=$(( failed + 1 ))
      echo "$part run $i: FAILED, exit $status ($summary; ${seconds} s; log kept: $log)"
    fi
  done
done
for part in $parts; do
  echo "flaky-proof: $part: $runs runs, ${failures[$part]} failed (under $load busy loops on $(nproc) cores)"
done
[ "$failed" = 0 ]
