#!/usr/bin/env bash
# The sizes and the visibility a maintainer can live with (issue 35's
# done-when, docs/ARCHITECTURE.md "Rooms"), measured on the product's source
# (fragvote/ probe/ db/ score/ msg/ clock/ qkind/; not tests/) and on the
# compiler's depfiles of this build:
#  - no source file over 700 lines;
#  - no function over 100 lines: from the line at column 0 that starts its
#    definition to its closing "}" at column 0 (the project's style);
#  - fragprobe.h and its parts (probe/probe_*.h) each under 250 lines;
#  - a header that says "Internal to" is included by no product .c file
#    outside its folder (a folder is a library);
#  - a struct defined in a header no product .c outside its folder includes
#    (internal to its library) is seen by at most 5 product .c files, counted
#    over the headers each object's depfile names (what the compiler read,
#    through every include). Structs of a library's public headers (included
#    from other folders) are its public types and are not counted; the
#    value types let through below are capped at their own counts.
# Each check prints the largest it found, so the numbers stay in the log.
set -u
. "$(dirname "$0")/../support/lib.sh"
build=${FRAGVOTE_BUILD:?run through ctest}
root=$(cd "$(dirname "$0")/../.." && pwd)
fv_tmp rooms
cd "$root" || exit 1
folders="fragvote probe db score msg clock qkind"
find $folders -name '*.[ch]' -type f | sort >"$tmp/files"

# Files.
xargs wc -l <"$tmp/files" | grep -v ' total$' | sort -rn >"$tmp/lines"
echo "largest files: $(head -3 "$tmp/lines" | tr -s ' ' | tr '\n' ';')"
check files_at_most_700_lines test -z "$(awk '$1 > 700' "$tmp/lines")"
awk '$1 > 700 { print "  over 700: " $2 " (" $1 ")" }' "$tmp/lines"

# Functions: a definition starts at column 0 with a name and "(", has no
# "=" before its "{" (not an initializer) and no ";" (not a prototype).
grep '\.c$' "$tmp/files" | while read -r f; do
  awk -v f="$f" '
    state == 0 && /^[A-Za-z_][^=;#]*\(/ && !/^(typedef|struct [A-Za-z_0-9]+ \{|enum|union)/ { state = 1; start = FNR }
    state == 1 && /;[ \t]*(\/\*.*)?$/ && !/\{/ { state = 0 }
    state == 1 && /\{[ \t]*(\/\*.*)?$/ { state = 2 }
    state == 2 && /^\}/ { print FNR - start + 1, f ":" start; state = 0 }' "$f"
done | sort -rn >"$tmp/functions"
echo "functions measured: $(wc -l <"$tmp/functions"); longest: $(head -3 "$tmp/functions" | tr '\n' ';')"
check functions_measured test "$(wc -l <"$tmp/functions")" -gt 1000
check functions_at_most_100_lines test -z "$(awk '$1 > 100' "$tmp/functions")"
awk '$1 > 100 { print "  over 100: " $2 " (" $1 " lines)" }' "$tmp/functions"

# fragprobe.h's parts.
wc -l probe/fragprobe.h probe/probe_*.h | grep -v ' total$' | sort -rn >"$tmp/parts"
echo "fragprobe.h's parts, largest: $(head -2 "$tmp/parts" | tr -s ' ' | tr '\n' ';')"
check fragprobe_parts_under_250_lines test -z "$(awk '$1 >= 250' "$tmp/parts")"
awk '$1 >= 250 { print "  250 or more: " $2 " (" $1 ")" }' "$tmp/parts"

# Who reads which header: "source.c header.h" for every product .c and
# every product header its depfile names (paths relative to the checkout).
find "$build" -name '*.o.d' -type f >"$tmp/depfiles"
check depfiles_found test "$(wc -l <"$tmp/depfiles")" -gt 100
xargs cat <"$tmp/depfiles" | tr -s ' \\\t' '\n\n\n' | awk -v root="$root/" -v folders="$folders" '
  BEGIN { n = split(folders, fl, " "); for (i = 1; i <= n; i++) ours[fl[i]] = 1 }
  function mine(p) { if (index(p, root) == 1) p = substr(p, length(root) + 1); split(p, a, "/"); return (a[1] in ours) ? p : "" }
  /:$/ { src = ""; next }
  /\.c$/ && src == "" { src = mine($0); next }
  /\.h$/ && src != "" { h = mine($0); if (h != "") print src, h }' | sort -u |
  while read -r s h; do [ -f "$s" ] && [ -f "$h" ] && echo "$s $h"; done >"$tmp/reads" # not an old object's
check depfiles_read test "$(wc -l <"$tmp/reads")" -gt 1000
# Each header: how many product .c read it, and how many outside its folder.
awk '{ n[$2]++; sd = $1; sub(/\/[^\/]*$/, "", sd); hd = $2; sub(/\/[^\/]*$/, "", hd); if (sd != hd) out[$2]++ }
  END { for (h in n) print h, n[h], (h in out) ? out[h] : 0 }' "$tmp/reads" | sort >"$tmp/readers"
# Let through, each with the most files it may reach and why (docs/ARCHITECTURE.md "Rooms"):
#  hub_peer: a client's address (16 bytes and a "this host" flag), a value, not state; struct
#    hub_conn holds one, so every file that sees a connection sees it, and so do the address
#    handlers (guard, addrs, proxy, http, prober). 7 at the least while a connection holds it.
#  probe_sendinfo, probe_observation, probe_packet_seen: what the sender did and what an
#    observer saw, the values the sender and the two observers hand to the pure judges (fed
#    canned values in their tests): the input of a layer, not state. They become a library's
#    public types when the judges are a library of their own (probe/judge/; it needs spec.c's
#    names and path_topology.c in a library below it first).
let_through='hub_peer:12 probe_sendinfo:13 probe_observation:10 probe_packet_seen:11'
internal_outside=""
over=""
while read -r h n out; do
  if grep -q 'Internal to' "$h" && [ "$out" -gt 0 ]; then
    internal_outside+="  $h (internal) is read by $out product .c outside its folder:"$'\n'
    internal_outside+=$(awk -v h="$h" '$2 == h { print "    " $1 }' "$tmp/reads" | grep -v " ${h%/*}/[^/]*\$")$'\n'
  fi
  [ "$out" -gt 0 ] && continue
  for s in $(sed -nE 's/^(typedef[ \t]+)?struct[ \t]+([A-Za-z_][A-Za-z_0-9]*)[ \t]*\{.*/\2/p' "$h"); do
    echo "$n struct $s ($h)" >>"$tmp/internal_structs"
    cap=$(tr ' ' '\n' <<<"$let_through" | sed -n "s/^$s://p")
    if [ -n "$cap" ]; then
      echo "let through: struct $s ($h) seen by $n .c files (at most $cap)"
      [ "$n" -gt "$cap" ] && over+="  struct $s ($h) is seen by $n .c files, more than its $cap"$'\n'
    else
      [ "$n" -gt 5 ] && over+="  struct $s ($h) is seen by $n .c files"$'\n'
    fi
  done
done <"$tmp/readers"
check internal_structs_found test -s "$tmp/internal_structs"
echo "internal structs, most seen: $(sort -rn "$tmp/internal_structs" | head -3 | tr '\n' ';')"
check internal_headers_stay_inside test -z "$internal_outside"
printf '%s' "$internal_outside"
check internal_structs_seen_by_at_most_5 test -z "$over"
printf '%s' "$over"
exit $fail
