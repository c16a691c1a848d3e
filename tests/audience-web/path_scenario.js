/* The path picture (issue 20) as the room sees it: decks whose tests end the
 * seven ways the picture must draw, measured for real on three namespace
 * labs, each played by `fragvote serve` (console on stdin) with projectors at
 * 1920x1080 and 1024x768, one phone (360x740) and the presenter page at the
 * lectern (1280x800, unlocked) in a real Chromium.
 *
 *   lab 1, serve's own (1500/1280/1500): fragmented by r1, dropped with Frag
 *          Needed at r1, EMSGSIZE at the host, a firewall that drops fragments
 *          (a per-test lab scenario: serve switches the lab to `--dropfrag r2`
 *          for that test and back for the next), a router that clears DF
 *          (`--cleardf r1`, the same way: the reveal leads with "Surprise"),
 *          fragmented by the host
 *   lab 2, `lab up --reassemble r1`: a reassembling router
 *   lab 3, `lab up --mtu 1500,1500,1280` and r2 ICMP-silent
 *          (tests/probe/pmtu/icmp_silent.nft): an ICMP-silent hop, and TTL expired
 *          (at r2) before the bottleneck (the r2-dst link)
 *
 * After every reveal: the picture is there and draws its question's view
 * only (no word of a sibling still to reveal, on the page or on the wire);
 * after a test's last question the full picture with the labels of its case;
 * no SVG text outside its box on either projector, the phone or the
 * presenter page (which draws the same picture as the projector); the page
 * within the projector's screenful; the phone's verdict first and on its
 * screen; axe-core clean on projector (1920 and 1024 wide) and phone, light and dark.
 * Screenshots path-<case>-{screen,screen768,phone}.png; with
 * FRAGVOTE_UPDATE_SCREENSHOTS=1 they go to docs/screenshots (README).
 * Run by test_browser_path.sh (through test_browser.sh). */
'use strict';
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const {
  env, BIN, SRC, ART, PROBE_MS, PHONE, check, checkEq, log, until, frames, pageErrors, consoleErrors, watch, hidden,
  waitText, axe, fitsProjectors, readableOnProjectors, parsed, startServe, stopServe, joinOf, launchBrowser, run,
} = require('./lib');

const PROJECTORS = [{ width: 1920, height: 1080 }, { width: 1024, height: 768 }];
const DE = JSON.parse(fs.readFileSync(path.join(SRC, 'audience-web', 'i18n-de.json'), 'utf8'));
const LECTERN = { width: 1280, height: 800 };   /* the presenter page on the speaker's laptop */
const SECRET = 'path-scenario-secret';
/* the picture's type on a projector, as a share of its height: the median
 * label (19 px at 768, 27 px at 1080) and the smallest (a shrunk tag) */
const LEGIBLE = { median: 0.025, min: 0.016 };
const P = env.FRAGVOTE_LAB_PREFIX;

/* Each case: the deck test that makes it and what its full picture must say.
 * `node`/`what`: an event cell of that kind at that hop, whose words contain
 * all of `words`; `links`: link index → the MTU label drawn. */
