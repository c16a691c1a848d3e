#!/usr/bin/env bash
# The presenter secret stays out of argv (issue 36, item 9): serve and present
# read it from --secret-file (a systemd credential) or $FRAGVOTE_SECRET; serve
# refuses the example's placeholder and secrets under 16 bytes before it
# creates anything, and still makes a random secret when none is given.
# Loopback only, no root needed.
set -u
. "$(dirname "$0")/../support/lib.sh"
fv_tmp serve-secret
. "$(dirname "$0")/../deploy/nginx_fixture.sh"   # fv_listen_port

good=K7pQ2vX9mR4tW8zL3nB6   # 20 bytes
printf '%s\n' "$good" >"$tmp/secret"
chmod 600 "$tmp/secret"
# serve QUIT_OPTS...: prints the secret on request and quits; out in $tmp/out, exit code in $rc.
serve_secret() {
  printf 'secret\nquit\n' | timeout 30 "$bin" serve --target 127.0.0.1 --db "$tmp/s$n.db" --port 0 \
    --bind 127.0.0.1 --no-qr "$@" >"$tmp/out" 2>&1
  rc=$?
  n=$((n+1))
}
n=0
serve_secret --secret-file "$tmp/secret"
check file_exit_0 test "$rc" -eq 0
check file_secret_used grep -qx "Presenter secret: $good" "$tmp/out"
FRAGVOTE_SECRET=$good serve_secret
check env_exit_0 test "$rc" -eq 0
check env_secret_used grep -qx "Presenter secret: $good" "$tmp/out"
printf '%s\r\n' "$good" >"$tmp/crlf"
serve_secret --secret-file "$tmp/crlf"
check crlf_file_secret_used grep -qx "Presenter secret: $good" "$tmp/out"
# None given: a random one of at least the minimum length.
serve_secret
random=$(sed -n 's/^Presenter secret: //p' "$tmp/out")
check random_default test "${#random}" -ge 16

# Refused, with the reason, before the database exists (exit 2: usage).
refused() {
  local name=$1 why=$2; shift 2
  local before=$n
  serve_secret "$@"
  check "${name}_exit_2" test "$rc" -eq 2
  check "${name}_says_why" grep -q -- "$why" "$tmp/out"
  check "${name}_no_db" test ! -e "$tmp/s$before.db"
}
refused placeholder "placeholder" --secret change-me-before-the-talk
printf 'change-me-before-the-talk\n' >"$tmp/placeholder"
refused placeholder_file "placeholder" --secret-file "$tmp/placeholder"
FRAGVOTE_SECRET=change-me-before-the-talk refused placeholder_env "placeholder"
refused short_15 "shorter than 16 bytes" --secret 123456789012345
FRAGVOTE_SECRET=sesame refused short_env "shorter than 16 bytes"
serve_secret --secret 1234567890123456
check sixteen_bytes_accepted test "$rc" -eq 0
refused both_options "not both" --secret "$good" --secret-file "$tmp/secret"
refused missing_file "No such file" --secret-file "$tmp/none"
: >"$tmp/empty"
refused empty_file "empty" --secret-file "$tmp/empty"
head -c 200 /dev/zero | tr '\0' a >"$tmp/long"
refused long_file "longer than 127 bytes" --secret-file "$tmp/long"

# The running serve's command line holds no secret; the laptop's present
# authenticates with --secret-file too (a wrong file is refused).
(exec "$bin" serve --prober remote --db "$tmp/hub.db" --port 0 --bind 127.0.0.1 --no-qr \
   --secret-file "$tmp/secret" </dev/null >"$tmp/hub.out" 2>&1) &
pid=$!
port=$(fv_listen_port "$tmp/hub.out" "$pid")
check hub_started test -n "$port"
check hub_cmdline_has_no_secret eval '! tr "\0" " " </proc/$pid/cmdline | grep -q "$good"'
printf 'quit\n' >"$tmp/quit.txt"
timeout 30 "$bin" present "ws://127.0.0.1:$port/" --target 127.0.0.1 --secret-file "$tmp/secret" \
  --script "$tmp/quit.txt" </dev/null >"$tmp/present.out" 2>&1; rc=$?
check present_secret_file_accepted test "$rc" -eq 0
printf 'WrongWrongWrong-secret\n' >"$tmp/wrong"
timeout 30 "$bin" present "ws://127.0.0.1:$port/" --target 127.0.0.1 --secret-file "$tmp/wrong" \
  --script "$tmp/quit.txt" </dev/null >"$tmp/present2.out" 2>&1; rc=$?
check present_wrong_file_refused test "$rc" -eq 1
timeout 30 "$bin" present "ws://127.0.0.1:$port/" --secret x --secret-file "$tmp/secret" </dev/null \
  >"$tmp/present3.out" 2>&1; rc=$?
check present_both_usage test "$rc" -eq 2
kill -TERM "$pid"; wait "$pid"
[ $fail -ne 0 ] && { cat "$tmp/out" "$tmp/hub.out" "$tmp/present.out" "$tmp/present2.out"; }
exit $fail
