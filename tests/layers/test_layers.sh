#!/usr/bin/env bash
# The direction of the layers as link facts (issue 16, docs/ARCHITECTURE.md).
# Two kinds of evidence, both from the build:
#  - undefined symbols of each built library (nm -u): only the hub library
#    (fragvote/hub) and the laptop's link to a hosted hub
#    (fragvote/laptop/present_link.c) reference lws_; the hub references
#    nothing of the store (db_, sqlite3_: it goes through the room); probe/ references nothing of the store
#    (db_, sqlite3_) or of lws, and its wire decoders (probe/wire) only libc's
#    string functions; score/ references nothing of the store, the
#    probe, jansson, lws or the program (fragvote/); the subcommands (libfragcommands.a)
#    run no SQL of their own (sqlite3_); the local prober (fragvote/probe_worker)
#    and the prober interface it implements (fragvote/prober_api) reference nothing of the
#    store or the room (db_, sqlite3_, room_, quiz_) or of lws; nor does
#    serve's privileged helper and its wire (fragvote/privsep: the helper
#    process runs the probe engine, nothing of the room, store or hub);
#  - link lines: cmake/layers.cmake links each library alone, whole archive,
#    into build/layers/link_alone_<lib> with --no-as-needed, so the program's
#    NEEDED entries are the shared libraries the library's own link line
#    carries. The room, the console (and every part below the hub) carry no
#    libwebsockets; probe/, the prober interface and the local prober carry no sqlite3
#    or jansson (nothing of the store, not even through the room); score/
#    qkind/, clock/ and probe/wire/ only libc;
#  - include closures: the compiler's depfiles of the hub's objects name no
#    header of db/ and no sqlite3.h.
# A positive control (the hub does reference and link lws) shows the checks
# see symbols and link lines at all.
# Inside probe/, the same facts per file (nm on libfragprobe.a's members):
# its calls go one way (no cycle among the members; lab -> run -> ttl ->
# send/observe -> judges), and the pure judges reference only libc
# string/format functions and each other (no lab, no sockets, no clock).
set -u
. "$(dirname "$0")/../support/lib.sh"
build=${FRAGVOTE_BUILD:?run through ctest}
fv_tmp layers
command -v nm >/dev/null && command -v readelf >/dev/null && command -v tsort >/dev/null ||
  { echo "SKIP: needs nm and readelf (binutils) and tsort (coreutils)"; exit 77; }
