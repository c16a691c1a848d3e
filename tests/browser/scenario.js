/* The room as people see it: `fragvote serve` on the namespace lab, driven by
 * its console on stdin; a projector screen and three phones in a real
 * Chromium (mobile viewport, touch) inside a network namespace, loading the
 * pages from the laptop's non-loopback address as phones on venue wifi do.
 *
 * Run by test_browser.sh, which creates the two namespaces and removes them.
 * Environment: FRAGVOTE_BIN, FRAGVOTE_SRC, FRAGVOTE_NS_LAPTOP,
 * FRAGVOTE_NS_PHONES, FRAGVOTE_LAB_PREFIX, FRAGVOTE_BROWSER_ARTIFACTS,
 * FRAGVOTE_CHROMIUM (default /usr/bin/chromium), FRAGVOTE_SERVE_ARGS (more
 * options for serve, e.g. --libev),
 * FRAGVOTE_UPDATE_SCREENSHOTS=1 copies the README screenshots to docs/. */
'use strict';
const fs = require('fs');
const path = require('path');
const readline = require('readline');
const { spawn, execFileSync } = require('child_process');
const { chromium } = require('playwright-core');

const env = process.env;
const BIN = need('FRAGVOTE_BIN');
const SRC = need('FRAGVOTE_SRC');
const NS_LAPTOP = need('FRAGVOTE_NS_LAPTOP');
const NS_PHONES = need('FRAGVOTE_NS_PHONES');
const ART = need('FRAGVOTE_BROWSER_ARTIFACTS');
const HERE = __dirname;
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const PROJECTOR = { width: 1920, height: 1080 };  /* a projector cannot scroll */
const STEP_MS = 15000;
const TIMER_S = 6;        /* the voting timer of question 3, set on the presenter page */    /* the longest any single UI change may take */
const PROBE_MS = 60000;   /* a measurement on the lab */

function need(name) {
  if (!env[name]) { console.error(`scenario: ${name} is not set (run tests/browser/test_browser.sh)`); process.exit(2); }
  return env[name];
}

/* ---- checks (same spirit as tests/check.h: every failure is printed, the run goes on) ---- */
let checks = 0, failures = 0;
function check(ok, what, detail) {
  checks++;
  if (ok) return true;
  failures++;
  console.log(`FAIL: ${what}${detail === undefined ? '' : ' — ' + detail}`);
  return false;
}
function checkEq(got, want, what) {
  return check(got === want, what, `got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
}
function log(msg) { console.log(`[${new Date().toISOString().slice(11, 23)}] ${msg}`); }
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/* Polls fn until it returns something truthy; throws with `what` after ms. */
async function until(what, fn, ms = STEP_MS) {
  const end = Date.now() + ms;
  let last;
  for (;;) {
    try { last = await fn(); if (last) return last; } catch (e) { last = e.message; }
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for: ${what} (last: ${JSON.stringify(last)})`);
    await sleep(50);
  }
}

/* ---- the presenter's console: fragvote serve reading commands on stdin ---- */
class Console {
  constructor(child) {
    this.child = child;
    this.lines = [];
    const logf = path.join(ART, 'serve.log');
    readline.createInterface({ input: child.stdout }).on('line', (l) => { this.lines.push(l); fs.appendFileSync(logf, l + '\n'); });
    readline.createInterface({ input: child.stderr }).on('line', (l) => { fs.appendFileSync(logf, 'stderr: ' + l + '\n'); console.log('serve: ' + l); });
    /* 'close', not 'exit': only then has all of its output been read. */
    this.exit = new Promise((r) => child.on('close', (code, sig) => r({ code, sig })));
  }
  async line(re, from = 0, ms = STEP_MS) {
    return until(`console line ${re}`, () => this.lines.slice(from).find((l) => re.test(l)), ms);
  }
  /* Sends one console command and waits until the hub has taken it. */
  async cmd(word, ms = STEP_MS) {
    const from = this.lines.length;
    log(`console: ${word}`);
    this.child.stdin.write(word + '\n');
    const l = await this.line(new RegExp(`> ${word}( refused|:|$)`), from, ms);
    if (/refused/.test(l)) throw new Error(`console refused '${word}': ${l}`);
    return l;
  }
}

