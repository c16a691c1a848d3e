/* The message catalogs of the pages (audience-web/i18n-CODE.json,
 * docs/LANGUAGES.md) against each other and against the pages:
 *  - each is a flat JSON object of strings; FV_LANGS (i18n.js) lists exactly
 *    the shipped files, each named by its own "lang.name";
 *  - every catalog has exactly English's keys, and each key the same
 *    {placeholders};
 *  - every key a page names (fvT/fvTn, data-i18n, data-i18n-attr, and the
 *    families a page builds a key of: 'answer.' + truth ...) is in English,
 *    each family complete (its members read from where the values come
 *    from: probe/spec.c's names, lab_behave.c's behaviours, the pages' own
 *    lists), and every English key is used by some page;
 *  - every key the C side can emit as a message (msg/fv_msg.h: a key and its
 *    arguments; the predictor's steps, the judges' whys, the evidence, the
 *    surprise, the headlines), read from the C sources: a key literal of
 *    its families and the spec after it ("opt=%s size=%d @answer=%s"), is
 *    in English with exactly the spec's names as {placeholders} (so, by the
 *    checks above, in every catalog);
 *  - no page carries words of its own: no text in the HTML outside
 *    data-i18n elements (but the name "fragvote"), no string literal of two
 *    words or more in the scripts.
 * node check_catalogs.js SRC; exit 0 when every check holds. */
'use strict';
const fs = require('fs');
const path = require('path');
const src = process.argv[2];
const web = path.join(src, 'audience-web');
let failures = 0, checks = 0;
function check(ok, what) {
  checks++;
  if (!ok) { failures++; console.log('FAIL ' + what); }
  return ok;
}
const read = (f) => fs.readFileSync(f, 'utf8');
const placeholders = (s) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort().join(',');
/* the names a text uses, each once (a message's argument may show twice) */
const placeholderNames = (s) => [...new Set(placeholders(s).split(','))].filter((x) => x).join(',');

