/* After the talk, the quiz lives on (issue 37, item 4; docs/SERVE.md "After
 * the talk"). fragvote serve on the lab with the browser deck: phone A
 * votes on three questions, two are revealed, the third is measured and
 * then skipped by `end`. Then, in Debian's Chromium at 360x740: A's final
 * screen offers the replay, A plays it to its share grid (the recorded
 * truth, explanation and path picture of each revealed question, A's own
 * answers scored, "My fragvote score: R/N · room: P %"); phone B opens the
 * projector's short link /r, lands on the replay at once and plays it too.
 * The replay holds the revealed questions only; the live session's rows in
 * SQLite (sessions, questions, voters, votes, rounds, measurements, the
 * score views) are the same before and after, the answers are in
 * replay_votes. Run by test_browser_replay.sh through test_browser.sh. */
'use strict';
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const {
  env, SRC, ART, HERE, STEP_MS, PROBE_MS, PHONE, check, checkEq, log, until, frames, pageErrors, consoleErrors, watch, collectFailures,
  text, hidden, waitText, parsed, axe, startServe, stopServe, joinOf, launchBrowser, run,
} = require('./lib');

const DB = path.join(ART, 'fragvote.db');
/* Every row of the live session, as the sqlite3 program prints them. */
const LIVE_SQL = ['sessions', 'questions', 'voters', 'votes', 'round_votes', 'measurement_sets', 'measurements',
  'purged_scores'].map((t) => `SELECT * FROM ${t} ORDER BY 1;`).join(' ') +
  ' SELECT * FROM question_score ORDER BY 1; SELECT * FROM voter_score ORDER BY 1;';
function sql(q) { return execFileSync('sqlite3', ['-readonly', DB, q], { encoding: 'utf8' }); }
/* The websocket state frames phone `who` got about question pos in state st. */
function stateSeen(pos, st) {
  return parsed().some((x) => x.m && x.m.t === 'state' && x.m.q && x.m.q.pos === pos && x.m.q.state === st);
}

