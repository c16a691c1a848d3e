#!/usr/bin/env bash
# The witness as a speaker runs it: `fragvote witness PORT` as uid 65534 in
# the lab's dst (a separate process, its key printed), `fragvote probe
# --witness HOST:PORT --witness-key KEY` as uid 65534 in src, on a lab whose
# last router fragments (1500,1500,1280). The merged answer names the far
# end; a wrong key gets nothing and the probe falls back within its
# timeout; the witness counts what it refused. Then `serve` on the lab: its
# default witness in dst is merged into the stored measurement.
set -u
bin=${FRAGVOTE_BIN:?run through ctest}
if [ "$(id -u)" -ne 0 ]; then echo "SKIP: needs root (the lab)"; exit 77; fi
for t in ip jq sqlite3 setpriv; do
  command -v $t >/dev/null || { echo "SKIP: needs $t (scripts/apt-packages.txt)"; exit 77; }
done
P="fvc$$"
tmp=$(mktemp -d /tmp/fragvote-witness-cli-XXXXXX)
chmod 755 "$tmp"
wpid=
cleanup() {
  [ -n "$wpid" ] && kill "$wpid" 2>/dev/null && wait "$wpid" 2>/dev/null
  "$bin" lab down --prefix "$P" >/dev/null 2>&1
  "$bin" lab down --prefix "${P}s" >/dev/null 2>&1
  rm -rf "$tmp"
}
trap cleanup EXIT
fail=0
check() { local what=$1; shift; if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fail=1; fi; }
jqc() { jq -e "$@" >/dev/null 2>&1; }
nobody() { setpriv --reuid 65534 --regid 65534 --clear-groups "$@"; }

"$bin" lab up --prefix "$P" --mtu 1500,1500,1280 >/dev/null || { echo "FAIL lab up"; exit 1; }
ip netns exec "$P-dst" setpriv --reuid 65534 --regid 65534 --clear-groups \
  "$bin" witness --seconds 60 9000 >"$tmp/w.out" 2>"$tmp/w.err" &
