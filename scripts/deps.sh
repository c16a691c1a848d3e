#!/usr/bin/env bash
# Installs the Debian packages listed in scripts/apt-packages.txt that are
# not installed yet (apt-get update runs once, only when something is missing).
# --run: only what building and running fragvote needs (the list's part above
# its "# tests" line), without the test suite's extra set-up steps.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
only_run=0
[ "${1:-}" = --run ] && only_run=1
missing=()
while read -r pkg; do
  case "$pkg" in
    '# tests'*) [ $only_run -eq 1 ] && break; continue ;;
    ''|'#'*) continue ;;
  esac
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$pkg")
  fi
done < "$here/apt-packages.txt"
if [ ${#missing[@]} -gt 0 ]; then
  echo "fragvote: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y "${missing[@]}"
fi
[ $only_run -eq 1 ] && exit 0
# Extra non-apt set-up steps (e.g. npm packages for the browser tests).
for hook in "$here"/deps.d/*.sh; do
  [ -e "$hook" ] && bash "$hook"
done
exit 0
