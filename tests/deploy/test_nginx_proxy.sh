#!/usr/bin/env bash
# Behind a real nginx (issue 17): the shipped deploy/nginx/fragvote.conf, with
# only its site values substituted (ports on loopback, a self-signed
# certificate, serve's port), in front of two `fragvote serve` rooms, one per
# port, as docs/DEPLOY.md describes. Phones over wss through nginx join and
# vote and every vote is acked and stored, each phone in its own room; the
# throttles of the room run with --trust-proxy see the phones' own 127.0.0.x
# addresses, the room without it sees only nginx. A third room is hosted
# (serve --prober remote, --trust-proxy): the laptop (`fragvote present`,
# wss through nginx, the test's certificate trusted with --ca) runs a scripted
# talk while phones vote over wss from their own addresses; votes, the
# laptop's measurement and the reveal go through nginx, and the room's page
# throttle counts each phone's address, never nginx's (the laptop's own
# connection is not disturbed). nginx runs on its own
# prefix, pid and temp dirs (never the system service); loopback only.
set -u
bin=${FRAGVOTE_BIN:?run through ctest}
src=${FRAGVOTE_SRC:?run through ctest}
load=${FRAGVOTE_BUILD:?run through ctest}/tests/load/fv_load
here=$(cd "$(dirname "$0")" && pwd)
NGINX=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}
[ -x "$NGINX" ] || { echo "SKIP: needs nginx (scripts/apt-packages.txt lists it)"; exit 77; }
for t in openssl curl python3 sqlite3 jq; do command -v $t >/dev/null || { echo "SKIP: needs $t"; exit 77; }; done
[ -x "$load" ] || { echo "fv_load not built at $load"; exit 1; }
tmp=$(mktemp -d /tmp/fragvote-nginx-XXXXXX)
chmod 755 "$tmp"
pids=() nginx_pid=
cleanup() {
  [ -n "$nginx_pid" ] && kill -QUIT "$nginx_pid" 2>/dev/null
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  wait 2>/dev/null; rm -rf "$tmp"
}
trap cleanup EXIT
pass=0 fail=0
check() { local name=$1; shift; if "$@"; then echo "ok   $name"; pass=$((pass+1)); else echo "FAIL $name"; fail=$((fail+1)); fi; }

# The name and the address the laptop checks the certificate against (present --ca).
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=vote.example.org \
  -addext "subjectAltName=DNS:vote.example.org,IP:127.0.0.1" \
  -keyout "$tmp/key.pem" -out "$tmp/cert.pem" >/dev/null 2>&1 || { echo "openssl failed"; exit 1; }
. "$here/nginx_fixture.sh"
{ read -r http1; read -r tls1; read -r tls2; read -r tls3; } < <(free_ports 4)
# start NAME TLS-PORT OPTIONS...: a serve on a port of its own choosing
# (--port 0; its join URL is nginx's); sets $up to that port.
start() {
  local name=$1 tls=$2; shift 2
  "$bin" serve --target 127.0.0.1 --bind 127.0.0.1 --port 0 --no-qr --no-prefetch --db "$tmp/$name.db" \
    --public-url "https://127.0.0.1:$tls/" --http-rate 1 --script <(echo "sleep 600000") "$@" \
    </dev/null >"$tmp/$name.out" 2>&1 &
  local pid=$!
  pids+=($pid)
  up=$(fv_listen_port "$tmp/$name.out" "$pid") && return 0
  echo "serve $name did not start:"; cat "$tmp/$name.out"; exit 1
}
start room1 "$tls1" --room HUBAAA --secret room-one-secret-key --trust-proxy 127.0.0.1; up1=$up
start room2 "$tls2" --room HUBBBB --secret room-two-secret-key; up2=$up
# Room 3 is hosted: no probe engine (--prober remote, so no --target), the laptop measures.
"$bin" serve --prober remote --bind 127.0.0.1 --port 0 --no-qr --db "$tmp/room3.db" --room HUBCCC \
  --secret room-three-secret-key --public-url "https://127.0.0.1:$tls3/" --trust-proxy 127.0.0.1 --http-rate 1 \
  --script <(echo "sleep 600000") </dev/null >"$tmp/room3.out" 2>&1 &
pids+=($!)
up3=$(fv_listen_port "$tmp/room3.out" "${pids[-1]}") || { echo "serve room3 did not start:"; cat "$tmp/room3.out"; exit 1; }
nginx_site "$src/deploy/nginx/fragvote.conf" "$tmp/site.conf" "$http1" "$tls1" "$tmp/cert.pem" "$tmp/key.pem" "$up1" ||
  exit 1
