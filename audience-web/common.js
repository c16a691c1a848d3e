/* fragvote pages: the websocket with reconnect, shared by phone, screen and
 * presenter. Speaks docs/PROTOCOL.md (version 1). No framework, no build. */
'use strict';

/* Opens a websocket for `protocol` and keeps it open: on loss it reconnects
 * with jittered exponential backoff; when the page becomes visible again,
 * is restored from the back/forward cache or the network comes back, it
 * reconnects at once (after a small random delay, so a room of phones
 * waking together does not arrive in the same millisecond). */
function fvConnect(protocol, handlers) {
  var ws = null, attempt = 0, timer = null, stopped = false;
  var url = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/';

  function schedule(ms) {
    if (timer) clearTimeout(timer);
    timer = setTimeout(open, ms);
  }
  function backoff() {
    var base = Math.min(15000, 500 * Math.pow(2, attempt++));
    return base / 2 + Math.random() * base; /* 50%..150% of base */
  }
  function open() {
    timer = null;
    if (stopped || (ws && (ws.readyState === 0 || ws.readyState === 1))) return;
    handlers.status && handlers.status('connecting');
    try { ws = new WebSocket(url, protocol); } catch (e) { schedule(backoff()); return; }
    ws.onopen = function () {
      handlers.status && handlers.status('online');
      handlers.open && handlers.open();
    };
    ws.onmessage = function (ev) {
      attempt = 0; /* the hub answered: not one that closes us at once (1013, too many reconnects) */
      var m;
      try { m = JSON.parse(ev.data); } catch (e) { return; }
      if (m && typeof m.t === 'string') handlers.message(m);
    };
    ws.onclose = function (ev) {
      ws = null;
      handlers.status && handlers.status('offline', ev.reason || '');
      if (!stopped) schedule(backoff());
    };
    ws.onerror = function () { /* onclose follows */ };
  }
  function wake() {
    if (document.visibilityState === 'hidden') return;
    if (!ws || ws.readyState > 1) { attempt = 0; schedule(Math.random() * 800); }
  }
  document.addEventListener('visibilitychange', wake);
  window.addEventListener('pageshow', wake);
  window.addEventListener('online', wake);
  open();
  return {
    send: function (obj) {
      if (!ws || ws.readyState !== 1) return false;
      ws.send(JSON.stringify(obj));
      return true;
    },
    isOpen: function () { return !!ws && ws.readyState === 1; },
    stop: function () { stopped = true; if (ws) ws.close(); }
  };
}

/* A countdown shown in element `id`: fed with messages carrying
 * closes_in_ms (state, tally), it ticks locally until zero; a state or
 * tally without it stops it (a tally built before Close may still reach a
 * phone after the closed state: the next one must not leave it counting). fmt(seconds)
 * makes the text (default "closes in N s"); onTick(seconds or 0) lets a page
 * restyle itself (the projector's banner). stop() clears it at once: a page
 * that lost the server must not keep counting a deadline it cannot know. */
function fvCountdown(id, fmt, onTick) {
  var deadline = 0, timer = null;
  fmt = fmt || function (s) { return fvT('common.closes_in', { s: s }); };
  function tick() {
    var left = Math.ceil((deadline - Date.now()) / 1000);
    var on = deadline && left > 0;
    fvText(id, on ? fmt(left) : '');
    if (onTick) onTick(on ? left : 0);
    if (!on) { deadline = 0; clearInterval(timer); timer = null; }
  }
  function feed(m) {
    if (typeof m.closes_in_ms === 'number') {
      deadline = Date.now() + m.closes_in_ms;
      if (!timer) timer = setInterval(tick, 250);
    } else if (m.t === 'state' || m.t === 'tally') {
      deadline = 0; /* every message of a running timer carries it: none means none */
    }
    tick();
  }
  feed.stop = function () { deadline = 0; tick(); };
  feed.running = function () { return deadline > 0; };
  return feed;
}

/* A question in the page's language, from its parts (the state's q.ask,
 * docs/PROTOCOL.md: protocol, socket mode, size, TTL, the lab's path), as
 * {head, ask}: "A 1400-byte UDP/IPv4 packet, IP_PMTUDISC_DO:" and "is the
 * DF bit set on the wire?" plus the path it runs on. Without q.ask (a state
 * from an older hub) the hub's English text, cut at its last ": ". */
