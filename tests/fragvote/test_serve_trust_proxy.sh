#!/usr/bin/env bash
# serve --trust-proxy against the real server (loopback, --target 127.0.0.1,
# no lab): the per-address throttles read X-Forwarded-For only when the TCP
# peer is a trusted proxy. A forged header from anyone else changes nothing;
# from the trusted address it names the client (right-most untrusted entry;
# a malformed header counts as the proxy, which is then capped like anyone).
# Without --trust-proxy the header is never read. HTTP: --http-rate 1 (burst
# 5), 10 quick requests; secrets: one wrong guess per address per second.
set -u
. "$(dirname "$0")/../support/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
for t in curl python3; do command -v $t >/dev/null || { echo "SKIP: needs $t"; exit 77; }; done
tmp=$(mktemp -d /tmp/fragvote-trustproxy-XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
pass=0 fail=0
check() { local name=$1; shift; if "$@"; then echo "ok   $name"; pass=$((pass+1)); else echo "FAIL $name"; fail=$((fail+1)); fi; }

# start NAME OPTIONS...: a serve on a free port; sets $port.
start() {
  local name=$1; shift
  "$bin" serve --target 127.0.0.1 --bind 127.0.0.1 --port 0 --no-qr --db "$tmp/$name.db" \
    --secret right-presenter-secret --http-rate 1 --script <(echo "sleep 600000") "$@" </dev/null >"$tmp/$name.out" 2>&1 &
  pids+=($!)
  port=$(fv_join_port "$tmp/$name.out" "${pids[-1]}" 100) && return 0
  echo "serve $name did not start:"; cat "$tmp/$name.out"; exit 1
}

# refused SRC XFF-PATTERN: of 10 quick page requests from SRC, how many got 429
# (XFF-PATTERN: printf format with the request number; "" sends no header).
refused() {
  local src=$1 fmt=$2 n=0 code
  for i in $(seq 1 10); do
    if [ -n "$fmt" ]; then
      # shellcheck disable=SC2059
      code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 --interface "$src" \
        -H "X-Forwarded-For: $(printf "$fmt" "$i")" "http://127.0.0.1:$port/")
    else
      code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 --interface "$src" "http://127.0.0.1:$port/")
    fi
    [ "$code" = 429 ] && n=$((n+1))
  done
  echo "$n"
}
auth() { python3 "$here/../support/ws_auth.py" 127.0.0.1 "$port" "$@"; }

"$bin" serve --trust-proxy 10.0.0.0/33 --db "$tmp/bad.db" >/dev/null 2>"$tmp/bad.err"; rc=$?
check bad_prefix_is_usage_error test "$rc" -eq 2
check bad_prefix_named grep -q "0..32 bits" "$tmp/bad.err"
"$bin" serve --trust-proxy nginx.example --db "$tmp/bad.db" >/dev/null 2>"$tmp/bad.err"; rc=$?
check name_is_usage_error test "$rc" -eq 2
check bad_no_db test ! -e "$tmp/bad.db"

start trusted --trust-proxy "127.0.0.1, ::1"
r=$(refused 127.0.0.2 "10.0.0.%d"); echo "untrusted peer, a new forged address each time: $r of 10 refused"
check untrusted_forged_header_changes_nothing test "$r" -ge 3
r=$(refused 127.0.0.1 "10.1.1.1"); echo "trusted proxy, one client: $r of 10 refused"
check trusted_proxy_one_client_is_capped test "$r" -ge 3
r=$(refused 127.0.0.1 "10.2.0.%d"); echo "trusted proxy, a new client each time: $r of 10 refused"
check trusted_proxy_distinct_clients_each_their_own test "$r" -eq 0
r=$(refused 127.0.0.1 "10.9.9.%d, 10.3.0.1, 127.0.0.1"); echo "trusted proxy, chain with forged left part: $r of 10 refused"
check rightmost_untrusted_entry_is_the_client test "$r" -ge 3
r=$(refused 127.0.0.1 "not-an-address"); echo "trusted proxy, malformed header: $r of 10 refused"
check malformed_header_counts_as_the_proxy test "$r" -ge 3

# each pair back to back in one process: the second within the first's 1 s window
mapfile -t a < <(auth 127.0.0.2 wrong 10.5.0.1 + 127.0.0.2 wrong 10.5.0.2)
check untrusted_wrong_secret_compared test "${a[0]:-}" = bad_secret
check untrusted_forged_header_still_throttled test "${a[1]:-}" = throttled
mapfile -t a < <(auth 127.0.0.1 wrong 10.6.0.1 + 127.0.0.1 wrong 10.6.0.1)
check trusted_client_wrong_secret_compared test "${a[0]:-}" = bad_secret
check trusted_same_client_throttled test "${a[1]:-}" = throttled
check trusted_other_client_compared test "$(auth 127.0.0.1 wrong 10.6.0.2)" = bad_secret
check trusted_other_client_gets_in test "$(auth 127.0.0.1 right-presenter-secret 10.6.0.3)" = auth_ok

start plain
r=$(refused 127.0.0.1 "10.1.1.1"); echo "no --trust-proxy, this host with a header: $r of 10 refused"
check no_trust_header_never_read_self_exempt test "$r" -eq 0
r=$(refused 127.0.0.2 "10.0.0.%d"); echo "no --trust-proxy, forged addresses: $r of 10 refused"
check no_trust_forged_header_changes_nothing test "$r" -ge 3
mapfile -t a < <(auth 127.0.0.2 wrong 10.7.0.1 + 127.0.0.2 wrong 10.7.0.2)
check no_trust_wrong_secret_compared test "${a[0]:-}" = bad_secret
check no_trust_other_forged_client_throttled test "${a[1]:-}" = throttled
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
