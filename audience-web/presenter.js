/* The presenter's browser view: everything the room sees plus the live
 * split, the timer, the speaker notes and what to press next. Needs the
 * secret; it is kept only in this tab (sessionStorage), or passed as
 * #secret=... (removed from the address bar at once; ?secret= is ignored).
 * A presentation clicker works: PageDown / → / Space do the highlighted
 * step (Space too, unless a button has the focus), PageUp / ← go back; the console's letter keys do the same here. */
'use strict';
fvI18n.use(fvParam('lang') || 'en', function () {
  var secret = fragmentSecret() || (function () { try { return sessionStorage.getItem('fragvote_secret') || ''; } catch (e) { return ''; } })();
  var authed = false, online = false, conn, state = null, skipFrom = null, errTimer = null;
  var busyUntil = 0, changedAt = 0;
  var BUSY_MS = 1500;        /* a command's answer is awaited this long before the next key counts */
  var DOUBLE_PRESS_MS = 400; /* a clicker pressed twice by accident does not also do the step after */
  var ERROR_SHOW_MS = 10000; /* a refusal's reason stays this long (or until the next command) */
  var TIMER_KEY_S = 30;      /* the t key without a timer typed: the console's default */
  var countdown = fvCountdown('countdown');
  var buttons = {};

  /* The secret only from the # fragment (never sent to a server, so in no
   * access log), which leaves the address bar at once (history, a shared
   * screen, a screenshot); ?secret= in the query string is ignored. */
  function fragmentSecret() {
    var m = /^#(?:.*&)?secret=([^&]*)/.exec(location.hash), s = '';
    if (!m) return '';
    try { s = decodeURIComponent(m[1]); } catch (e) { s = ''; }
    if (window.history && window.history.replaceState)
      window.history.replaceState(null, '', location.pathname + location.search);
    return s;
  }

  function auth() { if (secret) conn.send({ t: 'auth', secret: secret }); }

  fvEl('authform').addEventListener('submit', function (ev) {
    ev.preventDefault();
    secret = fvEl('secret').value;
    auth();
  });

  function showError(text) {
    fvText('error', text);
    clearTimeout(errTimer);
    if (text) errTimer = setTimeout(function () { fvText('error', ''); }, ERROR_SHOW_MS);
  }

  /* What the quiz accepts now (fragvote/room/quiz.c) and the one step that
   * moves the talk on: the highlighted button. */
  function plan(s) {
    var q = s.q, first = q.pos === 0;
    if (s.ended) return { next: null, ok: ['back'], hint: fvT('presenter.hint_ended') };
    var r = planStep(q, first);
    if (s.prober === false) r = withoutLaptop(r, q);
    if (r.ok.length) r.ok.push('end'); /* the talk may end at any question (quiz_end) */
    return r;
  }
  /* A hosted room (serve --prober remote) whose laptop is not connected:
   * what measures (Measure, Re-run, Answer) would only wait for it, so it
   * is not offered. */
  var LAPTOP_CMDS = ['measure', 'rerun', 'answer'];
  function withoutLaptop(r, q) {
    var ok = r.ok.filter(function (c) { return LAPTOP_CMDS.indexOf(c) < 0; });
    var gone = r.ok.filter(function (c) { return LAPTOP_CMDS.indexOf(c) >= 0; }).map(function (c) { return fvT('presenter.cmd_' + c); });
    if (q.measuring) return { next: null, ok: ok, hint: fvT('presenter.hint_measuring_away') };
    if (!gone.length) return r;
    if (r.next === 'measure')
      return { next: null, ok: ok, hint: fvT(ok.indexOf('revote') >= 0 ? 'presenter.hint_measure_away_revote' : 'presenter.hint_measure_away') };
    return { next: r.next, ok: ok, hint: fvTn('presenter.hint_wait_laptop', gone.length, { hint: r.next === 'open' ? fvT('presenter.hint_open') : r.hint,
      cmds: gone.join(fvT('presenter.and')) }) };
  }
  function planStep(q, first) {
    if (q.measuring) return { next: null, ok: ['skip'], hint: fvT('presenter.hint_measuring') };
    switch (q.state) {
    case 'pending': return { next: 'open', ok: ['open', 'next', 'skip', 'answer'].concat(first ? [] : ['back']), hint: fvT('presenter.hint_pending') };
    case 'voting': return { next: 'close', ok: ['close', 'skip'], hint: fvT('presenter.hint_voting') };
    case 'closed': return { next: 'measure', ok: ['measure', 'rerun', 'skip'].concat(q.round === 2 ? [] : ['revote'], first ? [] : ['back']),
      hint: fvT(q.round === 2 ? 'presenter.hint_closed_round2' : 'presenter.hint_closed') };
    case 'measured': return { next: 'reveal', ok: ['reveal', 'rerun', 'skip'].concat(first ? [] : ['back']), hint: fvT('presenter.hint_measured') };
    case 'revealed': return { next: 'next', ok: ['next', 'rerun', 'why'].concat(first ? [] : ['back']), hint: fvT('presenter.hint_revealed') };
    case 'skipped': return { next: 'next', ok: ['next'].concat(first ? [] : ['back']), hint: fvT('presenter.hint_skipped') };
    }
    return { next: null, ok: [], hint: '' };
  }

  function send(name, seconds) {
    if (!authed || !online) return;
    var cmd = { t: 'cmd', cmd: name };
    if (name === 'open' && seconds > 0) cmd.seconds = seconds;
    if (conn.send(cmd)) { busyUntil = Date.now() + BUSY_MS; showError(''); }
  }
  function timerField() {
    var v = parseInt(fvEl('seconds').value, 10);
    return v > 0 ? Math.min(v, 3600) : 0;
  }

  Array.prototype.forEach.call(document.querySelectorAll('[data-cmd]'), function (b) {
    var name = b.getAttribute('data-cmd');
    buttons[name] = b;
    b.addEventListener('click', function () {
      if (name === 'end' && !endArmed()) return;
      send(name, name === 'open' ? timerField() : 0);
    });
  });

  /* End skips every question not revealed, for good: the first press (or
   * f) only asks again, for END_CONFIRM_MS. */
  var END_CONFIRM_MS = 4000, endAsked = 0;
  function endArmed() {
    if (Date.now() - endAsked < END_CONFIRM_MS) { endAsked = 0; buttons.end.textContent = fvT('presenter.btn_end'); return true; }
    endAsked = Date.now();
    buttons.end.textContent = fvT('presenter.end_again');
    setTimeout(function () { if (Date.now() - endAsked >= END_CONFIRM_MS) buttons.end.textContent = fvT('presenter.btn_end'); }, END_CONFIRM_MS);
    return false;
  }

  function controls() {
    var p = state ? plan(state) : { next: null, ok: [], hint: '' };
    Object.keys(buttons).forEach(function (name) {
      var b = buttons[name], ok = authed && online && p.ok.indexOf(name) >= 0;
      b.disabled = !ok;
      b.classList.toggle('primary', ok && p.next === name);
      b.classList.toggle('quiet', ok && p.next !== name);
    });
    /* the projector's view of the revealed question (docs/PROTOCOL.md reveal.view) */
    var why = !!(state && state.reveal && state.reveal.view === 'why');
    buttons.why.setAttribute('aria-pressed', why ? 'true' : 'false');
    var hint = p.hint + (p.ok.indexOf('why') >= 0 ? ' ' + fvT(why ? 'presenter.hint_why_on' : 'presenter.hint_why_off') : '');
    fvText('nexthint', online ? hint : fvT('presenter.hint_offline'));
  }

  /* Keys: only when the page is unlocked and no text field has the focus. */
  document.addEventListener('keydown', function (ev) {
    if (!authed || !state || ev.ctrlKey || ev.altKey || ev.metaKey) return;
    var t = ev.target;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA')) return;
    /* Space or Enter on a focused button presses that button, as anywhere. */
    if (t && t.tagName === 'BUTTON' && (ev.key === ' ' || ev.key === 'Enter')) return;
    var k = ev.key, p = plan(state), now = Date.now(), act = null, secs = 0;
    if (k === 'PageDown' || k === 'ArrowRight' || k === ' ' || k === 'Spacebar') {
      if (ev.preventDefault) ev.preventDefault();
      if (now < busyUntil || now - changedAt < DOUBLE_PRESS_MS) return;
      act = p.next;
      if (act === 'open') secs = timerField();
    } else if (k === 'PageUp' || k === 'ArrowLeft') {
      if (ev.preventDefault) ev.preventDefault();
      act = 'back';
    } else {
      act = { o: 'open', t: 'open', c: 'close', v: 'revote', m: 'measure', r: 'reveal', n: 'next', e: 'rerun', s: 'skip', b: 'back', f: 'end', a: 'answer', w: 'why' }[k] || null;
      if (act === 'end' && !endArmed()) act = null;
      if (k === 't') secs = timerField() || TIMER_KEY_S;
      else if (k === 'o') secs = timerField();
    }
    if (act && p.ok.indexOf(act) >= 0) send(act, secs);
  });

  function bars(yes, no) {
    var total = yes + no;
    fvEl('yesbar').style.width = total ? Math.round(100 * yes / total) + '%' : '0';
    fvEl('nobar').style.width = total ? Math.round(100 * no / total) + '%' : '0';
    fvText('yesn', String(yes));
    fvText('non', String(no));
    fvText('split', fvT('presenter.split', { yes: yes, no: no }));
    fvText('votes', fvTn('count.votes', total));
  }

  function render(s) {
    var q = s.q, rv = s.reveal;
    fvText('title', s.title);
    fvText('roomchip', fvT('common.room', { room: s.room }));
    fvText('qnum', s.ended ? fvT('presenter.ended') : fvT('common.qnum', { q: q.pos + 1, n: s.n }));
    var cls = fvStateClass(s), chip = fvEl('qstate');
    var word = s.ended ? fvT('chip.ended') : q.measuring ? fvT('chip.measuring') : fvT('qstate.' + q.state);
    chip.textContent = !s.ended && q.round === 2 ? fvT('presenter.chip_round2', { state: word }) : word;
    chip.className = 'chip ' + cls;
    fvText('roomsees', fvT('presenter.room_sees', { words: fvStateWords(s) }));
    laptop(s);
    /* the state before a jump to this question: the skip note, worded at each render */
    var skipNote = skipFrom ? fvSkipped(skipFrom, s) : '';
    fvText('skipnote', skipNote);
    fvShow('skipnote', !!skipNote && q.state === 'pending');
    fvQuestion('qtext', q);
    fvText('qsummary', fvSummary(q));
    if (s.split) bars(s.split.yes, s.split.no);
    fvShow('splitnote', !s.live_split && (q.state === 'voting' || q.state === 'pending'));
    fvText('notes', q.notes || '');
    fvShow('notesbox', !!q.notes && !s.ended);
    fvShow('revealbox', !!rv);
    var known = rv && (rv.truth === 'yes' || rv.truth === 'no');
    fvEl('bars').classList.toggle('revealed', !!known);
    fvEl('yesrow').classList.toggle('true', !!known && rv.truth === 'yes');
    fvEl('norow').classList.toggle('true', !!known && rv.truth === 'no');
    fvText('yesmark', known && rv.truth === 'yes' ? fvT('common.measured_mark') : '');
    fvText('nomark', known && rv.truth === 'no' ? fvT('common.measured_mark') : '');
    if (rv) {
      var v = fvEl('verdict');
      v.textContent = rv.majority ? fvT('presenter.verdict_said', { verdict: fvVerdictWords(rv), vote: fvT('answer.' + rv.majority) }) : fvVerdictWords(rv);
      v.className = 'chip ' + fvVerdictClass(rv);
      var tw = { truth: fvT('answer.' + (known ? rv.truth : 'unknown')).toUpperCase(), basis: fvT('basis.' + rv.basis), words: known ? fvTruthWords(q.kind, rv.truth) : '' };
      fvText('truth', fvT(known ? 'presenter.truth_words' : 'presenter.truth', tw));
      fvEvidence('evidence', rv);
      fvExplain(rv);
      fvText('shift', fvShift(rv));
      var c = rv.confidence;
      fvMsgText('confheadline', c && c.headline_msg, c && c.headline);
      fvText('confsplit', c ? fvT(c.moved ? 'conf.by_moved' : 'conf.by', { split: fvConfSplit(c), moved: fvConfMoved(c) }) : '');
    }
    /* the projector's picture (after revealbox is shown: path.js measures its
     * lines); a narrow presenter page gets the phone's one-hop-per-row layout */
    var width = fvEl('revealbox').clientWidth;
    fvPath.show(fvEl('path'), rv && rv.path, width && width < 520 ? 'tall' : 'wide');
    var score = s.scored ? fvTn('common.score', s.scored, { pct: fvT('common.pct', { n: Math.round(s.collective * 100) }) }) : '';
    fvText('collective', score ? fvT('common.score_so_far', { score: score }) : fvT('presenter.nothing_scored'));
    fvShow('finalbox', !!s.ended);
    if (s.ended) {
      fvText('finalscore', score ? fvT('common.final_score', { score: score }) : fvT('common.none_scored'));
      board(s);
    }
    fvText('calibration', s.ended ? fvCalibration(s.calibration) : '');
    controls();
  }

  /* "prober" is in the state only in a hosted room (docs/PROTOCOL.md). */
  function laptop(s) {
    var e = fvEl('laptop');
    fvShow('laptop', 'prober' in s);
    e.textContent = fvT(s.prober ? 'presenter.laptop_here' : 'presenter.laptop_away');
    e.className = s.prober ? 'muted' : 'laptop-away';
  }

  function board(s) {
    var rows = (s.questions || []).map(function (q) {
      var tr = document.createElement('tr');
      var mark = q.correct == null || q.correct < 0 ? '·' : q.correct === 1 ? '✔' : q.correct === 0 ? '✘' : '½';
      [q.pos + 1, fvBoardQuestion(q), q.yes == null ? '' : q.yes, q.no == null ? '' : q.no,
        fvBoardTruth(q), mark].forEach(function (c) {
        var td = document.createElement('td');
        td.textContent = String(c);
        tr.appendChild(td);
      });
      return tr;
    });
    fvEl('board').replaceChildren.apply(fvEl('board'), rows);
  }

  var connNow = 'connecting';
  function showConn() {
    var e = fvEl('conn');
    e.textContent = fvT(online ? 'conn.online' : connNow === 'connecting' ? 'conn.connecting' : 'conn.reconnecting');
    e.className = online ? '' : 'offline';
  }

  conn = fvConnect('fragvote-presenter', {
    status: function (s) {
      online = s === 'online';
      connNow = s;
      showConn();
      fvShow('offline', !online && authed);
      if (!online) { countdown.stop(); busyUntil = 0; }
      controls();
    },
    open: auth,
    message: function (m) {
      switch (m.t) {
      case 'auth_ok':
        authed = true;
        try { sessionStorage.setItem('fragvote_secret', secret); } catch (e) { }
        fvShow('auth', false);
        fvShow('panel', true);
        fvShow('offline', false);
        showError('');
        controls();
        break;
      case 'state':
        countdown(m);
        if (state && state.q.pos !== m.q.pos) { skipFrom = state; bars(0, 0); }
        if (!state || state.q.state !== m.q.state || state.q.pos !== m.q.pos || state.ended !== m.ended) changedAt = Date.now();
        state = m;
        busyUntil = 0;
        /* the deck's language or serve --lang (?lang= in the address wins) */
        if (!fvParam('lang') && fvFollowLang(m.lang, function () { showConn(); render(state); })) break;
        render(m);
        break;
      case 'tally':
        countdown(m);
        fvText('tally', fvT('presenter.tally', { online: fvTn('count.phones_online', m.online), joined: fvTn('count.joined', m.joined) }));
        if (state && m.q !== state.q.pos) break; /* still about the previous question */
        if ('yes' in m) bars(m.yes, m.no);
        else fvText('votes', fvTn('count.votes', m.votes));
        break;
      case 'cmd_ok':
        busyUntil = 0;
        if (m.cmd === 'open') fvEl('seconds').value = ''; /* the timer was for that Open only */
        break;
      case 'error':
        busyUntil = 0;
        if (m.code === 'bad_secret' || m.code === 'throttled') { authed = false; fvShow('auth', true); fvShow('panel', false); }
        showError(m.code === 'refused' || m.code === 'bad_cmd' ? fvT('presenter.refused', { reason: m.message }) : fvError(m));
        controls();
        break;
      }
    }
  });
});
