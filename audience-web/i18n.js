/* fragvote pages: the words of every page come from one message catalog per
 * language, /i18n-CODE.json (a flat JSON object: key → text with {name}
 * placeholders; docs/LANGUAGES.md). No page carries words of its own: the
 * HTML names keys (data-i18n="key" for an element's text,
 * data-i18n-attr="placeholder:key;aria-label:key" for attributes), the
 * scripts ask fvT('key', {n: 3}). An unknown language, or a catalog that does
 * not load, is English with a warning on the browser's console, never an
 * error page. */
'use strict';

/* The shipped catalogs, each named in its own language (the phone's switch).
 * A new language: its i18n-CODE.json and a line here (tests/audience-web/test_i18n checks both). */
var FV_LANGS = { en: 'English', de: 'Deutsch', fr: 'Français', es: 'Español' };

var fvI18n = (function () {
  var cat = {}, code = '', warned = {}, plural = null;

  /* The shipped code for a wanted one: "de-AT" → "de"; "" when none. */
  function match(want) {
    want = String(want || '').toLowerCase();
    if (Object.prototype.hasOwnProperty.call(FV_LANGS, want)) return want;
    var primary = want.split(/[-_]/)[0];
    return Object.prototype.hasOwnProperty.call(FV_LANGS, primary) ? primary : '';
  }
  /* The first of wants (the browser's languages, in order) that is shipped. */
  function first(wants) {
    for (var i = 0; i < (wants || []).length; i++) { var c = match(wants[i]); if (c) return c; }
    return '';
  }
  function warn(msg) { if (!warned[msg]) { warned[msg] = 1; if (typeof console !== 'undefined') console.warn('fragvote: ' + msg); } }

  function fill(s, params) {
    return s.replace(/\{(\w+)\}/g, function (all, name) {
      return params && params[name] !== undefined && params[name] !== null ? String(params[name]) : all;
    });
  }
  /* The text of key with its placeholders filled. A key the catalog lacks
   * shows as itself (the browser test looks for that) and is warned once. */
  function t(key, params) {
    var s = cat[key];
    if (typeof s !== 'string') { warn('no text for "' + key + '" in the ' + (code || 'no') + ' catalog'); s = key; }
    return fill(s, params);
  }
  /* A text the C side worded as a message (docs/PROTOCOL.md "Texts as
   * messages"): {key, args}, each argument a number, a string shown as it
   * is, or {key} whose text it is. null when the catalog lacks a key of it
   * (warned once): the page then shows the English the hub sent beside it. */
  function msg(m) {
    if (Array.isArray(m)) { /* messages in a row: each worded, one after another */
      var parts = m.map(msg);
      return parts.length && parts.every(function (x) { return x !== null; }) ? parts.join('') : null;
    }
    if (!m || typeof m.key !== 'string') return null;
    if (typeof cat[m.key] !== 'string') { warn('no text for "' + m.key + '" in the ' + (code || 'no') + ' catalog: shown in English'); return null; }
    var p = {}, ok = true;
    Object.keys(m.args || {}).forEach(function (name) {
      var v = m.args[name];
      if (v && typeof v === 'object') { v = msg(v); if (v === null) ok = false; }
      p[name] = v;
    });
    return ok ? fill(cat[m.key], p) : null;
  }
  /* A count: key.one / key.other (key.few, key.many where the language has
   * them) by the language's plural rule, {n} filled with n. */
  function tn(key, n, params) {
    var form = plural ? plural.select(n) : n === 1 ? 'one' : 'other';
    var k = typeof cat[key + '.' + form] === 'string' ? key + '.' + form : key + '.other';
    var p = { n: n };
    for (var f in params || {}) p[f] = params[f];
    return t(k, p);
  }

  /* The catalog's words into the page: elements with data-i18n get their
   * text, data-i18n-attr their attributes; <html lang> says the language. */
  function apply(root) {
    root = root || document;
    if (!root.querySelectorAll) return;
    Array.prototype.forEach.call(root.querySelectorAll('[data-i18n]'), function (e) {
      e.textContent = t(e.getAttribute('data-i18n'));
    });
    Array.prototype.forEach.call(root.querySelectorAll('[data-i18n-attr]'), function (e) {
      e.getAttribute('data-i18n-attr').split(';').forEach(function (pair) {
        var i = pair.indexOf(':');
        if (i > 0) e.setAttribute(pair.slice(0, i).trim(), t(pair.slice(i + 1).trim()));
      });
    });
  }

  /* Loads the catalog of want (a code, "de-AT"), English when there is none
   * or it does not load; then done(). */
  function use(want, done) {
    var c = match(want);
    if (!c) { warn('no catalog for language "' + want + '": the page is in English'); c = 'en'; }
    if (c === code) { if (done) done(); return; }
    function got(j) {
      cat = j && typeof j === 'object' ? j : {};
      code = c;
      try { plural = typeof Intl !== 'undefined' && Intl.PluralRules ? new Intl.PluralRules(c) : null; } catch (e) { plural = null; }
      if (document.documentElement) document.documentElement.lang = c;
      apply();
      if (done) done();
    }
    function failed(e) {
      warn('the ' + c + ' catalog did not load (' + (e && e.message ? e.message : e) + ')' + (c === 'en' ? '' : ': the page is in English'));
      if (c !== 'en') use('en', done); else got({});
    }
    fetch('/i18n-' + c + '.json').then(function (r) {
      if (!r.ok) throw new Error('HTTP ' + r.status);
      return r.json();
    }).then(got, failed);
  }

  /* The projector and the presenter page follow the room's language (the
   * state's lang: the deck's, or serve --lang; absent: English). Returns
   * true when it is another one than shown: done() runs once it is loaded. */
  var followed = '';
  function follow(lang, done) {
    lang = lang || 'en';
    if (lang === followed) return false;
    followed = lang;
    var c = match(lang) || 'en';
    if (c === code) { if (!match(lang)) warn('no catalog for language "' + lang + '": the page is in English'); return false; }
    use(lang, done);
    return true;
  }

  /* The phone's language (its page and the privacy note): the one picked on
   * its switch (kept in localStorage), else ?lang=, else the browser's first
   * shipped one, else English. */
  function phoneLang() {
    var kept = null, m = /[?&]lang=([^&#]*)/.exec(location.search);
    try { kept = localStorage.getItem('fragvote_lang'); } catch (e) { kept = null; }
    var nav = typeof navigator !== 'undefined' ? navigator.languages || (navigator.language ? [navigator.language] : []) : [];
    return kept || (m && decodeURIComponent(m[1])) || first(nav) || 'en';
  }

  return { use: use, follow: follow, phoneLang: phoneLang, t: t, tn: tn, msg: msg, apply: apply, match: match, first: first, code: function () { return code; } };
})();
var fvT = fvI18n.t, fvTn = fvI18n.tn, fvFollowLang = fvI18n.follow;