/* ---- the catalogs themselves ---- */
const files = fs.readdirSync(web).filter((f) => /^i18n-[a-z]{2,3}\.json$/.test(f)).sort();
const cats = {};
for (const f of files) {
  const code = f.slice(5, -5);
  let j = null;
  try { j = JSON.parse(read(path.join(web, f))); } catch (e) { check(false, f + ': not JSON: ' + e.message); continue; }
  if (!check(j && typeof j === 'object' && !Array.isArray(j), f + ': a JSON object')) continue;
  for (const [k, v] of Object.entries(j)) {
    check(typeof v === 'string', `${f}: "${k}" is a string`);
    check(/^[a-z0-9_]+(\.[a-z0-9_]+)+$/.test(k), `${f}: "${k}" is a dotted lower-case key`);
    if (typeof v === 'string') check(!/\{\s*\}|\{[^}]*\W[^}]*\}/.test(v.replace(/\{\w+\}/g, '')), `${f}: "${k}" has only well-formed {placeholders}`);
  }
  cats[code] = j;
}
check('en' in cats, 'the English catalog i18n-en.json exists');
const en = cats.en || {};
const i18nJs = read(path.join(web, 'i18n.js'));
const langsSrc = /var FV_LANGS = (\{[^}]*\})/.exec(i18nJs);
const langs = langsSrc ? JSON.parse(langsSrc[1].replace(/(\w+):/g, '"$1":').replace(/'/g, '"')) : {};
check(Object.keys(langs).sort().join() === Object.keys(cats).sort().join(),
  `FV_LANGS (${Object.keys(langs)}) lists exactly the shipped catalogs (${Object.keys(cats)})`);
check(Object.keys(cats).length >= 3, 'English and at least two more languages are shipped');
for (const [code, cat] of Object.entries(cats)) {
  check(cat['lang.name'] === langs[code], `${code}: "lang.name" (${cat['lang.name']}) is FV_LANGS's name (${langs[code]})`);
  if (code === 'en') continue;
  const missing = Object.keys(en).filter((k) => !(k in cat)), extra = Object.keys(cat).filter((k) => !(k in en));
  check(!missing.length, `${code}: every English key is there` + (missing.length ? ': missing ' + missing.join(', ') : ''));
  check(!extra.length, `${code}: no key English lacks` + (extra.length ? ': extra ' + extra.join(', ') : ''));
  for (const k of Object.keys(en))
    if (typeof cat[k] === 'string')
      check(placeholders(cat[k]) === placeholders(en[k]), `${code}: "${k}" has English's placeholders {${placeholders(en[k])}}, not {${placeholders(cat[k])}}`);
  const same = Object.keys(en).filter((k) => cat[k] === en[k] && /[a-z]{3,} [a-z]{3,}/i.test(en[k]));
  check(same.length <= 3, `${code}: translated (sentences still in English: ${same.join(', ')})`);
}

/* ---- the pages against the English catalog ---- */
const pages = fs.readdirSync(web).filter((f) => /\.(js|html)$/.test(f));
const used = new Set(), prefixes = new Set();
const stripComments = (s) => s.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"\\])\/\/.*$/gm, '$1').replace(/<!--[\s\S]*?-->/g, '');
const namespaces = new Set(Object.keys(en).map((k) => k.split('.')[0]));
for (const f of pages) {
  const s = stripComments(read(path.join(web, f)));
  for (const m of s.matchAll(/data-i18n="([^"]+)"/g)) used.add(m[1]);
  for (const m of s.matchAll(/data-i18n-attr="([^"]+)"/g))
    for (const pair of m[1].split(';')) used.add(pair.split(':')[1].trim());
  /* every quoted key-like literal: 'phone.tap', and the families 'answer.' + x */
  for (const m of s.matchAll(/'([a-z][a-z0-9_]*\.[a-z0-9_.]*)'/g)) {
    if (!namespaces.has(m[1].split('.')[0])) continue;
    if (/[._]$/.test(m[1])) prefixes.add(m[1]); else used.add(m[1]);
  }
  for (const m of s.matchAll(/fvTn\('([a-z0-9_.]+)'/g)) { used.delete(m[1]); used.add(m[1] + '.other'); used.add(m[1] + '.one'); }
}
for (const k of used) check(k in en, `the pages' key "${k}" is in the English catalog`);
/* the families a page builds keys of, with the members the values can take */
const listIn = (file, re) => { const m = re.exec(read(path.join(src, file))); return m ? [...m[1].matchAll(/['"](\w+)['"]/g)].map((x) => x[1]) : []; };
const family = {
  'answer.': ['yes', 'no', 'unknown'],
  'basis.': listIn('probe/spec.c', /basis_names\[\] = \{([^}]*)\}/),
  'chip.': listIn('audience-web/phone.js', /var CHIPS = \[([^\]]*)\]/),
  'qstate.': ['pending', 'voting', 'closed', 'measured', 'revealed', 'skipped'],
  'kind.': ['sent', 'df', 'fragmented'],
  'ask.': ['sent', 'df', 'fragmented'],
  'truth.': ['sent.yes', 'sent.no', 'df.yes', 'df.no', 'fragmented.yes', 'fragmented.no'],
  'verdict.': ['right', 'wrong', 'tie', 'unknown', 'novotes', 'revealed'],
  'proto.': listIn('probe/spec.c', /proto_names\[\] = \{([^}]*)\}/),
  'modeplain.': listIn('probe/spec.c', /mode_names\[\] = \{([^}]*)\}/),
  'lab.': [...read(path.join(src, 'probe/lab_behave.c')).matchAll(/\{PROBE_LAB_\w+, "(\w+)"/g)].map((m) => m[1]),
  'labbrief.': [...read(path.join(src, 'probe/lab_behave.c')).matchAll(/\{PROBE_LAB_\w+, "(\w+)"/g)].map((m) => m[1]),
  'error.': listIn('audience-web/common.js', /var FV_ERRORS = \[([^\]]*)\]/),
  'presenter.cmd_': listIn('audience-web/presenter.js', /var LAPTOP_CMDS = \[([^\]]*)\]/),
  'conf.': listIn('audience-web/common.js', /var FV_CONFIDENCE = \[(.*)\];/),
};
for (const p of prefixes) {
  if (!check(p in family, `the pages build keys of "${p}": the checker knows that family`)) continue;
  check(family[p].length > 0, `the family "${p}" has members`);
  for (const m of family[p]) { check(p + m in en, `the family key "${p + m}" is in the English catalog`); used.add(p + m); }
}
/* ---- the keys the C side emits (docs/LANGUAGES.md "Texts worded in C") ---- */
const C_FAMILIES = ['rule', 'why', 'ev', 'errno', 'lab', 'surprise', 'headline', 'league', 'answer'];
const cFiles = [];
(function walk(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const f = path.join(dir, e.name);
    if (e.isDirectory()) walk(f); else if (/\.[ch]$/.test(e.name)) cFiles.push(f);
  }
  return walk;
})(path.join(src, 'probe'))(path.join(src, 'msg'))(path.join(src, 'score'))(path.join(src, 'fragvote'));
const cEmits = {}; /* key -> [{file, names}] */
for (const f of cFiles) {
  const s = read(f).replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
  /* a key, or the keys of a choice (c ? "why.a" : "why.b"), and the spec
   * after it, which each key of the choice takes */
  const KEY = '"[a-z]+\\.[a-z0-9_.]+"';
  const re = new RegExp(`(${KEY}(?:\\s*:\\s*${KEY})*)(\\s*,\\s*"((?:[^"\\\\]|\\\\.)*)")?`, 'g');
  for (const m of s.matchAll(re)) {
    const spec = m[3] !== undefined && /^\s*@?\w+=%[ds]( +@?\w+=%[ds])*\s*$/.test(m[3]) ? m[3] : '';
    const names = [...spec.matchAll(/@?(\w+)=%[ds]/g)].map((x) => x[1]).sort().join(',');
    for (const [, k] of m[1].matchAll(/"([^"]*)"/g)) {
      if (!C_FAMILIES.includes(k.split('.')[0]) || /\.[ch]$/.test(k)) continue;
      (cEmits[k] = cEmits[k] || []).push({ file: path.relative(src, f), names });
    }
  }
}
check(Object.keys(cEmits).length >= 30, `the C sources emit message keys (${Object.keys(cEmits).length} found)`);
for (const [k, sites] of Object.entries(cEmits)) {
  if (!check(k in en, `the C key "${k}" (${sites[0].file}) is in the English catalog`)) continue;
  used.add(k);
  for (const site of sites)
    check(site.names === placeholderNames(en[k]), `the C key "${k}" (${site.file}) has arguments {${site.names}} = English's placeholders {${placeholderNames(en[k])}}`);
}
used.add('lang.name'); /* the phone's switch names each language by it (checked above) */
const unused = Object.keys(en).filter((k) => !used.has(k));
check(!unused.length, 'every English key is used by a page' + (unused.length ? ': unused ' + unused.join(', ') : ''));

/* ---- no words of the pages' own ---- */
for (const f of pages.filter((x) => x.endsWith('.html'))) {
  const s = stripComments(read(path.join(web, f))).replace(/<script[\s\S]*?<\/script>/g, '').replace(/<style[\s\S]*?<\/style>/g, '');
  const text = s.replace(/<[^>]*>/g, '\n').split('\n').map((x) => x.trim()).filter((x) => /[A-Za-z]/.test(x) && x !== 'fragvote');
  check(!text.length, `${f}: no text outside the catalog` + (text.length ? ': ' + JSON.stringify(text) : ''));
  const attrs = [...s.matchAll(/\s(placeholder|alt|title|aria-label)="([^"]*)"/g)].map((m) => m[0]);
  check(!attrs.length, `${f}: no words in attributes (data-i18n-attr)` + (attrs.length ? ': ' + attrs.join(' ') : ''));
  check(/<html lang="en">/.test(s), `${f}: <html lang> starts as English (i18n.js sets it to the language shown)`);
}
/* Literals that are code, not words: the style sheet's class names (and
 * the path picture's fvp-* prefixes), SVG's keywords, and the warnings
 * i18n.js writes on the browser's console for whoever builds a catalog. */
const classes = new Set([...read(path.join(web, 'style.css')).matchAll(/\.([a-z][\w-]*)/g)].map((m) => m[1]));
const isCode = (x) => x === 'use strict' || x === 'xMinYMin meet' ||
  x.trim().split(/\s+/).every((w) => classes.has(w) || /^fvp-[a-z-]*$/.test(w));
for (const f of pages.filter((x) => x.endsWith('.js'))) {
  const s = stripComments(read(path.join(web, f))).split('\n').filter((l) => !/\bwarn\(/.test(l)).join('\n');
  const words = [...s.matchAll(/'((?:[^'\\\n]|\\.)*)'/g)].map((m) => m[1])
    .filter((x) => /[A-Za-z]{2,}[ \u00a0]+[A-Za-z]{2,}/.test(x) && !isCode(x));
  check(!words.length, `${f}: no words outside the catalog` + (words.length ? ': ' + JSON.stringify(words) : ''));
}
console.log(`${checks} checks, ${failures} failed (${Object.keys(cats).join(', ')}: ${Object.keys(en).length} keys)`);
process.exit(failures ? 1 : 0);
