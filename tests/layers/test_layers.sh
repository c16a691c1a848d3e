#!/usr/bin/env bash
# The direction of the layers as link facts (issue 16, docs/ARCHITECTURE.md).
# Two kinds of evidence, both from the build:
#  - undefined symbols of each built library (nm -u): only the hub library
#    (presenter/hub) references lws_; probe/ references nothing of the store
#    (db_, sqlite3_) or of lws; score/ references nothing of the store, the
#    probe, jansson, lws or the presenter;
#  - link lines: cmake/layers.cmake links each library alone, whole archive,
#    into build/layers/link_alone_<lib> with --no-as-needed, so the program's
#    NEEDED entries are the shared libraries the library's own link line
#    carries. The room, the console (and every part below the hub) carry no
#    libwebsockets; probe/ carries no sqlite3; score/ only libc.
# A positive control (the hub does reference and link lws) shows the checks
# see symbols and link lines at all.
set -u
. "$(dirname "$0")/../lib.sh"
build=${FRAGVOTE_BUILD:?run through ctest}
command -v nm >/dev/null && command -v readelf >/dev/null || { echo "SKIP: needs nm and readelf (binutils)"; exit 77; }
undef() { nm -u -A "$build/$1" 2>/dev/null | grep -E "$2"; } # lines "lib.a:member.o: U symbol"
needed() { readelf -d "$build/layers/link_alone_$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
found=""
none() { # none NAME TEXT: TEXT must be empty; else it is shown
  local name=$1 text=$2
  check "$name" test -z "$text"
  [ -z "$text" ] || found+="$name:"$'\n'"$text"$'\n'
}

presenter_libs="common/libfragcommon.a measure/libfragmeasure.a deck/libfragdeck.a room/libfragroom.a
  prober/libfragprober.a hub/libfraghub.a console/libfragconsole.a export/libfragexport.a
  replay/libfragreplay.a cli/libfragcli.a libfragcommands.a"
for lib in $presenter_libs; do
  check "built_$(basename "$lib" .a)" test -s "$build/presenter/$lib"
done
for lib in probe/libfragprobe.a score/libfragscore.a db/libfragdb.a; do
  check "built_$(basename "$lib" .a)" test -s "$build/$lib"
done

# Symbols: lws_ only from the hub.
check hub_references_lws test -n "$(undef presenter/hub/libfraghub.a ' U lws_')"
for lib in $presenter_libs; do
  [ "$lib" = hub/libfraghub.a ] && continue
  none "$(basename "$lib" .a)_references_no_lws" "$(undef "presenter/$lib" ' U lws_')"
done
none probe_references_no_store "$(undef probe/libfragprobe.a ' U (db_|sqlite3_|lws_)')"
none db_references_no_lws "$(undef db/libfragdb.a ' U lws_')"
none score_references_only_libc "$(undef score/libfragscore.a ' U (db_|sqlite3_|lws_|json_|probe_|quiz_|room_|hub_)')"

# Link lines.
for lib in fragscore fragprobe fragdb fragcommon fragmeasure fragdeck fragroom fragprober fraghub fragconsole \
           fragexport fragreplay fragcli fragcommands; do
  check "linked_alone_$lib" test -n "$(needed $lib)"
done
check hub_links_lws test -n "$(needed fraghub | grep libwebsockets)"
for lib in fragcommon fragmeasure fragdeck fragroom fragprober fragconsole fragexport fragcli fragdb fragprobe; do
  none "${lib}_links_no_lws" "$(needed $lib | grep libwebsockets)"
done
none probe_links_no_store "$(needed fragprobe | grep -E 'sqlite|jansson|websockets')"
none score_links_only_libc "$(needed fragscore | grep -vE '^(libc|libm|libasan|libubsan|libgcc_s|libstdc\+\+|ld-linux)[.-]')"

[ -z "$found" ] || printf 'references across a layer:\n%s' "$found"
exit $fail
