# Sourced by ./stoker, ./run-tests and the bundle's bin/stoker: puts a JDK 25 in JAVA_HOME, or says in one
# sentence why not.

# The variables through which a user configures every JVM (containers and CI set them; so does anyone
# recording with JFR). They are for the real run: a probe that ran java under them would read their
# "Picked up ..." banner as its first line and start the user's agents and flight recordings itself.
STOKER_JVM_ENV_VARIABLES=(JAVA_TOOL_OPTIONS _JAVA_OPTIONS JDK_JAVA_OPTIONS)

# Runs a command without the user's JVM variables (the probe, the startup cache's training runs).
stoker_without_jvm_env() {
  local unset=() name
  for name in "${STOKER_JVM_ENV_VARIABLES[@]}"; do unset+=(-u "$name"); done
  env "${unset[@]}" "$@"
}

# Prints the Java version of the JDK at $1 (e.g. 25.0.3). The image's release file says it without
# starting a JVM; only an image without one is asked, and then without the user's JVM variables.
stoker_java_version() {
  local home="$1" version=""
  [ -x "$home/bin/java" ] || return 1
  if [ -f "$home/release" ]; then
    version="$(sed -n 's/^JAVA_VERSION="\([^"]*\)"$/\1/p' "$home/release")"
  fi
  if [ -z "$version" ]; then
    version="$(stoker_without_jvm_env "$home/bin/java" -version 2>&1 | sed -n 's/^[^ ]* version "\([^"]*\)".*/\1/p' | head -n 1)"
  fi
  [ -n "$version" ] && echo "$version"
}

stoker_find_jdk() {
  local candidate version feature found=""
  for candidate in "${JAVA_HOME:-}" /usr/lib/jvm/*25*; do
    [ -n "$candidate" ] || continue
    version="$(stoker_java_version "$candidate")" || continue
    feature="${version%%[!0-9]*}"
    if [ -n "$feature" ] && [ "$feature" -ge 25 ]; then
      export JAVA_HOME="$candidate"
      export PATH="$JAVA_HOME/bin:$PATH"
      return 0
    fi
    found="$found${found:+, }$candidate is Java $version"
  done
  echo "stoker: no JDK 25 found (JAVA_HOME=${JAVA_HOME:-unset}, nothing under /usr/lib/jvm/*25*${found:+; $found}); install one, e.g. Temurin 25, and set JAVA_HOME." >&2
  return 1
}
