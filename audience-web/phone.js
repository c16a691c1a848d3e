/* The phone page: join, vote, see the truth, share the score. */
'use strict';
(function () {
  var TOKEN_KEY = 'fragvote_token', ROOM_KEY = 'fragvote_room';
  var token = readToken(), room = (fvParam('room') || store('get', ROOM_KEY) || '').toUpperCase();
  var state = null, votes = [], pending = null, nextId = 1, joined = false, conn = null;
  var countdown = fvCountdown('countdown');

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

  function vote(yes) {
    if (!state || state.q.state !== 'voting') return;
    pending = { id: nextId++, q: state.q.pos, yes: yes };
    if (!conn.send({ t: 'vote', id: pending.id, q: pending.q, yes: yes })) {
      pending = null;
      fvText('ack', 'offline — reconnecting, vote again in a moment');
      return;
    }
    render();
  }
  fvEl('yes').addEventListener('click', function () { vote(true); });
  fvEl('no').addEventListener('click', function () { vote(false); });

  function render() {
    if (!state) return;
    fvText('title', state.title + ' · room ' + state.room);
    if (state.ended) { renderFinal(); return; }
    fvShow('final', false);
    fvShow('play', joined);
    var q = state.q, mine = votes[q.pos];
    fvText('qnum', 'Question ' + (q.pos + 1) + ' of ' + state.n + ' · ' + q.state +
      (q.round === 2 ? ' · second round: talk to your neighbour, then vote again' : ''));
    fvText('qtext', q.text);
    fvText('qsummary', q.summary);
    var open = q.state === 'voting';
    fvEl('yes').disabled = !open;
    fvEl('no').disabled = !open;
    var shown = pending && pending.q === q.pos ? (pending.yes ? 1 : 0) : mine;
    fvEl('yes').classList.toggle('chosen', shown === 1);
    fvEl('no').classList.toggle('chosen', shown === 0);
    var ack = fvEl('ack');
    ack.classList.remove('ok');
    if (pending && pending.q === q.pos) ack.textContent = 'sending…';
    else if (mine === 0 || mine === 1) { ack.textContent = 'vote counted ✓ (' + (mine ? 'yes' : 'no') + ')'; ack.classList.add('ok'); }
    else ack.textContent = open ? 'tap Yes or No' : (q.state === 'pending' ? 'voting opens soon' : 'you did not vote');
    var rv = state.reveal;
    fvShow('revealcard', !!rv);
    if (rv) {
      var v = document.createElement('div');
      if (mine === 0 || mine === 1) {
        var right = (mine === 1) === (rv.truth === 'yes');
        v.className = rv.truth === 'unknown' ? '' : right ? 'right' : 'wrong';
        v.textContent = rv.truth === 'unknown' ? 'Nobody can tell for sure.' : right ? 'You were right ✔' : 'Not this time ✘';
      } else v.textContent = 'You did not vote on this one.';
      fvEl('verdict').replaceChildren(v);
      fvText('truth', rv.truth);
      fvText('basis', '(' + rv.basis + ')');
      fvText('evidence', rv.evidence || rv.why || '');
    }
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
    return { text: 'fragvote ' + state.room + ' ' + right + '/' + scored + '\n' + rows.join('\n'), right: right, scored: scored };
  }

  function renderFinal() {
    fvShow('play', false);
    fvShow('final', true);
    var s = shareText();
    fvText('score', s.right + ' right out of ' + s.scored + ' scored questions.');
    fvText('grid', s.text.split('\n').slice(1).join('\n'));
  }

  /* navigator.clipboard needs a secure context, which a phone on
   * http://<laptop-ip>/ is not: fall back to select + execCommand. */
  fvEl('copy').addEventListener('click', function () {
    var text = shareText().text;
    function done(ok) { fvText('copied', ok ? 'copied ✓' : 'select and copy the text above'); }
    if (window.isSecureContext && navigator.clipboard) {
      navigator.clipboard.writeText(text).then(function () { done(true); }, function () { done(legacyCopy(text)); });
    } else done(legacyCopy(text));
  });
  /* The copy leaves nothing behind: no selection, no text in the hidden
   * textarea, and the focus back where it was (the button: a keyboard or
   * screen-reader user stays in place). */
  function legacyCopy(text) {
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

  conn = fvConnect('fragvote-audience', {
    status: function (s, why) {
      var e = fvEl('conn');
      e.textContent = s === 'online' ? 'online' : s === 'connecting' ? 'connecting…' : 'offline — reconnecting' + (why ? ' (' + why + ')' : '');
      e.className = s === 'online' ? '' : 'offline';
      if (s !== 'online') pending = null;
    },
    open: hello,
    message: function (m) {
      switch (m.t) {
      case 'welcome':
        saveToken(m.token);
        store('set', ROOM_KEY, m.room);
        room = m.room;
        votes = m.votes || [];
        joined = true;
        fvShow('join', false);
        fvText('error', '');
        render();
        break;
      case 'state':
        countdown(m);
        if (state && state.q.pos !== m.q.pos) pending = null;
        /* A re-vote: everyone votes again, the first round's vote is kept apart. */
        if (state && state.q.pos === m.q.pos && m.q.round === 2 && state.q.round !== 2) { votes[m.q.pos] = -1; pending = null; }
        state = m;
        render();
        break;
      case 'ack':
        votes[m.q] = m.yes ? 1 : 0;
        if (pending && pending.id === m.id) pending = null;
        render();
        break;
      case 'tally':
        countdown(m);
        fvText('tally', m.online + ' online · ' + m.votes + ' vote' + (m.votes === 1 ? '' : 's') +
          ('yes' in m ? ' · yes ' + m.yes + ' / no ' + m.no : ''));
        break;
      case 'error':
        if (pending && m.id === pending.id) pending = null;
        if (m.code === 'bad_room') { room = ''; store('set', ROOM_KEY, ''); fvShow('join', true); fvShow('play', false); }
        fvText('error', m.message);
        render();
        break;
      }
    }
  });
})();
