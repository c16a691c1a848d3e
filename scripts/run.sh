#!/usr/bin/env bash
# One command from a fresh Debian 12: install what is missing, build, and run
# `fragvote serve` with its defaults (built-in deck, namespace lab, ./fragvote.db,
# port 8080). Arguments are passed to fragvote.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/deps.sh"
"$top/scripts/build.sh"
exec "${FRAGVOTE_BUILD_DIR:-$top/build}/bin/fragvote" "$@"
