#!/usr/bin/env bash
# Configures and builds fragvote into ./build (or $FRAGVOTE_BUILD_DIR): every
# target, or only $FRAGVOTE_BUILD_TARGET (scripts/run.sh: the program).
# Extra arguments go to cmake's configure step (e.g. -DFRAGVOTE_SANITIZE=ON).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${FRAGVOTE_BUILD_DIR:-$top/build}
cmake -S "$top" -B "$build" "$@" >/dev/null
cmake --build "$build" -j"$(nproc)" ${FRAGVOTE_BUILD_TARGET:+--target "$FRAGVOTE_BUILD_TARGET"}
