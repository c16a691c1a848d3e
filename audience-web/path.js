/* The path picture (issue 20): what happened to the test's packet, hop by
 * hop, drawn as inline SVG from a reveal's `path` (docs/PROTOCOL.md, "What
 * a reveal shows"; the format in docs/PROBE.md, "The path"). laptop → r1 → r2 → … → target as boxes, each link's MTU
 * ("?" when unknown), what left the laptop (size, DF bit, pieces), and under
 * each hop what happened there: passed, fragmented into pieces, reassembled,
 * dropped with its ICMP message and MTU, TTL expired, arrived, no answer.
 *
 * Readable without colour: every event has its own shape (a cross for a drop
 * or a refused send, a split arrow for fragmenting, a merging one for
 * reassembling, an hourglass for an expired TTL, a tick for an arrival, a "?"
 * for silence) and words; links the packet did not reach are dashed. Colour
 * only repeats it.
 *
 * Two layouts: "wide" (the projector: hops side by side, events below each
 * hop) and "tall" (the phone: one row per hop, events to its right). Every
 * text line is measured and wrapped or shrunk to fit the cell it belongs to
 * (a <g data-box> with an invisible <rect class="fvp-box">); the picture
 * draws only what the reveal carries: a key that is missing is not drawn, a
 * null is drawn as "?". No library, nothing loaded from anywhere. */
