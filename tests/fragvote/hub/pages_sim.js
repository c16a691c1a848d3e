// Runs the real audience pages (their scripts as the hub serves them, one
// join per page: /common,i18n,path,replay,phone.js ...) in Node against the real hub,
// with a minimal DOM built from the real HTML files:
// every id the scripts use must exist in the page. Drives the quiz as the
// presenter over its own websocket. Exit 0 when every check holds.
//   node [--experimental-websocket] pages_sim.js PORT SECRET WEBROOT
// With "laptop DECKFILE" after them, against a hub started --prober remote:
// the presenter page while the laptop that measures comes and goes (a
// laptop that says prober with the deck in DECKFILE, and never answers).
'use strict';
// Node's own WebSocket (22+, or 20.10+ with the flag) or, on Debian 12's Node 18
// which has none, Debian's node-ws: the same browser API (onopen, onmessage ...).
const WebSocket = typeof globalThis.WebSocket === 'function' ? globalThis.WebSocket : require('ws');
const fs = require('fs');
const http = require('http');
const vm = require('vm');
const [port, secret, webroot, mode, deckFile] = process.argv.slice(2);
const MARKER = 'EVIDENCE-pages-7c1d';   /* the test's evidence (test_hub_pages.c) */
const WHY_SENT = 'WHY-pages-sent-3b9e';  /* "sent?"'s own fact */
let failures = 0;
function check(cond, what) {
  console.log((cond ? 'ok   ' : 'FAIL ') + what);
  if (!cond) failures++;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function until(fn, ms = 5000) {
  const end = Date.now() + ms;
  while (Date.now() < end) { if (fn()) return true; await sleep(20); }
  return fn();
}

// ---- a DOM just big enough for the pages ----
function makeElement(doc, id, tag) {
  const listeners = {};
  const classes = new Set();
  const el = {
    id, tagName: tag, textContent: '', hidden: false, disabled: false, value: '', children: [], style: {},
    attrs: {},
    get className() { return [...classes].join(' '); },
    set className(v) { classes.clear(); String(v).split(/\s+/).filter(Boolean).forEach((c) => classes.add(c)); },
    classList: {
      add: (c) => classes.add(c), remove: (c) => classes.delete(c), contains: (c) => classes.has(c),
      toggle: (c, on) => { if (on === undefined) on = !classes.has(c); if (on) classes.add(c); else classes.delete(c); return on; },
    },
    addEventListener: (t, fn) => { (listeners[t] = listeners[t] || []).push(fn); },
    dispatch: (t, ev) => (listeners[t] || []).forEach((fn) => fn(ev || { preventDefault() {} })),
    click() { if (!el.disabled) el.dispatch('click'); },
    getAttribute: (a) => el.attrs[a],
    setAttribute: (a, v) => { el.attrs[a] = String(v); },
    removeAttribute: (a) => { delete el.attrs[a]; },
    replaceChildren: (...nodes) => { el.children = nodes; el.textContent = nodes.map((n) => n.textContent).join(''); },
    appendChild: (n) => { el.children.push(n); el.textContent += n.textContent; n.parentNode = el; return n; },
    insertBefore: (n, ref) => {
      const i = el.children.indexOf(ref);
      el.children.splice(i < 0 ? el.children.length : i, 0, n);
      n.parentNode = el;
      return n;
    },
    select() { doc._selection = el.value; },
    setSelectionRange() { doc._selection = el.value; },
    focus() { doc.activeElement = el; },
    getBoundingClientRect: () => ({ top: 0, bottom: 0, left: 0, right: 0, width: 0, height: 0 }),
  };
  return el;
}

/* The body of GET path from the hub, as a browser gets it (a page's
 * scripts come as one join, "/common,i18n,path,replay,phone.js": hub_static.c);
 * the message catalog the page asks for with fetch (i18n.js) comes the same way. */
function getText(path) {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port: port, path: path }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { body += d; });
      res.on('end', () => (res.statusCode === 200 ? resolve(body) : reject(new Error('GET ' + path + ': ' + res.statusCode))));
    }).on('error', reject);
  });
}