run(async (setAbort) => {
  const serve = startServe(['--deck', path.join(HERE, 'deck.json'), '--db', DB, '--no-prefetch']);
  const con = serve.con;
  let browser = null;
  const failed = [];  /* answers of 400 or more to the phones' requests */
  const abort = async () => {
    if (browser) await browser.close().catch(() => {});
    await stopServe(serve);
  };
  setAbort(abort);
  try {
    const { joinUrl, room, origin } = await joinOf(con);
    log(`serve: ${joinUrl}`);
    browser = await launchBrowser();
    const ctxA = await browser.newContext(PHONE);
    const A = await ctxA.newPage();
    watch(A, 'A');
    collectFailures(A, failed);
    await A.goto(joinUrl);
    await until('phone A joined', async () => (await text(A, '#roomchip')).includes(room));

    /* The talk: A votes yes, no, yes; Q1 and Q2 revealed, Q3 measured and skipped by end. */
    const live = ['yes', 'no', 'yes'];
    for (let pos = 0; pos < 3; pos++) {
      await con.cmd('open');
      await until(`Q${pos + 1} open on the phone`, async () => !(await A.locator('#' + live[pos]).isDisabled()));
      await A.tap('#' + live[pos]);
      await waitText(A, '#ack', `vote counted ✓ (${live[pos]})`);
      await con.cmd('close');
      await con.cmd('measure');
      await until(`Q${pos + 1} measured`, async () => stateSeen(pos, 'measured'), PROBE_MS);
      if (pos === 2) break;
      await con.cmd('reveal');
      await until(`Q${pos + 1} revealed on the phone`, async () => !(await hidden(A, '#revealcard')));
      await con.cmd('next');
    }
    await con.cmd('end');
    await until('the final screen', async () => !(await hidden(A, '#final')));
    const endLine = await con.line(/> end: the quiz has ended; phones play it again at /);
    const short = /at (\S+)$/.exec(endLine)[1];
    checkEq(short, `${origin}/r`, 'the console prints the short link to the replay');
    const before = sql(LIVE_SQL);
    check(/\|1\|/.test(before) && before.split('\n').length > 10, 'the live rows are read (votes among them)', before.slice(0, 200));

    /* A: the final screen offers the replay; A plays it. */
    check(!(await hidden(A, '#replayoffer')), 'phone A: the final screen offers the replay');
    const askedAt = frames.length;
    await A.tap('#replaystart');
    const rep = await until('the replay message', () => {
      const x = parsed(askedAt).find((f) => f.who === 'A' && f.m && f.m.t === 'replay');
      return x && x.m;
    });
    checkEq(rep.questions.map((q) => q.pos).join(','), '0,1', 'the replay holds the revealed questions only (Q3 was skipped)');
    check(!parsed(askedAt).some((f) => f.m && f.m.t === 'replay' && /"pos":2/.test(f.raw)), 'no replay frame names the skipped Q3');
    const mine = ['no', 'no'];  /* A's replay answers */
    async function play(p, who, answers) {
      let right = 0, scored = 0;
      for (let i = 0; i < rep.questions.length; i++) {
        const q = rep.questions[i], rv = q.reveal;
        await waitText(p, '#replayqnum', `Replay · question ${i + 1} of ${rep.questions.length}`);
        checkEq((await text(p, '#replayqtext')).length > 10, true, `${who} Q${i + 1}: the question is asked`);
        check(await hidden(p, '#replayreveal'), `${who} Q${i + 1}: no truth before the answer`);
        await p.tap('#replay' + answers[i]);
        await until(`${who} Q${i + 1}: the recorded truth`, async () => !(await hidden(p, '#replayreveal')));
        const known = rv.truth === 'yes' || rv.truth === 'no', ok = known && rv.truth === answers[i];
        if (known) { scored++; if (ok) right++; }
        checkEq(await text(p, '#replaytruth'), known ? rv.truth : 'unknown',
          `${who} Q${i + 1}: the room's recorded truth`);
        const cls = await p.locator('#replayverdict').getAttribute('class');
        checkEq(cls, 'verdict' + (known ? (ok ? ' right' : ' wrong') : ''), `${who} Q${i + 1}: the verdict is its own answer's`);
        if (rv.explain) check((await text(p, '#replayexplain')).includes(rv.explain), `${who} Q${i + 1}: the rules' explanation`);
        checkEq(await text(p, '#replayevidence'), rv.evidence || rv.why || '', `${who} Q${i + 1}: the recorded evidence`);
        if (rv.path) check(!(await hidden(p, '#replaypath')), `${who} Q${i + 1}: the path picture`);
        if (who === 'A' && i === 0) await p.screenshot({ path: path.join(ART, 'phone-6-replay-question.png'), fullPage: true });
        check((await text(p, '#replayroom')).includes(`yes ${rv.yes} / no ${rv.no}`), `${who} Q${i + 1}: how the room voted`);
        await p.tap('#replaynext');
      }
      return { right, scored };
    }
    const sa = await play(A, 'A', mine);
    await until('A: the share grid', async () => !(await hidden(A, '#replayfinal')));
    const roomPct = Math.round(rep.collective * 100);
    checkEq(await text(A, '#replayscore'), `${sa.right} / ${sa.scored}`, 'A: its score, big');
    checkEq(await text(A, '#replayshare'), `My fragvote score: ${sa.right}/${sa.scored} · room: ${roomPct} %`,
      'A: the share line, its score beside the room\'s');
    check(await hidden(A, '#replayoffer'), 'A: the offer is gone while it plays');
    const grid = await text(A, '#replaygrid');
    checkEq(grid.split('\n').length, new Set(rep.questions.map((q) => q.test)).size, 'A: one grid row per test');
    checkEq((grid.match(/✔/g) || []).length, sa.right, 'A: one ✔ per right answer');
    await A.tap('#replaycopy');
    await until('A: the copy says what became of it', async () => (await text(A, '#replaycopied')).length > 0);
    const w = await A.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
    check(w[0] <= w[1], 'A: nothing wider than the phone', `content ${w[0]} px, screen ${w[1]} px`);
    await axe(A, 'phone (replay grid)');
    await A.screenshot({ path: path.join(ART, 'phone-6-replay-grid.png'), fullPage: true });

    /* B: the short link lands on the replay at once. */
    const ctxB = await browser.newContext(PHONE);
    const B = await ctxB.newPage();
    watch(B, 'B');
    collectFailures(B, failed);
    await B.goto(short);
    check(new URL(B.url()).search === `?room=${room}&replay=1`, 'B: /r leads to the room\'s replay', B.url());
    await until('B: the replay starts by itself', async () => !(await hidden(B, '#replay')));
    const sb = await play(B, 'B', ['yes', 'no']);
    await waitText(B, '#replayshare', `My fragvote score: ${sb.right}/${sb.scored} · room: ${roomPct} %`);

    /* Nothing of the live room moved; the replay's answers are apart. */
    const after = sql(LIVE_SQL);
    checkEq(after, before, 'the live session\'s rows in SQLite are unchanged by the replay');
    checkEq(sql('SELECT count(*), count(DISTINCT token_hash) FROM replay_votes;').trim(), '4|2',
      'the replay\'s answers are in replay_votes: two phones, two each');
    checkEq(sql('SELECT count(*) FROM votes;').trim(), '3', 'the live votes are still the three of the talk');
    check(pageErrors.length === 0, 'no uncaught script error on any page', pageErrors.join('; '));
    check(!consoleErrors.some((e) => /Content.Security.Policy/i.test(e)), 'no Content-Security-Policy violation',
      consoleErrors.join('; '));
    checkEq(failed.join(' '), '', 'every page, script and message catalog the phones asked for loaded (a favicon aside)');

    /* C, in German: the replay words the rules' chain (and the why under it)
     * from the German catalog, not the English the hub recorded beside it. */
    const de = JSON.parse(fs.readFileSync(path.join(SRC, 'audience-web', 'i18n-de.json'), 'utf8'));
    const worded = (m) => m && typeof de[m.key] === 'string' ? de[m.key].replace(/\{(\w+)\}/g, (all, n) => {
      const v = (m.args || {})[n];
      return v && typeof v === 'object' ? worded(v) : v === undefined ? all : String(v);
    }) : null;
    check(rep.questions.some((q) => Array.isArray(q.reveal.explain_msg) && q.reveal.explain_msg.length > 0),
      'the replay carries the rules\' chain as messages');
    const C = await (await browser.newContext(PHONE)).newPage();
    watch(C, 'C');
    await C.goto(`${origin}/?room=${room}&replay=1&lang=de`);
    await until('C: the replay starts by itself, in German', async () => !(await hidden(C, '#replay')) &&
      (await C.evaluate(() => document.documentElement.lang)) === 'de');
    for (let i = 0; i < rep.questions.length; i++) {
      const rv = rep.questions[i].reveal;
      await waitText(C, '#replayqnum', de['replay.qnum'].replace('{q}', i + 1).replace('{n}', rep.questions.length));
      await C.tap('#replayyes');
      await until(`C Q${i + 1}: the recorded truth`, async () => !(await hidden(C, '#replayreveal')));
      if (Array.isArray(rv.explain_msg) && rv.explain_msg.length) {
        const ex = await text(C, '#replayexplain');
        checkEq(ex, de['reveal.explain'].replace('{why}', rv.explain_msg.map(worded).join(de['rule.sep'])),
          `C (de) Q${i + 1}: the rules' chain is worded from the German catalog`);
        check(!ex.includes(rv.explain), `C (de) Q${i + 1}: the chain is not the English sentence`, ex);
        checkEq(await C.locator('#replayexplain').getAttribute('lang'), null, `C (de) Q${i + 1}: the chain is not marked English`);
      }
      if (!rv.evidence && rv.why_msg)
        checkEq(await text(C, '#replayevidence'), worded(rv.why_msg), `C (de) Q${i + 1}: the fact's why is worded from the German catalog`);
      await C.tap('#replaynext');
    }

    if (env.FRAGVOTE_UPDATE_SCREENSHOTS === '1') {
      const dst = path.join(SRC, 'docs', 'screenshots');
      for (const n of ['phone-6-replay-question', 'phone-6-replay-grid']) fs.copyFileSync(path.join(ART, n + '.png'), path.join(dst, n + '.png'));
      log('copied the replay\'s two screenshots to docs/screenshots');
    }
    await con.cmd('quit');
  } finally {
    await abort();
  }
}, 240000);
