#!/usr/bin/env bash
# A warning of the hub's own is shown as a warning, not as a refused command:
# serve in a network namespace with no default route (only loopback, up) makes
# its join URL on 127.0.0.1, which phones cannot reach. The console says so on
# a "Warning:" line in every status it prints, never as "Last refused", and a
# scripted command after it is not taken as refused.
set -u
. "$(dirname "$0")/../../support/lib.sh"
if [ "$(id -u)" -ne 0 ]; then echo "SKIP: needs root (a network namespace)"; exit 77; fi
command -v unshare >/dev/null || { echo "SKIP: unshare(1) from util-linux is missing"; exit 77; }
fv_tmp console-warning

printf 'show\nopen\nshow\nquit\n' |
  timeout 60 unshare -n bash -c 'ip link set lo up && exec "$0" serve --db "$1" --port 0 --bind 127.0.0.1 \
    --target 127.0.0.1 --no-prefetch --no-qr' "$bin" "$tmp/w.db" >"$tmp/out" 2>&1
rc=$?
check exits_0 test "$rc" -eq 0
check join_url_on_loopback grep -q "^Join: http://127.0.0.1:[0-9]*/?room=" "$tmp/out"
check warning_line grep -q "^Warning: serve listens on 127.0.0.1 only (--bind): phones cannot reach the join URL" "$tmp/out"
check warning_in_each_status test "$(grep -c '^Warning: serve listens on 127.0.0.1 only' "$tmp/out")" -ge 2
check not_a_refusal bash -c "! grep -q 'Last refused' '$tmp/out'"
check open_not_refused bash -c "! grep -q '> open refused' '$tmp/out'"
check open_taken test "$(sqlite3 "$tmp/w.db" "SELECT state FROM questions WHERE position = 0")" = voting
[ $fail -ne 0 ] && cat "$tmp/out"
exit $fail