/* ---- pages, frames, screenshots ---- */
const frames = [];        /* every websocket frame every page received, in order */
const timings = { tapToAck: [], revealToScreen: [], backOnline: [] };  /* ms, reported at the end */
const pageErrors = [];
function watch(page, who) {
  page.on('websocket', (ws) => {
    ws.on('framereceived', (f) => frames.push({ who, payload: String(f.payload) }));
  });
  page.on('pageerror', (e) => pageErrors.push(`${who}: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') fs.appendFileSync(path.join(ART, 'console-errors.log'), `${who}: ${m.text()}\n`); });
}
/* Screenshots: phones scroll, so the whole page; the projector shows only
 * what fits its one screenful, so exactly that. These go to docs/screenshots
 * with FRAGVOTE_UPDATE_SCREENSHOTS=1 (the README shows them). */
const README_SHOTS = ['screen-2-voting', 'screen-5-revealed', 'screen-6-final', 'phone-2-voted', 'phone-4-revealed-right-or-wrong',
  'phone-5-final-grid'];
const shots = [];
async function shot(page, name) {
  const file = path.join(ART, name + '.png');
  await page.screenshot({ path: file, fullPage: !name.startsWith('screen-') });
  shots.push(file);
  if (name.startsWith('phone-')) {
    const w = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
    check(w[0] <= w[1], `${name}: nothing wider than the phone (no sideways scrolling)`, `content ${w[0]} px, screen ${w[1]} px`);
  }
}
async function text(page, sel) { return (await page.locator(sel).textContent()) || ''; }
async function hidden(page, sel) { return page.locator(sel).evaluate((e) => e.hidden); }
async function waitText(page, sel, want, ms) {
  return until(`${sel} == ${JSON.stringify(want)}`, async () => (await text(page, sel)) === want, ms);
}

/* TCP connections from the phones' namespace to the laptop, as "addr:port"
 * of the phone's end. */
function phoneSockets(laptopAddr) {
  const out = execFileSync('ip', ['netns', 'exec', NS_PHONES, 'ss', '-Htn', 'state', 'established', 'dst', laptopAddr], { encoding: 'utf8' });
  return new Set(out.split('\n').map((l) => l.trim().split(/\s+/)).filter((f) => f.length >= 4).map((f) => f[2]));
}
/* What a phone's OS does when its wifi drops: abort the phone's TCP
 * connections (ss -K sends the laptop a reset, as a phone's RST would). */
function killPhoneSockets(socks) {
  for (const s of socks) {
    const i = s.lastIndexOf(':');
    execFileSync('ip', ['netns', 'exec', NS_PHONES, 'ss', '-K', '-tn', 'src', s.slice(0, i), 'sport', '=', s.slice(i + 1)], { encoding: 'utf8' });
  }
}

/* Presses Tab until the element with id `id` has the focus; returns the ids
 * visited, or throws when it is not reachable within `max` presses. */
async function tabTo(page, id, max = 20) {
  const seen = [];
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    const cur = await page.evaluate(() => { const e = document.activeElement; return e && (e.id || (e.dataset && e.dataset.cmd) || e.tagName); });
    seen.push(cur);
    if (cur === id) {
      const ring = await page.evaluate(() => { const s = getComputedStyle(document.activeElement); return s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0; });
      check(ring, `#${id} shows a focus ring when reached by keyboard`);
      return seen;
    }
  }
  throw new Error(`#${id} is not reachable with Tab (focus went ${seen.join(' → ')})`);
}

/* axe-core on the page as it is now, light and dark. WCAG 2.1 A/AA
 * violations fail the test; best-practice findings are logged. */
async function axe(page, label) {
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.evaluate(AXE);
    const r = await page.evaluate(() => window.axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] },
      resultTypes: ['violations'],
    }));
    for (const v of r.violations) {
      const wcag = v.tags.some((t) => /^wcag2/.test(t));
      const where = v.nodes.map((n) => n.target.join(' ') + (n.failureSummary ? ' (' + n.failureSummary.replace(/\s+/g, ' ') + ')' : '')).join('; ');
      if (wcag) check(false, `axe ${label} [${scheme}]: ${v.id}: ${v.help}`, where);
      else log(`axe note ${label} [${scheme}]: ${v.id}: ${v.help}: ${where}`);
    }
    check(true, `axe ${label} [${scheme}]`);
  }
  await page.emulateMedia({ colorScheme: null });
}

/* A projector shows one viewport and nobody scrolls it: each element must be
 * entirely inside the first screenful. */
async function onFirstScreen(page, sels, label) {
  const vp = page.viewportSize();
  for (const sel of sels) {
    const b = await page.locator(sel).boundingBox();
    check(b && b.y >= 0 && b.y + b.height <= vp.height && b.x + b.width <= vp.width,
      `${label}: ${sel} is visible without scrolling at ${vp.width}x${vp.height}`,
      b ? `box y=${Math.round(b.y)} h=${Math.round(b.height)}, page height ${await page.evaluate(() => document.documentElement.scrollHeight)}` : 'not rendered');
  }
}

