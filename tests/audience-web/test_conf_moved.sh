#!/usr/bin/env bash
# The re-vote's confidence line ("confidence after discussion: sure 4 → 2 ·
# think so 0 → 2 · guessing 1 → 0", reveal.confidence.moved) as the
# presenter page and the projector word it (audience-web/common.js
# fvConfMoved): from the reveal's two splits, in each shipped language. In
# English it is the hub's own line (score/confidence.c, the words
# tests/fragvote/hub/test_hub_confidence checks); in every other language it is the
# catalog's, with no English word of it left. Pure: canned states in Node.
set -u
src=${FRAGVOTE_SRC:?run through ctest}
command -v node >/dev/null || { echo "SKIP: needs node"; exit 77; }
node - "$src/audience-web" <<'JS'
const fs = require('fs'), vm = require('vm'), web = process.argv[2];
const langs = fs.readdirSync(web).map((f) => /^i18n-([a-z]{2,3})\.json$/.exec(f)).filter(Boolean).map((m) => m[1]).sort();
const lvl = (level, votes) => ({ level, yes: votes, no: 0, votes, right: null, share_right: null });
const c = { levels: [lvl('sure', 2), lvl('think_so', 2), lvl('guessing', 0)],
  first_round: { levels: [lvl('sure', 4), lvl('think_so', 0), lvl('guessing', 1)] },
  moved: 'confidence after discussion: sure 4 \u2192 2 \u00b7 think so 0 \u2192 2 \u00b7 guessing 1 \u2192 0' };
let fail = 0, pending = langs.length;
const check = (cond, what, got) => { console.log((cond ? 'ok   ' : 'FAIL ') + what + (cond ? '' : ' — got: ' + got)); if (!cond) fail = 1; };
check(langs.length >= 3, 'English and at least two more catalogs', langs.join());
for (const code of langs) {
  const ctx = { document: { addEventListener() {} }, window: { addEventListener() {} }, location: { protocol: 'http:', host: 'x' },
    console: { warn: (w) => check(false, `${code}: no warning`, w), log() {} },
    fetch: (u) => Promise.resolve({ ok: true, json: () => JSON.parse(fs.readFileSync(web + u, 'utf8')) }) };
  vm.createContext(ctx);
  for (const f of ['common.js', 'i18n.js']) vm.runInContext(fs.readFileSync(web + '/' + f, 'utf8'), ctx);
  ctx.fvI18n.use(code, () => {
    const cat = JSON.parse(fs.readFileSync(`${web}/i18n-${code}.json`, 'utf8'));
    const line = ctx.fvConfMoved(c);
    if (code === 'en') check(line === c.moved, 'en: the hub\'s English line', line);
    else {
      check(line.startsWith(cat['conf.moved'].split('{')[0]) && line.includes(cat['conf.sure']) && line.includes(cat['conf.guessing']),
        `${code}: worded from the ${code} catalog`, line);
      check(!/after discussion|think so|guessing/.test(line), `${code}: no English word of it left`, line);
      check(line.includes('4 \u2192 2') && line.includes('0 \u2192 2') && line.includes('1 \u2192 0'), `${code}: the counts, first round → final`, line);
    }
    check(ctx.fvConfMoved({ levels: c.levels }) === '', `${code}: no first round, no line`, ctx.fvConfMoved({ levels: c.levels }));
    if (--pending === 0) process.exit(fail);
  });
}
JS
