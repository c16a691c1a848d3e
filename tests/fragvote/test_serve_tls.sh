#!/usr/bin/env bash
# --tls-cert/--tls-key: serve speaks HTTPS (phones get a secure context for
# the clipboard), the join URL says https, plain HTTP is not served, and a
# lone --tls-cert is a usage error. Loopback only; target 127.0.0.1 (no lab).
set -u
. "$(dirname "$0")/../support/lib.sh"
for t in openssl curl; do command -v $t >/dev/null || { echo "SKIP: needs $t"; exit 77; }; done
tmp=$(mktemp -d /tmp/fragvote-tls-XXXXXX)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 \
  -keyout "$tmp/key.pem" -out "$tmp/cert.pem" >/dev/null 2>&1 || { echo "openssl failed"; exit 1; }
"$bin" serve --tls-cert "$tmp/cert.pem" --db "$tmp/x.db" >/dev/null 2>"$tmp/usage.err"; rc=$?
check lone_cert_is_usage_error test "$rc" -eq 2
check lone_cert_message grep -q "go together" "$tmp/usage.err"

mkfifo "$tmp/in"
"$bin" serve --target 127.0.0.1 --bind 127.0.0.1 --port 0 --no-qr --db "$tmp/t.db" \
  --tls-cert "$tmp/cert.pem" --tls-key "$tmp/key.pem" <"$tmp/in" >"$tmp/out" 2>&1 &
pid=$!
exec 3>"$tmp/in"
port=$(fv_join_port "$tmp/out" "$pid" 100)
url=$(sed -n 's/^Join: //p' "$tmp/out" | head -1)
echo "join URL: $url"
check join_url_is_https test "${url#https://}" != "$url"
check https_serves_phone_page sh -c "curl -sk --max-time 5 https://127.0.0.1:$port/ | grep -qi '<html'"
check plain_http_refused sh -c "! curl -s --max-time 5 http://127.0.0.1:$port/ | grep -qi '<html'"
echo quit >&3; exec 3>&-
wait "$pid"; rc=$?; pid=
check exits_0 test "$rc" -eq 0
[ "$fail" -eq 0 ]
