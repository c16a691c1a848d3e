/* The self-paced replay after the talk (docs/SERVE.md "After the talk",
 * docs/PROTOCOL.md "The self-paced replay"): once the talk has ended the
 * phone asks for the session's revealed questions in one message, asks them
 * one by one, sends each answer (the server keeps the first: replay_ack
 * says which), shows the room's recorded truth, explanation and path
 * picture, and at the end the player's score beside the room's and a share
 * grid. Nothing is measured again; nothing of the live room changes.
 * fvReplay(send) gives phone.js what it calls: offered(state), start(),
 * message(m) (true when it was the replay's), active(). */
'use strict';
function fvReplay(send) {
  var data = null, at = 0, answers = {}, pending = null, nextId = 1, on = false, asked = false;

  function questions() { return (data && data.questions) || []; }
  function cur() { return questions()[at]; }
  function known(q) { return q.reveal.truth === 'yes' || q.reveal.truth === 'no'; }
  function right(q) { return known(q) && (answers[q.pos] === 1) === (q.reveal.truth === 'yes'); }

  /* Its own part of the page; the live room's parts hide while it plays. */
  function show() {
    fvShow('play', false);
    fvShow('final', false);
    fvShow('replayoffer', false);
    fvShow('replay', true);
    var done = data && at >= questions().length;
    fvShow('replayplay', !done);
    fvShow('replayfinal', !!done);
    if (!data) { fvText('replayqnum', fvT('replay.loading')); return; }
    if (done) return showFinal();
    var q = cur(), mine = answers[q.pos], answered = mine === 0 || mine === 1;
    fvText('replayqnum', fvT('replay.qnum', { q: at + 1, n: questions().length }));
    fvQuestion('replayqtext', q);
    fvText('replaysummary', fvSummary(q));
    fvEl('replayyes').disabled = answered || !!pending;
    fvEl('replayno').disabled = answered || !!pending;
    fvEl('replayyes').classList.toggle('chosen', mine === 1);
    fvEl('replayno').classList.toggle('chosen', mine === 0);
    fvShow('replayreveal', answered);
    fvShow('replaynext', answered);
    fvText('replaynext', fvT(at + 1 < questions().length ? 'replay.next' : 'replay.finish'));
    fvPath.show(fvEl('replaypath'), answered && q.reveal.path, 'tall');
    if (!answered) return;
    var rv = q.reveal, v = fvEl('replayverdict');
    v.className = 'verdict' + (known(q) ? (right(q) ? ' right' : ' wrong') : '');
    v.textContent = fvT(!known(q) ? 'phone.verdict_unknown' : right(q) ? 'phone.verdict_right' : 'phone.verdict_wrong');
    fvText('replaytruth', fvT('answer.' + (known(q) ? rv.truth : 'unknown')));
    fvText('replaybasis', fvT(known(q) ? 'reveal.basis_words' : 'reveal.basis',
      { basis: fvT('basis.' + rv.basis), words: fvTruthWords(q.kind, rv.truth) }));
    fvExplain(rv, 'replay'); /* the surprise and the rules' chain, worded from their messages */
    fvEvidence('replayevidence', rv);
    fvText('replayroom', rv.majority ? fvT('replay.room', { vote: fvT('answer.' + rv.majority), yes: rv.yes, no: rv.no }) :
      fvT('phone.nobody_voted'));
  }

  /* One row per test, one mark per question (fvMark: ✔ right, ✘ wrong, · not scored). */
  function share() {
    var byTest = {}, order = [], n = 0, r = 0;
    questions().forEach(function (q) {
      if (!(q.test in byTest)) { byTest[q.test] = ''; order.push(q.test); }
      var mark = fvMark(answers[q.pos], { truth: q.reveal.truth });
      byTest[q.test] += mark;
      if (mark !== '·') n++;
      if (mark === '✔') r++;
    });
    var room = data.scored > 0 ? Math.round(data.collective * 100) : -1;
    var head = room >= 0 ? fvT('replay.share', { right: r, n: n, room: room }) : fvT('replay.share_noroom', { right: r, n: n });
    return { head: head, right: r, n: n, rows: order.map(function (t) { return byTest[t]; }), tests: order };
  }

  function showFinal() {
    var s = share();
    fvText('replayscore', s.n ? s.right + ' / ' + s.n : '–');
    fvText('replayshare', s.head);
    fvText('replaygrid', s.rows.join('\n'));
    fvText('replaygridlabels', s.tests.map(function (t) { return fvT('phone.packet', { n: t + 1 }); }).join('\n'));
  }

  function answer(yes) {
    var q = cur();
    if (!q || pending) return;
    pending = { id: nextId++, q: q.pos };
    if (!send({ t: 'replay_vote', id: pending.id, q: q.pos, yes: yes })) pending = null;
    show();
  }
  fvEl('replayyes').addEventListener('click', function () { answer(true); });
  fvEl('replayno').addEventListener('click', function () { answer(false); });
  fvEl('replaynext').addEventListener('click', function () {
    at++;
    show();
    if (window.scrollTo) window.scrollTo(0, 0);
  });
  fvEl('replaycopy').addEventListener('click', function () {
    var s = share();
    fvCopy(s.head + '\n' + s.rows.join('\n'), 'replaycopied');
  });

  return {
    offered: function (state) { return !!(state && state.replay); },
    active: function () { return on; },
    start: function () {
      on = true;
      if (!asked && send({ t: 'replay' })) asked = true;
      show();
    },
    /* The connection is gone: an answer not acked is not kept (tap again). */
    offline: function () { if (pending) { pending = null; if (on) show(); } },
    /* After the language changed. */
    render: function () { if (on) show(); },
    message: function (m) {
      if (m.t === 'replay') {
        data = m;
        at = 0;
        /* a page asked again after a reload: questions answered before are skipped */
        while (at < questions().length && (answers[cur().pos] === 0 || answers[cur().pos] === 1)) at++;
        if (on) show();
        return true;
      }
      if (m.t === 'replay_ack') {
        answers[m.q] = m.yes ? 1 : 0; /* the answer kept: the first one given */
        if (pending && pending.id === m.id) pending = null;
        if (on) show();
        return true;
      }
      if (m.t === 'error' && pending && m.id === pending.id) {
        pending = null;
        fvText('error', fvError(m));
        if (on) show();
        return true;
      }
      return false;
    }
  };
}
