#!/usr/bin/env bash
# `cmake --install` into a temporary prefix gives a tree that works on its
# own: the program, its pages and decks, man pages, completion and docs in
# their places, and `serve` run from there finds its pages and decks (no
# option, no source tree) and plays a scripted question on the lab.
set -u
. "$(dirname "$0")/../support/lib.sh"
build=${FRAGVOTE_BUILD:?run through ctest}
src=${FRAGVOTE_SRC:?run through ctest}
if [ "$(id -u)" -ne 0 ]; then echo "SKIP: needs root (serve on the lab)"; exit 77; fi
prefix="fvi$$"
fv_tmp install
. "$(dirname "$0")/../support/serve_installed.sh"

p=$tmp/prefix
cmake --install "$build" --prefix "$p" >"$tmp/install.out" 2>&1
check "cmake --install succeeds" test $? -eq 0
for f in bin/fragvote share/fragvote/web/index.html share/fragvote/web/phone.js \
         share/fragvote/decks/fragquiz.json share/fragvote/decks/reader-challenge.json \
         share/fragvote/decks/firewall-fragments.json \
         share/man/man1/fragvote.1 share/man/man1/fragvote-serve.1 \
         share/bash-completion/completions/fragvote share/doc/fragvote/README.md share/doc/fragvote/SERVE.md \
         share/doc/fragvote/examples/systemd/fragvote@.service share/doc/fragvote/examples/nginx/fragvote.conf; do
  check "installed $f" test -f "$p/$f"
done
check "the installed pages are copies, not links into the source tree" \
  test -z "$(find "$p" -type l)"
check "installed fragvote --version" test "$("$p/bin/fragvote" --version)" = "$("$bin" --version)"
# A marker only the installed copy has: GET / must return it byte for byte.
echo "<!-- installed copy $$ -->" >>"$p/share/fragvote/web/index.html"
serve_installed "$p/bin/fragvote" "$p/share/fragvote" "$tmp"
exit $fail
