#!/usr/bin/env bash
# The whole test suite: install what is missing, build, run ctest.
# Tests that need root or network namespaces run when those exist and are
# reported as skipped (with the reason) where the platform lacks them.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${FRAGVOTE_BUILD_DIR:-$top/build}
"$top/scripts/deps.sh"
FRAGVOTE_BUILD_DIR=$build "$top/scripts/build.sh" "$@"
cd "$build"
ctest --output-on-failure --timeout 600 -j1
