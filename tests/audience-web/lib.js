/* What the browser tests share: the environment test_browser.sh sets, checks
 * that print every failure and let the run go on, polling, serve's console on
 * stdin, the pages' websocket frames and errors, axe-core, the projector's
 * one-screenful rule, and the run itself (deadline, signals, summary).
 * Used by scenario.js (the whole talk) and path_scenario.js (the path picture). */
'use strict';
const fs = require('fs');
const path = require('path');
const readline = require('readline');
const { spawn } = require('child_process');
const { chromium } = require('playwright-core');

const env = process.env;
const BIN = need('FRAGVOTE_BIN');
const SRC = need('FRAGVOTE_SRC');
const NS_LAPTOP = need('FRAGVOTE_NS_LAPTOP');
const NS_PHONES = need('FRAGVOTE_NS_PHONES');
const ART = need('FRAGVOTE_BROWSER_ARTIFACTS');
const HERE = __dirname;
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const STEP_MS = 15000;    /* the longest any single UI change may take */
const PROBE_MS = 60000;   /* a measurement on the lab */

function need(name) {
  if (!env[name]) { console.error(`scenario: ${name} is not set (run tests/audience-web/test_browser.sh)`); process.exit(2); }
  return env[name];
}

/* ---- checks (same spirit as tests/support/check.h: every failure is printed, the run goes on) ---- */
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

