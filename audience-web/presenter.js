/* The presenter's browser view: everything the room sees plus the live
 * split, the timer, the speaker notes and what to press next. Needs the
 * secret; it is kept only in this tab (sessionStorage), or passed as
 * #secret=... (removed from the address bar at once; ?secret= is ignored).
 * A presentation clicker works: PageDown / → / Space do the highlighted
 * step (Space too, unless a button has the focus), PageUp / ← go back; the console's letter keys do the same here. */
'use strict';
(function () {
  var secret = fragmentSecret() || (function () { try { return sessionStorage.getItem('fragvote_secret') || ''; } catch (e) { return ''; } })();
  var authed = false, online = false, conn, state = null, skipNote = '', errTimer = null;
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

  /* What the quiz accepts now (presenter/room/quiz.c) and the one step that
   * moves the talk on: the highlighted button. */
  function plan(s) {
    var q = s.q, first = q.pos === 0;
    if (s.ended) return { next: null, ok: ['back'], hint: 'The quiz has ended. Back returns to the last question.' };
    var r = planStep(q, first);
    if (s.prober === false) r = withoutLaptop(r, q);
    if (r.ok.length) r.ok.push('end'); /* the talk may end at any question (quiz_end) */
    return r;
  }
  /* A hosted room (serve --prober remote) whose laptop is not connected:
   * what measures (Measure, Re-run, Answer) would only wait for it, so it
   * is not offered. */
  var LAPTOP_WORDS = { measure: 'Measure', rerun: 'Re-run', answer: 'Answer without a vote' };
  function withoutLaptop(r, q) {
    var ok = r.ok.filter(function (c) { return !LAPTOP_WORDS[c]; });
    var gone = r.ok.filter(function (c) { return LAPTOP_WORDS[c]; }).map(function (c) { return LAPTOP_WORDS[c]; });
    if (q.measuring) return { next: null, ok: ok, hint: 'Measuring… waiting for the laptop that measures: it is not connected.' };
    if (!gone.length) return r;
    if (r.next === 'measure')
      return { next: null, ok: ok, hint: 'Measure waits for the laptop that measures: it is not connected.' +
        (ok.indexOf('revote') >= 0 ? ' A second round (re-vote) does not need it.' : '') };
    return { next: r.next, ok: ok, hint: (r.next === 'open' ? 'Next: open voting.' : r.hint) + ' ' + gone.join(' and ') + ' wait' + (gone.length > 1 ? '' : 's') + ' for the laptop that measures.' };
  }
  function planStep(q, first) {
    if (q.measuring) return { next: null, ok: ['skip'], hint: 'Measuring… the probe is running.' };
    switch (q.state) {
    case 'pending': return { next: 'open', ok: ['open', 'next', 'skip', 'answer'].concat(first ? [] : ['back']), hint: 'Next: open voting (or show the answer without a vote).' };
    case 'voting': return { next: 'close', ok: ['close', 'skip'], hint: 'The room votes. Next: close voting.' };
    case 'closed': return { next: 'measure', ok: ['measure', 'rerun', 'skip'].concat(q.round === 2 ? [] : ['revote'], first ? [] : ['back']),
      hint: 'Next: measure (send the packet)' + (q.round === 2 ? '.' : ', or a second round (re-vote) after the room talked.') };
    case 'measured': return { next: 'reveal', ok: ['reveal', 'rerun', 'skip'].concat(first ? [] : ['back']), hint: 'Measured. Next: reveal it to the room.' };
    case 'revealed': return { next: 'next', ok: ['next', 'rerun'].concat(first ? [] : ['back']), hint: 'Next: the next question.' };
    case 'skipped': return { next: 'next', ok: ['next'].concat(first ? [] : ['back']), hint: 'Skipped. Next: the next question.' };
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
  var END_CONFIRM_MS = 4000, endAsked = 0, endLabel = buttons.end ? buttons.end.textContent : '';
  function endArmed() {
    if (Date.now() - endAsked < END_CONFIRM_MS) { endAsked = 0; buttons.end.textContent = endLabel; return true; }
    endAsked = Date.now();
    buttons.end.textContent = 'Press again to end the quiz';
    setTimeout(function () { if (Date.now() - endAsked >= END_CONFIRM_MS) buttons.end.textContent = endLabel; }, END_CONFIRM_MS);
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
    fvText('nexthint', online ? p.hint : 'Offline.');
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
      act = { o: 'open', t: 'open', c: 'close', v: 'revote', m: 'measure', r: 'reveal', n: 'next', e: 'rerun', s: 'skip', b: 'back', f: 'end', a: 'answer' }[k] || null;
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
    fvText('split', 'Yes ' + yes + ' · No ' + no);
    fvText('votes', fvCount(total, 'vote'));
  }

  function render(s) {
    var q = s.q, rv = s.reveal;
    fvText('title', s.title);
    fvText('roomchip', 'room ' + s.room);
    fvText('qnum', s.ended ? 'The quiz has ended' : 'Question ' + (q.pos + 1) + ' of ' + s.n);
    var cls = fvStateClass(s), chip = fvEl('qstate');
    chip.textContent = (s.ended ? 'ended' : q.measuring ? 'measuring…' : q.state) + (!s.ended && q.round === 2 ? ' · round 2' : '');
    chip.className = 'chip ' + cls;
    fvText('roomsees', 'The projector shows: ' + fvStateWords(s));
    laptop(s);
    fvText('skipnote', skipNote);
    fvShow('skipnote', !!skipNote && q.state === 'pending');
    fvQuestion('qtext', q.text);
    fvText('qsummary', q.summary);
    if (s.split) bars(s.split.yes, s.split.no);
    fvShow('splitnote', !s.live_split && (q.state === 'voting' || q.state === 'pending'));
    fvText('notes', q.notes || '');
    fvShow('notesbox', !!q.notes && !s.ended);
    fvShow('revealbox', !!rv);
    var known = rv && (rv.truth === 'yes' || rv.truth === 'no');
    fvEl('bars').classList.toggle('revealed', !!known);
    fvEl('yesrow').classList.toggle('true', !!known && rv.truth === 'yes');
    fvEl('norow').classList.toggle('true', !!known && rv.truth === 'no');
    fvText('yesmark', known && rv.truth === 'yes' ? '✔ measured' : '');
    fvText('nomark', known && rv.truth === 'no' ? '✔ measured' : '');
    if (rv) {
      var v = fvEl('verdict');
      v.textContent = fvVerdictWords(rv) + (rv.majority ? ' (the room said ' + rv.majority + ')' : '');
      v.className = 'chip ' + fvVerdictClass(rv);
      fvText('truth', 'Measured: ' + rv.truth.toUpperCase() + ' (' + rv.basis + ')' + (known ? ' — ' + fvTruthWords(q.kind, rv.truth) : ''));
      fvText('evidence', rv.evidence || rv.why || '');
      fvExplain(rv);
      fvText('shift', rv.shift ? 'Re-vote: ' + rv.shift : '');
      var c = rv.confidence;
      fvText('confheadline', c && c.headline ? c.headline : '');
      fvText('confsplit', c ? 'By confidence: ' + fvConfSplit(c) + (c.moved ? ' · ' + c.moved : '') : '');
    }
    /* the projector's picture (after revealbox is shown: path.js measures its
     * lines); a narrow presenter page gets the phone's one-hop-per-row layout */
    var width = fvEl('revealbox').clientWidth;
    fvPath.show(fvEl('path'), rv && rv.path, width && width < 520 ? 'tall' : 'wide');
    fvText('collective', s.scored ? 'Room score so far: ' + Math.round(s.collective * 100) + '% over ' + fvCount(s.scored, 'question') : 'Room score: nothing scored yet');
    fvShow('finalbox', !!s.ended);
    if (s.ended) {
      fvText('finalscore', s.scored ? 'This room scored ' + Math.round(s.collective * 100) + '% over ' + fvCount(s.scored, 'question') : 'No question was scored.');
      board(s);
    }
    fvText('calibration', s.ended ? fvCalibration(s.calibration) : '');
    controls();
  }

  /* "prober" is in the state only in a hosted room (docs/PROTOCOL.md). */
  function laptop(s) {
    var e = fvEl('laptop');
    fvShow('laptop', 'prober' in s);
    e.textContent = s.prober ? 'Laptop connected' :
      'The laptop that measures is not connected (run fragvote present on it): Measure waits for it.';
    e.className = s.prober ? 'muted' : 'laptop-away';
  }

  function board(s) {
    var rows = (s.questions || []).map(function (q) {
      var tr = document.createElement('tr');
      var mark = q.correct == null || q.correct < 0 ? '·' : q.correct === 1 ? '✔' : q.correct === 0 ? '✘' : '½';
      [q.pos + 1, 'test ' + (q.test + 1) + ' · ' + fvKindWord(q.kind), q.yes == null ? '' : q.yes, q.no == null ? '' : q.no,
        q.truth || q.state, mark].forEach(function (c) {
        var td = document.createElement('td');
        td.textContent = String(c);
        tr.appendChild(td);
      });
      return tr;
    });
    fvEl('board').replaceChildren.apply(fvEl('board'), rows);
  }

  conn = fvConnect('fragvote-presenter', {
    status: function (s) {
      var e = fvEl('conn');
      online = s === 'online';
      e.textContent = online ? 'online' : s === 'connecting' ? 'connecting…' : 'offline — reconnecting';
      e.className = online ? '' : 'offline';
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
        if (state && state.q.pos !== m.q.pos) { skipNote = fvSkipped(state, m); bars(0, 0); }
        if (!state || state.q.state !== m.q.state || state.q.pos !== m.q.pos || state.ended !== m.ended) changedAt = Date.now();
        state = m;
        busyUntil = 0;
        render(m);
        break;
      case 'tally':
        countdown(m);
        fvText('tally', fvCount(m.online, 'phone') + ' online · ' + m.joined + ' joined');
        if (state && m.q !== state.q.pos) break; /* still about the previous question */
        if ('yes' in m) bars(m.yes, m.no);
        else fvText('votes', fvCount(m.votes, 'vote'));
        break;
      case 'cmd_ok':
        busyUntil = 0;
        if (m.cmd === 'open') fvEl('seconds').value = ''; /* the timer was for that Open only */
        break;
      case 'error':
        busyUntil = 0;
        if (m.code === 'bad_secret' || m.code === 'throttled') { authed = false; fvShow('auth', true); fvShow('panel', false); }
        showError(m.message);
        controls();
        break;
      }
    }
  });
})();
