#!/usr/bin/env bash
# Benchmark (not a ctest test): 1-RTT path-MTU discovery vs the classic
# sequential search, in the namespace lab, with routers that answer Frag
# Needed / Packet Too Big and with an ICMP-silent bottleneck.
#   FRAGVOTE_BIN=build/bin/fragvote bash tests/probe/pmtu/bench_pmtu.sh [RUNS]
# Prints one Markdown table row per case: median round trips and wall time.
set -u
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lab.sh"
RUNS=${1:-20}
TIMEOUT=${BENCH_TIMEOUT_MS:-500}
[ -x "$B" ] || { echo "no program at $B" >&2; exit 1; }
pmtu_need_root

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

bench() { # label target extra-args...
  local label=$1 target=$2; shift 2
  local rts="" ms="" pm=""
  for _ in $(seq "$RUNS"); do
    ip netns exec "$NS_SRC" "$B" pmtu flush >/dev/null
    out=$(as_nobody_in_src "$B" pmtu discover --timeout "$TIMEOUT" "$@" "$target")
    rts="$rts $(echo "$out" | grep -o 'round trips [0-9]*' | awk '{print $3}')"
    ms="$ms $(echo "$out" | grep -o '[0-9.]* ms$' | awk '{print $1}')"
    pm=$(echo "$out" | grep -o 'path MTU [0-9]*' | awk '{print $3}')
  done
  printf '| %s | %s | %s | %s | %s |\n' "$label" "$target" "$pm" \
    "$(echo $rts | tr ' ' '\n' | median)" "$(echo $ms | tr ' ' '\n' | median)"
}

echo "| case | target | path MTU | round trips (median) | wall ms (median) |"
echo "|---|---|---|---|---|"
for topo in "1500 1280 1500" "9000 9000 1400" "9000 9000 9000"; do
  pmtu_lab_up $topo
  for t in $DST4 $DST6; do
    bench "1-RTT, ${topo// //}" "$t"
    bench "sequential, ${topo// //}" "$t" --sequential
  done
  pmtu_icmp_silent "$NS_R2"
  pmtu_icmp_silent "$NS_R1"
  for t in $DST4 $DST6; do
    bench "1-RTT, ${topo// //}, ICMP-silent" "$t"
    bench "sequential, ${topo// //}, ICMP-silent" "$t" --sequential
  done
  pmtu_lab_down
done