function fvQuestionParts(q) {
  var a = q && q.ask;
  if (!a) {
    var text = (q && q.text) || '', cut = text.lastIndexOf(': ');
    return cut > 0 ? { head: text.slice(0, cut + 1), ask: text.slice(cut + 2) } : { head: '', ask: text };
  }
  var head = fvT('q.head', { size: a.size, proto: fvT('proto.' + a.proto), mode: fvModeName(a) });
  var does = (a.lab || []).map(function (r) {
    var what = (r.reassembles ? [fvT('lab.reassembles')] : []).concat((r.does || []).map(function (d) { return fvT('lab.' + d); }));
    return fvT('lab.node_does', { node: r.node, does: what.join(fvT('lab.and')) });
  }).join(fvT('lab.then'));
  var mtus = (a.mtus || []).join(', ');
  var where = mtus && does ? fvT('q.where_mtus_does', { mtus: mtus, does: does }) : mtus ? fvT('q.where_mtus', { mtus: mtus }) :
    does ? fvT('q.where_does', { does: does }) : '';
  return { head: head, ask: fvT('ask.' + (q.kind === 'sent' || q.kind === 'df' ? q.kind : 'fragmented')) + where };
}
function fvQuestionText(q) { var p = fvQuestionParts(q); return p.head ? p.head + ' ' + p.ask : p.ask; }
/* "IP_PMTUDISC_DO" / "IPV6_PMTUDISC_DO" (the option's own name, never
 * translated), or the default's words. */
function fvModeName(a) {
  if (a.mode === 'default') return fvT('mode.default');
  return (/6$/.test(a.proto) ? 'IPV6' : 'IP') + '_PMTUDISC_' + String(a.mode).toUpperCase();
}
/* The test spelled out: "udp4 · IP_PMTUDISC_DO (the app asked: always set
 * DF) · 1400 bytes · TTL 2". */
function fvSummary(q) {
  var a = q && q.ask;
  if (!a) return (q && q.summary) || '';
  return fvT('q.summary', { proto: a.proto, mode: fvModeName(a), plain: fvT('modeplain.' + a.mode), size: a.size,
    ttl: a.ttl > 0 ? fvT('q.ttl', { ttl: a.ttl }) : fvT('q.ttl_auto') });
}
/* The question in element `id`: consecutive questions about one packet
 * differ only in the ask, so the ask gets its own, stronger span. The
 * element's text stays the whole question. */
function fvQuestion(id, q) {
  var e = fvEl(id);
  if (!e) return;
  var p = fvQuestionParts(q);
  var head = document.createElement('span'), ask = document.createElement('span');
  head.className = 'qhead';
  ask.className = 'qask';
  head.textContent = p.head ? p.head + ' ' : '';
  ask.textContent = p.ask;
  e.replaceChildren(head, ask);
}
/* A server's error in words: its code's, where the catalog has one
 * (error.<code>), else the server's own message. */
var FV_ERRORS = ['bad_room', 'already_joined', 'hello_first', 'bad_vote', 'storage', 'busy', 'refused', 'leaderboard_off',
  'bad_nick', 'forbidden', 'bad_secret', 'throttled'];
function fvError(m) {
  return FV_ERRORS.indexOf(m.code) >= 0 ? fvT('error.' + m.code) : m.message || m.code || '';
}

/* What a question's state means to the room, in words: the projector's
 * banner, the phone's and the presenter's state chip. */
function fvStateWords(s) {
  var q = s.q;
  if (s.ended) return fvT('state.ended');
  if (q.measuring) return fvT('state.measuring');
  switch (q.state) {
  case 'pending': return fvT('state.pending');
  case 'voting': return fvT(q.round === 2 ? 'state.voting_round2' : 'state.voting');
  case 'closed': return fvT('state.closed');
  case 'measured': return fvT('state.measured');
  case 'skipped': return fvT('state.skipped');
  case 'revealed': return fvVerdictWords(s.reveal);
  }
  return q.state;
}
/* The banner's look: one class per moment; green/red only for right/wrong. */
function fvStateClass(s) {
  if (s.ended) return 'ended';
  if (s.q.measuring) return 'measuring';
  if (s.q.state === 'revealed') return fvVerdictClass(s.reveal);
  return s.q.state;
}
/* The room's verdict on a revealed question (the reveal's correct and
 * majority; a reveal may or may not carry evidence). */
function fvVerdictClass(rv) {
  if (!rv) return 'revealed';
  if (rv.truth !== 'yes' && rv.truth !== 'no') return 'unknown';
  if (!rv.majority) return 'novotes';
  return rv.correct === 1 ? 'right' : rv.correct === 0 ? 'wrong' : 'tie';
}
function fvVerdictWords(rv) {
  var c = fvVerdictClass(rv);
  return fvT(c === 'revealed' ? 'verdict.revealed' : 'verdict.' + c);
}
/* What the measurement says, for people: "the packet is sent", "DF is
 * set", ... from the truth and the question's kind. */
function fvTruthWords(kind, truth) {
  if (truth !== 'yes' && truth !== 'no') return fvT('answer.unknown');
  return fvT('truth.' + (kind === 'sent' || kind === 'df' ? kind : 'fragmented') + '.' + truth);
}