const CASES = {
  'fragmented-by-r1': { test: { proto: 'udp4', mode: 'dont', size: 1400, ask: ['df', 'fragmented'] },
    events: [{ node: 1, what: 'fragmented', words: ['fragmented', '2 pieces', '1276'] }], links: { 0: '1500', 1: '1280' } },
  'frag-needed-at-r1': { test: { proto: 'udp4', mode: 'do', size: 1400, ask: ['sent', 'df', 'fragmented'] },
    events: [{ node: 1, what: 'dropped', words: ['dropped', 'Frag Needed', 'MTU 1280'] }], links: { 1: '1280' } },
  'emsgsize-at-the-host': { test: { proto: 'udp4', mode: 'do', size: 2000, ask: ['sent', 'df', 'fragmented'] },
    events: [{ node: 0, what: 'refused', words: ['EMSGSIZE'] }, { node: 0, what: 'sent', words: ['2000 B', 'nothing left'] }] },
  /* a per-test lab scenario (docs/DECKS.md): serve switches its lab to it before the test and back after */
  'firewall-drops-fragments': { test: { proto: 'udp4', mode: 'dont', size: 3000, ask: ['sent', 'fragmented'], lab: { dropfrag: ['r2'] } },
    events: [{ node: 0, what: 'fragmented', words: ['3 pieces', '1500 + 1500 + 40'] }], nodeWords: { 2: 'drops fragments' },
    says: 'r2 drops every fragment that reaches it', draws: 'drops fragments' },
  /* a box that breaks the rules (lab --cleardf r1): the rules said no router may cut a DF=1 packet, the
   * far end got r1's pieces; the reveal leads with the surprise on every page */
  'df-clearing-router': { test: { proto: 'udp4', mode: 'do', size: 1400, ask: ['fragmented'], lab: { cleardf: ['r1'] } },
    events: [{ node: 0, what: 'sent', words: ['1400 B', 'DF=1'] }], nodeWords: { 1: 'clears DF' },
    says: 'r1 clears the DF bit of the whole IPv4 packets it forwards (some firewalls and VPN gateways do; the rules say no router does)',
    draws: 'clears DF',
    surprise: 'Surprise: the rules said no' },
  'fragmented-by-the-host': { test: { proto: 'udp4', mode: 'dont', size: 3000, ask: ['fragmented'] },
    events: [{ node: 0, what: 'fragmented', words: ['3 pieces', '1500 + 1500 + 40'] }] },
  'reassembling-router': { lab: 2, test: { proto: 'udp4', mode: 'dont', size: 3000, ask: ['fragmented'] },
    events: [{ node: 1, what: 'reassembled', words: ['reassembled'] }], nodeWords: { 1: 'reassembles' } },
  'icmp-silent-hop': { lab: 3, test: { proto: 'udp4', mode: 'do', size: 1400, ask: ['sent', 'fragmented'] },
    events: [{ what: 'silent', words: ['no answer'] }] },
  'ttl-expired-before-the-bottleneck': { lab: 3, test: { proto: 'udp4', mode: 'dont', size: 1400, ttl: 2, ask: ['fragmented'] },
    events: [{ node: 2, what: 'expired', words: ['TTL expired', 'Time Exceeded', 'quoting 1400 B'] }], links: { 2: '1280' }, none: ['fragmented'] },
};
/* Words a cut view must not draw: those of the questions of its test still
 * to reveal (by kind), and what only the full picture says (ICMP answers,
 * drops, expiry, silence: they speak of several questions at once). */
const NOT_WHILE_OPEN = {
  sent: ['sent', 'nothing left', 'EMSGSIZE', 'refused', 'arrived'],
  df: ['DF=', 'DF ?'],
  fragmented: ['pieces', 'fragmented', 'whole', 'reassembled', 'passed'],
};
const NOT_IN_CUT_VIEWS = ['Frag Needed', 'Packet Too Big', 'Time Exceeded', 'quoting', 'dropped', 'TTL expired', 'no answer'];

/* The three labs: serve builds lab 1 itself; 2 and 3 are built here, and
 * serve uses them as they are (test_browser.sh removes them on any exit). */
const LABS = [
  { n: 1, prefix: P, up: null },
  { n: 2, prefix: P + '2', up: ['--reassemble', 'r1'] },
  { n: 3, prefix: P + '3', up: ['--mtu', '1500,1500,1280'], silent: 'r2' },
];

const norm = (s) => String(s || '').replace(/\u00a0/g, ' ');

/* What the picture in `page` shows: its view, its cells' words, and every
 * text that lies outside the box it belongs to. */
