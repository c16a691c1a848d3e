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
      attempt = 0;
      handlers.status && handlers.status('online');
      handlers.open && handlers.open();
    };
    ws.onmessage = function (ev) {
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
 * closes_in_ms (state, tally), it ticks locally until zero. */
function fvCountdown(id) {
  var deadline = 0, timer = null;
  function tick() {
    var left = Math.ceil((deadline - Date.now()) / 1000);
    fvText(id, deadline && left > 0 ? 'closes in ' + left + ' s' : '');
    if (!deadline || left <= 0) { clearInterval(timer); timer = null; }
  }
  return function (m) {
    if (typeof m.closes_in_ms === 'number') {
      deadline = Date.now() + m.closes_in_ms;
      if (!timer) timer = setInterval(tick, 250);
    } else if (m.t === 'state') {
      deadline = 0;
    }
    tick();
  };
}

function fvEl(id) { return document.getElementById(id); }
function fvText(id, text) { var e = fvEl(id); if (e) e.textContent = text; }
function fvShow(id, on) { var e = fvEl(id); if (e) e.hidden = !on; }
function fvParam(name) {
  var m = new RegExp('[?&#]' + name + '=([^&#]*)').exec(location.search + location.hash);
  return m ? decodeURIComponent(m[1]) : '';
}
function fvKindWord(kind) {
  return kind === 'sent' ? 'sent?' : kind === 'df' ? 'DF set?' : 'fragmented?';
}
/* ✔ right, ✘ wrong, · not answered / not scored. */
function fvMark(vote, q) {
  if (vote !== 0 && vote !== 1) return '·';
  if (!q || (q.truth !== 'yes' && q.truth !== 'no')) return '·';
  return (vote === 1) === (q.truth === 'yes') ? '✔' : '✘';
}