async function makePage(file, search, shared) {
  const html = fs.readFileSync(webroot + '/' + file, 'utf8');
  const doc = { _selection: '', copied: null, visibilityState: 'visible', _cookie: shared.cookie };
  const byId = {};
  for (const m of html.matchAll(/<(\w+)[^>]*\sid="([^"]+)"[^>]*>/g)) byId[m[2]] = makeElement(doc, m[2], m[1]);
  for (const m of html.matchAll(/<(\w+)[^>]*\shidden[\s>]/g)) void m; // hidden state from HTML:
  for (const m of html.matchAll(/<(\w+)([^>]*)>/g)) {
    const idm = /\sid="([^"]+)"/.exec(m[2]);
    if (idm && /\shidden(\s|$)/.test(m[2])) byId[idm[1]].hidden = true;
    if (idm && /\sdisabled(\s|$)/.test(m[2])) byId[idm[1]].disabled = true;
  }
  const cmdButtons = [...html.matchAll(/data-cmd="(\w+)"/g)].map((m) => {
    const b = makeElement(doc, '', 'button');
    b.attrs['data-cmd'] = m[1];
    return b;
  });
  const docListeners = {};
  Object.assign(doc, {
    getElementById: (id) => byId[id] || null,
    createElement: (tag) => makeElement(doc, '', tag),
    querySelectorAll: (sel) => (sel === '[data-cmd]' ? cmdButtons : []),
    addEventListener: (t, fn) => { (docListeners[t] = docListeners[t] || []).push(fn); },
    dispatch: (t, ev) => (docListeners[t] || []).forEach((fn) => fn(ev || {})),
    execCommand: (c) => { if (c !== 'copy') return false; doc.copied = doc._selection; return true; },
  });
  Object.defineProperty(doc, 'cookie', {
    get: () => Object.entries(shared.cookie).map(([k, v]) => k + '=' + v).join('; '),
    set: (s) => { const [kv] = s.split(';'); const i = kv.indexOf('='); shared.cookie[kv.slice(0, i).trim()] = kv.slice(i + 1); },
  });
  const winListeners = {};
  const sockets = [];
  /* after: functions run with each message once the page has handled it;
   * sent: what the page sent, parsed */
  class TrackedWebSocket extends WebSocket {
    constructor(url, proto) { super(url, proto); this.after = []; this.sent = []; sockets.push(this); }
    send(data) { this.sent.push(JSON.parse(data)); return super.send(data); }
    get onmessage() { return super.onmessage; }
    set onmessage(fn) { super.onmessage = (ev) => { fn(ev); this.after.forEach((f) => f(JSON.parse(ev.data))); }; }
  }
  const store = (m) => ({ getItem: (k) => (k in m ? m[k] : null), setItem: (k, v) => { m[k] = String(v); } });
  const sandbox = {
    document: doc, console, JSON, Math, Date, RegExp, Object, Array, String, setTimeout, clearTimeout, setInterval, clearInterval,
    WebSocket: TrackedWebSocket,
    location: { protocol: 'http:', host: '127.0.0.1:' + port, search: search, hash: shared.hash || '' },
    localStorage: store(shared.local), sessionStorage: store({}),
    navigator: {}, isSecureContext: false,
    fetch: (u) => getText(u).then((body) => ({ ok: true, status: 200, json: () => Promise.resolve(JSON.parse(body)) })),
    addEventListener: (t, fn) => { (winListeners[t] = winListeners[t] || []).push(fn); },
  };
  sandbox.window = sandbox;
  vm.createContext(sandbox);
  for (const m of html.matchAll(/<script src="(\/[^"]+)"><\/script>/g))
    vm.runInContext(await getText(m[1]), sandbox, { filename: m[1] });
  return {
    el: (id) => byId[id], doc, sockets, cmdButtons,
    fireWindow: (t) => (winListeners[t] || []).forEach((fn) => fn({})),
    close: () => sockets.forEach((s) => s.close()),
  };
}