async function picture(page) {
  return page.evaluate(() => {
    const svg = document.querySelector('#path svg');
    if (!svg || document.getElementById('path').hidden) return null;
    const words = (g) => [...g.querySelectorAll('text')].map((t) => t.textContent).join(' ');
    const out = { view: svg.getAttribute('data-view'), all: words(svg), title: svg.querySelector('title').textContent,
      role: svg.getAttribute('role'), events: [], nodes: {}, links: {}, overflow: [], texts: svg.querySelectorAll('text').length };
    for (const g of svg.querySelectorAll('[data-what]')) out.events.push({ node: +g.dataset.node, what: g.dataset.what, words: words(g) });
    for (const g of svg.querySelectorAll('.fvp-node')) out.nodes[g.dataset.node] = words(g);
    for (const g of svg.querySelectorAll('[data-mtu]')) out.links[g.dataset.link] = g.dataset.mtu;
    for (const t of svg.querySelectorAll('text')) {
      const g = t.closest('[data-box]'), r = g && g.querySelector(':scope > rect.fvp-box');
      const a = t.getBoundingClientRect(), c = r ? r.getBoundingClientRect() : null;
      if (!c || a.left < c.left - 0.5 || a.right > c.right + 0.5 || a.top < c.top - 0.5 || a.bottom > c.bottom + 0.5)
        out.overflow.push(`"${t.textContent}" [${a.left.toFixed(1)},${a.top.toFixed(1)} – ${a.right.toFixed(1)},${a.bottom.toFixed(1)}]` +
          (c ? ` outside [${c.left.toFixed(1)},${c.top.toFixed(1)} – ${c.right.toFixed(1)},${c.bottom.toFixed(1)}]` : ' has no box'));
    }
    const box = svg.getBoundingClientRect();
    out.box = { x: box.x, y: box.y, w: box.width, h: box.height };
    out.layout = svg.classList.contains('fvp-wide') ? 'fvp-wide' : 'fvp-tall';
    /* each label's type size on the screen, in px */
    const k = box.width / svg.viewBox.baseVal.width;
    out.px = [...svg.querySelectorAll('text')].map((t) => parseFloat(t.getAttribute('font-size')) * k).sort((x, y) => x - y);
    return out;
  });
}

function labUp(lab) {
  if (!lab.up) return;
  log(`lab ${lab.n}: fragvote lab up --prefix ${lab.prefix} ${lab.up.join(' ')}`);
  execFileSync(BIN, ['lab', 'up', '--prefix', lab.prefix, ...lab.up], { stdio: 'inherit' });
  if (lab.silent) execFileSync('ip', ['netns', 'exec', `${lab.prefix}-${lab.silent}`, 'nft', '-f', path.join(SRC, 'tests', 'probe', 'pmtu', 'icmp_silent.nft')]);
}
function labDown(lab) {
  if (lab.up) execFileSync(BIN, ['lab', 'down', '--prefix', lab.prefix], { stdio: 'inherit' });
}

const shots = [];
async function shot(page, name, el) {
  const file = path.join(ART, name + '.png');
  if (el) await page.locator(el).screenshot({ path: file }); else await page.screenshot({ path: file });
  shots.push(name);
}

