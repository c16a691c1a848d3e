# Sourced by the shell tests (". "$(dirname "$0")/../support/lib.sh"; "../../support/lib.sh"
# from a folder two below tests/): what each
# wrote at its top. Gives $bin (the fragvote under test), fail=0 and
# check NAME CMD... (prints ok/FAIL, a failure sets fail=1; end with exit $fail).
# fv_tmp NAME makes $tmp (/tmp/fragvote-NAME-XXXXXX), removed at exit together
# with the lab $prefix when the test set one.
bin=${FRAGVOTE_BIN:?run through ctest}
fail=0
check() { local name=$1; shift; if "$@"; then echo "ok   $name"; else echo "FAIL $name"; fail=1; fi; }
fv_cleanup() {
  if [ -n "${prefix:-}" ]; then "$bin" lab down --prefix "$prefix" >/dev/null 2>&1; fi
  rm -rf "$tmp"
}
fv_tmp() { tmp=$(mktemp -d "/tmp/fragvote-$1-XXXXXX"); trap fv_cleanup EXIT; }
# fv_plain_build_only WHY: in the sanitizer build ($FRAGVOTE_BUILD configured
# with FRAGVOTE_SANITIZE), skip (77) saying "sanitizer build: WHY".
fv_plain_build_only() {
  if grep -q '^FRAGVOTE_SANITIZE:BOOL=ON' "${FRAGVOTE_BUILD:?run through ctest}/CMakeCache.txt" 2>/dev/null; then
    echo "SKIP: sanitizer build: $1"
    exit 77
  fi
}
# fv_join_port FILE PID [TRIES]: the port of serve's first
# "Join: SCHEME://HOST:PORT/" line in FILE (its console), waiting for it
# (TRIES x 0.1 s, 20 s unless told) while PID lives: prints it, or fails.
fv_join_port() {
  local i p
  for i in $(seq 1 "${3:-200}"); do
    p=$(sed -n 's#^Join: [a-z]*://[^/]*:\([0-9][0-9]*\)/.*#\1#p' "$1" 2>/dev/null | head -1)
    [ -n "$p" ] && { echo "$p"; return 0; }
    kill -0 "$2" 2>/dev/null || return 1
    [ "$i" -lt "${3:-200}" ] && sleep 0.1
  done
  return 1
}