# Room 2, as docs/DEPLOY.md says: the same upstream and TLS server blocks
# again with the room's name and ports (the map and the port-80 redirect once).
# room_conf N TLS-PORT UPSTREAM-PORT: $tmp/roomN.conf, room 1's upstream and TLS
# server blocks again with room N's name and ports.
room_conf() {
python3 - "$tmp/site.conf" "$tmp/room$1.conf" "$tls1" "$2" "$up1" "$3" "$1" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
up = s[s.index("upstream fragvote_room1"):]
up = up[:up.index("\n}\n") + 3]
tls = s[s.index("server {\n    listen 127.0.0.1:" + sys.argv[3] + " ssl;"):]
n = sys.argv[7]
r = (up + "\n" + tls).replace("fragvote_room1", "fragvote_room" + n).replace(":" + sys.argv[3] + " ssl", ":" + sys.argv[4] + " ssl")
r = r.replace("127.0.0.1:" + sys.argv[5] + ";", "127.0.0.1:" + sys.argv[6] + ";").replace("shared:fragvote_tls:10m", "shared:fragvote_tls" + n + ":10m")
open(sys.argv[2], "w").write(r)
PY
}
room_conf 2 "$tls2" "$up2"
room_conf 3 "$tls3" "$up3"
nginx_main "$tmp/nginx" 4096 "$tmp/site.conf" "$tmp/room2.conf" "$tmp/room3.conf"
"$NGINX" -t -p "$tmp/nginx" -c "$tmp/nginx/nginx.conf" -e "$tmp/nginx/logs/error.log" >"$tmp/nginx-t.out" 2>&1
check nginx_accepts_the_shipped_file test $? -eq 0 || { cat "$tmp/nginx-t.out"; exit 1; }

ulimit -n "$(ulimit -Hn)"
nginx_start "$NGINX" "$tmp/nginx" "$tls1" || { echo "nginx did not start:"; cat "$tmp/nginx/logs/error.log"; exit 1; }

check https_page_through_nginx sh -c "curl -sk --max-time 5 https://127.0.0.1:$tls1/ | grep -qi '<html'"
check http_redirects_to_https sh -c "curl -s --max-time 5 -o /dev/null -w '%{http_code} %{redirect_url}' http://127.0.0.1:$http1/ | grep -q '^301 https://'"
check join_url_is_the_public_one grep -q "^Join: https://127.0.0.1:$tls1/" "$tmp/room1.out"

# Phones over wss through nginx, from 127.0.0.2..5; the presenter too.
"$load" --tls --port "$tls1" --secret room-one-secret-key --db "$tmp/room1.db" --phones 200 --sources 4 --window-ms 1000 \
  --json "$tmp/r1.json" >"$tmp/r1.out" 2>&1; rc=$?
tail -5 "$tmp/r1.out"
check room1_phones_vote_over_wss_all_acked_and_stored test "$rc" -eq 0
check room1_200_acked test "$(jq -r .acked "$tmp/r1.json")" = 200
"$load" --tls --port "$tls2" --secret room-two-secret-key --db "$tmp/room2.db" --phones 120 --sources 3 --window-ms 1000 \
  --json "$tmp/r2.json" >"$tmp/r2.out" 2>&1; rc=$?
tail -3 "$tmp/r2.out"
check room2_phones_vote_over_wss_all_acked_and_stored test "$rc" -eq 0
voters() { sqlite3 "$tmp/$1.db" "SELECT count(*) FROM voters v JOIN sessions s ON s.id = v.session_id WHERE s.room = '$2'"; }
check each_phone_in_its_own_room_1 test "$(voters room1 HUBAAA)/$(voters room1 HUBBBB)" = "200/0"
check each_phone_in_its_own_room_2 test "$(voters room2 HUBBBB)/$(voters room2 HUBAAA)" = "120/0"