async function playLab(browser, lab, setAbort) {
  const names = Object.keys(CASES).filter((c) => (CASES[c].lab || 1) === lab.n);
  const deck = { title: `Path picture, lab ${lab.n}`, target: 'lab', tests: names.map((c) => CASES[c].test) };
  const deckFile = path.join(ART, `deck-lab${lab.n}.json`);
  fs.writeFileSync(deckFile, JSON.stringify(deck, null, 1));
  labUp(lab);
  const serve = startServe(['--deck', deckFile, '--db', path.join(ART, `fragvote-lab${lab.n}.db`), '--secret', SECRET],
    { FRAGVOTE_LAB_PREFIX: lab.prefix });
  const contexts = [];
  setAbort(async () => { await browser.close().catch(() => {}); await stopServe(serve); });
  const { con } = serve;
  try {
    /* this talk's frames only: the labs before played the same positions */
    const since = frames.length;
    const { joinUrl, origin } = await joinOf(con);
    log(`lab ${lab.n}: serve on ${joinUrl}, tests: ${names.join(', ')}`);
    const projectors = [];
    for (const vp of PROJECTORS) {
      const ctx = await browser.newContext({ viewport: vp, locale: 'en-US' });
      contexts.push(ctx);
      const p = await ctx.newPage();
      watch(p, `screen${vp.width}`);
      await p.goto(origin + '/screen/');
      projectors.push(p);
    }
    const screen = projectors[0];
    /* a German projector beside them: a lab router's behaviour in the picture is worded from its catalog */
    const deCtx = await browser.newContext({ viewport: PROJECTORS[0], locale: 'en-US' });
    contexts.push(deCtx);
    const screenDe = await deCtx.newPage();
    watch(screenDe, 'screen-de');
    await screenDe.goto(origin + '/screen/?lang=de');
    const phoneCtx = await browser.newContext({ ...PHONE, colorScheme: 'light' });
    contexts.push(phoneCtx);
    const phone = await phoneCtx.newPage();
    watch(phone, 'phone');
    await phone.goto(joinUrl);
    await until('phone joined', async () => !(await hidden(phone, '#play')));
    const deskCtx = await browser.newContext({ viewport: LECTERN, locale: 'en-US' });
    contexts.push(deskCtx);
    const desk = await deskCtx.newPage();
    watch(desk, 'presenter');
    await desk.goto(origin + '/presenter/#secret=' + SECRET);
    await until('presenter page unlocked', async () => !(await hidden(desk, '#panel')));
    await waitText(screen, '#online', '1');

    const states = () => parsed(since).filter((f) => f.who === 'screen1920' && f.m && f.m.t === 'state').map((f) => f.m);
    const seen = new Set();   /* positions played */
    /* deck position of each test's first question */
    const first = [];
    deck.tests.reduce((n, t, i) => { first[i] = n; return n + t.ask.length; }, 0);
    let prev = -1;
    for (;;) {
      const st = await until('the next question on the screen', () => {
        const x = states().pop();
        return x && (x.ended || x.q.pos > prev) && x;
      });
      if (st.ended) {
        const qs = st.questions || [];
        log(`lab ${lab.n}: final board ${JSON.stringify(qs).slice(0, 400)}`);
        checkEq(qs.length, first[deck.tests.length - 1] + deck.tests[deck.tests.length - 1].ask.length, `lab ${lab.n}: the board has every question`);
        const open = qs.filter((q) => q.state !== 'revealed' && q.state !== 'skipped');
        check(open.length === 0, `lab ${lab.n}: every question was revealed or skipped`, JSON.stringify(open));
        checkEq(seen.size, qs.filter((q) => q.state === 'revealed' || q.truth).length, `lab ${lab.n}: every revealed question was checked`);
        break;
      }
      const pos = st.q.pos, test = st.q.test, name = names[test];
      if (seen.has(pos)) throw new Error(`question ${pos + 1} came round again`);
      seen.add(pos);
      prev = pos;
      await con.cmd('open');
      await until(`Q${pos + 1} open on the phone`, async () => !(await phone.locator('#yes').isDisabled()));
      await phone.tap('#yes');
      await waitText(phone, '#ack', 'vote counted ✓ (yes)');
      await con.cmd('close');
      await con.cmd('measure', PROBE_MS);
      await until(`Q${pos + 1} measured`, () => states().some((m) => m.q.pos === pos && m.q.state === 'measured'), PROBE_MS);
      check(!(await picture(screen)), `${name} Q${pos + 1} (${st.q.kind}): no picture before the reveal`);
      check(!(await picture(desk)), `${name} Q${pos + 1} (${st.q.kind}): no picture on the presenter page before the reveal`);
      await con.cmd('reveal');
      const rst = await until(`Q${pos + 1} reveal frame`, () => states().reverse().find((m) => m.reveal && m.q.pos === pos));
      const rv = rst.reveal;
      /* the last of its test: no sibling left to reveal (a "sent?" = no skips the rest) */
      const ask = deck.tests[test].ask, open = ask.slice(pos - first[test] + 1);
      const left = open.length;
      const last = left === 0 || (st.q.kind === 'sent' && rv.truth === 'no');
      log(`${name} Q${pos + 1} (${st.q.kind}): truth ${rv.truth}; ${last ? 'last of its test' : left + ' still to reveal'}; ` +
        `path ${rv.path ? 'view ' + rv.path.view : 'absent'}`);
      if (!check(rv.path && rv.path.v === 1, `${name} Q${pos + 1}: the reveal carries a path`, JSON.stringify(rv).slice(0, 300))) {
        await con.cmd('next');
        continue;
      }
      checkEq(rv.path.view, last ? 'full' : st.q.kind, `${name} Q${pos + 1}: the path's view`);
      /* nothing of the full picture on the wire before the test's last reveal */
      if (!last) {
        const leak = parsed(since).find((f) => f.m && f.m.t === 'state' && f.m.reveal && f.m.reveal.path &&
          f.m.q.test === test && f.m.reveal.path.view === 'full');
        check(!leak, `${name} Q${pos + 1}: no frame carries the test's full path while a sibling is still to reveal`, leak && leak.raw.slice(0, 300));
        const bad = wireLeaks(rv.path, open);
        check(bad.length === 0, `${name} Q${pos + 1}: the ${rv.path.view} view carries nothing of the questions still to reveal`,
          `${bad.join(', ')}: ${JSON.stringify(rv.path).slice(0, 400)}`);
      }
      let projectorLayout = null;
      for (const p of [...projectors, phone, desk]) {
        const who = p === phone ? 'phone' : p === desk ? 'presenter page' : `projector ${p.viewportSize().width}x${p.viewportSize().height}`;
        const pic = await until(`${who}: the picture of Q${pos + 1}`, async () => { const x = await picture(p); return x && x.view === rv.path.view && x; });
        checkEq(pic.role, 'img', `${name} Q${pos + 1} ${who}: the picture is an image with a name`);
        check(pic.title.length > 20, `${name} Q${pos + 1} ${who}: the picture has a text alternative`, pic.title);
        check(pic.texts > 4, `${name} Q${pos + 1} ${who}: the picture has its labels`, String(pic.texts));
        check(pic.overflow.length === 0, `${name} Q${pos + 1} ${who}: no text of the picture outside its box`, pic.overflow.join('; '));
        if (p === projectors[0]) projectorLayout = pic.layout;
        if (p === desk) checkEq(pic.layout, projectorLayout, `${name} Q${pos + 1} ${who}: the projector's layout of the picture`);
        if (p !== phone && p !== desk) {
          /* read from the back of the room: most labels at least as big as the page's own text */
          const h = p.viewportSize().height, med = pic.px[pic.px.length >> 1], min = pic.px[0];
          check(med >= LEGIBLE.median * h && min >= LEGIBLE.min * h, `${name} Q${pos + 1} ${who}: the picture's type is big ` +
            `(median ${med.toFixed(1)} px ≥ ${(LEGIBLE.median * h).toFixed(1)}, smallest ${min.toFixed(1)} px ≥ ${(LEGIBLE.min * h).toFixed(1)})`);
        }
        if (!last) {
          const words = open.reduce((a, k) => a.concat(NOT_WHILE_OPEN[k]), NOT_IN_CUT_VIEWS.slice());
          const bad = words.filter((w) => norm(pic.all).includes(w));
          check(bad.length === 0, `${name} Q${pos + 1} ${who}: the ${rv.path.view} view draws nothing of ${open.join(', ')} (still to reveal)`,
            `${bad.join(', ')} in: ${norm(pic.all)}`);
        } else checkCase(name, who, pic);
      }
      /* a test on a lab scenario says so in its question, evidence and picture; the others never do */
      const says = CASES[name].says;
      const qtext = norm(await screen.locator('#qtext').textContent()), evid = norm(await screen.locator('#evidence').textContent());
      if (says) {
        check(qtext.includes('(on a path where ' + says + ')'), `${name} Q${pos + 1}: the question names the lab's scenario`, qtext);
        /* the evidence is shown with a test's last reveal (before it, the question's own why) */
        if (last) check(evid.includes('(on this lab ' + says + ')'), `${name} Q${pos + 1}: the evidence names it`, evid);
        check(norm((await picture(screen)).all).includes(CASES[name].draws), `${name} Q${pos + 1}: the picture draws it`);
        const de = DE['labbrief.' + Object.keys(CASES[name].test.lab)[0]], pictureDe = async () => norm(((await picture(screenDe)) || {}).all || '');
        await until(`${name} Q${pos + 1}: the German projector draws the behaviour in German`, async () => (await pictureDe()).includes(de)).catch(() => {});
        const drawnDe = await pictureDe();
        check(drawnDe.includes(de) && !drawnDe.includes(CASES[name].draws), `${name} Q${pos + 1}: the German picture words it from the catalog ("${de}"), not in English`, drawnDe);
      } else {
        check(!/on a path where|on this lab/.test(qtext + ' ' + evid) && !/drops fragments|clears DF/.test(norm((await picture(screen)).all)),
          `${name} Q${pos + 1}: played on the talk's own lab (no scenario left over)`, qtext + ' | ' + evid);
      }
      /* where the measurement differs from the rules, every page leads with it (and only there) */
      const want = CASES[name].surprise;
      check(want ? String(rv.surprise || '').startsWith(want) : !rv.surprise, `${name} Q${pos + 1}: the reveal's surprise`,
        String(rv.surprise));
      for (const [p, who] of [[screen, 'projector'], [phone, 'phone'], [desk, 'presenter page']]) {
        const s = norm(await p.locator('#surprise').textContent());
        check(want ? s.startsWith(want) && (await p.locator('#surprise').isVisible()) : s === '',
          `${name} Q${pos + 1}: the ${who} ${want ? 'leads with "' + want + '"' : 'shows no surprise'}`, s);
      }
      /* the pages stay one screenful; the phone's verdict leads */
      await fitsProjectors(projectors, ['#banner', '#qtext', '#truth', '#path', '#majority'], `${name} Q${pos + 1} revealed`);
      const vb = await phone.locator('#verdict').boundingBox();
      check(vb && vb.y >= 0 && vb.y + vb.height <= PHONE.viewport.height, `${name} Q${pos + 1}: the phone's verdict is on its screen`,
        vb && `y=${Math.round(vb.y)} h=${Math.round(vb.height)}`);
      const pb = await phone.locator('#path').boundingBox(), vd = await phone.locator('#verdict').boundingBox();
      check(pb && vd && pb.y >= vd.y + vd.height, `${name} Q${pos + 1}: the phone shows its verdict before the picture`);
      const w = await phone.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
      check(w[0] <= w[1], `${name} Q${pos + 1}: nothing wider than the phone`, `content ${w[0]} px, screen ${w[1]} px`);
      /* the why view (issue 37, item 6): the explanation and the evidence in the picture's place, large and whole */
      await con.cmd('why');
      for (const p of projectors) {
        await until(`${name} Q${pos + 1}: projector ${p.viewportSize().width} shows why`, () => p.evaluate(() => document.body.classList.contains('whyview')));
        check(!(await p.locator('#path').isVisible()), `${name} Q${pos + 1}: the picture gives way to why on projector ${p.viewportSize().width}`);
      }
      checkEq(norm(await screen.locator('#explain').textContent()), norm('Why, by the rules: ' + rv.explain), `${name} Q${pos + 1}: the why view explains by the rules`);
      await fitsProjectors(projectors, ['#banner', '#qtext', '#truth', '#explain', '#evidence'], `${name} Q${pos + 1} why`);
      await readableOnProjectors(projectors, ['#explain', '#evidence'], `${name} Q${pos + 1} why`);
      await con.cmd('why');
      await until(`${name} Q${pos + 1}: what happened again`, () => screen.evaluate(() => !document.body.classList.contains('whyview')));
      if (last) {
        await shot(projectors[0], `path-${name}-screen`);
        await shot(projectors[1], `path-${name}-screen768`);
        await shot(phone, `path-${name}-phone`, '#revealcard');
        await axe(projectors[0], `screen 1920 (${name})`);
        await axe(projectors[1], `screen (${name})`);
        await axe(phone, `phone (${name})`);
        await axe(desk, `presenter page (${name})`);
      }
      await con.cmd('next');
    }
    await con.cmd('quit');
    const ex = await Promise.race([con.exit, new Promise((r) => setTimeout(() => r(null), PROBE_MS))]);
    check(ex && ex.code === 0, `lab ${lab.n}: serve exits 0 after quit`, JSON.stringify(ex));
  } finally {
    for (const c of contexts) await c.close().catch(() => {});
    await stopServe(serve);
    labDown(lab);
  }
}

