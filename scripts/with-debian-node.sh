#!/usr/bin/env bash
# Runs a command with Debian 12's own Node.js (18.x) as `node`, on a machine
# whose node is another one (e.g. NodeSource's 20), without replacing it: the
# Debian packages are unpacked into a cache directory and, in a private mount
# namespace, bound over /usr/bin/node and overlaid on /usr/share/nodejs (where
# Debian's node looks for its externalized builtins and for node-ws). Root.
#   sudo scripts/with-debian-node.sh ctest --test-dir build -R test_hub_pages
set -euo pipefail
[ "$(id -u)" -eq 0 ] || { echo "with-debian-node: needs root (mount namespace)" >&2; exit 3; }
[ $# -gt 0 ] || { echo "usage: with-debian-node.sh COMMAND [ARGS...]" >&2; exit 2; }
cache=${FRAGVOTE_NODE_CACHE:-/var/tmp/fragvote-debian-node}
# The bookworm version of nodejs (the machine's own may be pinned to another origin).
version=$(apt-cache madison nodejs | awk '$5 ~ /debian.org/ || $6 ~ /bookworm/ { print $3; exit }')
[ -n "$version" ] || { echo "with-debian-node: apt knows no Debian nodejs (apt-get update?)" >&2; exit 1; }
root=$cache/$version
if [ ! -x "$root/usr/bin/node" ]; then
  mkdir -p "$cache/debs" "$root"
  (cd "$cache/debs" && apt-get download "nodejs=$version" "libnode108=$version" node-acorn node-cjs-module-lexer \
     node-undici >/dev/null 2>&1)
  for deb in "$cache"/debs/*.deb; do dpkg-deb -x "$deb" "$root"; done
fi
target=$(command -v node) || { echo "with-debian-node: no node to stand in for (apt-get install nodejs)" >&2; exit 1; }
[ -d /usr/share/nodejs ] || { echo "with-debian-node: no /usr/share/nodejs (apt-get install node-ws)" >&2; exit 1; }
exec unshare -m bash -c '
  set -e
  mount --make-rprivate /
  mount -t overlay overlay -o "lowerdir=$1/usr/share/nodejs:/usr/share/nodejs" /usr/share/nodejs
  mount --bind "$1/usr/bin/node" "$2"
  export LD_LIBRARY_PATH=$1/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  shift 2
  echo "with-debian-node: node $(node --version)" >&2
  exec "$@"
' _ "$root" "$(readlink -f "$target")" "$@"
