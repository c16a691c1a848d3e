/* Results inside the slides (issue 39, item 5; docs/SLIDES.md): the
 * reveal.js deck that docs/SLIDES.md gives, served by slides_server.js from
 * another origin (port 8001 of the laptop's address) than fragvote serve
 * (8080, --frame-ancestors naming the deck's origin), with reveal.js from
 * npm. In Debian's Chromium: reveal.js turns the slides and each slide's
 * iframe shows its question; the presenter drives question 1 with clicker
 * keys on the presenter page and the embedded view follows every step;
 * view=result shows nothing before the reveal (DOM and frames) and the
 * truth after it; the same deck from an origin the list does not name (8002)
 * is refused the frame by the browser, and neither origin opens a websocket
 * of its own. Run by test_browser_slides.sh through test_browser.sh. */
'use strict';
const path = require('path');
const readline = require('readline');
const { spawn } = require('child_process');
const {
  NS_LAPTOP, ART, HERE, STEP_MS, PROBE_MS, PHONE, check, checkEq, log, sleep, until, frames, pageErrors, watch, text,
  hidden, parsed, stateWithReveal, startServe, stopServe, joinOf, launchBrowser, run,
} = require('./lib');

const ADDR = '198.51.100.10';  /* the laptop's address on the phones' link (test_browser.sh) */
const HUB = `http://${ADDR}:8080`, SLIDES = `http://${ADDR}:8001`, OTHER = `http://${ADDR}:8002`;
const VIEW = { viewport: { width: 1280, height: 720 } };
const JOIN_SLIDE = 1, Q1_SLIDE = 2, RESULT_SLIDE = 3, Q2_SLIDE = 4;  /* the deck's slides (docs/SLIDES.md) */