wpid=$!
for _ in $(seq 1 100); do grep -q '^key ' "$tmp/w.out" && break; sleep 0.05; done
key=$(awk '/^key /{print $2}' "$tmp/w.out")
check "witness as nobody: prints a fresh key" test ${#key} -eq 32
check "witness says where it listens" grep -q "UDP and TCP port 9000" "$tmp/w.err"

nobody "$bin" witness --raw 9001 >"$tmp/out" 2>"$tmp/err"; rc=$?
check "witness --raw as nobody: exit 3 before listening, names CAP_NET_RAW" \
  test $rc -eq 3 -a ! -s "$tmp/out" -a "$(grep -c CAP_NET_RAW "$tmp/err")" -eq 1

probe() { ip netns exec "$P-src" setpriv --reuid 65534 --regid 65534 --clear-groups "$bin" probe "$@"; }
probe --witness 203.0.113.2:9000 --witness-key "$key" -p udp4 -f dont -s 1400 --json >"$tmp/u.json" 2>"$tmp/u.err"
rc=$?
echo "  $(jq -c '{fragmented, fragmenter, evidence}' "$tmp/u.json" 2>/dev/null)"
check "probe as nobody with the witness: exit 0" test $rc -eq 0
check "udp4 dont 1400: the last router's fragmentation, observed at the far end" \
  jqc '.observer == "recverr" and .witness.heard == true and .witness.raw == false and .witness.frag_max == 1276
       and .fragmented.answer == "yes" and .fragmented.observed_at == "far end" and .fragmenter == "router"
       and .sent.observed_at == "far end" and .witness.ttl == 62' "$tmp/u.json"
probe --no-witness -a 203.0.113.2:9 -p udp4 -f dont -s 1400 --json >"$tmp/n.json" 2>/dev/null
check "the same test without the witness: unknown (what the old code says)" \
  jqc '.fragmented.answer == "unknown" and .witness == null' "$tmp/n.json"
FRAGVOTE_WITNESS_KEY=$key probe --witness '[2001:db8:3::2]:9000' -p tcp6 -f dont -s 1400 --json >"$tmp/t.json" 2>/dev/null
echo "  $(jq -c '{fragmented, witness}' "$tmp/t.json" 2>/dev/null)"
check "tcp6 through the witness's listener, key from the environment: 2 data segments reported, fragmented no (inferred: TCP and IPv6 rules)" \
  jqc '.witness.heard == true and .witness.segments == 2 and .fragmented.answer == "no"
       and .fragmented.basis == "inferred"' "$tmp/t.json"

wrong=$(printf '%s' "$key" | tr '0-9a-f' '1-9a-f0')
probe --witness 203.0.113.2:9000 --witness-key "$wrong" -p udp4 -f dont -s 1400 --timeout 400 --json \
  >"$tmp/x.json" 2>/dev/null
rc=$?
echo "  wrong key: $(jq -c '{elapsed_ms, note: .witness.note}' "$tmp/x.json" 2>/dev/null)"
check "a wrong key: nothing back, the near-end answer with the note, within the timeout" \
  jqc '.witness.heard == false and (.witness.note | test("did not answer within 400 ms"))
       and (.evidence | test("did not answer")) and .elapsed_ms < 550 and .sent.answer == "yes"' "$tmp/x.json"
check "a wrong key: exit 0" test $rc -eq 0

kill -TERM "$wpid"; wait "$wpid"; wrc=$?; wpid=
echo "  witness: $(tail -1 "$tmp/w.out")"
check "witness ends on SIGTERM with exit 0" test $wrc -eq 0
check "witness counted 2 replies and refused the wrong key's probe" \
  grep -qE "replied 2, refused: [1-9][0-9]* malformed or untagged" "$tmp/w.out"

# Started as root (no SUDO_UID, DOAS_USER or PKEXEC_UID: a root shell), the witness drops to nobody
# with no capability once its sockets are open (issue 36, item 11); the packet tap it opened as root
# still reports DF and the pieces.
ip netns exec "$P-dst" env -u SUDO_UID -u SUDO_GID -u DOAS_USER -u PKEXEC_UID \
  "$bin" witness --raw --key "$key" --seconds 60 9002 >"$tmp/r.out" 2>"$tmp/r.err" &
wpid=$!
for _ in $(seq 1 100); do grep -q '^Dropped root' "$tmp/r.out" && break; sleep 0.05; done
echo "  root witness: $(grep '^Dropped root' "$tmp/r.out")"
check "a root witness: uid 65534 while serving" test "$(awk '/^Uid:/{print $2}' /proc/$wpid/status)" = 65534
check "a root witness: no effective capability" test "$(awk '/^CapEff:/{print $2}' /proc/$wpid/status)" = 0000000000000000
probe --witness 203.0.113.2:9002 --witness-key "$key" -p udp4 -f dont -s 1400 --json >"$tmp/r.json" 2>/dev/null
check "a root witness after the drop: its tap still reports DF and the pieces" \
  jqc '.witness.heard == true and .witness.raw == true and .fragmented.answer == "yes"' "$tmp/r.json"
kill -TERM "$wpid"; wait "$wpid"; wpid=

# serve on its own lab: the default witness in dst, merged into the stored measurement.
cat >"$tmp/deck.json" <<'EOF'
{"title": "witness", "tests": [{"proto": "udp4", "mode": "dont", "size": 1400, "ask": ["fragmented"]}]}
EOF
printf 'open\nclose\nmeasure\nwait-measured 20000\nreveal\nquit\n' >"$tmp/talk.script"
FRAGVOTE_LAB_PREFIX="${P}s" "$bin" serve --deck "$tmp/deck.json" --db "$tmp/s.db" --port 0 --bind 127.0.0.1 --no-qr \
  --script "$tmp/talk.script" </dev/null >"$tmp/s.out" 2>&1
rc=$?
check "serve on the lab: exit 0, says which witness" test $rc -eq 0 -a "$(grep -c '^Witness: lab' "$tmp/s.out")" -eq 1
obs() { sqlite3 "$tmp/s.db" "SELECT json_extract(observation, '\$.$1') FROM measurements ORDER BY id DESC LIMIT 1"; }
echo "  stored: fragmented $(obs fragmented.answer) by $(obs fragmenter), heard $(obs witness.heard): $(obs evidence)"
check "serve stored the merged answer: r1 fragmented it, heard by the witness in dst" \
  test "$(obs witness.heard)" = 1 -a "$(obs fragmenter)" = router -a "$(obs fragmented.observed_at)" = "far end"
exit $fail