undef() { nm -u -A "$build/$1" 2>/dev/null | grep -E "$2"; } # lines "lib.a:member.o: U symbol"
needed() { readelf -d "$build/layers/link_alone_$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
found=""
none() { # none NAME TEXT: TEXT must be empty; else it is shown
  local name=$1 text=$2
  check "$name" test -z "$text"
  [ -z "$text" ] || found+="$name:"$'\n'"$text"$'\n'
}

program_libs="common/libfragcommon.a measure/libfragmeasure.a deck/libfragdeck.a room/libfragroom.a
  prober_api/libfragproberapi.a probe_worker/libfragprobeworker.a privsep/libfragprivsep.a hub/libfraghub.a console/libfragconsole.a export/libfragexport.a
  replay/libfragreplay.a cli/libfragcli.a laptop/libfraglaptop.a libfragcommands.a"
for lib in $program_libs; do
  check "built_$(basename "$lib" .a)" test -s "$build/fragvote/$lib"
done
for lib in clock/libfragclock.a msg/libfragmsg.a probe/wire/libfragprobewire.a probe/libfragprobe.a score/libfragscore.a qkind/libfragqkind.a db/libfragdb.a; do
  check "built_$(basename "$lib" .a)" test -s "$build/$lib"
done

# Symbols: lws_ only from the hub.
check hub_references_lws test -n "$(undef fragvote/hub/libfraghub.a ' U lws_')"
for lib in $program_libs; do
  [ "$lib" = hub/libfraghub.a ] && continue
  none "$(basename "$lib" .a)_references_no_lws" "$(undef "fragvote/$lib" ' U lws_' | grep -v ':present_link\.c\.o:')"
done
check present_link_references_lws test -n "$(undef fragvote/laptop/libfraglaptop.a ' U lws_' | grep ':present_link\.c\.o:')"
# The hub reaches the store only through the room (room_write_run's wait,
# quiz_kind_name): no symbol of the store or of SQLite in fraghub.
none hub_references_no_store "$(undef fragvote/hub/libfraghub.a ' U (db_|sqlite3_)')"
none probe_references_no_store "$(undef probe/libfragprobe.a ' U (db_|sqlite3_|lws_)')"
# probe/wire/: the pure decoders, libc's string functions and nothing else
# (no I/O, nothing of the probe above it).
none probe_wire_references_only_libc "$(undef probe/wire/libfragprobewire.a ' U ' | grep -Ev ' U (probe_(parse|errq|snmp)_[a-z0-9_]+|memcpy|memset|memcmp|strchr|strlen|strcmp|strncmp|strstr|strtok_r|strtoull|inet_ntop|__errno_location|__stack_chk_fail|__(memcpy|memset)_chk|__(asan|ubsan|sanitizer)_.*)$')"
for lib in probe_worker/libfragprobeworker.a prober_api/libfragproberapi.a privsep/libfragprivsep.a; do
  none "$(basename "$lib" .a)_references_no_store_or_room" "$(undef "fragvote/$lib" ' U (db_|sqlite3_|room_|quiz_|lws_)')"
done
none db_references_no_lws "$(undef db/libfragdb.a ' U lws_')"
# Not even in reach: no hub object is compiled with a header of db/ (db.h,
# ...) or sqlite3.h in its include closure, as the compiler's depfiles of the
# build (CMake's <object>.d) list it. The room links the store PRIVATE and
# room.h, quiz.h, deck.h name no db.h (enum qkind is qkind/'s).
hubdeps=$(find "$build/fragvote/hub" -name '*.c.o.d' 2>/dev/null)
check hub_depfiles_read test -n "$hubdeps"
none hub_compiles_without_store \
  "$( [ -z "$hubdeps" ] || grep -oE '(^|[[:space:]/])(db/[A-Za-z0-9_]+\.h|sqlite3\.h)' $hubdeps | sed 's|^.*/fragvote/hub/||' | sort -u)"
# The probe's internal headers stay inside probe/ (and its tests): no object
# of the program under fragvote/ is compiled with a header of probe/ other
# than the umbrella fragprobe.h and its parts (the wire decoders, the
# observers' interface, the sender's and the judges' headers, ...) in its
# include closure.
presdeps=$(find "$build/fragvote" -name '*.c.o.d' 2>/dev/null)
check program_depfiles_read test -n "$presdeps"
probe_public='fragprobe|probe_(spec|path|result|run|witness|lab|pmtu|priv|pace|predict)'
none program_compiles_without_probe_internals \
  "$( [ -z "$presdeps" ] || grep -oE '/probe/([a-z]+/)?[A-Za-z0-9_]+\.h' $presdeps | grep -vE "/probe/($probe_public)\.h\$" |
      sed 's|^.*/fragvote/||; s|\.c\.o\.d:.*||' | sort -u)"
# The subcommands run no SQL of their own: the store is db/'s (serve's console
# reads a revealed result from the room, console/console_result.c).
none commands_reference_no_sqlite "$(undef fragvote/libfragcommands.a ' U sqlite3_')"
none score_references_only_libc "$(undef score/libfragscore.a ' U (db_|sqlite3_|lws_|json_|probe_|quiz_|room_|hub_)')"
# qkind/: the kinds' names, strcmp and nothing else (the sanitizers' hooks aside).
none qkind_references_only_strcmp "$(undef qkind/libfragqkind.a ' U ' | grep -Ev ' U (strcmp|__stack_chk_fail|__(asan|ubsan|sanitizer)_.*)$')"
# clock/: the program's one reader of the monotonic clock: clock_gettime and nothing else.
none clock_references_only_clock_gettime "$(undef clock/libfragclock.a ' U ' | grep -Ev ' U (clock_gettime|__stack_chk_fail|__(asan|ubsan|sanitizer)_.*)$')"

# msg/: messages and their English, pure: libc's string functions and nothing else.
none msg_references_only_libc "$(undef msg/libfragmsg.a ' U ' | grep -Ev ' U (fv_msg_[a-z_]+|strcmp|strchr|strlen|memcpy|memset|snprintf|vsnprintf|bsearch|__stack_chk_fail|__(snprintf|vsnprintf|memcpy|memset)_chk|__(asan|ubsan|sanitizer)_.*)$')"

# Link lines.
for lib in fragclock fragmsg fragscore fragqkind fragprobewire fragprobe fragdb fragcommon fragmeasure fragdeck fragproberapi fragroom fragprobeworker fragprivsep fraghub fragconsole \
           fragexport fragreplay fragcli fraglaptop fragcommands; do
  check "linked_alone_$lib" test -n "$(needed $lib)"