// ---- the presenter, as a plain websocket client ----
function presenter() {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket('ws://127.0.0.1:' + port + '/', 'fragvote-presenter');
    const waiting = [];
    ws.onmessage = (ev) => {
      const m = JSON.parse(ev.data);
      const i = waiting.findIndex((w) => w.match(m));
      if (i >= 0) waiting.splice(i, 1)[0].resolve(m);
    };
    const expect = (match) => new Promise((res) => waiting.push({ match, resolve: res }));
    ws.onopen = async () => {
      ws.send(JSON.stringify({ t: 'auth', secret }));
      await expect((m) => m.t === 'auth_ok');
      resolve({
        cmd: async (c) => {
          ws.send(JSON.stringify({ t: 'cmd', cmd: c }));
          const r = await expect((m) => m.t === 'cmd_ok' || m.t === 'error');
          if (r.t !== 'cmd_ok') throw new Error(c + ': ' + r.message);
        },
        /* sends m, returns the first answer whose t is one of types */
        say: (m, ...types) => { ws.send(JSON.stringify(m)); return expect((a) => types.includes(a.t)); },
        close: () => ws.close(),
      });
    };
    ws.onerror = reject;
  });
}

async function wholeRoom() {
  const shared = { cookie: {}, local: {} };
  const phone = await makePage('index.html', '?room=TEST42', shared);
  const screen = await makePage('screen.html', '', { cookie: {}, local: {} });
  check(await until(() => /^[0-9a-f]{32}$/.test(shared.cookie.fragvote_token || '')), 'phone joined: token in the cookie');
  check(shared.local.fragvote_token === shared.cookie.fragvote_token, 'token in localStorage too');
  const token = shared.cookie.fragvote_token;
  check(await until(() => !phone.el('play').hidden), 'phone shows the question');
  /* serve --leaderboard (this hub has it on): the optional nickname field */
  check(await until(() => !phone.el('nickform').hidden), 'phone offers the nickname field (leaderboard on)');
  phone.el('nick').value = ' Ann\u0007 ';
  phone.el('nickform').dispatch('submit');
  check(await until(() => phone.el('nickok').textContent === 'saved ✓'), 'phone: nickname saved');
  check(shared.local.fragvote_nick === 'Ann', 'nickname kept as the hub cleaned it (' + shared.local.fragvote_nick + ')');
  check(phone.el('yes').disabled, 'Yes disabled before voting opens');
  check(await until(() => screen.el('code').textContent === 'TEST42'), 'screen shows the room code');
  check(screen.el('qr').tagName === 'img', 'screen has the QR image');

  // The presenter page: a wrong secret is refused, the right one unlocks the controls.
  const pres = await makePage('presenter.html', '', { cookie: {}, local: {}, hash: '#secret=wrong' });
  check(await until(() => /wrong presenter secret/.test(pres.el('error').textContent)), 'presenter page: wrong secret refused');
  check(pres.el('panel').hidden, 'presenter page: controls stay locked');
  await sleep(1100); /* the room-wide throttle on bad secrets */
  pres.el('secret').value = secret;
  pres.el('authform').dispatch('submit');
  check(await until(() => !pres.el('panel').hidden), 'presenter page: the secret unlocks the controls');
  pres.el('seconds').value = '600';
  pres.cmdButtons.find((b) => b.getAttribute('data-cmd') === 'open').click();
  check(await until(() => pres.el('qstate').textContent === 'voting'), 'presenter page: Open opens voting');
  check(await until(() => pres.el('seconds').value === ''), 'presenter page: the timer field is emptied after its Open');
  check(await until(() => /closes in (59\d|600) s/.test(phone.el('countdown').textContent)), 'phone shows the countdown (' + phone.el('countdown').textContent + ')');
  check(await until(() => /^(59\d|600) s$/.test(screen.el('countdown').textContent)), 'screen shows the countdown (' + screen.el('countdown').textContent + ')');
  check(screen.el('banner').className === 'banner voting' && screen.el('bannertext').textContent === 'Vote now on your phone', 'screen: the "vote now" banner');
  // The laptop's connection drops mid-question: the projector stops counting
  // a deadline it can no longer know and says so, then picks it up again.
  screen.close();
  check(await until(() => screen.el('banner').className === 'banner offline', 2000) && screen.el('countdown').textContent === '' &&
    !screen.el('offline').hidden, 'screen offline: banner says so, countdown stopped');
  check(await until(() => /^(59\d|600) s$/.test(screen.el('countdown').textContent) && screen.el('offline').hidden, 8000),
    'screen back: the countdown resumes from the server');
  const btn = (c) => pres.cmdButtons.find((b) => b.getAttribute('data-cmd') === c);
  check(btn('reveal').disabled && !btn('close').disabled && btn('close').classList.contains('primary'),
    'presenter page: while voting, Close is the highlighted step and Reveal is not offered');
  pres.close();
  const p = await presenter();
  check(await until(() => !phone.el('yes').disabled), 'Yes enabled while voting');
  /* The ack carries the count with the vote in it: the count line says so as
   * the ack is handled, before any tally that counts it arrives. */
  let lineAtAck = null, tallyCountedFirst = false;
  phone.sockets[phone.sockets.length - 1].after.push((m) => {
    if (m.t === 'tally' && m.votes >= 1 && lineAtAck === null) tallyCountedFirst = true;
    if (m.t === 'ack' && lineAtAck === null) lineAtAck = phone.el('tally').textContent;
  });
  phone.el('yes').click();
  check(/sending/.test(phone.el('ack').textContent), '"sending…" until the ack');
  check(await until(() => /vote counted ✓ \(yes\)/.test(phone.el('ack').textContent)), '"vote counted ✓" after the ack');
  check(!tallyCountedFirst && /· 1 vote$/.test(lineAtAck || ''),
    'phone: the count line counts the vote as the ack arrives (' + lineAtAck + ')');
  check(phone.el('yes').classList.contains('chosen'), 'Yes marked as chosen');
  check(await until(() => screen.el('votes').textContent === '1'), 'screen counts the vote');
  check(screen.el('bars').hidden, 'no bars on the screen while voting');

  // The phone's socket drops: while it is gone the buttons wait, the
  // countdown stops and a banner says the vote is kept; it reconnects by
  // itself and keeps the voter.
  phone.close();
  check(await until(() => !phone.el('offline').hidden, 2000) && phone.el('yes').disabled && phone.el('no').disabled &&
    phone.el('countdown').textContent === '' && /Your vote \(yes\) is counted and kept/.test(phone.el('offline').textContent),
    'phone offline: banner with the vote\'s fate, buttons disabled, no countdown');
  check(await until(() => phone.el('offline').hidden && !phone.el('yes').disabled, 8000), 'phone back: banner gone, buttons back');
  check(await until(() => phone.sockets.length >= 2 && phone.sockets[1].readyState === 1, 8000), 'phone reconnected after a drop');
  check(await until(() => /vote counted ✓/.test(phone.el('ack').textContent)), 'vote still shown as counted after reconnect');
  check(shared.cookie.fragvote_token === token, 'same token after reconnect');

  // A reload: a fresh page with the same cookie and storage.
  phone.close();
  phone.sockets.length = 99; // stop counting the old page
  const reloaded = await makePage('index.html', '', shared);
  check(await until(() => /vote counted ✓ \(yes\)/.test(reloaded.el('ack').textContent)), 'reload resumes the voter and shows the vote');
  check(shared.cookie.fragvote_token === token, 'same token after reload');

  await p.cmd('close');
  check(await until(() => reloaded.el('countdown').textContent === ''), 'countdown gone after close');
  check(await until(() => !screen.el('bars').hidden), 'bars on the screen after close');
  check(await until(() => screen.el('yesn').textContent === '1'), 'bar count yes = 1');
  check(await until(() => reloaded.el('yes').disabled), 'Yes disabled after close');
  /* A re-vote (peer instruction): everyone votes again; the phone forgets its first-round vote. */
  await p.cmd('revote');
  check(await until(() => /second round/.test(reloaded.el('qnum').textContent) && reloaded.el('ack').textContent === 'tap Yes or No'),
    'phone: the second round, its first-round vote cleared (' + reloaded.el('ack').textContent + ')');
  check(await until(() => screen.el('bannertext').textContent === 'Round 2: talk to your neighbour, then vote again'),
    'screen: the round 2 banner');
  /* How sure (issue 37, item 5): tapped before the vote it goes with it; tapped after, the vote is sent again. */
  check(!reloaded.el('confrow').hidden && !reloaded.el('conf_sure').disabled, 'phone: the optional "how sure" row while voting');
  reloaded.el('conf_sure').click();
  check(reloaded.el('conf_sure').classList.contains('chosen'), 'phone: "sure" chosen before voting');
  reloaded.el('yes').click();
  check(await until(() => /vote counted ✓ \(yes, sure\)/.test(reloaded.el('ack').textContent)),
    'phone: its second-round vote counted with its confidence (' + reloaded.el('ack').textContent + ')');
  reloaded.el('conf_guessing').click();
  check(await until(() => /vote counted ✓ \(yes, guessing\)/.test(reloaded.el('ack').textContent)),
    'phone: the confidence changed until close (' + reloaded.el('ack').textContent + ')');
  check(reloaded.el('conf_guessing').classList.contains('chosen') && !reloaded.el('conf_sure').classList.contains('chosen'),
    'phone: "guessing" chosen, "sure" no more');
  await p.cmd('close');
  await p.cmd('measure');
  await sleep(300);
  check(!JSON.stringify(reloaded.el('evidence').textContent).includes(MARKER), 'no evidence before reveal');
  await p.cmd('reveal');
  check(await until(() => !reloaded.el('revealcard').hidden), 'phone shows the reveal');
  /* "sent?" is the first of three questions of its test: the phone shows
   * that fact's own why, not the test's evidence (it would answer DF? and
   * fragmented?, docs/PROTOCOL.md "What a reveal shows"). */
  check(reloaded.el('evidence').textContent === WHY_SENT, 'phone shows the fact\'s own why');
  check(/right ✔/.test(reloaded.el('verdict').textContent), 'phone says the vote was right');
  check(await until(() => screen.el('evidence').textContent === WHY_SENT), 'screen shows the fact\'s own why');
  check(/YES/.test(screen.el('truth').textContent), 'screen shows the truth');
  check(screen.el('shift').textContent === 'Re-vote: first round 100 % right → after discussion 100 %',
    'screen: the re-vote\'s shift (' + screen.el('shift').textContent + ')');
  check(screen.el('confsplit').textContent ===
    'By confidence: guessing: 1 of 1 right · confidence after discussion: sure 0 → 0 · think so 0 → 0 · guessing 0 → 1',
    'screen: the votes by confidence and how they moved (' + screen.el('confsplit').textContent + ')');
  check(screen.el('confheadline').textContent === '', 'screen: no headline (nobody sure was wrong)');

  /* A skipped question is announced, not jumped over without a word. */
  await p.cmd('next');
  await p.cmd('skip');
  check(await until(() => reloaded.el('skipnote').textContent === 'Question 2 was skipped' && !reloaded.el('skipnote').hidden),
    'phone: "Question 2 was skipped" (' + reloaded.el('skipnote').textContent + ')');
  check(await until(() => screen.el('skipnote').textContent === 'Question 2 was skipped' && !screen.el('skipnote').hidden),
    'screen: "Question 2 was skipped"');
  for (const c of ['skip', 'skip']) { try { await p.cmd(c); } catch (e) { /* ended earlier */ } }
  check(await until(() => !reloaded.el('final').hidden), 'phone shows the final score');
  check(reloaded.el('grid').textContent === '✔··\n·', 'share grid: one row per test (got ' + JSON.stringify(reloaded.el('grid').textContent) + ')');
  reloaded.el('copy').click();
  check(reloaded.doc.copied === 'fragvote TEST42 1/1\n✔··\n·', 'copy works without a secure context (execCommand fallback)');
  check(reloaded.el('copybuf').value === '' && reloaded.doc.activeElement === reloaded.el('copy'),
    'copy leaves no text in its buffer and the focus on the button');
  check(await until(() => !screen.el('final').hidden), 'screen shows the final scoreboard');
  check(screen.el('calibration').textContent ===
    'How sure the room was: guessing 100% right · Brier score 0.25 (0 is perfect, 0.25 guessing)',
    'screen: the room\'s calibration (' + screen.el('calibration').textContent + ')');
  check(screen.el('board').children.length === 1 && !screen.el('skippedn').hidden &&
    screen.el('skippedn').textContent === '3 questions skipped',
    'scoreboard: the question played, and the three skipped as one line (' + screen.el('board').children.length + ' rows, "' +
    screen.el('skippedn').textContent + '")');
  check(await until(() => !screen.el('leaders').hidden && screen.el('leaders').textContent === 'Ann — 1/1'),
    'screen: the leaderboard lists the nickname with its score (' + screen.el('leaders').textContent + ')');
  check(reloaded.el('nickform').hidden, 'phone: no nickname field once the quiz has ended');

  p.close();
  reloaded.close();
  screen.close();
}

