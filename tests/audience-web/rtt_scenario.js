/* `fragvote check --phone`, the phone's side in a real browser (issue 39,
 * item 1; docs/CHECK.md, docs/PROTOCOL.md "rtt"). fragvote serve on the lab
 * with the browser deck and its presenter page unlocked from the console's
 * URL; then, in Debian's Chromium at 360x740:
 *  - a phone that opens the join URL with check=1 times its round trips to
 *    the hub itself (phone.js: five ping/pong samples) and sends one `rtt`
 *    report; the hub relays it to the presenter as `phone_rtt` with the
 *    phone's figures; the phone shows the line the speaker asked for, in its
 *    language (en-US here, de-DE for the second phone), and it passes axe;
 *  - a phone without check=1 measures nothing and reports nothing.
 * tests/fragvote/laptop/test_check_hub.sh covers the laptop's side (check --phone
 * through a hosted hub, with phones.py doing what phone.js does); this test
 * is phone.js's own measurement. Run by test_browser_rtt.sh through
 * test_browser.sh. */
'use strict';
const path = require('path');
const {
  ART, HERE, PHONE, check, checkEq, log, until, parsed, pageErrors, consoleErrors, watch, collectFailures, text, hidden, axe,
  startServe, stopServe, joinOf, launchBrowser, run,
} = require('./lib');

const SAMPLES = 5; /* phone.js RTT_SAMPLES */

/* Answers of 400 or more to the pages' requests (the browser's own
 * /favicon.ico aside). */
const failed = [];
function watchAll(page, who) {
  watch(page, who);
  collectFailures(page, failed, who);
}

/* The frames `who` received of type t. */
function got(who, t) { return parsed().filter((x) => x.who === who && x.m && x.m.t === t).map((x) => x.m); }

run(async (setAbort) => {
  const serve = startServe(['--deck', path.join(HERE, 'deck.json'), '--db', path.join(ART, 'fragvote.db'), '--no-prefetch']);
  const con = serve.con;
  let browser = null;
  setAbort(async () => {
    if (browser) await browser.close().catch(() => {});
    await stopServe(serve);
  });
  try {
    const { joinUrl, room } = await joinOf(con);
    log(`serve: ${joinUrl}`);
    con.child.stdin.write('secret\n');
    const deskUrl = /^Presenter: (\S+#secret=\S+)$/.exec(await con.line(/^Presenter: \S+#secret=/))[1];
    browser = await launchBrowser();
    const desk = await (await browser.newContext({ viewport: { width: 1024, height: 768 }, locale: 'en-US' })).newPage();
    watchAll(desk, 'presenter');
    await desk.goto(deskUrl);
    await until('presenter unlocked from the URL', async () => !(await hidden(desk, '#panel')));

    /* A phone without check=1: joins, measures nothing, reports nothing. */
    const plain = await (await browser.newContext(PHONE)).newPage();
    watchAll(plain, 'plain');
    await plain.goto(joinUrl);
    await until('the plain phone joined', async () => (await text(plain, '#roomchip')).includes(room));

    /* The venue check's phone, in English, then one in German. */
    const shown = {};
    for (const [who, locale, line] of [['phone', 'en-US', /^Venue check: round trip median ([0-9.]+) ms, max ([0-9.]+) ms \((\d+) samples\), sent to the speaker\.$/],
      ['phone-de', 'de-DE', /^Raumcheck: Umlaufzeit Median ([0-9.]+) ms, Maximum ([0-9.]+) ms \((\d+) Messungen\), an die vortragende Person gesendet\.$/]]) {
      const page = await (await browser.newContext({ ...PHONE, locale })).newPage();
      watchAll(page, who);
      const t0 = Date.now();
      await page.goto(joinUrl + '&check=1');
      await until(`${who}: the round trip is reported`, async () => line.test((await text(page, '#rtt')).trim()));
      const m = line.exec((await text(page, '#rtt')).trim());
      shown[who] = { median: Number(m[1]), max: Number(m[2]), n: Number(m[3]) };
      log(`${who} (${locale}) shows: ${(await text(page, '#rtt')).trim()} (after ${Date.now() - t0} ms)`);
      checkEq(shown[who].n, SAMPLES, `${who}: ${SAMPLES} samples`);
      check(shown[who].median > 0 && shown[who].median <= shown[who].max && shown[who].max < 2000,
        `${who}: 0 < median <= max < 2000 ms`, JSON.stringify(shown[who]));
      checkEq(got(who, 'pong').length, SAMPLES, `${who}: the hub answered ${SAMPLES} pings`);
      checkEq(got(who, 'rtt_ok').length, 1, `${who}: the hub took one report`);
      checkEq(got(who, 'error').length, 0, `${who}: no error from the hub`);
      if (who === 'phone') await axe(page, 'phone with the venue check line');
    }

    /* The presenter got both reports, with the figures the phones showed (the
     * hub rounds to 0.1 ms as the phone does). */
    await until('the presenter got both reports', async () => got('presenter', 'phone_rtt').length >= 2);
    const relayed = got('presenter', 'phone_rtt');
    checkEq(relayed.length, 2, 'the presenter got one phone_rtt per checking phone');
    for (const [i, who] of [[0, 'phone'], [1, 'phone-de']]) {
      const r = relayed[i];
      check(r.n === SAMPLES && Math.abs(r.median_ms - shown[who].median) < 0.051 && Math.abs(r.max_ms - shown[who].max) < 0.051,
        `phone_rtt ${i + 1} carries ${who}'s figures`, JSON.stringify({ relayed: r, shown: shown[who] }));
    }
    checkEq(got('plain', 'pong').length + got('plain', 'rtt_ok').length, 0, 'the plain phone sent no ping and no report');
    checkEq((await text(plain, '#rtt')).trim(), '', 'the plain phone shows no venue check line');
    checkEq(got('plain', 'phone_rtt').length + got('phone', 'phone_rtt').length, 0, 'no phone gets the relayed report');
    check(pageErrors.length === 0, 'no page error', pageErrors.join('; '));
    check(failed.length === 0, 'every request of the pages answered', failed.join('; '));
    check(!consoleErrors.some((e) => /Content.Security.Policy/i.test(e)), 'no Content-Security-Policy violation',
      consoleErrors.join('; '));
  } finally {
    if (browser) await browser.close().catch(() => {});
    await stopServe(serve);
  }
}, 180000);
