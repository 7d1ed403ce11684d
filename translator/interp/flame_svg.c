/* SPDX-License-Identifier: GPL-2.0-or-later */
/* flame_svg.c -- a self-contained interactive flame graph (SVG) from
 * folded stacks (flame_svg.h).
 *
 * The layout is Brendan Gregg's flame graph's: one box per frame of the
 * merged call tree, the root ("all") at the bottom, callers below their
 * callees, each box as wide as the samples in it, siblings in
 * alphabetical order (so the x axis is not time).  Made here rather
 * than by flamegraph.pl: the picture is a few hundred lines of output,
 * and the SVG needs nothing but a browser -- no Perl, no network.  A
 * small script zooms into a box on click (its ancestors then span the
 * width, its descendants fill it) and back on the "Reset zoom" text;
 * each box's <title> gives its name, samples and share on hover.
 */
#include <config.h>

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "flame_svg.h"

#define SVG_W 1200	/* px */
#define PAD 10		/* px left and right */
#define FRAME_H 16	/* px per stack level */
#define TOP 50		/* px above the tallest stack: title, controls */
#define CHAR_W 7	/* px: a character of the 12 px monospace font */
#define MIN_W 0.1	/* px: narrower boxes are left out */

struct fnode {
	const char *name;
	size_t len;
	uint64_t count;		/* samples in this frame and above */
	struct fnode **kids;
	size_t nkids, cap;
};

static struct fnode *child(struct fnode *n, const char *name, size_t len)
{
	struct fnode *c, **v;
	size_t i;

	for (i = 0; i < n->nkids; i++)
		if (n->kids[i]->len == len &&
		    memcmp(n->kids[i]->name, name, len) == 0)
			return n->kids[i];
	if (n->nkids == n->cap) {
		size_t cap = n->cap ? 2 * n->cap : 4;

		v = realloc(n->kids, cap * sizeof(*v));
		if (!v)
			return NULL;
		n->kids = v;
		n->cap = cap;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->name = name;
	c->len = len;
	n->kids[n->nkids++] = c;
	return c;
}

static void tree_free(struct fnode *n)
{
	size_t i;

	for (i = 0; i < n->nkids; i++) {
		tree_free(n->kids[i]);
		free(n->kids[i]);
	}
	free(n->kids);
}

static int by_name(const void *a, const void *b)
{
	const struct fnode *x = *(struct fnode *const *)a;
	const struct fnode *y = *(struct fnode *const *)b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->name, y->name, n);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

static unsigned depth_of(struct fnode *n)
{
	unsigned d = 0, k;
	size_t i;

	if (n->nkids > 1)	/* a leaf's KIDS is NULL (C11 7.22.5) */
		qsort(n->kids, n->nkids, sizeof(*n->kids), by_name);
	for (i = 0; i < n->nkids; i++) {
		k = depth_of(n->kids[i]);
		if (k > d)
			d = k;
	}
	return d + 1;
}

/* XML character data of S[0..LEN) (XML 1.0, 2.4: & < > and, in
 * attribute values, the quote). */
static void xml_text(FILE *out, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		default:
			/* control characters are not allowed in XML 1.0 */
			fputc(c < 0x20 ? '?' : c, out);
		}
	}
}

/* A warm colour from the name, so one function keeps its colour. */
static void color_of(const char *s, size_t len, int *r, int *g, int *b)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	*r = 205 + (int)(h % 51);
	*g = (int)((h >> 8) % 231);
	*b = (int)((h >> 16) % 56);
	if (len && s[0] == '[') {	/* [kernel], [unknown], [libx.so] */
		*r = 150 + (int)(h % 40);
		*g = 150 + (int)((h >> 8) % 40);
		*b = 200;
	}
}

struct emit {
	FILE *out;
	uint64_t total;
	unsigned depth;
	double scale;	/* px per sample */
};

static void emit_node(struct emit *e, const struct fnode *n, uint64_t x0,
		      unsigned level)
{
	double px = (double)n->count * e->scale;
	double x = PAD + (double)x0 * e->scale;
	int y = TOP + (int)(e->depth - level - 1) * FRAME_H;
	size_t chars, i;
	uint64_t at = x0;
	int r, g, b;

	if (px < MIN_W)
		return;
	color_of(n->name, n->len, &r, &g, &b);
	fprintf(e->out, "<g class=\"f\" data-x=\"%.9f\" data-w=\"%.9f\" "
		"data-d=\"%u\"><title>", (double)x0 / (double)e->total,
		(double)n->count / (double)e->total, level);
	xml_text(e->out, n->name, n->len);
	fprintf(e->out, " (%llu samples, %.2f%%)</title>",
		(unsigned long long)n->count,
		100.0 * (double)n->count / (double)e->total);
	fprintf(e->out, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
		"height=\"%d\" rx=\"2\" fill=\"rgb(%d,%d,%d)\"/>", x, y,
		px > 1 ? px - 1 : px, FRAME_H - 1, r, g, b);
	fprintf(e->out, "<text x=\"%.1f\" y=\"%d\" data-n=\"", x + 3,
		y + FRAME_H - 4);
	xml_text(e->out, n->name, n->len);
	fputs("\">", e->out);
	chars = px > 6 ? (size_t)((px - 6) / CHAR_W) : 0;
	if (chars >= 3) {
		if (n->len <= chars) {
			xml_text(e->out, n->name, n->len);
		} else {
			xml_text(e->out, n->name, chars - 2);
			fputs("..", e->out);
		}
	}
	fputs("</text></g>\n", e->out);
	for (i = 0; i < n->nkids; i++) {
		emit_node(e, n->kids[i], at, level + 1);
		at += n->kids[i]->count;
	}
}