/* What a cut path may not carry on the wire (docs/PROTOCOL.md, "What a
 * reveal shows"): the facts of the questions still to reveal (`open`, their
 * kinds), nor what only the full path says. */
function wireLeaks(p, open) {
  const bad = [], ev = p.events || [], sent = p.sent || {};
  if ('reached' in p) bad.push('reached');
  if (open.includes('sent') && ('left' in sent || ev.length)) bad.push('sent.left or events while "sent?" is open');
  if (open.includes('df') && 'df' in sent) bad.push('sent.df while "DF set?" is open');
  if (open.includes('fragmented') && (('pieces' in sent && sent.left !== false) || ev.some((e) => e.pieces && e.pieces.length) ||
      ev.some((e) => !['refused', 'arrived'].includes(e.what)))) bad.push('pieces or what a hop did while "fragmented?" is open');
  if (ev.some((e) => ['dropped', 'expired', 'silent'].includes(e.what) || 'icmp' in e || 'quote' in e || 'ttl' in e || 'df' in e ||
      ('mtu' in e && e.what !== 'refused'))) bad.push('an ICMP answer, drop, expiry or silence');
  if ((p.links || []).some((l) => l.mtu_from === 'icmp')) bad.push('an MTU learnt from ICMP');
  return bad;
}

