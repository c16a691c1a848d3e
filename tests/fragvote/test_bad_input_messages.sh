#!/usr/bin/env bash
# Hostile or broken deck files and command lines: every refusal exits 2 (usage)
# or the documented code, says on stderr what is wrong and where (file:line:col,
# the option, the value), prints nothing on stdout, and creates no database.
set -u
bin=${FRAGVOTE_BIN:?run through ctest}
tmp=$(mktemp -d /tmp/fragvote-badinput-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
# expect NAME RC REGEX -- COMMAND...: exit code RC, stderr matches REGEX (grep -E),
# stdout empty, no database file left behind.
expect() {
  local name=$1 want=$2 re=$3; shift 4
  timeout 20 "$@" >"$tmp/out" 2>"$tmp/err" </dev/null; local rc=$?
  if [ "$rc" -eq "$want" ] && grep -Eq -- "$re" "$tmp/err" && [ ! -s "$tmp/out" ] && [ ! -e "$tmp/never.db" ]; then
    pass=$((pass + 1)); echo "ok   $name"
  else
    fail=$((fail + 1)); echo "FAIL $name: exit $rc (want $want), stderr: $(head -c 300 "$tmp/err")"
    [ -s "$tmp/out" ] && echo "     stdout: $(head -c 200 "$tmp/out")"
  fi
  rm -f "$tmp/never.db"
}

d=$tmp/decks; mkdir -p "$d"
printf '' >"$d/empty.json"
python3 -c "print('['*100000 + ']'*100000)" >"$d/deep.json"
printf '{"title":"\xff\xfe","tests":[{"proto":"udp4","size":1400}]}' >"$d/badutf.json"
printf '{"title":"x","tests":[]}' >"$d/notests.json"
printf '{"title":"x","tests":[{"proto":"udp4","size":1e999}]}' >"$d/bignum.json"
printf '{"title":"x","tests":[{"proto":"udp4","size":99999999999999999999999}]}' >"$d/bigint.json"
printf '{"title":"x","tests":[{"proto":"udp4","size":1400,"ttl":-5}]}' >"$d/ttl.json"
python3 -c "print('{\"title\":\"'+'a'*300000+'\",\"tests\":[]}')" >"$d/huge.json"
printf '{"title":"x","tests":[{"proto":"udp4","size":1400}]} trailing' >"$d/trail.json"
printf '{"title":"x","tests":[{"proto":"udp4","size":"1400"}]}' >"$d/strsize.json"
printf '{"title":"x","tests":[{"proto":"udp4","size":1400,"proto":"udp6"}]}' >"$d/dupkey.json"
printf '{"title":"x","tests":[{"proto":"icmp9","size":1400}]}' >"$d/proto.json"
printf '{"title":"x","tests":[{"proto":"udp4","size":1400,"mode":"sometimes"}]}' >"$d/mode.json"
printf '{"title":"x","tests":[{"proto":"udp4","size":1400}],"target":"%s"}' "$(head -c 400 /dev/zero | tr '\0' a)" >"$d/longtarget.json"
printf '{"title":"x","tests":[{"proto":"udp4","size":1400,"ask":["sent","sent"]}]}' >"$d/dupask.json"
printf '["not","an","object"]' >"$d/array.json"
mkdir -p "$d/dir.json"

for cmd in probe serve; do
  extra=(); [ $cmd = serve ] && extra=(--db "$tmp/never.db" --target 127.0.0.1 --port 0)
  expect "$cmd deck empty"        2 'empty\.json:1:0: .*expected'                      -- "$bin" $cmd --deck "$d/empty.json" "${extra[@]}"
  expect "$cmd deck nesting"      2 'deep\.json:1:[0-9]+: maximum parsing depth'       -- "$bin" $cmd --deck "$d/deep.json" "${extra[@]}"
  expect "$cmd deck bad UTF-8"    2 'badutf\.json:1:[0-9]+: unable to decode byte 0xff' -- "$bin" $cmd --deck "$d/badutf.json" "${extra[@]}"
  expect "$cmd deck no tests"     2 'notests\.json:1:[0-9]+: tests: must be a non-empty' -- "$bin" $cmd --deck "$d/notests.json" "${extra[@]}"
  expect "$cmd deck 1e999"        2 'bignum\.json:1:[0-9]+: real number overflow'      -- "$bin" $cmd --deck "$d/bignum.json" "${extra[@]}"
  expect "$cmd deck huge integer" 2 'bigint\.json:1:[0-9]+: .*(too big|overflow)'     -- "$bin" $cmd --deck "$d/bigint.json" "${extra[@]}"
  expect "$cmd deck ttl -5"       2 'ttl\.json:1:[0-9]+: tests\[0\]\.ttl: -5 is out of range' -- "$bin" $cmd --deck "$d/ttl.json" "${extra[@]}"
  expect "$cmd deck too large"    2 'huge\.json.*larger than the [0-9]+-byte limit'   -- "$bin" $cmd --deck "$d/huge.json" "${extra[@]}"
  expect "$cmd deck trailing"     2 'trail\.json:1:[0-9]+: end of file expected'       -- "$bin" $cmd --deck "$d/trail.json" "${extra[@]}"
  expect "$cmd deck size string"  2 'strsize\.json:1:[0-9]+: tests\[0\]\.size'         -- "$bin" $cmd --deck "$d/strsize.json" "${extra[@]}"
  expect "$cmd deck duplicate key" 2 'dupkey\.json:1:[0-9]+: .*duplicate'              -- "$bin" $cmd --deck "$d/dupkey.json" "${extra[@]}"
  expect "$cmd deck bad proto"    2 'proto\.json:1:[0-9]+: tests\[0\]\.proto'          -- "$bin" $cmd --deck "$d/proto.json" "${extra[@]}"
  expect "$cmd deck bad mode"     2 'mode\.json:1:[0-9]+: tests\[0\]\.mode'            -- "$bin" $cmd --deck "$d/mode.json" "${extra[@]}"
  expect "$cmd deck top array"    2 'array\.json:1:[0-9]+: .*object'                   -- "$bin" $cmd --deck "$d/array.json" "${extra[@]}"
  expect "$cmd deck directory"    2 'dir\.json: cannot read deck'                      -- "$bin" $cmd --deck "$d/dir.json" "${extra[@]}"
  expect "$cmd deck missing"      2 'nope\.json: cannot open deck'                     -- "$bin" $cmd --deck "$d/nope.json" "${extra[@]}"
done

# Command lines: the option and the bad value are named.
expect "serve port letters"   2 "--port wants 0\.\.65535, not 'abc'"                   -- "$bin" serve --port abc --db "$tmp/never.db"
expect "serve port negative"  2 "--port wants 0\.\.65535, not '-1'"                    -- "$bin" serve --port -1 --db "$tmp/never.db"
expect "serve port huge"      2 "--port wants 0\.\.65535, not '99999999999999999999'"  -- "$bin" serve --port 99999999999999999999 --db "$tmp/never.db"
expect "serve title too long" 2 "--title is longer than [0-9]+ bytes"                  -- "$bin" serve --title "$(head -c 5000 /dev/zero | tr '\0' a)" --db "$tmp/never.db"
expect "serve lang not a tag"  2 "--lang wants a language tag such as de, fr or pt-BR, not 'de_DE'" -- "$bin" serve --lang de_DE --db "$tmp/never.db"
expect "serve extra argument" 2 "unexpected argument 'extra'"                          -- "$bin" serve extra --db "$tmp/never.db"
expect "serve missing value"  2 "--deck needs a value"                                 -- "$bin" serve --deck
expect "serve db dir missing" 7 "cannot open database .*/no/such/dir/x\.db"            -- "$bin" serve --target 127.0.0.1 --port 0 --db "$tmp/no/such/dir/x.db"
expect "probe size range"     2 "size 70000 out of range"                              -- "$bin" probe -s 70000
expect "lab bad mtus"         2 '--mtu wants 2\.\.7 MTUs 1280\.\.65535.*"100,1,2"'      -- "$bin" lab up --mtu 100,1,2
expect "lab bad action"       2 "unknown action 'frobnicate'"                          -- "$bin" lab frobnicate
expect "export bad format"    2 "unknown format 'pdf' \(csv, json, markdown, svg\)"    -- "$bin" export --format pdf
expect "sessions no file"     7 "no database .*/absent\.db"                            -- "$bin" sessions --db "$tmp/absent.db"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
