#!/usr/bin/env bash
# The Debian package, end to end, as a speaker's machine gets it: build it
# from a copy of the sources with `dpkg-buildpackage -us -uc -b`, lintian it
# (clean but for the explained overrides in debian/fragvote.lintian-overrides),
# install it with dpkg -i, run the installed fragvote --version, render every
# man page with man -l, load the completion, play a scripted question on the
# lab with serve from the installed files, then dpkg -r and --purge it and
# check that none of its files is left.
set -u
. "$(dirname "$0")/../support/lib.sh"
src=${FRAGVOTE_SRC:?run through ctest}
build=${FRAGVOTE_BUILD:?run through ctest}
fv_plain_build_only "the package is built with Debian's flags from the sources, once, by the plain build's suite"
if [ "$(id -u)" -ne 0 ]; then echo "SKIP: needs root (dpkg -i, serve on the lab)"; exit 77; fi
for tool in dpkg-buildpackage dh lintian man; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is missing (scripts/apt-packages.txt: dpkg-dev debhelper lintian man-db)"; exit 77; }
done
# One run at a time on a machine (two suites at once would install and
# remove the same package under each other).
exec 9>/tmp/fragvote-test-deb.lock
flock 9
if dpkg-query -W -f='${Status}' fragvote 2>/dev/null | grep -q installed || [ -e /usr/bin/fragvote ]; then
  echo "SKIP: fragvote is already installed on this machine; this test would replace and remove it"
  exit 77
fi
prefix="fvd$$"
fv_tmp deb
# Also purge the package when the test stops half-way.
purge_and_cleanup() {
  dpkg-query -W -f='${Status}' fragvote 2>/dev/null | grep -q 'ok' && dpkg --purge fragvote >/dev/null 2>&1
  fv_cleanup
}
trap purge_and_cleanup EXIT
. "$(dirname "$0")/../support/serve_installed.sh"

# The sources as committed plus new files (not build dirs, not node_modules):
# dpkg-buildpackage writes its .deb next to the source directory.
mkdir "$tmp/src"
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
  (cd "$src" && git ls-files -z --cached --others --exclude-standard |
     tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -C "$tmp/src" -xf -
else
  tar -C "$src" --exclude='./build*' --exclude=node_modules -cf - . | tar -C "$tmp/src" -xf -
fi
version=$(cd "$tmp/src" && dpkg-parsechangelog -S Version)
arch=$(dpkg --print-architecture)
check "debian/changelog's version is CMake's project version ($version)" \
  grep -qE "^project\(fragvote VERSION ${version%%-*} " "$tmp/src/CMakeLists.txt"
t0=$(date +%s)
(cd "$tmp/src" && DEB_BUILD_OPTIONS="parallel=2" dpkg-buildpackage -us -uc -b) >"$tmp/build.log" 2>&1
rc=$?
echo "dpkg-buildpackage took $(($(date +%s) - t0)) s"
check "dpkg-buildpackage -us -uc -b succeeds" test "$rc" -eq 0
[ "$rc" -ne 0 ] && tail -40 "$tmp/build.log"
deb=$tmp/fragvote_${version}_${arch}.deb
check "it made fragvote_${version}_${arch}.deb" test -f "$deb"
[ -f "$deb" ] || exit 1
depends=$(dpkg-deb -f "$deb" Depends)
check "Depends from shlibs: libwebsockets, jansson, sqlite3, qrencode, libc ($depends)" \
  bash -c 'for l in libwebsockets libjansson libsqlite3 libqrencode libc6; do grep -q "$l" <<<"$1" || exit 1; done' _ "$depends"

lintian -I --pedantic --fail-on error,warning,info,pedantic "$tmp/fragvote_${version}_${arch}.changes" >"$tmp/lintian.out" 2>&1
rc=$?
check "lintian: no tag but the explained overrides" test "$rc" -eq 0
[ "$rc" -ne 0 ] && cat "$tmp/lintian.out"

dpkg -i "$deb" >"$tmp/dpkg-i.out" 2>&1
rc=$?
check "dpkg -i installs it" test "$rc" -eq 0
[ "$rc" -ne 0 ] && { cat "$tmp/dpkg-i.out"; exit 1; }
dpkg -L fragvote >"$tmp/files"
check "installed fragvote --version says $version" test "$(fragvote --version)" = "fragvote ${version%%-*}"
check "installed as /usr/bin/fragvote" test "$(command -v fragvote)" = /usr/bin/fragvote
pages=$(grep -E '^/usr/share/man/man1/.*\.1\.gz$' "$tmp/files")
check "one man page per command, and fragvote(1)" \
  test "$(wc -l <<<"$pages")" -eq "$(($(fragvote --help | sed -n '/^Commands:/,/^$/p' | grep -c '^  [a-z]') + 1))"
# A machine whose dpkg excludes /usr/share/man (container images) has the
# pages only in the package: render those.
mandir=/
if [ ! -f "$(head -n 1 <<<"$pages")" ]; then
  echo "note: dpkg did not install /usr/share/man (path-exclude); rendering the pages from the .deb"
  dpkg-deb -x "$deb" "$tmp/x" && mandir=$tmp/x
fi
for page in $pages; do
  out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$mandir/$page" 2>"$tmp/man.err")
  check "man -l $(basename "$page") renders its NAME, without warnings" \
    test -n "$(grep -A1 '^NAME' <<<"$out")" -a ! -s "$tmp/man.err"
  [ -s "$tmp/man.err" ] && cat "$tmp/man.err"
done
check "completion loads from /usr/share/bash-completion/completions/fragvote" \
  test "$(bash -c '. /usr/share/bash-completion/completions/fragvote && complete -p fragvote')" = "complete -F _fragvote fragvote"
serve_installed /usr/bin/fragvote /usr/share/fragvote "$tmp"

dpkg -r fragvote >"$tmp/dpkg-r.out" 2>&1
check "dpkg -r removes it" test $? -eq 0
dpkg --purge fragvote >>"$tmp/dpkg-r.out" 2>&1
check "dpkg --purge purges it" test $? -eq 0
check "dpkg knows it no more" bash -c '! dpkg-query -W -f="\${Status}" fragvote 2>/dev/null | grep -q ok'
left=$(while read -r f; do
         if [ -d "$f" ]; then [ -n "$(dpkg -S "$f" 2>/dev/null)" ] || echo "$f"; elif [ -e "$f" ] || [ -L "$f" ]; then echo "$f"; fi
       done < <(grep -vx "/." "$tmp/files"))
check "nothing of its file list is left (dirs only where other packages own them)${left:+: $left}" test -z "$left"
check "no /usr/share/fragvote, no /usr/share/doc/fragvote" test ! -e /usr/share/fragvote -a ! -e /usr/share/doc/fragvote
exit $fail