/* A re-voted question's shift (the reveal's first_round and final votes,
 * docs/PROTOCOL.md): "Re-vote: first round 45 % right → after discussion
 * 72 %". "" without a second round or a known truth. */
function fvShift(rv) {
  if (!rv || !rv.first_round || (rv.truth !== 'yes' && rv.truth !== 'no')) return '';
  function share(yes, no) {
    return yes + no > 0 ? fvT('shift.pct', { pct: Math.round(100 * (rv.truth === 'yes' ? yes : no) / (yes + no)) }) : fvT('shift.no_votes');
  }
  var f = rv.first_round;
  return fvT(f.yes + f.no > 0 ? 'shift.line' : 'shift.line_novotes', { before: share(f.yes, f.no), after: share(rv.yes, rv.no) });
}
/* The final board's question column, "test 3 · DF set?", and its truth
 * column: the measured answer, or the question's state when none. */
function fvBoardQuestion(q) { return fvT('board.question', { test: q.test + 1, kind: fvKindWord(q.kind) }); }
function fvBoardTruth(q) { return q.truth ? fvT('answer.' + q.truth) : fvT('qstate.' + q.state); }

/* Questions jumped over between two states the page saw: the one it was on
 * (if it was never revealed) and any between. "" when none. */
function fvSkipped(prev, now) {
  if (!prev || prev.ended || now.ended || now.q.pos <= prev.q.pos) return '';
  var from = prev.q.state === 'revealed' ? prev.q.pos + 2 : prev.q.pos + 1, to = now.q.pos;
  if (from > to) return '';
  var which = from === to ? fvT('skip.one', { q: from }) : fvT('skip.range', { from: from, to: to });
  /* the quiz skips the rest of a test by itself when its "sent?" was no (quiz.c) */
  var unsent = prev.q.state === 'revealed' && prev.q.kind === 'sent' && prev.reveal && prev.reveal.truth === 'no';
  return unsent ? fvT('skip.unsent', { which: which }) : which;
}

/* Text that must fit a box (the projector: nobody scrolls it): the largest
 * type, from `min` to `max` (default 1) times the stylesheet's size, in
 * which the content of `box` fits its height: long content shrinks, little
 * content fills the box. Returns the scale used. */
function fvFit(box, min, max) {
  if (!box || !box.style) return 1;
  function fits(scale) {
    box.style.fontSize = scale === 1 ? '' : (scale * 100).toFixed(1) + '%';
    return !(box.scrollHeight - box.clientHeight > 1);
  }
  var hi = max || 1, lo = min;
  if (fits(hi)) return hi;
  if (!fits(lo)) return lo;
  for (var i = 0; i < 10; i++) { /* bisect: the largest scale that fits, within 0.1 % of the range */
    var mid = (lo + hi) / 2;
    if (fits(mid)) lo = mid; else hi = mid;
  }
  fits(lo);
  return lo;
}

function fvEl(id) { return document.getElementById(id); }
function fvText(id, text) { var e = fvEl(id); if (e) e.textContent = text; }
/* A text the hub sends twice, in English (english) and as messages (msgs:
 * one {key, args} or a list of them, joined by sep): into element id, in the
 * page's language when its catalog words every message, else in the English
 * sent, marked lang="en" for screen readers. */
function fvMsgText(id, msgs, english, sep) {
  var e = fvEl(id);
  if (!e) return;
  var list = msgs ? [].concat(msgs) : [], words = list.map(fvI18n.msg);
  var ours = list.length > 0 && words.every(function (w) { return w !== null; });
  e.textContent = ours ? words.join(sep || '') : english || '';
  if (ours || !english) e.removeAttribute('lang'); else e.setAttribute('lang', 'en');
}
/* A reveal's rules (docs/PROTOCOL.md "explain", "surprise"): the chain of
 * the question's fact under the verdict (on the projector in its "why"
 * view), and the headline when the measurement differs from them, worded
 * from their messages in the page's language, into elements #surprise and
 * #explain (#PREFIXsurprise, #PREFIXexplain: the phone's replay). Empty when
 * the reveal carries none. */
function fvExplain(rv, prefix) {
  var p = prefix || '';
  fvMsgText(p + 'surprise', rv && rv.surprise_msg, rv && rv.surprise ? rv.surprise : '');
  fvMsgText(p + 'explain', rv && rv.explain_msg, rv && rv.explain ? rv.explain : '', fvT('rule.sep'));
  var e = fvEl(p + 'explain');
  if (e && e.textContent) e.textContent = fvT('reveal.explain', { why: e.textContent });
}
/* A reveal's evidence line into element id (docs/PROTOCOL.md "evidence",
 * "why"): the measurement's evidence, worded from its messages
 * (evidence_msg) in the page's language; when the reveal carries none (a
 * sibling question is still open), the fact's why, from its message(s)
 * (why_msg). The English, marked lang=en, where the reveal has no message or
 * the catalog lacks a key. */