done
check hub_links_lws test -n "$(needed fraghub | grep libwebsockets)"
for lib in fragcommon fragmeasure fragdeck fragproberapi fragroom fragprobeworker fragprivsep fragconsole fragexport fragcli fragdb fragprobe; do
  none "${lib}_links_no_lws" "$(needed $lib | grep libwebsockets)"
done
none probe_links_no_store "$(needed fragprobe | grep -E 'sqlite|jansson|websockets')"
for lib in fragproberapi fragprobeworker; do # the local prober reaches the store neither itself nor through the room
  none "${lib}_links_no_store" "$(needed $lib | grep -E 'sqlite|jansson|websockets')"
done
none privsep_links_no_store "$(needed fragprivsep | grep -E 'sqlite|websockets')" # jansson: results as JSON
for lib in fragclock fragmsg fragscore fragqkind fragprobewire; do
  none "${lib#frag}_links_only_libc" "$(needed $lib | grep -vE '^(libc|libm|libasan|libubsan|libgcc_s|libstdc\+\+|ld-linux)[.-]')"
done

# ---- probe/, file by file ----
plib="$build/probe/libfragprobe.a"
# "member symbol" for every symbol a member defines / leaves undefined
nm -A --defined-only "$plib" 2>/dev/null | awk '$2 ~ /^[TDBRC]$/ { n = split($1, a, ":"); m = a[n - 1]; sub(/\.c\.o$/, "", m); print m, $3 }' >"$tmp/defs"
nm -u -A "$plib" 2>/dev/null | awk '{ n = split($1, a, ":"); m = a[n - 1]; sub(/\.c\.o$/, "", m); print m, $NF }' >"$tmp/undefs"
# "from to": from references a symbol that to defines
awk 'NR == FNR { def[$2] = $1; next } ($2 in def) && def[$2] != $1 { print $1, def[$2] }' "$tmp/defs" "$tmp/undefs" | sort -u >"$tmp/edges"
check probe_graph_read test -s "$tmp/edges"
# A cycle among probe/'s files: tsort names its members on stderr.
loop=$(tsort "$tmp/edges" 2>&1 >/dev/null)
none probe_files_call_one_way "$loop"
# The order of the prober: a file calls files of its own rank or lower, never
# higher (files not named here are not ranked).
ranks='lab:6 run:5 ttl:4 send:3 send_icmp:3 observe_raw:3 observe_recverr:3 witness_probe:3 observe_recverr_judge:2 witness_merge:2 rules:2 judge:1 judge_sent:1 judge_df:1 judge_frag:1 judge_kernel:0 judge_fact:0'
#      lab builds the lab, its readiness check runs a probe; run: one test; ttl: TTL discovery;
#      the sender and the observers; the pure refinements of the verdict; the pure judge
upward=$(awk -v ranks="$ranks" 'BEGIN { n = split(ranks, r, " "); for (i = 1; i <= n; i++) { split(r[i], kv, ":"); rank[kv[1]] = kv[2] } }
  ($1 in rank) && ($2 in rank) && rank[$1] < rank[$2] { print $1 " -> " $2 }' "$tmp/edges")
none probe_calls_go_down "$upward"
# The pure judges: only libc string/format functions, the sanitizers' and
# fortify's hooks, symbols of the judges themselves or spec.c's names, and
# msg/'s messages (pure: their words are a catalog key and its arguments).
pure='judge|judge_sent|judge_df|judge_frag|judge_kernel|judge_fact|judge_links|send_errno|evidence|observe_recverr_judge|witness_merge|rules|path_topology|spec|quote_about'
libc='snprintf|vsnprintf|strcmp|strncmp|strstr|strcasecmp|strncasecmp|strlen|strchr|memchr|strerror|inet_ntop|memcpy|memset|memcmp|memmove'
hooks='fv_msg_[a-z_]+|__stack_chk_fail|__(snprintf|vsnprintf|memcpy|memset|memmove)_chk|__(asan|ubsan|sanitizer)_.*'
impure=$(awk -v pure="^($pure)\$" 'NR == FNR { def[$2] = $1; next } $1 ~ pure && !(($2 in def) && def[$2] ~ pure) { print $1 ": " $2 }' \
  "$tmp/defs" "$tmp/undefs" | grep -Ev ": ($libc|$hooks)\$")
none probe_judges_are_pure "$impure"
[ -z "$found" ] || printf 'references across a layer:\n%s' "$found"
exit $fail
