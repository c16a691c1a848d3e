#!/usr/bin/env bash
# The direction of the layers as link facts (issue 16), read from the built
# libraries' undefined symbols: the live session's parts (quiz, room, revote,
# league, leaderboard) reference no libwebsockets symbol; probe/ references
# nothing of the store (db_, sqlite3_) or of libwebsockets; the scoring rule
# (score/) references nothing of the store, the probe, jansson or lws. A
# positive control (hub.c does reference lws_) shows the check sees symbols.
set -u
. "$(dirname "$0")/../lib.sh"
build=${FRAGVOTE_BUILD:?run through ctest}
command -v nm >/dev/null || { echo "SKIP: needs nm (binutils)"; exit 77; }
undef() { nm -u -A "$build/$1" 2>/dev/null; } # lines "lib.a:member.o: U symbol"
members() { undef "$1" | grep -E "^[^:]*:($2)\.c\.o:"; }

for lib in presenter/hub/libfraghub.a presenter/room/libfragroom.a probe/libfragprobe.a score/libfragscore.a; do
  check "built_$(basename "$lib" .a)" test -s "$build/$lib"
done
check hub_references_lws test -n "$(members presenter/hub/libfraghub.a hub | grep ' lws_')"
room=$(undef presenter/room/libfragroom.a | grep ' lws_')
check room_parts_reference_no_lws test -z "$room"
probe=$(undef probe/libfragprobe.a | grep -E ' (db_|sqlite3_|lws_)')
check probe_references_no_store test -z "$probe"
score=$(undef score/libfragscore.a | grep -E ' (db_|sqlite3_|lws_|json_|probe_|quiz_|room_)')
check score_references_only_libc test -z "$score"
[ -z "$room$probe$score" ] || printf 'references across a layer:\n%s\n%s\n%s\n' "$room" "$probe" "$score"
exit $fail