function fvEvidence(id, rv) {
  if (rv && rv.evidence) fvMsgText(id, rv.evidence_msg, rv.evidence);
  else fvMsgText(id, rv && rv.why_msg, rv && rv.why ? rv.why : '');
}
/* A vote's confidence (docs/SCORING.md "Confidence"): the wire's names and
 * their words. */
var FV_CONFIDENCE = [['sure'], ['think_so'], ['guessing']];
function fvConfWords(name) {
  for (var i = 0; i < FV_CONFIDENCE.length; i++) if (FV_CONFIDENCE[i][0] === name) return fvT('conf.' + name);
  return '';
}
/* The reveal's split by confidence (docs/PROTOCOL.md reveal.confidence) in
 * one line, levels with votes only: "sure: 1 of 7 right · think so: 1 of 1
 * right"; '' when the reveal carries none. */
function fvConfSplit(c) {
  if (!c || !c.levels) return '';
  return c.levels.filter(function (l) { return l.votes > 0; }).map(function (l) {
    return l.right == null ? fvT('conf.split_votes', { level: fvConfWords(l.level), votes: fvTn('count.votes', l.votes) }) :
      fvT('conf.split_right', { level: fvConfWords(l.level), right: l.right, n: l.votes });
  }).join(' · ');
}
/* A re-voted question's "confidence after discussion: sure 4 → 2 · think so
 * 0 → 2 · guessing 1 → 0" (docs/PROTOCOL.md "moved"), worded from its two
 * splits (votes at each level, first round → final) in the page's
 * language; '' without a first round. */
function fvConfMoved(c) {
  if (!c || !c.moved || !c.first_round || !c.first_round.levels || !c.levels) return '';
  var first = {};
  c.first_round.levels.forEach(function (l) { first[l.level] = l.votes; });
  return fvT('conf.moved', { levels: c.levels.map(function (l) {
    return fvT('conf.moved_level', { level: fvConfWords(l.level), first: first[l.level] || 0, final: l.votes });
  }).join(' · ') });
}
/* The final state's calibration (docs/PROTOCOL.md "calibration"): "How sure
 * the room was: sure 62% right · think so 55% right · Brier 0.21"; ''
 * without one. */
function fvCalibration(cal) {
  if (!cal || !cal.levels) return '';
  var parts = cal.levels.filter(function (l) { return l.votes > 0; }).map(function (l) {
    return fvT('cal.level', { level: fvConfWords(l.level), pct: fvT('common.pct', { n: Math.round(l.share_right * 100) }) });
  });
  return fvT('cal.line', { levels: parts.join(' · '), brier: cal.brier.toFixed(2) });
}
function fvShow(id, on) { var e = fvEl(id); if (e) e.hidden = !on; }
function fvParam(name) {
  var m = new RegExp('[?&#]' + name + '=([^&#]*)').exec(location.search + location.hash);
  return m ? decodeURIComponent(m[1]) : '';
}
function fvKindWord(kind) {
  return fvT('kind.' + (kind === 'sent' || kind === 'df' ? kind : 'fragmented'));
}
/* ✔ right, ✘ wrong, · not answered / not scored. */
function fvMark(vote, q) {
  if (vote !== 0 && vote !== 1) return '·';
  if (!q || (q.truth !== 'yes' && q.truth !== 'no')) return '·';
  return (vote === 1) === (q.truth === 'yes') ? '✔' : '✘';
}
/* Copies text and says so in element doneId. navigator.clipboard needs a
 * secure context, which a phone on http://<laptop-ip>/ is not: then select
 * + execCommand on the page's hidden textarea #copybuf. */
function fvCopy(text, doneId) {
  function done(ok) { fvText(doneId, fvT(ok ? 'phone.copied' : 'phone.copy_by_hand')); }
  if (window.isSecureContext && navigator.clipboard) {
    navigator.clipboard.writeText(text).then(function () { done(true); }, function () { done(fvLegacyCopy(text)); });
  } else done(fvLegacyCopy(text));
}
/* The copy leaves nothing behind: no selection, no text in the hidden
 * textarea, and the focus back where it was (the button: a keyboard or
 * screen-reader user stays in place). */
function fvLegacyCopy(text) {
  var ta = fvEl('copybuf'), back = document.activeElement;
  if (!back || back === document.body || back === ta) back = fvEl('copy');
  ta.hidden = false;
  ta.value = text;
  ta.select();
  ta.setSelectionRange(0, text.length);
  var ok = false;
  try { ok = document.execCommand('copy'); } catch (e) { ok = false; }
  ta.setSelectionRange(0, 0);
  ta.value = '';
  ta.hidden = true;
  if (window.getSelection) window.getSelection().removeAllRanges();
  back.focus({ preventScroll: true });
  return ok;
}
