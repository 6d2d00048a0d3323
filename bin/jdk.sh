# Sourced by ./stoker and ./run-tests: puts a JDK 25 in JAVA_HOME, or says in one sentence why not.
stoker_find_jdk() {
  local candidate
  for candidate in "${JAVA_HOME:-}" /usr/lib/jvm/*25*; do
    if [ -n "$candidate" ] && [ -x "$candidate/bin/java" ] &&
       "$candidate/bin/java" -version 2>&1 | head -n 1 | grep -qE 'version "(2[5-9]|[3-9][0-9])'; then
      export JAVA_HOME="$candidate"
      export PATH="$JAVA_HOME/bin:$PATH"
      return 0
    fi
  done
  echo "stoker: no JDK 25 found (JAVA_HOME=${JAVA_HOME:-unset}, nothing under /usr/lib/jvm/*25*); install one, e.g. Temurin 25, and set JAVA_HOME." >&2
  return 1
}
