/* SPDX-License-Identifier: GPL-2.0-or-later */
// profile_svg.js -- profile.py's check of the flame graph's zoom script
// without a browser: node runs the SVG's own script against a small
// stand-in of the DOM made from the SVG's frames, zooms into the frame
// named argv[3], and prints every frame's state as JSON lines; then
// resets and prints them again.
'use strict';
const fs = require('fs');
const svg = fs.readFileSync(process.argv[2], 'utf8');
const script = svg.match(/<!\[CDATA\[([\s\S]*?)\]\]>/)[1];

function attrs(s) {
	const a = {};
	for (const m of s.matchAll(/([\w-]+)="([^"]*)"/g))
		a[m[1]] = m[2].replace(/&lt;/g, '<').replace(/&gt;/g, '>')
			.replace(/&quot;/g, '"').replace(/&amp;/g, '&');
	return a;
}

function el(a) {
	return {
		a: a, style: { display: '', opacity: 0.3 },
		getAttribute(k) { return this.a[k]; },
		setAttribute(k, v) { this.a[k] = String(v); },
	};
}

const gs = [];
const re = /<g (class="f"[^>]*)><title>[\s\S]*?<\/title><rect ([^>]*?)\/><text ([^>]*)>([^<]*)<\/text><\/g>/g;
for (const m of svg.matchAll(re)) {
	const g = el(attrs(m[1])), r = el(attrs(m[2])), t = el(attrs(m[3]));
	t.textContent = m[4];
	g.getElementsByTagName = (n) => [n === 'rect' ? r : t];
	g.r = r;
	g.t = t;
	gs.push(g);
}
const resetEl = el({});
global.document = {
	getElementsByClassName: () => gs,
	getElementById: () => resetEl,
	addEventListener() {},
};
const api = new Function(script + '; return { zoom: zoom, reset: reset };')();

function dump(phase) {
	for (const g of gs)
		console.log(JSON.stringify({
			phase: phase, name: g.t.a['data-n'],
			depth: +g.a['data-d'], shown: g.style.display !== 'none',
			x: +g.r.a.x, width: +g.r.a.width, text: g.t.textContent,
		}));
}

const target = gs.find((g) => g.t.a['data-n'] === process.argv[3]);
api.zoom(target);
dump('zoom');
api.reset();
dump('reset');