'use strict';
var fvPath = (function () {
  var NS = 'http://www.w3.org/2000/svg';
  var MAX_NODES = 64, MAX_EVENTS = 64;   /* what a reveal may carry at most; more is not drawn */
  /* Sizes in the SVG's own units; the SVG is scaled to its box. */
  var LOOK = {
    wide: { W: 1000, name: 40, tag: 26, line: 30, head: 32, mtu: 30, icon: 38, pad: 10, gap: 14, boxH: 96, minFont: 18 },
    tall: { W: 340, name: 19, tag: 13, line: 16, head: 17, mtu: 16, icon: 24, pad: 6, gap: 10, boxH: 44, minFont: 11 }
  };

  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) if (attrs[k] !== undefined && attrs[k] !== null) e.setAttribute(k, String(attrs[k]));
    if (parent) parent.appendChild(e);
    return e;
  }
  function has(o, k) { return !!o && Object.prototype.hasOwnProperty.call(o, k); }
  function num(x) { return typeof x === 'number' && isFinite(x) ? String(x) : '?'; }

  /* no-break spaces: a message's name shrinks to fit rather than breaks */
  var ICMP = { frag_needed: 'Frag\u00a0Needed', packet_too_big: 'Packet\u00a0Too\u00a0Big', time_exceeded: 'Time\u00a0Exceeded',
    port_unreachable: 'Port\u00a0Unreachable', unreachable: 'Unreachable', echo_reply: 'Echo\u00a0Reply' };

  /* "1276 + 144": sizes joined so that the wrapper may break between them. */
  function sizes(p) { return p.map(num).join(' + '); }
  function piecesLines(p, sizeSaid) {
    if (p === null) return [{ t: fvT('path.pieces_unknown') }];
    if (!p || !p.length) return [];
    if (p.length === 1) return [{ t: typeof p[0] === 'number' && !sizeSaid ? fvT('path.whole_bytes', { bytes: p[0] }) : fvT('path.whole') }];
    return [{ t: fvTn('path.pieces', p.length) }, { t: sizes(p) }];
  }
  function isV6(path) { var a = path.nodes && path.nodes[0] && path.nodes[0].addr; return typeof a === 'string' && a.indexOf(':') >= 0; }

  /* What left the laptop (or that nothing did): size, DF bit, pieces. */
  function sentBlock(path) {
    var s = path.sent, lines = [];
    if (!s) return null;
    lines.push({ t: has(s, 'bytes') ? fvT('path.bytes', { bytes: num(s.bytes) }) : fvT(s.left === false ? 'path.not_sent' : 'path.sent'), head: true });
    if (has(s, 'df')) lines.push({ t: s.df === true ? 'DF=1' : s.df === false ? 'DF=0' : isV6(path) ? fvT('path.no_df_v6') : 'DF ?' });
    if (has(s, 'pieces') && s.left !== false && !hostFragmented(path)) lines = lines.concat(piecesLines(s.pieces, has(s, 'bytes')));
    if (has(s, 'pmtu_cache')) lines.push({ t: fvT('path.cached_pmtu', { mtu: num(s.pmtu_cache) }) });
    if (s.left === false) {
      /* the kernel refused it: said by the host's "refused" event when the reveal carries it */
      if (!hostRefused(path)) {
        if (has(s, 'error')) lines.push({ t: s.error || '?' });
        if (has(s, 'mtu')) lines.push({ t: 'MTU\u00a0' + num(s.mtu) });
      }
      if (has(s, 'bytes')) lines.push({ t: fvT('path.nothing_left'), cls: 'bad', head: true });
    }
    return { icon: 'packet', cls: s.left === false ? 'bad' : 'info', kind: 'sent', lines: lines };
  }
  /* The host cut it itself (its "fragmented" event lists the pieces), or refused it. */
  function hostEvent(path, what) {
    return (path.events || []).some(function (e) { return e.node === 0 && e.what === what; });
  }
  function hostFragmented(path) { return hostEvent(path, 'fragmented'); }
  function hostRefused(path) { return hostEvent(path, 'refused'); }

  function quoteLine(q) {
    if (!q) return null;
    var frag = q.mf === 1 || (typeof q.offset === 'number' && q.offset > 0) || q.frag_hdr === 1;
    return [{ t: fvT('path.quoting', { bytes: num(q.len) }) }].concat(frag ? [{ t: fvT('path.a_fragment') }] : []);
  }

  /* One event: its shape, its colour class, its lines (from the fields only). */
  function eventBlock(ev, path) {
    var lines = [], icon, cls = 'info', l;
    switch (ev.what) {
    case 'refused':
      icon = 'cross'; cls = 'bad';
      lines.push({ t: fvT('path.refused'), head: true }, { t: 'EMSGSIZE' });
      if (has(ev, 'mtu')) lines.push({ t: 'MTU\u00a0' + num(ev.mtu) });
      break;
    case 'fragmented':
      icon = 'split';
      lines.push({ t: fvT('path.fragmented'), head: true });
      if (has(ev, 'pieces')) lines = lines.concat(ev.pieces === null ? [{ t: fvT('path.pieces_unknown') }] :
        [{ t: fvTn('path.pieces', ev.pieces.length) }, { t: sizes(ev.pieces) }]);
      break;
    case 'reassembled':
      icon = 'merge';
      lines.push({ t: fvT('path.reassembled'), head: true });
      if (has(ev, 'pieces')) lines = lines.concat(piecesLines(ev.pieces));
      break;
    case 'passed':
      icon = 'pass';
      lines.push({ t: fvT('path.passed'), head: true });
      if (has(ev, 'pieces')) lines = lines.concat(piecesLines(ev.pieces));
      break;
    case 'dropped':
      icon = 'cross'; cls = 'bad';
      lines.push({ t: fvT('path.dropped'), head: true });
      if (has(ev, 'icmp')) lines.push({ t: ICMP[ev.icmp] || ev.icmp });
      if (has(ev, 'mtu')) lines.push({ t: 'MTU\u00a0' + num(ev.mtu) });
      if ((l = quoteLine(ev.quote))) lines = lines.concat(l);
      break;
    case 'expired':
      icon = 'hourglass'; cls = 'warn';
      lines.push({ t: fvT('path.expired'), head: true });
      if (has(ev, 'icmp') && ev.icmp !== 'time_exceeded') lines.push({ t: ICMP[ev.icmp] || ev.icmp });
      else if (has(ev, 'icmp')) lines.push({ t: ICMP.time_exceeded });
      if ((l = quoteLine(ev.quote))) lines = lines.concat(l);
      break;
    case 'arrived':
      icon = 'tick'; cls = 'ok';
      lines.push({ t: fvT('path.arrived'), head: true });
      if (has(ev, 'pieces')) lines = lines.concat(piecesLines(ev.pieces));
      var on = [];
      if (has(ev, 'ttl')) on.push('TTL\u00a0' + num(ev.ttl));
      if (has(ev, 'df')) on.push(ev.df === true || ev.df === 1 ? 'DF=1' : ev.df === false || ev.df === 0 ? 'DF=0' : 'DF\u00a0?');
      if (on.length) lines.push({ t: on.join(', ') });
      if (ev.seen_by === 'witness') lines.push({ t: fvT('path.witness') });
      break;
    case 'silent':
      icon = 'silent'; cls = 'warn';
      lines.push({ t: fvT('path.no_answer'), head: true }, { t: fvT('path.nothing_known') }, { t: fvT('path.from_here') });
      break;
    case 'other':
      /* an ICMP answer about another packet of the test (a later TCP segment): not this one's fate */
      icon = 'silent'; cls = 'info';
      lines.push({ t: fvT('path.another'), head: true });
      if (has(ev, 'icmp')) lines.push({ t: ICMP[ev.icmp] || ev.icmp });
      if ((l = quoteLine(ev.quote))) lines = lines.concat(l);
      lines.push({ t: fvT('path.not_this') });
      break;
    default:
      return null; /* a kind this page does not know: drawn as nothing rather than guessed */
    }
    return { icon: icon, cls: cls, kind: ev.what, lines: lines };
  }

  /* The shapes, each in an s×s square at (x, y). */
  function icon(g, kind, x, y, s, cls) {
    var w = Math.max(2, s / 7), p = function (d) { return el('path', { d: d, class: 'fvp-ink fvp-' + cls, 'stroke-width': w }, g); };
    var X = function (f) { return (x + f * s).toFixed(1); }, Y = function (f) { return (y + f * s).toFixed(1); };
    switch (kind) {
    case 'cross': p('M' + X(0.12) + ' ' + Y(0.12) + 'L' + X(0.88) + ' ' + Y(0.88) + 'M' + X(0.88) + ' ' + Y(0.12) + 'L' + X(0.12) + ' ' + Y(0.88)); break;
    case 'split':
      p('M' + X(0) + ' ' + Y(0.5) + 'L' + X(0.42) + ' ' + Y(0.5) + 'L' + X(0.95) + ' ' + Y(0.12) +
        'M' + X(0.42) + ' ' + Y(0.5) + 'L' + X(0.95) + ' ' + Y(0.5) + 'M' + X(0.42) + ' ' + Y(0.5) + 'L' + X(0.95) + ' ' + Y(0.88));
      break;
    case 'merge':
      p('M' + X(0.05) + ' ' + Y(0.12) + 'L' + X(0.58) + ' ' + Y(0.5) + 'L' + X(1) + ' ' + Y(0.5) +
        'M' + X(0.05) + ' ' + Y(0.5) + 'L' + X(0.58) + ' ' + Y(0.5) + 'M' + X(0.05) + ' ' + Y(0.88) + 'L' + X(0.58) + ' ' + Y(0.5));
      break;
    case 'pass': p('M' + X(0.05) + ' ' + Y(0.5) + 'L' + X(0.9) + ' ' + Y(0.5) + 'M' + X(0.6) + ' ' + Y(0.22) + 'L' + X(0.9) + ' ' + Y(0.5) + 'L' + X(0.6) + ' ' + Y(0.78)); break;
    case 'hourglass': p('M' + X(0.18) + ' ' + Y(0.08) + 'L' + X(0.82) + ' ' + Y(0.08) + 'L' + X(0.18) + ' ' + Y(0.92) + 'L' + X(0.82) + ' ' + Y(0.92) + 'Z'); break;
    case 'tick': p('M' + X(0.08) + ' ' + Y(0.55) + 'L' + X(0.38) + ' ' + Y(0.85) + 'L' + X(0.92) + ' ' + Y(0.15)); break;
    case 'packet': p('M' + X(0.05) + ' ' + Y(0.25) + 'L' + X(0.7) + ' ' + Y(0.25) + 'L' + X(0.95) + ' ' + Y(0.5) + 'L' + X(0.7) + ' ' + Y(0.75) + 'L' + X(0.05) + ' ' + Y(0.75) + 'Z'); break;
    case 'silent':
      el('circle', { cx: X(0.5), cy: Y(0.5), r: (s * 0.42).toFixed(1), class: 'fvp-ink fvp-' + cls, 'stroke-width': w, 'stroke-dasharray': (w * 1.2).toFixed(1) }, g);
      el('text', { x: X(0.5), y: Y(0.5), 'font-size': (s * 0.62).toFixed(1), 'text-anchor': 'middle', 'dominant-baseline': 'central', class: 'fvp-text fvp-' + cls }, g).textContent = '?';
      break;
    }
  }

  /* Text lines placed top-down in the box (x, y, w): each line wrapped at
   * spaces to the width (unless `nowrap`), and what is still wider than the
   * box shrunk until it fits. anchor "middle" centres them. Each line is
   * placed by its measured box, so glyphs never stick out of the cell.
   * Returns the y below the last line. */
  function lines(g, items, x, y, w, look, anchor) {
    var tx = anchor === 'middle' ? x + w / 2 : x;
    items.forEach(function (it) {
      var size = it.size || (it.head ? look.head : look.line);
      var cls = 'fvp-text' + (it.head ? ' fvp-head' : '') + (it.cls ? ' fvp-' + it.cls : '');
      var place = function (s) {
        var t = el('text', { x: tx.toFixed(1), y: 0, 'font-size': size, 'text-anchor': anchor === 'middle' ? 'middle' : 'start', class: cls }, g);
        t.textContent = s;
        var len = t.getComputedTextLength();
        if (len > w) t.setAttribute('font-size', Math.max(look.minFont, Math.floor(size * w / len * 0.98)));
        if (t.getComputedTextLength() > w) { t.setAttribute('textLength', w.toFixed(1)); t.setAttribute('lengthAdjust', 'spacingAndGlyphs'); }
        var bb = t.getBBox();
        t.setAttribute('y', (y - bb.y).toFixed(1));
        y += bb.height + size * 0.04;
      };
      var probe = el('text', { 'font-size': size, class: cls }, g), cur = '';
      var width = function (s) { probe.textContent = s; return probe.getComputedTextLength(); };
      /* a little too wide: a little smaller type rather than one more line */
      if (it.nowrap || width(String(it.t)) * 0.8 <= w) { g.removeChild(probe); place(String(it.t)); return; }
      String(it.t).split(' ').forEach(function (wd) {
        var next = cur ? cur + ' ' + wd : wd;
        if (cur && width(next) > w) { place(cur); cur = wd; } else cur = next;
      });
      g.removeChild(probe);
      if (cur) place(cur);
    });
    return y;
  }

  /* A cell: a group with the invisible rect its texts must stay inside. */
  function cell(svg, cls, x, y, w) {
    var g = el('g', { class: 'fvp-cell ' + cls, 'data-box': '1' }, svg);
    var r = el('rect', { class: 'fvp-box', x: x.toFixed(1), y: y.toFixed(1), width: w.toFixed(1), height: 0 }, g);
    g.close = function (bottom) { r.setAttribute('height', Math.max(0, bottom - y).toFixed(1)); return bottom; };
    return g;
  }

  /* A block (icon + lines) in a cell at (x, y) of width w; the icon above
   * the lines (wide) or to their left (tall). Returns the bottom. */
  function block(svg, b, x, y, w, look, wide) {
    var g = cell(svg, 'fvp-ev fvp-ev-' + b.kind, x, y, w), s = look.icon, bottom;
    g.setAttribute('data-what', b.kind);
    g.setAttribute('data-node', b.node);
    if (wide) {
      icon(g, b.icon, x + (w - s) / 2, y + 2, s, b.cls);
      bottom = lines(g, b.lines, x, y + s + 6, w, look, 'middle');
    } else {
      icon(g, b.icon, x, y + 2, s, b.cls);
      bottom = Math.max(y + s + 4, lines(g, b.lines, x + s + 8, y, w - s - 8, look, 'start'));
    }
    return g.close(bottom + 2);
  }

  function nodeName(n, i, last) {
    if (n.role === 'gap') return '…';
    if (i === 0) return fvT('path.laptop');
    return n.name || (i === last ? fvT('path.target') : fvT('path.hop', { n: i }));
  }
  function nodeTag(n, i) {
    if (n.reassembles) return fvT('path.tag_reassembles');
    if (n.silent) return fvT('path.tag_silent');
    if (i === 0 && n.name && n.name !== 'host') return n.name;
    return '';
  }

  /* A lab router's behaviours in a few words, from the catalog by their
   * names (docs/PROTOCOL.md "behaviours"); the English "does" of a path
   * that has no names (stored before them). */
  function doesWords(n) {
    if (Array.isArray(n.behaviours) && n.behaviours.length)
      return n.behaviours.map(function (b) { return fvT('labbrief.' + b); }).join(fvT('path.does_sep'));
    return typeof n.does === 'string' ? n.does : '';
  }

  /* A node's box with its name (and a tag line): at least look.boxH high,
   * taller when its words need it. Returns the height. */
  function nodeBox(svg, n, i, last, x, y, w, look) {
    var tag = nodeTag(n, i);
    var g = el('g', { 'data-node': i, class: 'fvp-node fvp-' + (n.role || 'router') + (n.silent ? ' fvp-silent' : '') + (n.reassembles ? ' fvp-reasm' : '') + (n.does ? ' fvp-does' : ''), 'data-box': '1' }, svg);
    var r = el('rect', { class: 'fvp-box fvp-frame', x: x.toFixed(1), y: y.toFixed(1), width: w.toFixed(1),
      rx: (look.pad * 1.2).toFixed(1), 'stroke-width': (look.name / 8).toFixed(1),
      'stroke-dasharray': n.role === 'gap' || n.silent ? (look.name / 4).toFixed(1) : null }, g);
    var items = [{ t: nodeName(n, i, last), size: look.name, head: true, nowrap: true }];
    if (tag) items.push({ t: tag, size: look.tag, cls: 'tag' });
    /* a lab router's behaviour ("drops fragments"): the scenario the room played on, as big as an event's words */
    var does = doesWords(n);
    if (does) items.push({ t: does, size: look.line, cls: 'does' });
    var t = el('g', {}, g), bottom = lines(t, items, x + look.pad, y, w - 2 * look.pad, look, 'middle');
    var h = Math.max(look.boxH, bottom - y + 2 * look.pad);
    t.setAttribute('transform', 'translate(0 ' + ((h - (bottom - y)) / 2).toFixed(1) + ')');
    r.setAttribute('height', h.toFixed(1));
    return h;
  }

  /* The blocks of node i: what left (the laptop), then its events in order. */
  function blocksOf(path, i) {
    var out = [];
    if (i === 0) { var s = sentBlock(path); if (s) out.push(s); }
    (path.events || []).slice(0, MAX_EVENTS).forEach(function (ev) { if (ev.node === i) { var b = eventBlock(ev, path); if (b) out.push(b); } });
    out.forEach(function (b) { b.node = i; });
    return out;
  }

  function mtuText(l) { return l && typeof l.mtu === 'number' ? String(l.mtu) : '?'; }
  function reachedLink(path, i) { return typeof path.reached !== 'number' || i < path.reached; }

  function arrow(svg, x1, y1, x2, y2, look, dashed) {
    var w = look.name / 6, g = el('g', { class: 'fvp-link' + (dashed ? ' fvp-unreached' : '') }, svg);
    var dx = x2 - x1, dy = y2 - y1, len = Math.sqrt(dx * dx + dy * dy) || 1, ux = dx / len, uy = dy / len, hs = w * 2.6;
    el('line', { x1: x1.toFixed(1), y1: y1.toFixed(1), x2: (x2 - ux * hs).toFixed(1), y2: (y2 - uy * hs).toFixed(1),
      class: 'fvp-ink fvp-line', 'stroke-width': w.toFixed(1), 'stroke-dasharray': dashed ? (w * 1.5).toFixed(1) : null }, g);
    el('path', { class: 'fvp-head-fill', d: 'M' + x2.toFixed(1) + ' ' + y2.toFixed(1) + 'L' + (x2 - ux * hs - uy * hs * 0.6).toFixed(1) + ' ' +
      (y2 - uy * hs + ux * hs * 0.6).toFixed(1) + 'L' + (x2 - ux * hs + uy * hs * 0.6).toFixed(1) + ' ' + (y2 - uy * hs - ux * hs * 0.6).toFixed(1) + 'Z' }, g);
  }

  /* The projector: hops side by side, each hop's events in its column. */
  function drawWide(svg, path, look) {
    var nodes = path.nodes, n = nodes.length, colW = look.W / n, bw = Math.min(colW * 0.66, 240), top = 4;
    var boxH = 0, bottoms = [];
    nodes.forEach(function (nd, i) { boxH = Math.max(boxH, nodeBox(svg, nd, i, n - 1, colW * i + (colW - bw) / 2, top, bw, look)); });
    var mid = top + look.boxH / 2;
    (path.links || []).forEach(function (l, i) {
      if (i >= n - 1) return;
      var x1 = colW * i + (colW + bw) / 2 + 4, x2 = colW * (i + 1) + (colW - bw) / 2 - 4;
      arrow(svg, x1, mid, x2, mid, look, !reachedLink(path, i));
      /* "MTU" above the arrow, the number below it: each fits the gap */
      var g = cell(svg, 'fvp-mtu', x1, top, x2 - x1);
      g.setAttribute('data-link', i);
      lines(g, [{ t: 'MTU', size: look.mtu * 0.8 }], x1, top + 2, x2 - x1 - 6, look, 'middle');
      g.close(mid - look.name / 8);
      var g2 = cell(svg, 'fvp-mtu', x1, mid + look.name / 8 + 4, x2 - x1);
      g2.close(lines(g2, [{ t: mtuText(l), size: look.mtu, head: true }], x1, mid + look.name / 8 + 4, x2 - x1 - 6, look, 'middle'));
      g2.setAttribute('data-mtu', mtuText(l));
      g2.setAttribute('data-link', i);
    });
    nodes.forEach(function (nd, i) {
      var y = top + boxH + look.gap, x = colW * i + look.pad, w = colW - 2 * look.pad;
      blocksOf(path, i).forEach(function (b) { y = block(svg, b, x, y, w, look, true) + look.gap; });
      bottoms.push(y);
    });
    return Math.max.apply(null, bottoms.concat([top + boxH + look.gap]));
  }

  /* The phone: one row per hop, its events to the right, the link's MTU
   * beside the arrow down to the next hop. */
  function drawTall(svg, path, look) {
    var nodes = path.nodes, n = nodes.length, bw = look.W * 0.28, ex = bw + look.pad * 2, y = 2;
    nodes.forEach(function (nd, i) {
      var h = nodeBox(svg, nd, i, n - 1, 0, y, bw, look), bottom = y + h, ey = y;
      blocksOf(path, i).forEach(function (b) { ey = block(svg, b, ex, ey, look.W - ex, look, false) + look.gap / 2; });
      bottom = Math.max(bottom, ey);
      if (i < n - 1) {
        var l = (path.links || [])[i], linkH = look.mtu * 2.6, y2 = bottom + linkH;
        arrow(svg, bw / 2, y + h + 2, bw / 2, y2 - 2, look, !reachedLink(path, i));
        var lx = bw / 2 + look.pad * 2, g = cell(svg, 'fvp-mtu', lx, bottom + 4, look.W - lx);
        g.close(lines(g, [{ t: fvT('path.mtu', { mtu: mtuText(l) }), size: look.mtu, head: true }], lx, bottom + (linkH - look.mtu * 1.18) / 2, look.W - lx, look, 'start'));
        g.setAttribute('data-mtu', mtuText(l));
        g.setAttribute('data-link', i);
        y = y2;
      } else y = bottom;
    });
    return y + 2;
  }

  /* The same picture in words (the SVG's accessible name; screen readers). */
  function describe(path) {
    var nodes = path.nodes || [], parts = [];
    parts.push(fvT('path.say_path', { nodes: nodes.map(function (nd, i) { return nodeName(nd, i, nodes.length - 1); }).join(' → ') }));
    (path.links || []).forEach(function (l, i) {
      if (i < nodes.length - 1) parts.push(fvT('path.say_link', { from: nodeName(nodes[i], i, nodes.length - 1),
        to: nodeName(nodes[i + 1], i + 1, nodes.length - 1), mtu: mtuText(l) }));
    });
    nodes.forEach(function (nd, i) {
      blocksOf(path, i).forEach(function (b) {
        parts.push(fvT('path.say_node', { node: nodeName(nd, i, nodes.length - 1), what: b.lines.map(function (x) { return x.t; }).join(', ') }));
      });
    });
    return parts.join(' ');
  }

  function valid(path) {
    return !!path && path.v === 1 && Array.isArray(path.nodes) && path.nodes.length >= 2 && path.nodes.length <= MAX_NODES;
  }

  /* Draws `path` into `box` (replacing what was there) in "wide" or "tall"
   * layout; an absent or unknown path empties and hides the box. The box
   * must be displayed: every line is measured. Redraws only when the path
   * or the layout changed. */
  function show(box, path, layout) {
    if (!box) return;
    var key = valid(path) ? layout + ' ' + fvI18n.code() + ' ' + JSON.stringify(path) : '';
    if (box.fvPathKey === key && (key === '' || box.firstChild)) return;
    box.replaceChildren();
    box.hidden = !key;
    box.fvPathKey = key;
    if (!key) return;
    /* not displayed (a page not shown yet): measured lines would be empty; drawn at the next render */
    if (!box.getClientRects().length) { box.fvPathKey = ''; return; }
    var look = LOOK[layout] || LOOK.wide;
    /* many hops do not fit side by side: the tall layout, at projector size */
    var wide = layout !== 'tall' && path.nodes.length <= 6;
    if (layout !== 'tall' && !wide) look = scaleLook(1000);
    var id = 'fvp' + Math.random().toString(36).slice(2, 9);
    var svg = el('svg', { xmlns: NS, class: 'fvpath ' + (wide ? 'fvp-wide' : 'fvp-tall'), role: 'img', 'aria-labelledby': id,
      'data-view': path.view || 'full', viewBox: '0 0 ' + look.W + ' 100', preserveAspectRatio: 'xMinYMin meet' }, box);
    el('title', { id: id }, svg).textContent = describe(path);
    var h = wide ? drawWide(svg, path, look) : drawTall(svg, path, look);
    svg.setAttribute('viewBox', '0 0 ' + look.W + ' ' + Math.ceil(h));
  }
  /* The tall layout's proportions at another width. */
  function scaleLook(W) {
    var k = W / LOOK.tall.W, t = LOOK.tall, o = { W: W };
    for (var f in t) if (f !== 'W') o[f] = t[f] * k;
    return o;
  }

  return { show: show, describe: describe };
})();
