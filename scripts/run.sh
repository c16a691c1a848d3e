#!/usr/bin/env bash
# One command from a fresh Debian 12: install what building and running needs
# (not the test suite's packages), build the fragvote program alone (not the
# tests), and run `fragvote serve` with its defaults (built-in deck, namespace
# lab, ./fragvote.db, port 8080). Arguments are passed to fragvote.
# Run as root it goes on as it is (a fresh VM or container may have no sudo);
# run as a user it starts itself again through sudo (the lab needs root, and
# serve drops back to that user once the lab is up: docs/PRIVILEGES.md).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
if [ "$(id -u)" -ne 0 ]; then
  exec sudo -- "$top/scripts/run.sh" "$@"
fi
"$top/scripts/deps.sh" --run
FRAGVOTE_BUILD_TARGET=fragvote "$top/scripts/build.sh"
exec "${FRAGVOTE_BUILD_DIR:-$top/build}/bin/fragvote" "$@"
