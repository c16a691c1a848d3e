#!/usr/bin/env bash
# One command from a fresh Debian 12: install what building and running needs
# (not the test suite's packages), build the fragvote program alone (not the
# tests), and run `fragvote serve` with its defaults (built-in deck, namespace
# lab, ./fragvote.db, port 8080). Arguments are passed to fragvote.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/deps.sh" --run
FRAGVOTE_BUILD_TARGET=fragvote "$top/scripts/build.sh"
exec "${FRAGVOTE_BUILD_DIR:-$top/build}/bin/fragvote" "$@"