/* ---- pages, frames ---- */
const frames = [];        /* every websocket frame every page received, in order */
const pageErrors = [];
const consoleErrors = [];  /* the pages' console errors (a Content-Security-Policy violation is one) */
function watch(page, who) {
  page.on('websocket', (ws) => {
    ws.on('framereceived', (f) => frames.push({ who, payload: String(f.payload) }));
  });
  page.on('pageerror', (e) => pageErrors.push(`${who}: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    consoleErrors.push(`${who}: ${m.text()}`);
    fs.appendFileSync(path.join(ART, 'console-errors.log'), `${who}: ${m.text()}\n`);
  });
}
/* Answers of 400 or more to page's requests go into list ("WHO: STATUS URL",
 * or "STATUS URL" without who), the browser's own /favicon.ico aside. */
function collectFailures(page, list, who) {
  page.on('response', (r) => {
    if (r.status() >= 400 && !/\/favicon\.ico$/.test(r.url())) list.push(`${who ? who + ': ' : ''}${r.status()} ${r.url()}`);
  });
}
async function text(page, sel) { return (await page.locator(sel).textContent()) || ''; }
async function hidden(page, sel) { return page.locator(sel).evaluate((e) => e.hidden); }
async function waitText(page, sel, want, ms) {
  return until(`${sel} == ${JSON.stringify(want)}`, async () => (await text(page, sel)) === want, ms);
}

/* axe-core on the page as it is now, light and dark. WCAG 2.1 A/AA
 * violations fail the test; best-practice findings are logged. */
const schemeOf = new WeakMap();  /* a page's own colour scheme (its phone's setting), restored after axe */
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
  await page.emulateMedia({ colorScheme: schemeOf.get(page) || null });
}

/* A projector shows one viewport and nobody scrolls it: each element must be
 * entirely inside the first screenful. */
async function onFirstScreen(page, sels, label) {
  const vp = page.viewportSize();
  for (const sel of sels) {
    const b = await page.locator(sel).boundingBox();
    check(b && b.y >= 0 && b.y + b.height <= vp.height && b.x >= 0 && b.x + b.width <= vp.width,
      `${label}: ${sel} is visible without scrolling at ${vp.width}x${vp.height}`,
      b ? `box x=${Math.round(b.x)} w=${Math.round(b.width)} y=${Math.round(b.y)} h=${Math.round(b.height)}, page ${await page.evaluate(() => document.documentElement.scrollWidth + 'x' + document.documentElement.scrollHeight)}` : 'not rendered');
  }
}

/* A projector never scrolls: nothing of the page below or beside its one
 * screenful, and each of sels inside it, on every projector. */
async function fitsProjectors(pages, sels, label) {
  for (const page of pages) {
    const vp = page.viewportSize();
    const o = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]);
    check(o[0] <= vp.width && o[1] <= vp.height, `${label}: the page fits the ${vp.width}x${vp.height} projector`,
      `content ${o[0]}x${o[1]}`);
    await onFirstScreen(page, sels, label);
    /* Sideways too (issue 37, item 7): no element of the page reaches past
     * the right edge, whatever clips it (a long deck title pushed the join
     * panel and the question counter out while the page still "fit"). */
    const out = await page.evaluate(() => {
      const w = window.innerWidth, bad = [];
      for (const el of document.querySelectorAll('body *')) {
        if (!el.getClientRects().length || el.closest('[hidden]')) continue;
        const r = el.getBoundingClientRect();
        if (r.width > 0 && (r.right > w + 1 || r.left < -1)) bad.push(`${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}${el.className && typeof el.className === 'string' ? '.' + el.className.split(' ')[0] : ''} ${Math.round(r.left)}..${Math.round(r.right)}`);
      }
      return bad;
    });
    check(out.length === 0, `${label}: nothing past the sides of the ${vp.width}x${vp.height} projector`, out.slice(0, 6).join(', '));
  }
}

/* The lines that teach on a projector, the rules' explanation and the
 * evidence, are read from the back of the room (issue 37, item 6): at least
 * 36 px on a 1080-line projector, proportionally on others (25.6 px at 768),
 * whatever screen.js's fitting did to the rest. Each of sels must be shown
 * and that large on every projector, in proportional type, and whole: no
 * part of it cut by a box that clips (the stage) or past the screen's
 * bottom or right edge. The sizes are logged. */
const READ_PX_1080 = 36;
async function readableOnProjectors(pages, sels, label) {
  for (const page of pages) {
    const vp = page.viewportSize(), want = READ_PX_1080 * vp.height / 1080;
    const got = [];
    for (const sel of sels) {
      const r = await page.evaluate((s) => {
        const e = document.querySelector(s);
        if (!e || !e.getClientRects().length || !e.textContent.trim()) return null;
        const b = e.getBoundingClientRect(), cs = getComputedStyle(e);
        let cut = b.bottom > window.innerHeight + 1 || b.right > window.innerWidth + 1 ? 'the screen' : '';
        for (let a = e.parentElement; a && !cut; a = a.parentElement) {
          const o = getComputedStyle(a);
          if (o.overflowX === 'visible' && o.overflowY === 'visible') continue;
          const c = a.getBoundingClientRect();
          if (b.bottom > c.bottom + 1 || b.right > c.right + 1) cut = (a.id ? '#' + a.id : a.tagName.toLowerCase()) + ` (bottom ${Math.round(c.bottom)})`;
        }
        return { px: parseFloat(cs.fontSize), mono: /mono/i.test(cs.fontFamily), cut, bottom: Math.round(b.bottom) };
      }, sel);
      if (!check(r !== null, `${label}: ${sel} is shown on the ${vp.width}x${vp.height} projector`)) continue;
      got.push(`${sel} ${r.px.toFixed(1)} px`);
      check(r.px >= want - 0.05, `${label}: ${sel} is readable from the back on the ${vp.width}x${vp.height} projector`,
        `${r.px.toFixed(1)} px, want >= ${want.toFixed(1)} px`);
      check(!r.mono, `${label}: ${sel} is in proportional type on the ${vp.width}x${vp.height} projector`);
      check(!r.cut, `${label}: ${sel} is whole on the ${vp.width}x${vp.height} projector`, `its bottom ${r.bottom} is cut by ${r.cut}`);
    }
    log(`${label} ${vp.width}x${vp.height}: ${got.join(', ') || 'none shown'}`);
  }
}

/* The projector's banner: one look per moment (style.css). Green and red
/* All JSON objects the pages received so far (frames[from..to)). */
function parsed(from = 0, to = frames.length) {
  return frames.slice(from, to).map((f) => { try { return { who: f.who, m: JSON.parse(f.payload), raw: f.payload }; } catch (e) { return { who: f.who, m: null, raw: f.payload }; } });
}
function stateWithReveal(pos) {
  const hit = parsed().reverse().find((x) => x.m && x.m.t === 'state' && x.m.reveal && x.m.q && x.m.q.pos === pos);
  return hit && hit.m;
}

/* serve on the lab in the laptop's namespace (its default route points at
 * the venue link, so the join URL carries a non-loopback address), with its
 * console; FRAGVOTE_SERVE_ARGS adds options. Returns { child, con }. */
function startServe(args, extraEnv = {}) {
  const child = spawn('ip', ['netns', 'exec', NS_LAPTOP, BIN, 'serve', '--port', '0', '--no-qr', ...args,
    ...(env.FRAGVOTE_SERVE_ARGS || '').split(/\s+/).filter(Boolean)], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...env, ...extraEnv } });
  return { child, con: new Console(child) };
}
/* Stops serve (it removes the lab it built on SIGTERM) if it still runs. */
async function stopServe(s) {
  if (s.child.exitCode === null && s.child.signalCode === null) {
    s.child.kill('SIGTERM');
    await Promise.race([s.con.exit, sleep(10000)]);
    if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
  }
}
/* The join URL and room code serve printed. */
async function joinOf(con) {
  const joinUrl = (await con.line(/^Join: /, 0, PROBE_MS)).slice(6).trim();
  const room = /Room: (\S+)/.exec(await con.line(/^Room: /))[1];
  return { joinUrl, room, origin: new URL(joinUrl).origin };
}

/* Debian's Chromium in the phones' namespace (chromium-netns.sh). */
async function launchBrowser() {
  const browser = await chromium.launch({
    executablePath: path.join(HERE, 'chromium-netns.sh'),
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
    env: { ...env, FRAGVOTE_BROWSER_NETNS: NS_PHONES },
  });
  log(`chromium ${browser.version()} in namespace ${NS_PHONES}`);
  return browser;
}
const PHONE = { viewport: { width: 360, height: 740 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, locale: 'en-US' };

/* Runs main(setAbort) within ms: a signal or the deadline still calls the
 * abort function main registered (it stops serve, and so its lab, and
 * Chromium) before exiting; test_browser.sh then removes the namespaces.
 * Prints the checks' summary; exits 1 on any failure. */
function run(main, ms) {
  let abort = null;
  const setAbort = (f) => { abort = f; };
  async function bail(why) {
    console.log(`FAIL: ${why}`);
    if (abort) await abort().catch(() => {});
    process.exit(1);
  }
  process.on('SIGTERM', () => bail('stopped by SIGTERM'));
  process.on('SIGINT', () => bail('stopped by SIGINT'));
  setTimeout(() => bail(`the scenario took longer than ${ms / 1000} s`), ms).unref();
  fs.mkdirSync(ART, { recursive: true });
  for (const f of fs.readdirSync(ART)) fs.rmSync(path.join(ART, f), { recursive: true, force: true });
  main(setAbort).then(() => {
    console.log(`${checks - failures}/${checks} checks passed`);
    process.exit(failures ? 1 : 0);
  }, (e) => {
    console.log(`FAIL: ${e.stack || e}`);
    console.log(`${checks - failures}/${checks} checks passed before the error`);
    process.exit(1);
  });
}

module.exports = {
  env, BIN, SRC, NS_LAPTOP, NS_PHONES, ART, HERE, STEP_MS, PROBE_MS, PHONE,
  check, checkEq, log, sleep, until, Console, frames, pageErrors, consoleErrors, watch, collectFailures, text, hidden, waitText,
  schemeOf, axe, onFirstScreen, fitsProjectors, readableOnProjectors, parsed, stateWithReveal,
  startServe, stopServe, joinOf, launchBrowser, run,
};