/* A hosted room (serve --prober remote): the state carries "prober", and
 * Measure and Re-run are offered only while the laptop that measures is
 * connected; the page says which. */
async function laptopComesAndGoes() {
  const deck = JSON.parse(fs.readFileSync(deckFile, 'utf8'));
  let laptops = 0;
  const laptop = async () => {
    const l = await presenter();
    const ok = await l.say({ t: 'prober', v: 1, deck: deck, instance: 'pages-laptop-' + ++laptops }, 'prober_ok', 'error');
    check(ok.t === 'prober_ok', 'a laptop connects as the prober (' + (ok.message || ok.t) + ')');
    return l;
  };
  const pres = await makePage('presenter.html', '', { cookie: {}, local: {}, hash: '#secret=' + secret });
  check(await until(() => !pres.el('panel').hidden), 'presenter page: the secret unlocks the controls');
  const btn = (c) => pres.cmdButtons.find((b) => b.getAttribute('data-cmd') === c);
  const line = pres.el('laptop');
  const away = () => !line.hidden && /^The laptop that measures is not connected/.test(line.textContent);
  const here = () => !line.hidden && line.textContent === 'Laptop connected';
  const cmds = () => pres.sockets.reduce((n, w) => n.concat(w.sent.filter((m) => m.t === 'cmd').map((m) => m.cmd)), []);
  const key = (k) => pres.doc.dispatch('keydown', { key: k, target: null, preventDefault() {} });
  check(await until(away), 'no laptop: the page says so (' + line.textContent + ')');
  check(btn('answer').disabled && !btn('open').disabled && btn('open').classList.contains('primary') &&
    pres.el('nexthint').textContent === 'Next: open voting. Answer without a vote waits for the laptop that measures.',
    'pending, no laptop: Open offered, Answer disabled and the hint says why (' + pres.el('nexthint').textContent + ')');
  await sleep(500);
  key('a');
  await sleep(300);
  check(cmds().length === 0 && pres.el('qstate').textContent === 'pending', 'key a does nothing without the laptop');
  const p = await presenter();
  await p.cmd('open');
  await p.cmd('close');
  check(await until(() => pres.el('qstate').textContent === 'closed'), 'presenter page: the question is closed');
  check(btn('measure').disabled && btn('rerun').disabled && !btn('revote').disabled && !btn('skip').disabled && away(),
    'closed, no laptop: Measure and Re-run disabled, Re-vote and Skip offered, the line shown');
  check(/^Measure waits for the laptop that measures: it is not connected/.test(pres.el('nexthint').textContent),
    'the hint says why (' + pres.el('nexthint').textContent + ')');
  await sleep(500); /* past the double-press guard: PageDown would act now */
  const before = cmds().length;
  ['m', 'e', 'PageDown'].forEach(key);
  await sleep(300);
  check(cmds().length === before && pres.el('qstate').textContent === 'closed', 'keys m, e and PageDown do nothing without the laptop');

  let l = await laptop();
  check(await until(() => here() && !btn('measure').disabled && btn('measure').classList.contains('primary') && !btn('rerun').disabled),
    'the laptop connected: "Laptop connected", Measure enabled and highlighted, Re-run enabled');
  check(line.className === 'muted' && /^Next: measure/.test(pres.el('nexthint').textContent), 'a quiet line, the usual hint');
  l.close();
  check(await until(() => away() && btn('measure').disabled && btn('rerun').disabled), 'the laptop left: Measure and Re-run disabled again');

  l = await laptop();
  check(await until(() => here() && !btn('measure').disabled), 'the laptop back: Measure enabled');
  await sleep(500);
  key('m');
  check(await until(() => pres.el('qstate').textContent === 'measuring…') && cmds().includes('measure'), 'with the laptop, m measures');
  l.close(); /* it never answered: the measurement waits for the next laptop */
  check(await until(() => away() && /^Measuring… waiting for the laptop that measures/.test(pres.el('nexthint').textContent)),
    'measuring while the laptop is gone: the hint says what it waits for (' + pres.el('nexthint').textContent + ')');
  p.close();
  pres.close();
}

(mode === 'laptop' ? laptopComesAndGoes() : wholeRoom()).then(() => {
  console.log(failures ? failures + ' failed' : 'all page checks passed');
  setTimeout(() => process.exit(failures ? 1 : 0), 100);
}).catch((e) => { console.log('FAIL exception: ' + (e.stack || e)); process.exit(1); });