# refused PORT SRC [XFF]: of 10 quick page requests through nginx, how many got 429.
refused() {
  local n=0 code hdr=()
  [ $# -ge 3 ] && hdr=(-H "X-Forwarded-For: $3")
  for _ in $(seq 1 10); do
    code=$(curl -sk -o /dev/null -w '%{http_code}' --max-time 5 --interface "$2" "${hdr[@]}" "https://127.0.0.1:$1/")
    [ "$code" = 429 ] && n=$((n+1))
  done
  echo "$n"
}
r=$(refused "$tls1" 127.0.0.2); echo "room 1 (--trust-proxy), phone 127.0.0.2: $r of 10 refused"
check trusted_phone_address_is_capped test "$r" -ge 3
code=$(curl -sk -o /dev/null -w '%{http_code}' --max-time 5 --interface 127.0.0.3 "https://127.0.0.1:$tls1/")
check another_phone_is_not test "$code" = 200
r=$(refused "$tls1" 127.0.0.4 "10.0.0.1, 10.0.0.2"); echo "room 1, phone 127.0.0.4 with a forged header: $r of 10 refused"
check forged_header_through_nginx_changes_nothing test "$r" -ge 3
r=$(refused "$tls2" 127.0.0.2); echo "room 2 (no --trust-proxy), phone 127.0.0.2: $r of 10 refused (all are nginx's, this host)"
check without_trust_proxy_serve_sees_only_nginx test "$r" -eq 0
export WS_AUTH_TLS=1
# back to back in one process: the second within the first's 1 s window
mapfile -t a < <(python3 "$here/../support/ws_auth.py" 127.0.0.1 "$tls1" 127.0.0.6 wrong + 127.0.0.6 wrong)
check ws_wrong_secret_compared test "${a[0]:-}" = bad_secret
check ws_same_phone_throttled test "${a[1]:-}" = throttled
check ws_other_phone_compared test "$(python3 "$here/../support/ws_auth.py" 127.0.0.1 "$tls1" 127.0.0.7 room-one-secret-key)" = auth_ok
# Room 3, hosted: the laptop over wss through nginx (the certificate checked
# against the test's own, --ca), phones over wss from 127.0.0.2..5.
echo '{"title": "Hosted behind nginx", "target": "127.0.0.1",
 "tests": [{"proto": "udp4", "mode": "dont", "size": 1400}]}' >"$tmp/deck3.json"
for _ in 1 2 3; do
  printf 'open\nwait-votes 8 30000\nclose\nmeasure\nwait-measured 60000\nreveal\nnext\n'
done >"$tmp/talk3.txt"
echo quit-at-end >>"$tmp/talk3.txt"
python3 "$here/../fragvote/laptop/phones.py" "wss://127.0.0.1:$tls3/" --phones 8 --src 127.0.0.2,127.0.0.3,127.0.0.4,127.0.0.5 \
  --max-s 120 >"$tmp/phones3.json" 2>&1 &
ph3=$!
FRAGVOTE_SECRET=room-three-secret-key "$bin" present "wss://127.0.0.1:$tls3/" --ca "$tmp/cert.pem" --deck "$tmp/deck3.json" \
  --no-qr --script "$tmp/talk3.txt" --export "$tmp/room3.json" >"$tmp/present3.out" 2>&1 &
pr3=$!
# While the laptop is connected: the page throttle (--http-rate 1) counts each phone's address as
# nginx names it, never nginx's own (which the laptop's connection comes through too).
r=$(refused "$tls3" 127.0.0.10); echo "room 3 (hosted, --trust-proxy), phone 127.0.0.10: $r of 10 refused"
check room3_phone_address_is_capped test "$r" -ge 3
code=$(curl -sk -o /dev/null -w '%{http_code}' --max-time 5 --interface 127.0.0.11 "https://127.0.0.1:$tls3/")
check room3_another_phone_is_not test "$code" = 200
wait $pr3; rc=$?
check room3_laptop_talk_over_wss_through_nginx test "$rc" -eq 0
check room3_laptop_never_lost_the_hub sh -c "! grep -q unreachable '$tmp/present3.out'"
[ "$rc" -eq 0 ] || { cat "$tmp/present3.out"; tail -20 "$tmp/room3.out"; }
wait $ph3
check room3_phones_all_acked test "$(jq .acked "$tmp/phones3.json")" -eq 24
check room3_votes_stored test "$(sqlite3 "$tmp/room3.db" "SELECT count(*) FROM votes")" -eq 24
truth=$(sqlite3 "$tmp/room3.db" "SELECT m.answer FROM measurements m JOIN questions q ON q.id = m.question_id WHERE q.position = 2 ORDER BY m.id DESC LIMIT 1")
check room3_phones_saw_the_laptops_truth test -n "$truth" -a "$(jq -r '.reveals["2"]' "$tmp/phones3.json")" = "$truth"
check room3_export_downloaded_over_wss test "$(jq -r '.format + "/" + (.sessions | length | tostring)' "$tmp/room3.json")" = fragvote-export/1
check nginx_logged_no_errors sh -c "! grep -E '\[(error|crit|alert|emerg)\]' '$tmp/nginx/logs/error.log'"
grep -E '\[(error|crit|alert|emerg)\]' "$tmp/nginx/logs/error.log" | head -5
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
