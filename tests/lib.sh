# Sourced by the shell tests (". "$(dirname "$0")/../lib.sh""): what each
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
