#!/usr/bin/env bash
# fragvote serve against a given target (no lab, no root needed): --target,
# --title, --public-url, --room and --db reach the console and the session
# record; quit on stdin ends it with exit 0.
set -u
. "$(dirname "$0")/../support/lib.sh"
fv_tmp serve-opt

printf 'show\nsecret\nquit\n' | timeout 30 "$bin" serve --target 127.0.0.1 --title "Rehearsal at home" \
  --public-url https://quiz.example.org/ --room KQ7XMP --db "$tmp/o.db" --port 0 --bind 127.0.0.1 \
  --secret sesame-open-presenter --no-qr >"$tmp/out" 2>&1
rc=$?
check exits_0 test "$rc" -eq 0
check join_url_public grep -q "^Join: https://quiz.example.org/?room=KQ7XMP" "$tmp/out"
check room_and_target grep -q "^Room: KQ7XMP   Target: 127.0.0.1$" "$tmp/out"
check page_urls grep -q "^Projector: https://quiz.example.org/screen/$" "$tmp/out"
check secret_on_request_only test "$(grep -c sesame-open-presenter "$tmp/out")" -eq 2
check secret_on_request grep -q "^Presenter: https://quiz.example.org/presenter/#secret=sesame-open-presenter$" "$tmp/out"
check title_shown grep -q "fragvote · Rehearsal at home" "$tmp/out"
row=$(sqlite3 -separator '|' "$tmp/o.db" "SELECT title, target, coalesce(lab, 'NULL'), room, kernel != '', host != '', ended_at IS NOT NULL FROM sessions")
check session_row test "$row" = "Rehearsal at home|127.0.0.1|NULL|KQ7XMP|1|1|1"
check questions_recorded test "$(sqlite3 "$tmp/o.db" "SELECT count(*) FROM questions")" = 38
check spec_has_target grep -q '"host":"127.0.0.1"' <<<"$(sqlite3 "$tmp/o.db" "SELECT spec FROM questions WHERE position = 0")"
[ $fail -ne 0 ] && cat "$tmp/out"

# An unknown target is refused at once with the documented exit code.
timeout 30 "$bin" serve --target no-such-host.invalid --db "$tmp/bad.db" --port 0 --no-qr </dev/null \
  >/dev/null 2>"$tmp/err"; rc=$?
check unknown_target_exit_4 test "$rc" -eq 4
check unknown_target_named grep -q "target no-such-host.invalid" "$tmp/err"
check unknown_target_no_db test ! -e "$tmp/bad.db"

# --http-rate: a bad value is a usage error before anything is created.
for v in -1 abc 1000001 ''; do
  timeout 30 "$bin" serve --target 127.0.0.1 --http-rate "$v" --db "$tmp/hr.db" --port 0 --no-qr </dev/null \
    >/dev/null 2>"$tmp/hr.err"; rc=$?
  check "http_rate_${v:-empty}_exit_2" test "$rc" -eq 2
  check "http_rate_${v:-empty}_named" grep -q -- "--http-rate wants 0..1000000" "$tmp/hr.err"
done
check http_rate_no_db test ! -e "$tmp/hr.db"
check http_rate_in_help sh -c '"$0" serve --help | grep -q -- "--http-rate N"' "$bin"

# The poll() loop (--poll) serves the same console as the default libev one.
printf 'open\nclose\nquit\n' | timeout 30 "$bin" serve --target 127.0.0.1 --poll --db "$tmp/ev.db" --port 0 \
  --bind 127.0.0.1 --no-qr >"$tmp/ev.out" 2>&1
rc=$?
check poll_exits_0 test "$rc" -eq 0
check poll_closed_q1 test "$(sqlite3 "$tmp/ev.db" "SELECT state FROM questions WHERE position = 0")" = closed
[ $fail -ne 0 ] && cat "$tmp/ev.out"
exit $fail