/* The zoom script: boxes that hold the clicked one span the width,
 * boxes inside it scale to fill it, the rest hide. */
#define SCRIPT \
"<script type=\"text/ecmascript\"><![CDATA[\n" \
"var W = %d, P = %d, C = %d;\n" \
"function fit(t, px) {\n" \
"  var n = t.getAttribute('data-n'), c = Math.floor((px - 6) / C);\n" \
"  t.textContent = c < 3 ? '' : n.length <= c ? n :\n" \
"    n.substring(0, c - 2) + '..';\n" \
"}\n" \
"function place(g, x, w) {\n" \
"  var r = g.getElementsByTagName('rect')[0],\n" \
"      t = g.getElementsByTagName('text')[0], px = w * (W - 2 * P);\n" \
"  g.style.display = '';\n" \
"  r.setAttribute('x', P + x * (W - 2 * P));\n" \
"  r.setAttribute('width', Math.max(px - 1, 0));\n" \
"  t.setAttribute('x', P + x * (W - 2 * P) + 3);\n" \
"  fit(t, px);\n" \
"}\n" \
"function zoom(z) {\n" \
"  var x = +z.getAttribute('data-x'), w = +z.getAttribute('data-w'),\n" \
"      d = +z.getAttribute('data-d'), e = 1e-9;\n" \
"  var gs = document.getElementsByClassName('f');\n" \
"  for (var i = 0; i < gs.length; i++) {\n" \
"    var g = gs[i], gx = +g.getAttribute('data-x'),\n" \
"        gw = +g.getAttribute('data-w'), gd = +g.getAttribute('data-d');\n" \
"    if (gd < d && gx <= x + e && gx + gw >= x + w - e) place(g, 0, 1);\n" \
"    else if (gd >= d && gx >= x - e && gx + gw <= x + w + e)\n" \
"      place(g, (gx - x) / w, gw / w);\n" \
"    else g.style.display = 'none';\n" \
"  }\n" \
"  document.getElementById('reset').style.opacity = 1;\n" \
"}\n" \
"function reset() {\n" \
"  var gs = document.getElementsByClassName('f');\n" \
"  for (var i = 0; i < gs.length; i++)\n" \
"    place(gs[i], +gs[i].getAttribute('data-x'),\n" \
"          +gs[i].getAttribute('data-w'));\n" \
"  document.getElementById('reset').style.opacity = 0.3;\n" \
"}\n" \
"document.addEventListener('click', function (ev) {\n" \
"  var g = ev.target.parentNode;\n" \
"  if (g && g.getAttribute && g.getAttribute('class') == 'f') zoom(g);\n" \
"});\n" \
"]]></script>\n"

int tr_flame_svg(FILE *out, const char *const *stacks,
		 const uint64_t *counts, size_t n, const char *title)
{
	struct fnode root = { .name = "all", .len = 3 };
	struct emit e = { .out = out };
	size_t i;
	int rc = 0, h;

	for (i = 0; i < n && rc == 0; i++) {
		struct fnode *at = &root;
		const char *p = stacks[i];

		root.count += counts[i];
		while (*p) {
			size_t len = strcspn(p, ";");

			at = child(at, p, len);
			if (!at) {
				rc = -ENOMEM;
				break;
			}
			at->count += counts[i];
			p += len + (p[len] == ';');
		}
	}
	if (rc) {
		tree_free(&root);
		return rc;
	}
	e.depth = depth_of(&root);
	e.total = root.count ? root.count : 1;
	e.scale = (double)(SVG_W - 2 * PAD) / (double)e.total;
	h = TOP + (int)e.depth * FRAME_H + PAD;
	fprintf(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" xmlns=\"http://www.w3.org/2000/svg\">\n",
		SVG_W, h, SVG_W, h);
	fprintf(out, "<style>text { font-family: monospace; font-size: "
		"12px; fill: #000; } g.f:hover rect { stroke: #000; "
		"stroke-width: 0.5; cursor: pointer; } #reset { cursor: "
		"pointer; }</style>\n");
	fprintf(out, SCRIPT, SVG_W, PAD, CHAR_W);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" "
		"fill=\"#f8f8f8\"/>\n", SVG_W, h);
	fprintf(out, "<text x=\"%d\" y=\"20\" text-anchor=\"middle\" "
		"style=\"font-size: 16px\">", SVG_W / 2);
	xml_text(out, title, strlen(title));
	fprintf(out, "</text>\n<text id=\"reset\" x=\"%d\" y=\"40\" "
		"style=\"opacity: 0.3\" onclick=\"reset()\">Reset zoom"
		"</text>\n", PAD);
	fprintf(out, "<text x=\"%d\" y=\"40\" text-anchor=\"end\">%llu "
		"samples; click a frame to zoom, hover for counts</text>\n",
		SVG_W - PAD, (unsigned long long)root.count);
	emit_node(&e, &root, 0, 0);
	fputs("</svg>\n", out);
	tree_free(&root);
	return 0;
}
