/* The phone page: join, vote, see the truth, share the score. */
'use strict';
fvI18n.use(fvI18n.phoneLang(), function () {
  var LANG_KEY = 'fragvote_lang', TOKEN_KEY = 'fragvote_token', ROOM_KEY = 'fragvote_room', NICK_KEY = 'fragvote_nick';
  var nickSent = false; /* the nickname lives in the server's memory only: sent again after each welcome */
  var token = readToken(), room = (fvParam('room') || store('get', ROOM_KEY) || '').toUpperCase();
  var state = null, votes = [], pending = null, nextId = 1, joined = false, conn = null;
  /* Each vote's confidence as stored (welcome, ack), and the one tapped
   * before this question's vote (sent with it): docs/PROTOCOL.md "vote". */
  var confs = [], confFirst = { q: -1, c: null };
  var lastTally = null; /* the count line's tally, for the count an ack brings */
  var verdictSaid = ""; /* what #verdict (a live region) says now: replaced only when that changes */
  var countdown = fvCountdown('countdown');
  /* After the talk: the self-paced replay (replay.js), on this connection. */
  var replay = fvReplay(function (m) { return conn.send(m); }), replayAuto = false;

  function store(op, k, v) {
    try { return op === 'get' ? localStorage.getItem(k) : localStorage.setItem(k, v); } catch (e) { return null; }
  }
  function readToken() {
    var m = /(?:^|; )fragvote_token=([0-9a-f]{32})/.exec(document.cookie);
    return (m && m[1]) || store('get', TOKEN_KEY) || '';
  }
  /* The voter token lives in a cookie and in localStorage: either survives. */
  function saveToken(t) {
    token = t;
    document.cookie = 'fragvote_token=' + t + '; max-age=31536000; path=/; SameSite=Lax';
    store('set', TOKEN_KEY, t);
  }

  function hello() {
    if (!room) { fvShow('join', true); fvShow('play', false); return; }
    var m = { t: 'hello', v: 1, room: room };
    if (token) m.token = token;
    conn.send(m);
  }

  fvEl('joinform').addEventListener('submit', function (ev) {
    ev.preventDefault();
    room = fvEl('code').value.trim().toUpperCase();
    if (room) { store('set', ROOM_KEY, room); fvText('error', ''); hello(); }
  });

  var ACK_WAIT_MS = 6000; /* no ack by then: say so, the tap may not have arrived */
  var ackTimer = null, online = false, tappedOffline = false, shownReveal = -1, skipFrom = null;

  /* The confidence this phone shows for question pos (null: none). */
  function confOf(pos) {
    if (pending && pending.q === pos) return pending.conf;
    var mine = votes[pos];
    if (mine === 0 || mine === 1) return confs[pos] || null;
    return confFirst.q === pos ? confFirst.c : null;
  }

  function vote(yes, conf) {
    if (!state || state.q.state !== 'voting') return;
    if (!online) { tappedOffline = true; render(); return; }
    if (conf === undefined) conf = confOf(state.q.pos);
    pending = { id: nextId++, q: state.q.pos, yes: yes, conf: conf };
    var m = { t: 'vote', id: pending.id, q: pending.q, yes: yes };
    if (conf) m.confidence = conf; /* the whole vote: none when left out */
    if (!conn.send(m)) {
      pending = null;
      tappedOffline = true;
      render();
      return;
    }
    clearTimeout(ackTimer);
    var mine = pending;
    ackTimer = setTimeout(function () {
      if (pending !== mine) return;
      pending = null;
      render();
      fvText('ack', fvT('phone.ack_timeout'));
    }, ACK_WAIT_MS);
    render();
  }
  /* serve --leaderboard only (state.nicknames): optional, never asked for. */
  function sendNick(nick) { if (nick && conn.send({ t: 'nick', nick: nick })) nickSent = true; }
  /* After a welcome the server has forgotten it (memory only): send the kept one again. */
  function resendNick() { if (state && state.nicknames && joined && !nickSent) sendNick(store('get', NICK_KEY)); }
  fvEl('nickform').addEventListener('submit', function (ev) {
    ev.preventDefault();
    var nick = fvEl('nick').value.trim();
    if (nick) sendNick(nick);
  });
  fvEl('replaystart').addEventListener('click', function () { replay.start(); });
  fvEl('yes').addEventListener('click', function () { vote(true); });
  fvEl('no').addEventListener('click', function () { vote(false); });
  /* One optional tap: how sure. Before the vote it goes with it; after, the
   * vote is sent again with it; the chosen one tapped again clears it. */
  FV_CONFIDENCE.forEach(function (lv) {
    fvEl('conf_' + lv[0]).addEventListener('click', function () {
      if (!state || state.q.state !== 'voting') return;
      var pos = state.q.pos, c = confOf(pos) === lv[0] ? null : lv[0];
      var mine = pending && pending.q === pos ? (pending.yes ? 1 : 0) : votes[pos];
      if (mine === 0 || mine === 1) vote(mine === 1, c);
      else { confFirst = { q: pos, c: c }; render(); }
    });
  });

  /* The state chip's words: chip.<class> (pending, voting, closed, measuring, measured, revealed, skipped, ended). */
  var CHIPS = ['pending', 'voting', 'closed', 'measuring', 'measured', 'revealed', 'skipped', 'ended'];

  /* What happens to this phone's vote while the connection is gone. */
  function offlineText() {
    var q = state && !state.ended ? state.q : null, mine = q ? votes[q.pos] : -1;
    var fate = !q ? '' : mine === 0 || mine === 1 ? fvT('phone.offline_kept', { vote: fvT(mine ? 'answer.yes' : 'answer.no') }) :
      q.state === 'voting' ? fvT(tappedOffline ? 'phone.offline_tap_lost' : 'phone.offline_not_voted') : '';
    return fate ? fvT('phone.offline_with', { fate: fate }) : fvT('phone.offline');
  }

  function render() {
    fvShow('offline', !online && joined);
    if (!online && joined) fvText('offline', offlineText());
    if (!state) return;
    fvShow('nickform', !!state.nicknames && joined && !state.ended);
    fvText('title', state.title);
    fvEl('title').setAttribute('title', state.title);
    fvText('roomchip', joined ? fvT('common.room', { room: state.room }) : '');
    /* After the talk (or a recorded session served again): the replay on
     * offer; the short link (/?room=CODE&replay=1) goes straight to it. */
    fvShow('replayoffer', joined && replay.offered(state) && !replay.active());
    if (joined && replay.offered(state) && fvParam('replay') && !replayAuto) { replayAuto = true; replay.start(); }
    if (replay.active()) { replay.render(); return; }
    if (state.ended) { renderFinal(); return; }
    fvShow('final', false);
    fvShow('play', joined);
    var q = state.q, mine = votes[q.pos], rv = state.reveal;
    fvText('qnum', fvT(q.round === 2 && q.state === 'voting' ? 'phone.qnum_round2' : 'common.qnum', { q: q.pos + 1, n: state.n }));
    var cls = fvStateClass(state), chip = fvEl('qstate');
    /* The room's verdict is the projector's; this phone's own verdict is in
     * its result card, so the chip stays neutral once revealed. */
    if (q.state === 'revealed') cls = 'revealed';
    chip.textContent = CHIPS.indexOf(cls) >= 0 ? fvT('chip.' + cls) : q.state;
    chip.className = 'chip ' + cls;
    /* the state before a jump to this question: the skip note, worded at each render */
    var skipNote = skipFrom ? fvSkipped(skipFrom, state) : '';
    fvText('skipnote', skipNote);
    fvShow('skipnote', !!skipNote && q.state === 'pending');
    fvQuestion('qtext', q);
    fvText('qsummary', fvSummary(q));
    var open = q.state === 'voting';
    fvEl('yes').disabled = !open || !online;
    fvEl('no').disabled = !open || !online;
    var shown = pending && pending.q === q.pos ? (pending.yes ? 1 : 0) : mine;
    fvEl('yes').classList.toggle('chosen', shown === 1);
    fvEl('no').classList.toggle('chosen', shown === 0);
    var conf = confOf(q.pos);
    fvShow('confrow', open || !!conf);
    FV_CONFIDENCE.forEach(function (lv) {
      var b = fvEl('conf_' + lv[0]);
      b.disabled = !open || !online;
      b.classList.toggle('chosen', conf === lv[0]);
      b.setAttribute('aria-pressed', conf === lv[0] ? 'true' : 'false');
    });
    var ack = fvEl('ack');
    if (pending && pending.q === q.pos) ack.textContent = fvT('phone.sending');
    else if (mine === 0 || mine === 1) ack.textContent = rv ? '' : confs[q.pos] ?
      fvT('phone.counted_conf', { vote: fvT(mine ? 'answer.yes' : 'answer.no'), conf: fvConfWords(confs[q.pos]) }) :
      fvT('phone.counted', { vote: fvT(mine ? 'answer.yes' : 'answer.no') });
    else if (open) ack.textContent = fvT(online ? 'phone.tap' : tappedOffline ? 'phone.tap_lost' : 'phone.offline_short');
    else ack.textContent = q.state === 'pending' ? fvT('phone.opens_soon') : rv || q.state === 'skipped' ? '' : fvT('phone.missed');
    fvShow('revealcard', !!rv);
    fvEl('play').classList.toggle('revealed', !!rv);
    fvPath.show(fvEl('path'), rv && rv.path, 'tall');
    if (rv) {
      var v = document.createElement('div'), voted = mine === 0 || mine === 1;
      var right = voted && (mine === 1) === (rv.truth === 'yes'), known = rv.truth === 'yes' || rv.truth === 'no';
      v.className = 'verdict' + (voted && known ? (right ? ' right' : ' wrong') : '');
      var words = fvT(!voted ? 'phone.verdict_novote' : !known ? 'phone.verdict_unknown' : right ? 'phone.verdict_right' : 'phone.verdict_wrong');
      /* the mark stays with its last word, never alone on a line */
      var cut = words.lastIndexOf(' ', words.length - 3), head = document.createElement('span'), tail = document.createElement('span');
      head.textContent = words.slice(0, cut + 1);
      tail.textContent = words.slice(cut + 1);
      tail.className = 'nowrap';
      v.appendChild(head);
      v.appendChild(tail);
      /* #verdict is a live region: replaced only when it says something new,
       * so a screen reader announces each verdict once, not at every frame */
      var said = q.pos + '|' + v.className + '|' + words;
      if (verdictSaid !== said) {
        fvEl('verdict').replaceChildren(v);
        verdictSaid = said;
      }
      fvText('truth', fvT('answer.' + (known ? rv.truth : 'unknown')));
      fvText('basis', fvT(known ? 'reveal.basis_words' : 'reveal.basis', { basis: fvT('basis.' + rv.basis), words: fvTruthWords(q.kind, rv.truth) }));
      fvEvidence('evidence', rv);
      fvExplain(rv);
      var room = rv.majority ? fvT('phone.room_said', { vote: fvT('answer.' + rv.majority) }) : fvT('phone.nobody_voted');
      fvMsgText('confheadline', rv.confidence && rv.confidence.headline_msg, rv.confidence && rv.confidence.headline);
      var said = { vote: fvT(mine ? 'answer.yes' : 'answer.no'), conf: fvConfWords(confs[q.pos]), room: room };
      fvText('roomverdict', !voted ? room : fvT(confs[q.pos] ? 'phone.you_conf_and_room' : 'phone.you_and_room', said));
      /* The result first: scrolled into view once, when it arrives. */
      if (shownReveal !== q.pos) { shownReveal = q.pos; if (window.scrollTo) window.scrollTo(0, 0); }
    } else shownReveal = -1;
  }

  /* One row per test, one mark per question: ✔ right, ✘ wrong, · other. */
  function shareText() {
    var rows = [], byTest = {}, order = [], right = 0, scored = 0;
    (state.questions || []).forEach(function (q) {
      if (!(q.test in byTest)) { byTest[q.test] = ''; order.push(q.test); }
      var mark = fvMark(votes[q.pos], q);
      byTest[q.test] += mark;
      if (mark === '✔') right++;
      if (mark !== '·') scored++;
    });
    order.forEach(function (t) { rows.push(byTest[t]); });
    return { text: 'fragvote ' + state.room + ' ' + right + '/' + scored + '\n' + rows.join('\n'), right: right, scored: scored, tests: order };
  }

  function renderFinal() {
    fvShow('play', false);
    fvShow('final', true);

    var s = shareText();
    fvText('bigscore', s.scored ? s.right + ' / ' + s.scored : '–');
    fvText('score', fvTn('phone.score', s.scored, { right: s.right }));
    fvText('grid', s.text.split('\n').slice(1).join('\n'));
    fvText('gridlabels', s.tests.map(function (t) { return fvT('phone.packet', { n: t + 1 }); }).join('\n'));
  }

  fvEl('copy').addEventListener('click', function () { fvCopy(shareText().text, 'copied'); });

  function showTally(m) {
    var line = fvT('phone.tally', { online: fvTn('count.phones_online', m.online), votes: fvTn('count.votes', m.votes) });
    fvText('tally', 'yes' in m ? fvT('phone.tally_split', { line: line, yes: m.yes, no: m.no }) : line);
  }

  var connNow = { s: 'connecting', why: '' };
  /* fragvote check --phone (docs/CHECK.md): a page opened with check=1
   * times RTT_SAMPLES ping/pong exchanges over its websocket once joined and
   * reports their median and maximum (docs/PROTOCOL.md "rtt"), once a load. */
  var RTT_SAMPLES = 5, RTT_GAP_MS = 200;
  var rtt = fvParam('check') === '1' ? { samples: [], at: 0, timer: null, done: false } : null;
  function rttNext() {
    rtt.timer = null;
    if (rtt.done || !online || rtt.at) return;
    if (rtt.samples.length < RTT_SAMPLES) {
      if (rtt.samples.length === 0) fvText('rtt', fvT('phone.rtt_measuring'));
      rtt.at = performance.now();
      if (!conn.send({ t: 'ping' })) rtt.at = 0;
      return;
    }
    var s = rtt.samples.slice().sort(function (a, b) { return a - b; }), n = s.length;
    var tenth = function (ms) { return Math.round(ms * 10) / 10; };
    var med = n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    rtt.report = { t: 'rtt', n: n, median_ms: tenth(med), max_ms: tenth(s[n - 1]) };
    rtt.done = conn.send(rtt.report);
  }
  function rttPong() {
    if (!rtt || !rtt.at) return;
    rtt.samples.push(performance.now() - rtt.at);
    rtt.at = 0;
    rtt.timer = setTimeout(rttNext, RTT_GAP_MS);
  }
  function rttStop() { if (rtt) { clearTimeout(rtt.timer); rtt.timer = null; rtt.at = 0; } } /* a sample across a loss is dropped */

  function showConn() {
    var e = fvEl('conn'), s = connNow.s, why = connNow.why;
    /* short: the banner below says the rest once joined */
    e.textContent = online ? fvT('conn.online') : s === 'connecting' ? fvT('conn.connecting') : joined ? fvT('conn.offline') :
      why ? fvT('conn.reconnecting_why', { why: why }) : fvT('conn.reconnecting');
    e.className = online ? '' : 'offline';
  }

  conn = fvConnect('fragvote-audience', {
    status: function (s, why) {
      online = s === 'online';
      connNow = { s: s, why: why };
      showConn();
      if (!online) replay.offline();
      if (!online) { pending = null; countdown.stop(); lastTally = null; fvText('tally', ''); rttStop(); } /* counts that can no longer be true */
      render();
    },
    open: hello,
    message: function (m) {
      if (replay.message(m)) return;
      switch (m.t) {
      case 'welcome':
        saveToken(m.token);
        store('set', ROOM_KEY, m.room);
        room = m.room;
        votes = m.votes || [];
        confs = m.confidence || [];
        joined = true;
        tappedOffline = false;
        nickSent = false;
        resendNick();
        fvShow('join', false);
        fvText('error', '');
        render();
        if (rtt && !rtt.timer && !rtt.at) rttNext();
        break;
      case 'pong':
        rttPong();
        break;
      case 'rtt_ok':
        if (rtt && rtt.report) fvText('rtt', fvT('phone.rtt_sent', { median: rtt.report.median_ms, max: rtt.report.max_ms, n: rtt.report.n }));
        break;
      case 'state':
        countdown(m);
        if (state && state.q.pos !== m.q.pos) { pending = null; tappedOffline = false; skipFrom = state; lastTally = null; fvText('tally', ''); }
        /* A re-vote: everyone votes again, the first round's vote is kept apart. */
        if (state && state.q.pos === m.q.pos && m.q.round === 2 && state.q.round !== 2) {
          votes[m.q.pos] = -1; confs[m.q.pos] = null; confFirst = { q: -1, c: null }; pending = null;
        }
        state = m;
        resendNick();
        render();
        break;
      case 'nick_ok':
        store('set', NICK_KEY, m.nick);
        fvEl('nick').value = m.nick;
        fvText('nickok', fvT('phone.nick_saved'));
        break;
      case 'ack':
        votes[m.q] = m.yes ? 1 : 0;
        confs[m.q] = m.confidence || null;
        if (pending && pending.id === m.id) pending = null;
        /* the ack carries the count with this vote in it: shown now, not at the next tally */
        if (lastTally && lastTally.q === m.q && m.votes > lastTally.votes && !('yes' in lastTally)) {
          lastTally.votes = m.votes;
          showTally(lastTally);
        }
        render();
        break;
      case 'tally':
        countdown(m);
        if (state && m.q !== state.q.pos) break; /* still about the previous question */
        lastTally = m;
        showTally(m);
        break;
      case 'error':
        if (pending && m.id === pending.id) pending = null;
        if (m.code === 'bad_room') { room = ''; store('set', ROOM_KEY, ''); fvShow('join', true); fvShow('play', false); }
        fvText('error', fvError(m));
        render();
        break;
      }
    }
  });

  /* The language switch: every shipped catalog by its own name. */
  var pick = fvEl('lang');
  if (pick) {
    pick.replaceChildren.apply(pick, Object.keys(FV_LANGS).map(function (c) {
      var o = document.createElement('option');
      o.value = c;
      o.textContent = FV_LANGS[c];
      o.setAttribute('lang', c);
      return o;
    }));
    pick.value = fvI18n.code();
    pick.addEventListener('change', function () {
      var c = pick.value;
      store('set', LANG_KEY, c);
      fvI18n.use(c, function () { verdictSaid = ''; showConn(); render(); if (lastTally) showTally(lastTally); fvText('copied', ''); fvText('nickok', ''); });
    });
  }
});