/* The full picture of a case: its events with their words, its links' MTUs. */
function checkCase(name, who, pic) {
  const c = CASES[name];
  for (const e of c.events) {
    const hit = pic.events.find((x) => x.what === e.what && (e.node === undefined || x.node === e.node) &&
      e.words.every((w) => norm(x.words).includes(w)));
    check(!!hit, `${name} ${who}: ${e.what}${e.node === undefined ? '' : ' at hop ' + e.node} says ${e.words.join(' / ')}`,
      JSON.stringify(pic.events.map((x) => ({ node: x.node, what: x.what, words: norm(x.words) }))));
  }
  for (const [i, mtu] of Object.entries(c.links || {})) checkEq(pic.links[i], mtu, `${name} ${who}: link ${i} is labelled MTU ${mtu}`);
  for (const [i, w] of Object.entries(c.nodeWords || {})) check(norm(pic.nodes[i]).includes(w), `${name} ${who}: hop ${i} says ${w}`, pic.nodes[i]);
  for (const what of c.none || []) check(!pic.events.some((x) => x.what === what), `${name} ${who}: no ${what} event`);
}

async function main(setAbort) {
  const browser = await launchBrowser();
  setAbort(async () => { await browser.close().catch(() => {}); });
  try {
    for (const lab of LABS) await playLab(browser, lab, setAbort);
    check(pageErrors.length === 0, 'no uncaught script error on any page', pageErrors.join('; '));
    const csp = consoleErrors.filter((e) => /Content.Security.Policy/i.test(e));
    check(csp.length === 0, 'the pages keep their Content-Security-Policy (no violation reported)', csp.join('; '));
    checkEq(shots.length, Object.keys(CASES).length * 3, 'a projector, a 4:3 projector and a phone screenshot per case');
    if (env.FRAGVOTE_UPDATE_SCREENSHOTS === '1') {
      const dst = path.join(SRC, 'docs', 'screenshots');
      for (const n of shots) fs.copyFileSync(path.join(ART, n + '.png'), path.join(dst, n + '.png'));
      log(`copied ${shots.length} screenshots to docs/screenshots`);
    }
  } finally {
    await browser.close().catch(() => {});
  }
}

run(main, 540000);   /* ctest's own timeout is 600 s */
