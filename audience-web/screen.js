/* The projector: a banner per moment of the question (vote now with a big
 * countdown, voting closed, measuring, the room's verdict), the question,
 * the live count, neutral yes/no bars after close with the true one marked
 * after the reveal, the path picture and the room's score, or, when the
 * presenter asks "why", the rules' explanation and the evidence in large type; the join box (QR,
 * URL, room code) on the right. At the end the final scoreboard takes the
 * question's place. Everything fits one screenful: nobody scrolls a projector.
 *
 * /screen/?q=N (docs/SLIDES.md): question N alone (1-based, as the console
 * and the presenter page count), whatever question the room is on, for a
 * slide deck's iframe: no join box, no final board; &view=result: only its
 * result, and before its reveal a neutral "not revealed yet". */
'use strict';
fvI18n.use(fvParam('lang') || 'en', function () {
  var BOARD_ONE_COLUMN = 14; /* rows of the final board before it splits into two columns */
  var state = null, split = null, online = false, skipFrom = null;
  var qParam = fvParam('q');
  /* the position followed (0-based), -1 none, -2 a q that is no question number */
  var follow = !qParam ? -1 : /^[1-9][0-9]{0,3}$/.test(qParam) ? +qParam - 1 : -2;
  var resultOnly = follow !== -1 && fvParam('view') === 'result';
  if (follow !== -1) document.body.classList.add('embed');
  if (resultOnly) document.body.classList.add('resultonly');
  var countdown = fvCountdown('countdown', function (s) { return s + ' s'; }, function (left) {
    fvEl('banner').classList.toggle('urgent', left > 0 && left <= 5);
  });

  function pct(x) { return fvT('common.pct', { n: Math.round(x * 100) }); }

  /* widths in CSS's percent, not in words: German's "33 %" is no width */
  function bars(yes, no) {
    var total = yes + no;
    fvShow('bars', true);
    fvEl('yesbar').style.width = total ? Math.round(100 * yes / total) + '%' : '0';
    fvEl('nobar').style.width = total ? Math.round(100 * no / total) + '%' : '0';
    fvText('yesn', String(yes));
    fvText('non', String(no));
  }

  function counts(voters, votes) {
    fvEl('turnoutbar').style.width = voters > 0 ? Math.min(100, Math.round(100 * votes / voters)) + '%' : '0';
    fvText('online', String(voters));
    fvText('onlinew', fvTn('screen.voters_word', voters));
    fvText('votes', String(votes));
    fvText('votesw', fvTn('screen.votes_word', votes));
  }

  /* The URL in big type, breaking only after its '/' (before "?room="),
   * never inside the address. */
  function showUrl(u) {
    var e = fvEl('url'), i = u.indexOf('/') + 1, a = document.createElement('span'), b = document.createElement('span');
    if (i <= 0) i = u.length;
    a.textContent = u.slice(0, i);
    b.textContent = u.slice(i);
    a.className = b.className = 'nobreak';
    e.replaceChildren(a, b);
  }

  /* The state as the banner words it: a followed question's own, even
   * once the talk has ended (no final score on its slide). */
  function shown() { return follow >= 0 ? { q: state.q, reveal: state.reveal } : state; }

  function banner() {
    var b = fvEl('banner');
    if (!state) return;
    if (resultOnly && !state.reveal && online) return notYet(); /* not even the question's state */
    b.className = 'banner ' + fvStateClass(shown()) + (b.classList.contains('urgent') ? ' urgent' : '');
    fvText('bannertext', !online ? fvT('screen.offline') : fvStateWords(shown()));
    if (!online) b.className = 'banner offline';
  }

  /* ?q= names no question of this deck: said, and nothing else shown. */
  function noSuchQuestion() {
    fvText('bannertext', fvT('screen.no_such_question', { q: qParam }));
    fvEl('banner').className = 'banner pending';
    fvShow('live', false);
  }

  /* view=result before the reveal: neutral, and nothing of the question's
   * votes in the page (its text, count and bars are not even filled in). */
  function notYet() {
    fvText('qnum', fvT('screen.question', { q: follow + 1 }));
    fvText('bannertext', fvT('screen.not_revealed', { q: follow + 1 }));
    fvEl('banner').className = 'banner pending';
    fvEl('page').setAttribute('data-state', 'notyet');
    fvShow('live', false);
  }

  function render() {
    if (!state) return;
    if (resultOnly && !state.reveal) return notYet();
    var q = state.q;
    fvText('title', state.title);
    fvText('code', state.room);
    /* After the talk the join panel gives the short link to the phones'
     * replay (docs/SERVE.md "After the talk"): the hub's /r. */
    var replayAt = !!state.replay && !!state.ended && follow < 0, url = state.join_url.replace(/^https?:\/\//, '');
    fvText('orgo', fvT(replayAt ? 'screen.replay_at' : 'screen.or_go'));
    showUrl(replayAt ? url.replace(/\/?\?.*$/, '') + '/r' : url);
    fvText('qnum', state.ended && follow < 0 ? fvT('screen.final') : fvT('common.qnum', { q: q.pos + 1, n: state.n }));
    fvEl('page').setAttribute('data-state', fvStateClass(shown()));
    banner();
    fvQuestion('qtext', q);
    fvText('qsummary', fvSummary(q));
    /* the state before a jump to this question: the skip note, worded at each render */
    var skipNote = skipFrom ? fvSkipped(skipFrom, state) : '';
    fvText('skipnote', skipNote);
    fvShow('skipnote', !!skipNote && q.state === 'pending');
    if (split) bars(split.yes, split.no); else fvShow('bars', false);
    fvShow('turnout', q.state === 'voting' && !split);
    var rv = state.reveal;
    fvShow('reveal', !!rv);
    var known = rv && (rv.truth === 'yes' || rv.truth === 'no');
    fvEl('yesrow').classList.toggle('true', !!known && rv.truth === 'yes');
    fvEl('norow').classList.toggle('true', !!known && rv.truth === 'no');
    fvEl('bars').classList.toggle('revealed', !!known);
    fvText('yesmark', known && rv.truth === 'yes' ? fvT('common.measured_mark') : '');
    fvText('nomark', known && rv.truth === 'no' ? fvT('common.measured_mark') : '');
    /* Two views of a revealed question, the presenter's choice (docs/PROTOCOL.md
     * reveal.view): "what" happened (verdict, bars, path picture) or "why" (the
     * rules' explanation and the evidence, large enough to read from the back
     * of the room, in place of the bars and the picture). */
    var why = !!rv && rv.view === 'why' && !resultOnly;
    fvEl('page').classList.toggle('whyview', why);
    fvShow('explain', why);
    fvShow('evidence', why);
    fvPath.show(fvEl('path'), !resultOnly && !why && rv && rv.path, 'wide');
    /* the picture needs the width: the join column steps back while it is shown */
    fvEl('page').classList.toggle('haspath', !fvEl('path').hidden);
    fvExplain(rv); /* the whole chain, cleared when nothing is revealed */
    if (rv) {
      var t = fvEl('truth');
      t.textContent = fvT('screen.truth', { truth: fvT('answer.' + (known ? rv.truth : 'unknown')).toUpperCase(), basis: fvT('basis.' + rv.basis) });
      t.className = 'truth ' + rv.truth;
      fvText('truthwords', known ? fvT('screen.truth_words', { words: fvTruthWords(q.kind, rv.truth) }) : '');
      fvEvidence('evidence', rv);
      fvText('shift', fvShift(rv));
      var c = rv.confidence;
      fvMsgText('confheadline', c && c.headline_msg, c && c.headline);
      fvText('confsplit', c ? fvT(c.moved ? 'conf.by_moved' : 'conf.by', { split: fvConfSplit(c), moved: fvConfMoved(c) }) : '');
      var said = { vote: rv.majority ? fvT('answer.' + rv.majority) : '' };
      fvText('majority', !rv.majority ? fvT('screen.no_votes') : fvT(rv.correct === 1 ? 'screen.room_right' : rv.correct === 0 ? 'screen.room_wrong' :
        rv.correct === 0.5 ? 'screen.room_split' : 'screen.room_said', said));
    }
    var score = state.scored ? fvTn('common.score', state.scored, { pct: pct(state.collective) }) : '';
    fvText('collective', score && follow < 0 ? fvT('common.score_so_far', { score: score }) : '');
    /* At the end the scoreboard replaces the last question, its bars and
     * truth: on a projector nothing below the first screenful is seen. */
    var board = !!state.ended && follow < 0;
    fvShow('live', !board);
    fvShow('final', board);
    if (board) {
      fvText('finalscore', score ? fvT('common.final_score', { score: score }) : fvT('common.none_scored'));
      fvMsgText('league', state.league_msg, state.league); /* league.c's line, in English where the catalog lacks it */
      fvText('calibration', fvCalibration(state.calibration));
      leaders(state.leaderboard);
      finale(state.finale || {});
      boardRows();
    }
    fit();
  }

  /* The questions the room missed most, each with its lesson, and the
   * biggest shift a re-vote made (hub_msg.c finale_json). */
  function finale(f) {
    var items = (f.missed || []).map(function (m) {
      var li = document.createElement('li');
      var head = document.createElement('span');
      head.className = 'missedq';
      head.textContent = fvT('screen.missed', { q: m.pos + 1, pct: pct(m.wrong), text: m.ask ? fvQuestionText(m) : m.text });
      li.appendChild(head);
      if (m.lesson) {
        var l = document.createElement('span');
        l.className = 'lesson';
        var words = fvI18n.msg(m.lesson_msg); /* the rules' conclusion, in English when the catalog lacks it */
        if (words === null) l.setAttribute('lang', 'en');
        l.textContent = words !== null ? words : m.lesson;
        li.appendChild(l);
      }
      return li;
    });
    fvEl('missed').replaceChildren.apply(fvEl('missed'), items);
    var s = f.shift;
    fvText('shiftline', s ? fvT('screen.biggest_shift', { q: s.pos + 1, before: pct(s.before), after: pct(s.after) }) : '');
    fvShow('shiftline', !!s);
    fvShow('finale', items.length > 0 || !!s);
  }

  /* serve --leaderboard: the top nicknames by personal score (text only). */
  function leaders(list) {
    var items = (list || []).map(function (r) {
      var li = document.createElement('li');
      li.textContent = r.nick + ' — ' + r.correct + '/' + r.scored;
      return li;
    });
    fvShow('leaders', items.length > 0);
    fvEl('leaders').replaceChildren.apply(fvEl('leaders'), items);
  }

  /* The questions played: a talk ended early (end) or with skips lists
   * those it skipped as one line, not a row each. */
  function boardRows() {
    var all = state.questions || [], played = all.filter(function (q) { return q.state !== 'skipped'; });
    var skipped = all.length - played.length;
    fvText('skippedn', skipped ? fvTn('screen.skipped_n', skipped) : '');
    fvShow('skippedn', skipped > 0);
    var rows = played.map(function (q) {
      var tr = document.createElement('tr');
      var mark = q.correct == null || q.correct < 0 ? '·' : q.correct === 1 ? '✔' : q.correct === 0 ? '✘' : '½';
      var cells = [q.pos + 1, fvBoardQuestion(q), q.yes == null ? '' : q.yes,
        q.no == null ? '' : q.no, fvBoardTruth(q), mark];
      cells.forEach(function (c, i) {
        var td = document.createElement('td');
        td.textContent = String(c);
        if (i === 5) td.className = mark === '✔' ? 'right' : mark === '✘' ? 'wrong' : '';
        tr.appendChild(td);
      });
      return tr;
    });
    /* more rows than fit readably in one column: two halves side by side */
    var half = rows.length > BOARD_ONE_COLUMN ? Math.ceil(rows.length / 2) : rows.length;
    fvEl('board').replaceChildren.apply(fvEl('board'), rows.slice(0, half));
    fvEl('board2').replaceChildren.apply(fvEl('board2'), rows.slice(half));
    fvShow('boardtable2', half < rows.length);
    fvEl('boards').classList.toggle('two', half < rows.length);
  }

  /* A projector has one screenful: a long deck's board (the built-in one
   * has 38 questions) or a long question gets smaller type until it fits;
   * in the why view the explanation and the evidence keep their size
   * (style.css, --fv-read) while the rest shrinks, and give way only when
   * they alone do not fit. The URL gets the largest type in which each of
   * its two parts fits the join column's width. */
  function fit() {
    /* little on the screen (a question, a count): larger type fills it */
    var grow = !state ? 1 : state.ended || state.q.state === 'pending' || state.q.state === 'voting' ? 1.4 : 1.2;
    var stage = fvEl('stage');
    readSize(1);
    fvFit(stage, 0.2, grow);
    for (var k = 0, r = 1; k < 8 && overflows(stage); k++) readSize(r *= 0.9);
    var u = fvEl('url');
    if (!u || !u.style) return;
    var scale = 1;
    u.style.fontSize = '';
    for (var i = 0; i < 8 && u.scrollWidth > u.clientWidth && scale > 0.4; i++) {
      scale = Math.max(0.4, scale * u.clientWidth / u.scrollWidth * 0.98);
      u.style.fontSize = (scale * 1.6).toFixed(3) + 'em';
    }
  }
  window.addEventListener('resize', fit);

  function overflows(box) { return !!box && box.scrollHeight - box.clientHeight > 1; }

  /* The why view's lines at r times their own size (1: style.css's). */
  function readSize(r) {
    ['explain', 'evidence'].forEach(function (id) {
      var e = fvEl(id);
      if (e && e.style) e.style.fontSize = r === 1 ? '' : 'calc(var(--fv-read) * ' + r.toFixed(3) + ')';
    });
  }

  if (follow === -2) noSuchQuestion();
  else if (resultOnly) notYet();
  else if (follow >= 0) { fvText('qnum', fvT('screen.question', { q: follow + 1 })); fvShow('live', false); }
  var conn = fvConnect('fragvote-screen', {
    status: function (s) {
      online = s === 'online';
      fvShow('offline', !online);
      if (!online) countdown.stop();
      banner();
    },
    open: function () { if (follow >= 0) conn.send({ t: 'hello', q: follow }); },
    message: function (m) {
      if (follow === -2 || (m.t === 'error' && m.code === 'bad_question')) return noSuchQuestion();
      /* following a question: the state on connecting is the room's
       * current one until the hub has read the hello; tallies count the
       * current question (its own count comes with its states) */
      if (follow >= 0 && (m.t === 'state' ? m.q.pos : m.q) !== follow) {
        if (m.t === 'tally' && !resultOnly) counts(m.online, +fvEl('votes').textContent || 0);
        return;
      }
      if (resultOnly && m.t === 'tally') return; /* its result comes with the reveal's state */
      if (m.t === 'state' || m.t === 'tally') countdown(m);
      if (m.t === 'state') {
        if (state && state.q.pos !== m.q.pos) {
          skipFrom = follow >= 0 ? null : state;
          counts(+fvEl('online').textContent || 0, 0); /* a new question: no votes yet */
        }
        state = m;
        split = m.split || null;
        if (typeof m.q.votes === 'number') counts(+fvEl('online').textContent || 0, m.q.votes);
        /* the deck's language or serve --lang (?lang= in the address wins) */
        if (!fvParam('lang') && fvFollowLang(m.lang, function () { counts(+fvEl('online').textContent || 0, +fvEl('votes').textContent || 0); render(); })) return;
        render();
      } else if (m.t === 'tally') {
        /* a tally still about the previous question counts only its voters */
        var current = !state || m.q === state.q.pos;
        counts(m.online, current ? m.votes : +fvEl('votes').textContent || 0);
        if (!current) return;
        if ('yes' in m) { split = { yes: m.yes, no: m.no }; bars(m.yes, m.no); }
      }
    }
  });
});
