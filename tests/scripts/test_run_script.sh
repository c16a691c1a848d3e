#!/usr/bin/env bash
# scripts/run.sh, the README's first command, builds only what it runs: in a
# fresh build directory it configures, builds the fragvote program and runs it
# (here with --version), and builds no test program and no man page.
set -u
. "$(dirname "$0")/../support/lib.sh"
src=${FRAGVOTE_SRC:?run through ctest}
build=${FRAGVOTE_BUILD:?run through ctest}
fv_plain_build_only "run.sh makes a plain build of its own; the plain build's suite checks it"
while read -r pkg; do
  case "$pkg" in '# tests'*) break ;; ''|'#'*) continue ;; esac
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' ||
    { echo "SKIP: $pkg is not installed: run.sh would install it (scripts/deps.sh --run)"; exit 77; }
done <"$src/scripts/apt-packages.txt"
fv_tmp run

# A fresh VM or container is root without sudo: the README's first command
# must run there as it is (run.sh starts itself through sudo only as a user).
first=$(awk '/^```sh$/ { f = 1; next } f { print; exit }' "$src/README.md")
check "the README's first command is ./scripts/run.sh, without sudo ($first)" test "$first" = ./scripts/run.sh

t0=$(date +%s)
out=$(FRAGVOTE_BUILD_DIR=$tmp/b bash "$src/scripts/run.sh" --version 2>&1)
rc=$?
echo "run.sh in a fresh build directory took $(($(date +%s) - t0)) s"
check "run.sh --version exits 0" test "$rc" -eq 0
check "it ran the program it built" test "$(tail -n 1 <<<"$out")" = "$("$tmp/b/bin/fragvote" --version 2>/dev/null)"
check "the program runs from the build tree (pages found)" test -f "$tmp/b/share/fragvote/web/index.html"
tests_built=$(find "$tmp/b/tests" -type f -executable 2>/dev/null | wc -l)
check "no test program was built ($tests_built)" test "$tests_built" -eq 0
check "no man page was built" test -z "$(ls "$tmp/b/man" 2>/dev/null)"
[ $fail -ne 0 ] && printf '%s\n' "$out" | tail -20
exit $fail
