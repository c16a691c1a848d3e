/* The presenter's browser view: the console's controls. Needs the secret;
 * it is kept only in this tab (sessionStorage), or passed as #secret=... */
'use strict';
(function () {
  var secret = fvParam('secret') || (function () { try { return sessionStorage.getItem('fragvote_secret') || ''; } catch (e) { return ''; } })();
  var authed = false, conn;

  function auth() { if (secret) conn.send({ t: 'auth', secret: secret }); }

  fvEl('authform').addEventListener('submit', function (ev) {
    ev.preventDefault();
    secret = fvEl('secret').value;
    auth();
  });
  Array.prototype.forEach.call(document.querySelectorAll('[data-cmd]'), function (b) {
    b.addEventListener('click', function () {
      fvText('error', '');
      var cmd = { t: 'cmd', cmd: b.getAttribute('data-cmd') };
      var secs = parseInt(fvEl('seconds').value, 10);
      if (cmd.cmd === 'open' && secs > 0) cmd.seconds = secs;
      conn.send(cmd);
    });
  });

  function render(s) {
    var q = s.q;
    fvText('title', s.title + ' · room ' + s.room);
    fvText('qnum', s.ended ? 'The quiz has ended (Back returns to the last question)' :
      'Question ' + (q.pos + 1) + ' of ' + s.n + ' · ' + q.state + (q.measuring ? ' · measuring…' : '') +
      (q.round === 2 ? ' · round 2 (re-vote)' : ''));
    fvText('qtext', q.text);
    fvText('qsummary', q.summary);
    fvText('split', s.split ? 'yes ' + s.split.yes + ' · no ' + s.split.no : '');
    fvText('truth', s.reveal ? 'Truth: ' + s.reveal.truth + ' — ' + (s.reveal.evidence || s.reveal.why) +
      (s.reveal.shift ? ' · re-vote: ' + s.reveal.shift : '') : '');
  }

  conn = fvConnect('fragvote-presenter', {
    status: function (s) {
      var e = fvEl('conn');
      e.textContent = s === 'online' ? 'online' : s;
      e.className = s === 'online' ? '' : 'offline';
      if (s !== 'online') authed = false;
    },
    open: auth,
    message: function (m) {
      switch (m.t) {
      case 'auth_ok':
        authed = true;
        try { sessionStorage.setItem('fragvote_secret', secret); } catch (e) { }
        fvShow('auth', false);
        fvShow('panel', true);
        fvText('error', '');
        break;
      case 'state': render(m); break;
      case 'tally': fvText('tally', m.online + ' phones online · ' + m.joined + ' joined · ' + m.votes + ' votes'); break;
      case 'error':
        if (m.code === 'bad_secret' || m.code === 'throttled') { fvShow('auth', true); fvShow('panel', false); }
        fvText('error', m.message);
        break;
      }
    }
  });
})();
