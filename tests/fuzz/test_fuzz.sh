#!/usr/bin/env bash
# Short libFuzzer runs of every parser of untrusted input (ICMP and quotes,
# MSG_ERRQUEUE / snmp / netlink decoders, deck files, client messages),
# built with clang + ASan + UBSan in a build directory of its own.
# FRAGVOTE_FUZZ_SECONDS (default 20) per target; seeds in tests/fuzz/corpus/<target>.
# FRAGVOTE_FUZZ_BUILD names the fuzz build directory (default: the build
# directory + "-fuzz"); CI's sanitizer pass reuses the plain pass's, since the
# fuzz targets are the same clang + ASan + UBSan binaries in both.
# A crash, leak or sanitizer report fails the test and leaves the reproducer
# in the build directory (tests/fuzz/crash-*).
set -u
src=${FRAGVOTE_SRC:?}
secs=${FRAGVOTE_FUZZ_SECONDS:-20}
if ! command -v clang >/dev/null; then echo "SKIP: clang is not installed (scripts/apt-packages.txt lists it)"; exit 77; fi
build=${FRAGVOTE_FUZZ_BUILD:-${FRAGVOTE_BUILD:-$src/build}-fuzz}
CC=clang cmake -S "$src" -B "$build" -DFRAGVOTE_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null || exit 1
targets=$(cd "$src/tests/fuzz" && ls fuzz_*.c | sed 's/\.c$//')
cmake --build "$build" -j"$(nproc)" --target $targets >"$build/fuzz-build.log" 2>&1 || { tail -30 "$build/fuzz-build.log"; exit 1; }
pass=0 fail=0
for t in $targets; do
  name=${t#fuzz_}
  work=$(mktemp -d)
  [ -d "$src/tests/fuzz/corpus/$name" ] && cp -r "$src/tests/fuzz/corpus/$name/." "$work/"
  dict=()
  [ -f "$src/tests/fuzz/$name.dict" ] && dict=(-dict="$src/tests/fuzz/$name.dict")
  if (cd "$build/tests/fuzz" && ./"$t" "${dict[@]}" -max_total_time="$secs" -max_len=4096 -timeout=5 \
        -print_final_stats=1 "$work" >"$build/tests/fuzz/$t.log" 2>&1); then
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$build/tests/fuzz/$t.log" | grep -o '[0-9]*$')
    echo "ok   $t: ${runs:-?} executions in ${secs}s, no finding"
    pass=$((pass + 1))
  else
    echo "FAIL $t"; tail -40 "$build/tests/fuzz/$t.log"
    fail=$((fail + 1))
  fi
  rm -rf "$work"
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