/* The slide deck's web server in the laptop's namespace; resolves once it listens. */
function startSlides() {
  const child = spawn('ip', ['netns', 'exec', NS_LAPTOP, process.execPath, path.join(HERE, 'slides_server.js'), HUB,
    '8001', '8002'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const ready = new Promise((resolve, reject) => {
    readline.createInterface({ input: child.stdout }).on('line', (l) => { if (/^listening /.test(l)) resolve(); });
    child.on('exit', (code) => reject(new Error(`slides_server.js exited ${code}`)));
  });
  return { child, ready };
}

/* The iframe of the slide titled `title` on page p, and its frame once loaded. */
async function embedded(p, title) {
  return until(`the iframe "${title}" loaded`, async () => {
    const h = await p.$(`iframe[title="${title}"]`);
    const f = h && await h.contentFrame();
    return f && f.url() !== 'about:blank' && f.url() !== '' && f;
  });
}
async function showSlide(p, n) {
  await p.evaluate((i) => window.Reveal.slide(i), n);
  await until(`slide ${n} shown`, () => p.evaluate((i) => window.Reveal.getIndices().h === i, n));
}
/* The embedded banner's look (its class) and words. */
async function bannerOf(f) {
  return { cls: ((await f.locator('#banner').getAttribute('class')) || '').replace(/\bbanner\b|\burgent\b/g, '').trim(),
    words: (await text(f, '#bannertext')).trim() };
}
async function waitBanner(f, cls, what, ms = STEP_MS) {
  const b = await until(`${what}: banner ${cls}`, async () => { const x = await bannerOf(f); return x.cls === cls && x; }, ms);
  check(b.words.length > 3, `${what}: the banner says what is happening`, b.words);
}
/* A websocket from page p's own origin: 'open' or 'refused'. */
async function ownSocket(p) {
  return p.evaluate((url) => new Promise((resolve) => {
    const ws = new WebSocket(url, 'fragvote-screen');
    ws.onopen = () => { ws.close(); resolve('open'); };
    ws.onerror = () => resolve('refused');
  }), HUB.replace('http:', 'ws:') + '/');
}

run(async (setAbort) => {
  const slides = startSlides();
  const serve = startServe(['--deck', path.join(HERE, 'deck.json'), '--db', path.join(ART, 'fragvote.db'), '--no-prefetch',
    '--port', '8080', '--frame-ancestors', `'self' ${SLIDES}`]);
  const con = serve.con;
  let browser = null;
  const abort = async () => {
    if (browser) await browser.close().catch(() => {});
    await stopServe(serve);
    slides.child.kill('SIGTERM');
  };
  setAbort(abort);
  try {
    await slides.ready;
    const { joinUrl, room, origin } = await joinOf(con);
    checkEq(origin, HUB, 'serve listens where the deck points');
    con.child.stdin.write('secret\n');
    const deskUrl = /^Presenter: (\S+#secret=\S+)$/.exec(await con.line(/^Presenter: \S+#secret=/))[1];
    browser = await launchBrowser();

    /* the deck on the projector, from its own origin */
    const deck = await (await browser.newContext(VIEW)).newPage();
    watch(deck, 'deck');
    const deckSockets = [];
    deck.on('websocket', (ws) => deckSockets.push(ws.url()));
    await deck.goto(SLIDES + '/');
    await until('reveal.js ready', () => deck.evaluate(() => !!(window.Reveal && window.Reveal.isReady())));
    checkEq(await deck.evaluate(() => document.querySelectorAll('.reveal .slides > section').length), 5,
      'the deck of docs/SLIDES.md has its five slides');
    /* the presenter at the lectern, the clicker's keys on its page; a phone */
    const desk = await (await browser.newContext(VIEW)).newPage();
    watch(desk, 'presenter');
    await desk.goto(deskUrl);
    await until('presenter unlocked', async () => !(await hidden(desk, '#panel')));
    const phone = await (await browser.newContext(PHONE)).newPage();
    watch(phone, 'phone');
    await phone.goto(joinUrl);

    /* reveal.js loads a slide's iframe (data-src) when the slide is shown
     * and unloads it when it is left: each view is fetched where it shows */
    await showSlide(deck, JOIN_SLIDE);
    const join = await embedded(deck, 'Join the vote');
    await until('the join slide shows the room code', async () => (await text(join, '#code')) === room);
    await showSlide(deck, Q2_SLIDE);
    const q2 = await embedded(deck, 'Question 2, live');
    await until('question 2 is shown as pending', async () => (await text(q2, '#qnum')) === 'Question 2 of 4');
    await waitBanner(q2, 'pending', 'Q2 before the room reached it');
    checkEq((await text(q2, '#qtext')).trim(), '', 'Q2: no text while the room has not reached it');
    await showSlide(deck, RESULT_SLIDE);
    let result = await embedded(deck, 'Question 1: the result');
    await until('the result slide: not revealed yet', async () => /not revealed yet/.test(await text(result, '#bannertext')));

    await showSlide(deck, Q1_SLIDE);
    let q1 = await embedded(deck, 'Question 1, live');
    checkEq(q1.url(), HUB + '/screen/?q=1', 'the question slide frames /screen/?q=1 of the hub');
    await until('Q1 shown', async () => (await text(q1, '#qnum')) === 'Question 1 of 4');
    await waitBanner(q1, 'pending', 'Q1 pending');
    check((await text(q1, '#qtext')).length > 20, 'Q1: its text', await text(q1, '#qtext'));
    check(!(await q1.locator('#join').isVisible()), 'Q1: the embedded view has no join box');
    await deck.screenshot({ path: path.join(ART, 'slides-1-pending.png') });

    /* the clicker: the presenter page's highlighted step */
    const cmdState = async () => desk.locator('[data-cmd]').evaluateAll((bs) => Object.fromEntries(bs.map((b) =>
      [b.dataset.cmd, b.disabled ? 'off' : b.classList.contains('primary') ? 'primary' : 'quiet'])));
    async function click(word, key, ms = STEP_MS) {
      await desk.evaluate(() => document.activeElement && document.activeElement.blur());
      await until(`presenter highlights ${word}`, async () => (await cmdState())[word] === 'primary', ms);
      await sleep(450); /* the page ignores a second press right after a change */
      log(`presenter page: ${key} (${word})`);
      await desk.keyboard.press(key);
    }
    const t0 = Date.now();
    await click('open', 'PageDown');
    await waitBanner(q1, 'voting', 'Q1 voting');
    log(`the embedded view followed "open" in ${Date.now() - t0} ms`);
    await phone.locator('#yes').click();
    await until('the embedded view counts the vote', async () => (await text(q1, '#votes')) === '1');
    check(await hidden(q1, '#bars'), 'Q1: no bars while voting');
    await click('close', 'ArrowRight');
    await waitBanner(q1, 'closed', 'Q1 closed');
    await until('Q1: the bars after close', async () => !(await hidden(q1, '#bars')) && (await text(q1, '#yesn')) === '1');
    await click('measure', ' ', PROBE_MS);
    await waitBanner(q1, 'measured', 'Q1 measured', PROBE_MS);

    /* view=result before the reveal: nothing of the question in its page
     * (no text, no count, no bars, no truth), no reveal in any frame */
    const qtext = (await text(q1, '#qtext')).trim();
    await showSlide(deck, RESULT_SLIDE);
    result = await embedded(deck, 'Question 1: the result');
    await until('the result slide connected', async () => (await text(result, '#qnum')) === 'Question 1' &&
      deckSockets.length >= 5); /* join, Q2, result, Q1 and the result again */
    await sleep(1000); /* its state came (the measured question's, with the split): still nothing shown */
    const dom = await result.evaluate(() => ({ text: document.body.innerText, html: document.body.innerHTML }));
    check(/not revealed yet/.test(dom.text), 'result before the reveal: "not revealed yet"', dom.text.slice(0, 200));
    check(!dom.html.includes(qtext.slice(0, 30)), 'result before the reveal: the question\'s text is not in its DOM');
    checkEq(await text(result, '#yesn'), '', 'result before the reveal: no count in its DOM');
    checkEq(await text(result, '#truth'), '', 'result before the reveal: no truth in its DOM');
    check(await hidden(result, '#live'), 'result before the reveal: the question part is hidden');
    const before = frames.length;
    for (const x of parsed(0, before))
      if (x.m && x.m.t === 'state' && x.m.q && x.m.q.pos === 0 && x.m.reveal)
        check(false, 'no frame to any page carries Q1\'s reveal before it', `${x.who}: ${x.raw.slice(0, 200)}`);
    await deck.screenshot({ path: path.join(ART, 'slides-2-notyet.png') });

    await click('reveal', 'PageDown');
    const st = await until('Q1 reveal frame', () => stateWithReveal(0), STEP_MS);
    const truth = st.reveal.truth.toUpperCase();
    await until('the result slide shows the truth', async () => (await text(result, '#truth')).startsWith(truth));
    check(!(await hidden(result, '#live')) && !(await hidden(result, '#bars')), 'result: the question and its bars');
    check(await result.locator('.bar.true').count() === 1 || !/^(YES|NO)$/.test(truth), 'result: the true bar marked');
    check(!(await result.locator('.count').isVisible()), 'result: only the result (no count line)');
    check(/room said yes/.test(await text(result, '#majority')), 'result: what the room said', await text(result, '#majority'));
    await deck.screenshot({ path: path.join(ART, 'slides-3-result.png') });
    await showSlide(deck, Q1_SLIDE);
    q1 = await embedded(deck, 'Question 1, live');
    await until('the question slide shows the reveal', async () => (await text(q1, '#truth')).startsWith(truth));
    check(/^(right|wrong|unknown|tie)$/.test((await bannerOf(q1)).cls), 'Q1: the room\'s verdict', (await bannerOf(q1)).cls);

    /* the room goes on: question 1's slide keeps its result, question 2's follows */
    await click('next', 'PageDown');
    await sleep(500);
    check((await text(q1, '#truth')).startsWith(truth) && (await text(q1, '#qnum')) === 'Question 1 of 4',
      'Q1\'s slide keeps its result after next');
    await showSlide(deck, Q2_SLIDE);
    const q2b = await embedded(deck, 'Question 2, live');
    await until('Q2: its text once the room reached it', async () => (await text(q2b, '#qtext')).length > 20);
    await click('open', 'PageDown');
    await waitBanner(q2b, 'voting', 'Q2 voting');
    await deck.screenshot({ path: path.join(ART, 'slides-4-q2.png') });

    /* another site, the same deck: the browser refuses to frame the projector */
    const other = await (await browser.newContext(VIEW)).newPage();
    watch(other, 'other site');
    const otherSockets = [];
    const refusals = [];
    other.on('websocket', (ws) => otherSockets.push(ws.url()));
    other.on('console', (m) => { if (/frame-ancestors/.test(m.text())) refusals.push(m.text()); });
    await other.goto(OTHER + '/');
    await until('reveal.js ready on the other site', () => other.evaluate(() => !!(window.Reveal && window.Reveal.isReady())));
    await showSlide(other, Q1_SLIDE);
    const handle = await other.$('iframe[title="Question 1, live"]');
    await until('the other site\'s iframe has tried', async () => refusals.length > 0 ||
      ((await handle.contentFrame()) && (await handle.contentFrame()).url() !== 'about:blank'), STEP_MS).catch(() => {});
    await sleep(1500);
    const f = await handle.contentFrame();
    const fUrl = f ? f.url() : '(no frame)';
    const shown = f ? await f.locator('#banner').count().catch(() => 0) : 0;
    check(fUrl !== HUB + '/screen/?q=1' && shown === 0,
      'another site\'s page is refused the frame of /screen/?q=1', `frame at ${fUrl}, banner elements ${shown}`);
    checkEq(otherSockets.length, 0, 'the refused frame opened no websocket');
    check(refusals.length > 0, 'Chromium says it refused the frame (frame-ancestors)', refusals.join(' | '));
    check(deckSockets.length > 0, 'the same markup from the deck\'s origin did open the views\' websockets');
    checkEq(await ownSocket(deck), 'refused', 'the deck\'s origin may frame, not open a websocket of its own');
    checkEq(await ownSocket(other), 'refused', 'the other site opens no websocket either');
    await other.screenshot({ path: path.join(ART, 'slides-5-other-site.png') });

    checkEq(pageErrors.length, 0, 'no uncaught script error on any page', pageErrors.join(' | '));
    con.child.stdin.write('quit\n');
    const ex = await Promise.race([con.exit, sleep(20000).then(() => ({ code: 'timeout' }))]);
    checkEq(ex.code, 0, 'serve exits 0 after quit');
  } finally {
    await abort();
  }
}, 300000);
