#!/usr/bin/env bash
# What fragvote writes for its user is theirs alone (issue 36, item 12):
# under the usual umask 022 the database (token_key, unrevealed
# measurements) and its -wal/-shm are created 0600, and so is every export;
# an export is written under a random name beside its target and renamed,
# so a symlink planted at the old predictable temporary name ("OUT.tmpPID")
# or at the target itself is never followed: the file it points to stays as
# it was. serve runs on loopback only (--target 127.0.0.1), no lab.
set -u
. "$(dirname "$0")/../../support/lib.sh"
fv_tmp private-files
umask 022
db="$tmp/f.db"
printf 'open\nclose\nmeasure\nwait-measured 20000\nreveal\nquit\n' |
  timeout 60 "$bin" serve --db "$db" --port 0 --bind 127.0.0.1 --target 127.0.0.1 --no-qr --no-prefetch \
    >"$tmp/serve.out" 2>&1
rc=$?
check serve_exit_0 test "$rc" -eq 0
[ "$rc" -ne 0 ] && tail -20 "$tmp/serve.out"
mode() { stat -c %a "$1"; }
check db_is_0600 test "$(mode "$db")" = 600
for f in "$db-wal" "$db-shm"; do
  [ -e "$f" ] && check "$(basename "$f")_is_0600" test "$(mode "$f")" = 600
done
for fmt in csv json markdown svg; do
  "$bin" export 1 --format $fmt -o "$tmp/out.$fmt" --db "$db" >/dev/null 2>&1
  check "export_${fmt}_is_0600" test "$(mode "$tmp/out.$fmt" 2>/dev/null)" = 600
done
check no_temporary_left test -z "$(ls "$tmp" | grep -E '\.(tmp[0-9]+|[A-Za-z0-9]{6})$')"
# A symlink at the old temporary name (the pid is this shell's, which exec keeps).
echo "not yours" >"$tmp/victim"
bash -c 'ln -s "$1/victim" "$1/x.csv.tmp$$"; exec "$2" export 1 --format csv -o "$1/x.csv" --db "$3"' \
  _ "$tmp" "$bin" "$db" >/dev/null 2>&1
check planted_tmp_link_not_followed test "$(cat "$tmp/victim")" = "not yours"
check export_written_beside_it grep -q "^record,session," "$tmp/x.csv"
check export_private test "$(mode "$tmp/x.csv")" = 600
# A symlink at the target: replaced, not written through.
echo "not yours either" >"$tmp/victim2"
ln -s "$tmp/victim2" "$tmp/y.csv"
"$bin" export 1 --format csv -o "$tmp/y.csv" --db "$db" >/dev/null 2>&1
check target_link_not_followed test "$(cat "$tmp/victim2")" = "not yours either"
check target_now_a_file test -f "$tmp/y.csv" -a ! -L "$tmp/y.csv"
exit $fail
