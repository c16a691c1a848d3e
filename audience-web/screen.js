/* The projector: join URL + QR, question, live count, bars after close,
 * truth after reveal, collective score; at the end the final scoreboard in
 * their place. */
'use strict';
(function () {
  var state = null, split = null, countdown = fvCountdown('countdown');

  function pct(x) { return Math.round(x * 100) + '%'; }

  function bars(yes, no) {
    var total = yes + no;
    fvShow('bars', true);
    fvEl('yesbar').style.width = total ? pct(yes / total) : '0';
    fvEl('nobar').style.width = total ? pct(no / total) : '0';
    fvText('yesn', String(yes));
    fvText('non', String(no));
  }

  function render() {
    if (!state) return;
    var q = state.q;
    fvText('title', state.title);
    fvText('code', state.room);
    fvText('url', state.join_url.replace(/^https?:\/\//, ''));
    fvText('qnum', 'Question ' + (q.pos + 1) + ' of ' + state.n + ' · ' + q.state + (q.measuring ? ' · measuring…' : '') +
      (q.round === 2 ? ' · second round: talk to your neighbour, then vote again' : ''));
    fvText('qtext', q.text);
    fvText('qsummary', q.summary);
    if (split) bars(split.yes, split.no); else fvShow('bars', false);
    var rv = state.reveal;
    fvShow('reveal', !!rv);
    if (rv) {
      var t = fvEl('truth');
      t.textContent = rv.truth.toUpperCase() + ' (' + rv.basis + ')';
      t.className = 'truth ' + rv.truth;
      fvText('evidence', rv.evidence || rv.why);
      fvText('majority', rv.majority ? 'The room said ' + rv.majority + (rv.correct === 1 ? ' — right!' : rv.correct === 0 ? ' — wrong.' : rv.correct === 0.5 ? ' — split.' : '') : 'No votes.');
      fvText('shift', rv.shift ? 'Re-vote: ' + rv.shift : '');
    }
    var score = state.scored ? pct(state.collective) + ' over ' + state.scored + ' question' + (state.scored === 1 ? '' : 's') : '';
    fvText('collective', score ? 'Room score so far: ' + score : '');
    /* At the end the scoreboard replaces the last question, its bars and
     * truth: on a projector nothing below the first screenful is seen. */
    fvShow('live', !state.ended);
    fvShow('final', !!state.ended);
    if (state.ended) {
      fvText('finalscore', score ? 'This room scored ' + score : 'No question was scored.');
      fvText('league', state.league || '');
      board();
    }
  }

  function board() {
    var rows = (state.questions || []).map(function (q) {
      var tr = document.createElement('tr');
      var cells = [q.pos + 1, 'test ' + (q.test + 1) + ' · ' + fvKindWord(q.kind), q.yes == null ? '' : q.yes,
        q.no == null ? '' : q.no, q.truth || q.state,
        q.correct == null || q.correct < 0 ? '·' : q.correct === 1 ? '✔' : q.correct === 0 ? '✘' : '½'];
      cells.forEach(function (c) { var td = document.createElement('td'); td.textContent = String(c); tr.appendChild(td); });
      return tr;
    });
    fvEl('board').replaceChildren.apply(fvEl('board'), rows);
    fitBoard();
  }

  /* A projector has one screenful: a long deck's board (the built-in one
   * has 38 questions) gets smaller type until it fits, down to 35%. */
  function fitBoard() {
    var table = fvEl('boardtable'), scale = 1;
    table.style.fontSize = '';
    for (var i = 0; i < 6; i++) {
      var over = fvEl('final').getBoundingClientRect().bottom - window.innerHeight;
      if (!(over > 0) || scale <= 0.35) return;
      var h = table.getBoundingClientRect().height;
      scale = Math.max(0.35, scale * (h - over) / h);
      table.style.fontSize = (0.8 * scale).toFixed(3) + 'em';
    }
  }
  window.addEventListener('resize', function () { if (state && state.ended) fitBoard(); });

  fvConnect('fragvote-screen', {
    status: function (s) { fvText('conn', s === 'online' ? '' : '(' + s + ')'); },
    open: function () { },
    message: function (m) {
      if (m.t === 'state' || m.t === 'tally') countdown(m);
      if (m.t === 'state') {
        state = m;
        split = m.split || null;
        render();
      } else if (m.t === 'tally') {
        fvText('online', String(m.online));
        fvText('votes', String(m.votes));
        if ('yes' in m) { split = { yes: m.yes, no: m.no }; bars(m.yes, m.no); }
      }
    }
  });
})();
