/* The slide deck's web server of slides_scenario.js: the reveal.js deck of
 * docs/SLIDES.md exactly as that page gives it (its html block, with
 * https://vote.example.org replaced by the hub's origin) at "/", and
 * reveal.js's dist/ from node_modules at "/reveal.js/dist/", on each of the
 * ports given: the deck's own origin and another site's, with the same
 * markup. Run in the laptop's namespace:
 *   node slides_server.js HUB_ORIGIN PORT...
 * Prints "listening PORT..." once every port listens. */
'use strict';
const fs = require('fs');
const http = require('http');
const path = require('path');

const [hub, ...ports] = process.argv.slice(2);
const src = process.env.FRAGVOTE_SRC || path.join(__dirname, '..', '..');
const doc = fs.readFileSync(path.join(src, 'docs', 'SLIDES.md'), 'utf8');
const block = /```html\n([\s\S]*?)\n```/.exec(doc);
if (!hub || !ports.length || !block) {
  console.error('slides_server: usage: node slides_server.js HUB_ORIGIN PORT... (and docs/SLIDES.md with an html block)');
  process.exit(2);
}
const deck = block[1].split('https://vote.example.org').join(hub);
const dist = path.dirname(require.resolve('reveal.js'));
const types = { '.html': 'text/html', '.css': 'text/css', '.js': 'text/javascript', '.woff': 'font/woff',
  '.woff2': 'font/woff2', '.ttf': 'font/ttf', '.eot': 'application/vnd.ms-fontobject', '.svg': 'image/svg+xml' };

function answer(req, res) {
  const url = new URL(req.url, 'http://x');
  if (url.pathname === '/' || url.pathname === '/talk.html') {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    return res.end(deck);
  }
  const prefix = '/reveal.js/dist/';
  const file = url.pathname.startsWith(prefix) ? path.join(dist, path.normalize(url.pathname.slice(prefix.length))) : '';
  if (file.startsWith(dist + path.sep) && fs.existsSync(file) && fs.statSync(file).isFile()) {
    res.writeHead(200, { 'content-type': types[path.extname(file)] || 'application/octet-stream' });
    return res.end(fs.readFileSync(file));
  }
  res.writeHead(404, { 'content-type': 'text/plain' });
  res.end('not found\n');
}

let up = 0;
for (const port of ports) {
  http.createServer(answer).listen(+port, () => {
    if (++up === ports.length) console.log('listening ' + ports.join(' '));
  });
}
process.on('SIGTERM', () => process.exit(0));