/* All JSON objects the pages received so far (frames[from..to)). */
function parsed(from = 0, to = frames.length) {
  return frames.slice(from, to).map((f) => { try { return { who: f.who, m: JSON.parse(f.payload), raw: f.payload }; } catch (e) { return { who: f.who, m: null, raw: f.payload }; } });
}
function stateWithReveal(pos) {
  const hit = parsed().reverse().find((x) => x.m && x.m.t === 'state' && x.m.reveal && x.m.q && x.m.q.pos === pos);
  return hit && hit.m;
}

/* ---- main ---- */
const SCENARIO_MS = 300000;  /* the whole run; ctest's own timeout is 600 s */
let abort = null;            /* set by main: stops serve and the browser */

async function main() {
  fs.mkdirSync(ART, { recursive: true });
  for (const f of fs.readdirSync(ART)) fs.rmSync(path.join(ART, f), { recursive: true, force: true });

  /* 1. serve on the lab, in the laptop's namespace: its default route points
   * at the venue link, so the join URL carries a non-loopback address. */
  const db = path.join(ART, 'fragvote.db');
  const child = spawn('ip', ['netns', 'exec', NS_LAPTOP, BIN, 'serve', '--port', '0', '--deck', path.join(HERE, 'deck.json'),
    '--db', db, '--no-qr', ...(env.FRAGVOTE_SERVE_ARGS || '').split(/\s+/).filter(Boolean)], { stdio: ['pipe', 'pipe', 'pipe'], env });
  const con = new Console(child);
  let browser = null;
  abort = async () => {
    if (browser) await browser.close().catch(() => {});
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');   /* serve removes its lab on SIGTERM */
      await Promise.race([con.exit, sleep(10000)]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  };
  try {
    const joinUrl = (await con.line(/^Join: /, 0, PROBE_MS)).slice(6).trim();
    const room = /Room: (\S+)/.exec(await con.line(/^Room: /))[1];
    log(`serve: join URL ${joinUrl}, room ${room}`);
    const origin = new URL(joinUrl).origin;
    check(!/^https?:\/\/(127\.|localhost|\[::1\])/.test(joinUrl), 'join URL is not a loopback address', joinUrl);

    browser = await chromium.launch({
      executablePath: path.join(HERE, 'chromium-netns.sh'),
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync'],
      env: { ...env, FRAGVOTE_BROWSER_NETNS: NS_PHONES },
    });
    log(`chromium ${browser.version()} in namespace ${NS_PHONES}`);
    const phoneOpts = { viewport: { width: 360, height: 740 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, locale: 'en-US' };

    /* 2. the projector: join URL, room code, QR that decodes to the join URL. */
    const screenCtx = await browser.newContext({ viewport: PROJECTOR, locale: 'en-US' });
    const screen = await screenCtx.newPage();
    watch(screen, 'screen');
    await screen.goto(origin + '/screen/');
    await waitText(screen, '#code', room);
    checkEq(await text(screen, '#url'), joinUrl.replace(/^https?:\/\//, ''), 'screen shows the join URL');
    checkEq(await text(screen, '#online'), '0', 'screen starts with 0 voters');
    await until('QR image loaded', () => screen.locator('#qr').evaluate((i) => i.complete && i.naturalWidth > 0));
    const qrPng = path.join(ART, 'qr.png');
    await screen.locator('#qr').screenshot({ path: qrPng });
    const qrUrl = execFileSync('zbarimg', ['--raw', '-q', qrPng], { encoding: 'utf8' }).trim();
    checkEq(qrUrl, joinUrl, 'the QR code on the screen decodes to the join URL');
    await shot(screen, 'screen-1-join');
    await axe(screen, 'screen (join)');

    /* 3. someone types a wrong room code on the bare URL: the join form is
     * keyboard-usable, labelled, and says what went wrong. */
    const visitorCtx = await browser.newContext(phoneOpts);
    const visitor = await visitorCtx.newPage();
    watch(visitor, 'visitor');
    await visitor.goto(origin + '/');
    await until('join form shown', async () => !(await hidden(visitor, '#join')));
    await tabTo(visitor, 'code');
    const wrong = (room[0] === 'A' ? 'B' : 'A') + room.slice(1);
    await visitor.keyboard.type(wrong);
    await tabTo(visitor, 'joinbtn');
    await visitor.keyboard.press('Enter');
    await until('wrong code answered', async () => (await text(visitor, '#error')).length > 0);
    check(!(await hidden(visitor, '#join')), 'wrong code: the join form stays');
    await shot(visitor, 'phone-0-wrong-code');
    await axe(visitor, 'phone (join form, wrong code)');
    await visitorCtx.close();

    /* 4. the presenter's page, unlocked with the secret typed by keyboard;
     * every control reachable with Tab. It stays open: the truth must not
     * reach it before the reveal either. */
    const secret = /Presenter secret: (\S+)/.exec(await con.line(/Presenter secret: /))[1];
    const presenter = await (await browser.newContext({ viewport: { width: 1024, height: 768 }, locale: 'en-US' })).newPage();
    watch(presenter, 'presenter');
    await presenter.goto(origin + '/presenter/');
    await tabTo(presenter, 'secret');
    await presenter.keyboard.type(secret);
    await presenter.keyboard.press('Enter');
    await until('presenter unlocked', async () => !(await hidden(presenter, '#panel')));
    for (const c of ['open', 'close', 'measure', 'reveal', 'back', 'next', 'skip', 'rerun']) {
      await presenter.evaluate(() => document.activeElement && document.activeElement.blur());
      await tabTo(presenter, c);
    }
    await axe(presenter, 'presenter (unlocked)');
    await shot(presenter, 'presenter-1-unlocked');

    /* 5. three phones open the URL from the QR code; the screen counts them live. */
    const phones = {};
    const laptopAddr = new URL(joinUrl).hostname;
    for (const [i, name] of ['A', 'B', 'C'].entries()) {
      const ctx = await browser.newContext(phoneOpts);
      const page = await ctx.newPage();
      watch(page, 'phone' + name);
      const socksBefore = phoneSockets(laptopAddr);
      await page.goto(qrUrl);
      await until(`phone ${name} joined`, async () => !(await hidden(page, '#play')));
      await waitText(screen, '#online', String(i + 1));
      const socks = [...phoneSockets(laptopAddr)].filter((s) => !socksBefore.has(s));
      const token = await page.evaluate(() => localStorage.getItem('fragvote_token'));
      check(/^[0-9a-f]{32}$/.test(token || ''), `phone ${name} keeps a voter token in localStorage`, token);
      const cookies = await ctx.cookies();
      check(cookies.some((c) => c.name === 'fragvote_token' && c.value === token), `phone ${name} keeps the same token in a cookie`);
      check(await page.evaluate(() => !window.isSecureContext), `phone ${name} page is not a secure context (as on venue wifi)`);
      phones[name] = { ctx, page, token, votes: [], socks };
    }
    const A = phones.A.page, B = phones.B.page, C = phones.C.page;
    check(await A.locator('#yes').isDisabled(), 'Yes is disabled before voting opens');
    await shot(A, 'phone-1-joined');

    const truths = [];  /* per question: the revealed truth */
    const revealedTexts = new Map();  /* explanation text → the deck test whose reveal showed it first */

    /* Everything a question needs before and after the reveal. `votes` maps
     * phone name → 'yes' / 'no' / null (final vote). */
    /* timed: the question was opened with a voting timer and closes by itself. */
    async function closeMeasureReveal(pos, votes, stageShots, timed = false) {
      for (const n of ['A', 'B', 'C']) phones[n].votes[pos] = votes[n];
      const expYes = Object.values(votes).filter((v) => v === 'yes').length;
      const expNo = Object.values(votes).filter((v) => v === 'no').length;
      await waitText(screen, '#votes', String(expYes + expNo));
      check(await hidden(screen, '#bars'), `Q${pos + 1}: no bars on the screen while voting`);
      const domsBefore = [];
      for (const p of [screen, A, B, C]) domsBefore.push(await p.content());

      if (timed) await until(`Q${pos + 1} closes by itself`, async () => / · closed$/.test(await text(screen, '#qnum')), STEP_MS + TIMER_S * 1000);
      else await con.cmd('close');
      await until(`Q${pos + 1} bars after close`, async () => !(await hidden(screen, '#bars')));
      await waitText(screen, '#yesn', String(expYes));
      await waitText(screen, '#non', String(expNo));
      check(await A.locator('#yes').isDisabled(), `Q${pos + 1}: phones cannot vote once closed`);
      if (stageShots) {
        await shot(screen, 'screen-3-closed');
        await onFirstScreen(screen, ['#qtext', '.count', '#bars'], 'screen (closed)');
      }

      await con.cmd('measure', PROBE_MS);
      await until(`Q${pos + 1} measured`, async () => / · measured$/.test(await text(screen, '#qnum')), PROBE_MS);
      for (const p of [screen, A, B, C]) domsBefore.push(await p.content());
      if (stageShots) await shot(screen, 'screen-4-measured');

      const before = frames.length;
      const t0 = Date.now();
      await con.cmd('reveal');
      await until(`Q${pos + 1} revealed on the screen`, async () => !(await hidden(screen, '#reveal')));
      timings.revealToScreen.push(Date.now() - t0);
      const st = await until(`Q${pos + 1} reveal frame`, () => stateWithReveal(pos));
      const rv = st.reveal;
      truths[pos] = rv.truth;
      log(`Q${pos + 1}: truth ${rv.truth} (${rv.basis}); evidence: ${rv.evidence}`);
      check(['yes', 'no', 'unknown'].includes(rv.truth), `Q${pos + 1}: truth is yes/no/unknown`, rv.truth);

      /* The truth was in no frame and no DOM before the reveal. */
      for (const x of parsed(0, before)) {
        if (!x.m) continue;
        const leakQ = x.m.t === 'state' && ((x.m.reveal && x.m.q && x.m.q.pos === pos) ||
          (x.m.questions || []).some((q) => q.pos === pos && ('truth' in q || 'correct' in q)));
        if (!check(!leakQ, `Q${pos + 1}: no frame before the reveal carries its truth`, `${x.who} got ${x.raw.slice(0, 300)}`)) break;
      }
      /* Texts another test already revealed may repeat (same wording); a text
       * of this question's own test may not have been out before: one
       * question's reveal must not answer its siblings (issue 15). */
      const test = st.q.test;
      const secrets = [rv.evidence, rv.why].filter((s) => typeof s === 'string' && s.length >= 8 &&
        !(revealedTexts.has(s) && revealedTexts.get(s) !== test));
      check(secrets.length > 0, `Q${pos + 1}: the reveal carries evidence text to look for`);
      for (const s of secrets) {
        const inFrame = frames.slice(0, before).find((f) => f.payload.includes(s));
        check(!inFrame, `Q${pos + 1}: evidence text in no websocket frame before the reveal`, inFrame && `${inFrame.who}: ${inFrame.payload.slice(0, 200)}`);
        check(!domsBefore.some((d) => d.includes(s)), `Q${pos + 1}: evidence text in no page DOM before the reveal`);
        if (!revealedTexts.has(s)) revealedTexts.set(s, test);
      }

      /* The screen: truth, evidence, the room's majority. */
      checkEq(await text(screen, '#truth'), rv.truth.toUpperCase() + ' (' + rv.basis + ')', `Q${pos + 1}: screen shows the truth`);
      checkEq(await text(screen, '#evidence'), rv.evidence || rv.why, `Q${pos + 1}: screen shows the evidence`);
      checkEq(rv.yes, expYes, `Q${pos + 1}: revealed yes count (a changed vote counts once)`);
      checkEq(rv.no, expNo, `Q${pos + 1}: revealed no count`);
      const maj = expYes > expNo ? 'yes' : expNo > expYes ? 'no' : 'tie';
      const majText = await text(screen, '#majority');
      check(majText.startsWith('The room said ' + maj), `Q${pos + 1}: screen shows the majority ${maj}`, majText);
      if (rv.truth !== 'unknown' && maj !== 'tie')
        check(majText.endsWith(maj === rv.truth ? ' — right!' : ' — wrong.'), `Q${pos + 1}: screen says whether the room was right`, majText);

      /* Each phone: right or wrong, from its own vote. */
      for (const n of ['A', 'B', 'C']) {
        const p = phones[n].page;
        await until(`phone ${n} shows the reveal`, async () => !(await hidden(p, '#revealcard')));
        const v = votes[n];
        const want = !v ? 'You did not vote on this one.' : rv.truth === 'unknown' ? 'Nobody can tell for sure.' :
          v === rv.truth ? 'You were right ✔' : 'Not this time ✘';
        checkEq(await text(p, '#verdict'), want, `Q${pos + 1}: phone ${n} (voted ${v}) sees its verdict`);
        checkEq(await text(p, '#truth'), rv.truth, `Q${pos + 1}: phone ${n} sees the measured truth`);
        checkEq(await text(p, '#evidence'), rv.evidence || rv.why, `Q${pos + 1}: phone ${n} sees the evidence`);
      }
      if (stageShots) {
        await shot(screen, 'screen-5-revealed');
        await onFirstScreen(screen, ['#qtext', '#bars', '#truth', '#evidence', '#majority'], 'screen (revealed)');
        await shot(A, 'phone-4-revealed-right-or-wrong');
        await axe(A, 'phone (revealed)');
        await axe(screen, 'screen (revealed)');
      }
      return rv;
    }

    async function vote(name, yes, how = 'tap') {
      const p = phones[name].page;
      const id = yes ? 'yes' : 'no';
      if (how !== 'tap') await tabTo(p, id);
      const t0 = Date.now();
      if (how === 'tap') await p.tap('#' + id); else await p.keyboard.press(how);
      await waitText(p, '#ack', `vote counted ✓ (${id})`);
      timings.tapToAck.push(Date.now() - t0);
      check(await p.locator('#' + id).evaluate((e) => e.classList.contains('chosen')), `phone ${name}: ${id} shown as chosen`);
    }

    /* 6. Question 1: the full story. */
    await con.cmd('open');
    await until('phones may vote', async () => !(await A.locator('#yes').isDisabled()));
    await until('screen says voting', async () => / · voting$/.test(await text(screen, '#qnum')));
    await shot(screen, 'screen-2-voting');
    await onFirstScreen(screen, ['#qr', '#code', '#qtext', '.count'], 'screen (voting)');
    await axe(A, 'phone (voting)');
    const openAt = frames.length;
    await vote('A', true);
    await waitText(screen, '#votes', '1');
    await vote('B', false);
    await waitText(screen, '#votes', '2');
    await vote('C', true, 'Enter');          /* keyboard only */
    await waitText(screen, '#votes', '3');
    await shot(A, 'phone-2-voted');
    await axe(A, 'phone (voted)');

    /* B reloads mid-question: same voter, vote still shown. */
    await B.reload();
    await waitText(B, '#ack', 'vote counted ✓ (no)');
    check(await B.locator('#no').evaluate((e) => e.classList.contains('chosen')), 'after reload phone B still shows No as chosen');
    checkEq(await B.evaluate(() => localStorage.getItem('fragvote_token')), phones.B.token, 'after reload phone B is the same voter');
    await waitText(screen, '#online', '3');
    await sleep(300);
    checkEq(await text(screen, '#votes'), '3', 'reload added no vote');

    /* C loses the network, tries to vote, comes back, still has its vote, changes it. */
    await phones.C.ctx.setOffline(true);
    check(phones.C.socks.length > 0, 'phone C has TCP connections of its own to cut');
    killPhoneSockets(phones.C.socks);
    await until('phone C notices it is offline', async () => /^offline/.test(await text(C, '#conn')));
    await waitText(screen, '#online', '2');
    await C.tap('#no');
    await until('phone C tells its vote did not go out', async () => /offline/.test(await text(C, '#ack')));
    await shot(C, 'phone-3-offline');
    await axe(C, 'phone (offline)');
    const tBack = Date.now();
    await phones.C.ctx.setOffline(false);
    await waitText(C, '#conn', 'online');
    await waitText(C, '#ack', 'vote counted ✓ (yes)');
    timings.backOnline.push(Date.now() - tBack);
    await waitText(screen, '#online', '3');
    await vote('C', false);                  /* changes its mind */
    await sleep(300);
    checkEq(await text(screen, '#votes'), '3', 'a changed vote is still one vote');
    /* Without --live-split nobody sees the split while the room votes. */
    const splitLeak = parsed(openAt).find((x) => x.m && x.who !== 'presenter' && ((x.m.t === 'tally' && 'yes' in x.m) || (x.m.t === 'state' && x.m.split)));
    check(!splitLeak, 'no yes/no split reaches phones or screen while voting', splitLeak && `${splitLeak.who}: ${splitLeak.raw.slice(0, 200)}`);
    await closeMeasureReveal(0, { A: 'yes', B: 'no', C: 'no' }, true);

    /* 7. Questions 2 and 3, quickly; C sits out question 3. */
    await con.cmd('next');
    await con.cmd('open');
    await until('Q2 open on phone C', async () => !(await C.locator('#yes').isDisabled()));
    await vote('A', true); await vote('B', false); await vote('C', true);
    await closeMeasureReveal(1, { A: 'yes', B: 'no', C: 'yes' }, false);
    /* Question 3 is opened from the presenter page, with a voting timer,
     * by keyboard: phones and screen count down, and it closes by itself. */
    await con.cmd('next');
    await until('presenter sees question 3', async () => /^Question 3 of 3 · pending/.test(await text(presenter, '#qnum')));
    await tabTo(presenter, 'seconds');
    await presenter.keyboard.type(String(TIMER_S));
    await tabTo(presenter, 'open');
    await presenter.keyboard.press('Enter');
    await until('Q3 open on phone A', async () => !(await A.locator('#yes').isDisabled()));
    for (const [who, p] of [['phone A', A], ['screen', screen]]) {
      const cd = await until(`${who} counts down`, async () => { const t = await text(p, '#countdown'); return /^closes in \d+ s$/.test(t) && t; });
      const left = parseInt(/\d+/.exec(cd)[0], 10);
      check(left >= 1 && left <= TIMER_S, `${who} shows a countdown within the ${TIMER_S} s timer`, cd);
    }
    await axe(A, 'phone (countdown)');
    await vote('A', false); await vote('B', false);
    await closeMeasureReveal(2, { A: 'no', B: 'no', C: null }, false, true);
    checkEq(await text(A, '#countdown'), '', 'the phone countdown is gone once closed');
    checkEq(await text(screen, '#countdown'), '', 'the screen countdown is gone once closed');
    await con.cmd('next');

    /* 8. The end: the screen's scoreboard and collective score. */
    await until('screen shows the final scoreboard', async () => !(await hidden(screen, '#final')));
    const rows = await screen.locator('#board tr').evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
    checkEq(rows.length, 3, 'scoreboard has one row per question');
    let sum = 0, scored = 0;
    for (let pos = 0; pos < 3; pos++) {
      const vs = ['A', 'B', 'C'].map((n) => phones[n].votes[pos]).filter(Boolean);
      const y = vs.filter((v) => v === 'yes').length, n = vs.length - y;
      const maj = y > n ? 'yes' : n > y ? 'no' : 'tie';
      let mark = '·';
      if (truths[pos] === 'yes' || truths[pos] === 'no') {
        const c = maj === 'tie' ? 0.5 : maj === truths[pos] ? 1 : 0;
        sum += c; scored++;
        mark = c === 1 ? '✔' : c === 0 ? '✘' : '½';
      }
      const r = rows[pos] || [];
      checkEq(r[2], String(y), `scoreboard Q${pos + 1} yes`);
      checkEq(r[3], String(n), `scoreboard Q${pos + 1} no`);
      checkEq(r[4], truths[pos], `scoreboard Q${pos + 1} truth`);
      checkEq(r[5], mark, `scoreboard Q${pos + 1} room right/wrong`);
    }
    const wantCollective = scored ? `This room scored ${Math.round((sum / scored) * 100)}% over ${scored} question${scored === 1 ? '' : 's'}` : 'No question was scored.';
    checkEq(await screen.locator('#finalscore').textContent({ timeout: 2000 }).catch(() => '(no #finalscore)'), wantCollective,
      'screen shows the collective score');
    await shot(screen, 'screen-6-final');
    /* The scoreboard takes the place of the last question: nothing of it
     * (question, count, bars, truth) pushes the board down the projector. */
    for (const sel of ['#live', '#qtext', '.count', '#bars', '#reveal', '#collective'])
      check(!(await screen.locator(sel).isVisible()), `screen (final): ${sel} of the last question is hidden`);
    await onFirstScreen(screen, ['#final', '#finalscore', '#board'], 'screen (final)');
    await axe(screen, 'screen (final)');

    /* 9. Each phone: its score, its share grid, and the copy button on a
     * non-secure origin (select + execCommand fallback). The clipboard is
     * read back from a secure page (http://localhost, answered by the test
     * itself, never by the network) in the same browser. */
    const reader = await (await browser.newContext()).newPage();
    await reader.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: 'http://localhost' });
    await reader.route('http://localhost/**', (r) => r.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>clipboard</title>' }));
    await reader.goto('http://localhost/');
    for (const n of ['A', 'B', 'C']) {
      const p = phones[n].page;
      await until(`phone ${n} shows its final score`, async () => !(await hidden(p, '#final')));
      const rowsByTest = {}, order = [];
      const tests = [0, 0, 1];   /* deck.json: test 1 asks df + fragmented, test 2 fragmented */
      let right = 0, sc = 0;
      for (let pos = 0; pos < 3; pos++) {
        const v = phones[n].votes[pos], t = tests[pos];
        if (!(t in rowsByTest)) { rowsByTest[t] = ''; order.push(t); }
        let mark = '·';
        if (v && (truths[pos] === 'yes' || truths[pos] === 'no')) { mark = v === truths[pos] ? '✔' : '✘'; sc++; if (mark === '✔') right++; }
        rowsByTest[t] += mark;
      }
      const grid = order.map((t) => rowsByTest[t]).join('\n');
      checkEq(await text(p, '#score'), `${right} right out of ${sc} scored questions.`, `phone ${n} shows its score`);
      checkEq(await text(p, '#grid'), grid, `phone ${n} shows its share grid`);
      check(await p.evaluate(() => !window.isSecureContext && !navigator.clipboard), `phone ${n}: no clipboard API here (not a secure context)`);
      await reader.evaluate(() => navigator.clipboard.writeText('(empty)'));
      if (n === 'B') { await tabTo(p, 'copy'); await p.keyboard.press('Enter'); } else await p.tap('#copy');
      await waitText(p, '#copied', 'copied ✓');
      /* The fallback selected the text to copy it: nothing stays selected,
       * and the focus is back on the button the person used. */
      checkEq(await p.evaluate(() => window.getSelection().toString()), '', `phone ${n}: no text is left selected after copying`);
      check(await p.evaluate(() => window.getSelection().isCollapsed && !document.getElementById('copybuf').value),
        `phone ${n}: no selection and no copy buffer are left behind`);
      checkEq(await p.evaluate(() => document.activeElement && document.activeElement.id), 'copy', `phone ${n}: the focus is back on the copy button`);
      checkEq(await reader.evaluate(() => navigator.clipboard.readText()), `fragvote ${room} ${right}/${sc}\n${grid}`,
        `phone ${n}: the copy button put the grid text on the clipboard`);
      if (n === 'A') { await shot(p, 'phone-5-final-grid'); await axe(p, 'phone (final)'); }
    }

    /* 10. quit: serve ends cleanly and its summary agrees with what the room saw. */
    await con.cmd('quit');
    const ex = await Promise.race([con.exit, sleep(PROBE_MS).then(() => null)]);
    check(ex && ex.code === 0, 'serve exits 0 after quit', JSON.stringify(ex));
    for (let pos = 0; pos < 3; pos++) {
      const l = con.lines.find((x) => new RegExp(`^  Q${pos + 1} `).test(x)) || '';
      check(new RegExp(`truth ${truths[pos]} `).test(l), `serve summary Q${pos + 1} has truth ${truths[pos]}`, l);
    }
    if (scored) {
      const l = con.lines.find((x) => /^This room scored /.test(x)) || '';
      check(l.startsWith(`This room scored ${Math.round((sum / scored) * 100)}% (collective, over ${scored} questions)`),
        'serve summary has the collective score the screen showed', l);
    }
    check(pageErrors.length === 0, 'no uncaught script error on any page', pageErrors.join('; '));
    log(`${frames.length} websocket frames received by the pages`);
    const fmt = (a) => a.length ? `median ${a.slice().sort((x, y) => x - y)[a.length >> 1]} ms, max ${Math.max(...a)} ms (n=${a.length})` : '-';
    log(`timings: tap→"vote counted" ${fmt(timings.tapToAck)}; console reveal→truth on screen ${fmt(timings.revealToScreen)}; ` +
      `network back→phone online with its vote ${fmt(timings.backOnline)}`);

    if (env.FRAGVOTE_UPDATE_SCREENSHOTS === '1') {
      const dst = path.join(SRC, 'docs', 'screenshots');
      fs.mkdirSync(dst, { recursive: true });
      for (const n of README_SHOTS) fs.copyFileSync(path.join(ART, n + '.png'), path.join(dst, n + '.png'));
      log(`copied ${README_SHOTS.length} screenshots to docs/screenshots`);
    }
  } finally {
    await abort();
  }
}

/* A signal or the overall deadline still stops serve (and so its lab) and
 * Chromium before exiting; test_browser.sh then removes the namespaces. */
async function bail(why) {
  console.log(`FAIL: ${why}`);
  if (abort) await abort().catch(() => {});
  process.exit(1);
}
process.on('SIGTERM', () => bail('stopped by SIGTERM'));
process.on('SIGINT', () => bail('stopped by SIGINT'));
setTimeout(() => bail(`the scenario took longer than ${SCENARIO_MS / 1000} s`), SCENARIO_MS).unref();

main().then(() => {
  console.log(`${checks - failures}/${checks} checks passed`);
  process.exit(failures ? 1 : 0);
}, (e) => {
  console.log(`FAIL: ${e.stack || e}`);
  console.log(`${checks - failures}/${checks} checks passed before the error`);
  process.exit(1);
});
