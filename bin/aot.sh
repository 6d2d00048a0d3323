# Sourced by ./stoker: a JDK AOT cache (JEP 483/514/515) of the command's loaded and linked classes and
# method profiles. Without it a loader spends its first few hundred milliseconds loading classes and
# interpreting (on 2 cores that is a third of the first batch); with it they come mapped from the cache.
# Made once per build from a short training run on a tiny demo dataset; any failure leaves no cache and
# the command runs as before.

# Sets STOKER_AOT_OPTS to the JVM options that use the cache (an array: the checkout's path may hold spaces),
# making the cache first when a jar on the class path is newer. A failed attempt is remembered (stoker.aot.failed)
# until the jars change, so that a machine where it cannot work does not pay the attempt on every run.
stoker_aot_options() {
  local root="$1" jar="$2" cp="$3"
  local cache="$root/stoker-cli/target/stoker.aot"
  STOKER_AOT_OPTS=()
  if [ "${STOKER_AOT:-1}" = "0" ]; then
    return 0
  fi
  if [ ! -f "$cache" ] || [ -n "$(find "$jar" "$root/stoker-cli/target/lib" -newer "$cache" -name '*.jar' -print -quit)" ]; then
    if [ -f "$cache.failed" ] && [ -z "$(find "$jar" "$root/stoker-cli/target/lib" -newer "$cache.failed" -name '*.jar' -print -quit)" ]; then
      return 0
    fi
    rm -f "$cache.failed"
    stoker_aot_make "$root" "$cache" "$cp" || { rm -f "$cache"; touch "$cache.failed"; }
  fi
  if [ -f "$cache" ]; then
    # A cache that no longer matches the class path is ignored; the logs would only say so.
    STOKER_AOT_OPTS=("-XX:AOTCache=$cache" -Xlog:aot=off -Xlog:cds=off)
  fi
}

stoker_aot_make() {
  local root="$1" cache="$2" cp="$3"
  local work
  work="$(mktemp -d "${TMPDIR:-/tmp}/stoker-aot.XXXXXX")" || return 1
  echo "stoker: making a startup cache for the JVM (once per build, about 10 s)..." >&2
  # Without the user's JVM variables: their agents and recordings belong to the real run. A cache made
  # without an option that the real run gets and that the cache depends on (another GC) is ignored there.
  local java=(stoker_without_jvm_env "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -cp "$cp")
  local ok=1
  # Training: make a tiny dataset, then load batches from it as `stoker bench` does.
  "${java[@]}" dev.stoker.cli.StokerCommand demo-data "$work/data" --classes 3 --clips 4 --seconds 3 \
      >"$work/log" 2>&1 &&
    "${java[@]}" -XX:AOTMode=record -XX:AOTConfiguration="$work/conf" -Xlog:aot=error -Xlog:cds=error \
      dev.stoker.cli.StokerCommand bench "$work/data" --batches 6 --batch 4 --no-reference >>"$work/log" 2>&1 &&
    "${java[@]}" -XX:AOTMode=create -XX:AOTConfiguration="$work/conf" -XX:AOTCache="$work/stoker.aot" \
      -Xlog:aot=error -Xlog:cds=error >>"$work/log" 2>&1 &&
    mv -f "$work/stoker.aot" "$cache" && ok=0
  if [ "$ok" != 0 ]; then
    echo "stoker: no startup cache (the command runs without it, and tries again after the next build); see $work/log" >&2
    return 1
  fi
  rm -rf "$work"
}
