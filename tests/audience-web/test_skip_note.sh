#!/usr/bin/env bash
# The pages' skip note (audience-web/common.js fvSkipped, issue 37 item 6):
# questions the presenter passed over are named; when the quiz skipped the
# rest of a test by itself because its "sent?" was revealed "no", the note
# says why. Pure: canned states in Node, in the English catalog (i18n.js,
# audience-web/i18n-en.json; tests/audience-web/test_i18n checks the others have the same keys).
set -u
src=${FRAGVOTE_SRC:?run through ctest}
command -v node >/dev/null || { echo "SKIP: needs node"; exit 77; }
node - "$src/audience-web" <<'JS'
const fs = require('fs'), vm = require('vm'), web = process.argv[2];
const ctx = { document: { addEventListener() {} }, window: { addEventListener() {} }, location: { protocol: 'http:', host: 'x' },
  fetch: (u) => Promise.resolve({ ok: true, json: () => JSON.parse(fs.readFileSync(web + u, 'utf8')) }) };
vm.createContext(ctx);
for (const f of ['common.js', 'i18n.js']) vm.runInContext(fs.readFileSync(web + '/' + f, 'utf8'), ctx);
ctx.fvI18n.use('en', run);
function run() {
let fail = 0;
const check = (cond, what, got) => { console.log((cond ? 'ok   ' : 'FAIL ') + what + (cond ? '' : ' — got: ' + got)); if (!cond) fail = 1; };
const st = (pos, state, kind, truth) => ({ ended: false, q: { pos, state, kind }, reveal: truth ? { truth } : undefined });
let s = ctx.fvSkipped(st(0, 'revealed', 'sent', 'no'), st(3, 'pending', 'sent'));
check(s === 'Questions 2–3 were skipped: nothing left the laptop, so there is no DF bit and no fragment to ask about',
  '"sent?" revealed no: the automatic skip says why', s);
s = ctx.fvSkipped(st(0, 'revealed', 'sent', 'yes'), st(2, 'pending', 'df'));
check(s === 'Question 2 was skipped', 'a skip by the presenter: named, no reason made up', s);
s = ctx.fvSkipped(st(1, 'pending', 'df'), st(2, 'pending', 'fragmented'));
check(s === 'Question 2 was skipped', 'next past a pending question: it was skipped', s);
s = ctx.fvSkipped(st(0, 'revealed', 'sent', 'no'), st(1, 'pending', 'df'));
check(s === '', 'nothing skipped: no note', s);
process.exit(fail);
}
JS
