/* SPDX-License-Identifier: Apache-2.0 */
/* picture.js - draws the rank map embedded in the page (rankmap-data).
 * The fabric boxes come laid out from rankmap (pic_layout.c); this script
 * colours GPUs by the chosen axis, draws pipeline links that leave their
 * leaf, outlines TP groups outside their NVLink domain, and answers clicks.
 * Zoomed out (GPU cells under 3 px) a node is drawn as one block coloured
 * by its GPU 0. window.rankmapPicture is what the browser test reads. */
(function () {
'use strict';
var D = JSON.parse(document.getElementById('rankmap-data').textContent);
var G = D.gpn, COLS = D.cols, ROWS = D.rows, W = D.world;
/* An axis's coordinate is made of digits of RANK: [stride, size, weight]. */
var AX = D.axes.map(function (a) { return { name: a[0], size: a[1], digits: a[2] }; });
function axis(name) { for (var i = 0; i < AX.length; i++) if (AX[i].name === name) return AX[i]; return null; }
function coord(r, a) {
	var v = 0;
	for (var i = 0; i < a.digits.length; i++) { var d = a.digits[i]; v += Math.floor(r / d[0]) % d[1] * d[2]; }
	return v;
}
/* The ranks of r's group along `a`, in coordinate order. */
function members(r, a) {
	var base = r, out = new Array(a.size), i;
	for (i = 0; i < a.digits.length; i++) base -= Math.floor(r / a.digits[i][0]) % a.digits[i][1] * a.digits[i][0];
	(function walk(k, rank, v) {
		if (k === a.digits.length) { out[v] = rank; return; }
		var d = a.digits[k];
		for (var j = 0; j < d[1]; j++) walk(k + 1, rank + j * d[0], v + j * d[2]);
	})(0, base, 0);
	return out;
}
var PP = axis('pp'), TP = axis('tp');
/* A pipeline stage is one digit: the next stage is one stride on. */
var PP_STRIDE = PP && PP.size > 1 && PP.digits.length === 1 ? PP.digits[0][0] : 0;
var palette = [];
function colour(i) {
	if (!palette[i])
		palette[i] = 'hsl(' + (Math.round(i * 137.508) % 360) + ',65%,' + (48 + (Math.floor(i / 8) % 3) * 10) + '%)';
	return palette[i];
}
var SPARE = '#d4d4d4';
var colourBy = PP && PP.size > 1 ? PP : AX[AX.length - 1];
/* Every rank's coordinate on colourBy, decoded once per choice. */
var CI = new Uint32Array(W);
function decodeColours() { for (var r = 0; r < W; r++) CI[r] = coord(r, colourBy); }
decodeColours();
var selRank = -1, selGroup = null;   /* selGroup: {axis, members} */
var views = [];
var root = document.body;

function el(tag, cls, text) {
	var e = document.createElement(tag);
	if (cls) e.className = cls;
	if (text !== undefined) e.textContent = text;
	return e;
}

/* Controls: colour-by (every axis the map has), zoom, legend. */
var bar = el('div');
bar.id = 'bar';
var lab = el('label', '', 'colour by ');
var sel = el('select');
AX.forEach(function (a) {
	var o = el('option', '', a.name + ' (' + a.size + ')');
	o.value = a.name;
	if (a === colourBy) o.selected = true;
	sel.appendChild(o);
});
lab.appendChild(sel);
bar.appendChild(lab);
['fit', 'zoom in', 'zoom out'].forEach(function (t) {
	var b = el('button', '', t);
	b.type = 'button';
	b.addEventListener('click', function () {
		views.forEach(function (v) {
			if (t === 'fit') v.fit();
			else v.zoomAt(v.cw / 2, v.ch / 2, t === 'zoom in' ? 2 : 0.5);
		});
	});
	bar.appendChild(b);
});
/* Find a rank by number: the keyboard's and screen reader's way in. */
var findLab = el('label', '', 'rank ');
var find = el('input');
find.type = 'number';
find.min = 0;
find.max = W - 1;
find.id = 'find-rank';
find.style.width = '7em';
find.addEventListener('change', function () {
	var r = Number(find.value);
	if (find.value !== '' && r >= 0 && r < W && r === Math.floor(r) && views.length) {
		var x = views[0], s = x.rankSlot[r];
		show(x, { host: Math.floor(s / G), gpu: s % G, rank: r });
	}
});
findLab.appendChild(find);
bar.appendChild(findLab);
var legend = el('div');
legend.id = 'legend';
bar.appendChild(legend);
root.appendChild(bar);
var box = el('div');
box.id = 'views';
root.appendChild(box);
var info = el('div', '', 'Click a GPU (or type a rank above) to see its rank, coordinates, host and groups. Wheel or buttons zoom, drag pans.');
info.id = 'info';
info.setAttribute('aria-live', 'polite');
root.appendChild(info);

function drawLegend() {
	legend.textContent = '';
	var n = Math.min(colourBy.size, 32);
	for (var i = 0; i < n; i++) {
		var s = el('span'), sw = el('i');
		sw.style.background = colour(i);
		s.appendChild(sw);
		s.appendChild(document.createTextNode(colourBy.name + ' ' + i));
		legend.appendChild(s);
	}
	if (colourBy.size > n) legend.appendChild(el('span', '', '... (colours repeat)'));
	var s2 = el('span'), sw2 = el('i');
	sw2.style.background = SPARE;
	s2.appendChild(sw2);
	s2.appendChild(document.createTextNode('spare / idle'));
	legend.appendChild(s2);
}

function View(v, index) {
	var self = this;
	this.v = v;
	this.index = index;
	var nh = v.hosts.length;
	this.nh = nh;
	this.rankSlot = new Int32Array(W);
	for (var s = 0; s < v.slots.length; s++) if (v.slots[s] >= 0) this.rankSlot[v.slots[s]] = s;
	/* Pipeline pairs that leave their leaf or rail: the rule rm_check
	 * scores as pp_cross, counted here again from the drawn GPUs. */
	this.cross = [];
	if (PP_STRIDE) {
		for (var r = 0; r < W; r++) {
			if (coord(r, PP) === PP.size - 1) continue;
			var q = r + PP_STRIDE;
			if (this.crosses(r, q)) this.cross.push(r, q);
		}
	}
	/* Zoomed out, links are drawn node to node, once per pair of nodes. */
	var seenPair = new Set();
	this.nodeLinks = [];
	for (var j = 0; j < this.cross.length; j += 2) {
		var na = Math.floor(this.rankSlot[this.cross[j]] / G), nb = Math.floor(this.rankSlot[this.cross[j + 1]] / G);
		var key = na < nb ? na * nh + nb : nb * nh + na;
		if (!seenPair.has(key)) { seenPair.add(key); this.nodeLinks.push(na, nb); }
	}
	/* TP groups whose GPUs are in more than one NVLink domain. */
	this.split = new Uint8Array(W);
	this.nsplit = 0;
	if (TP && TP.size > 1) {
		for (var r2 = 0; r2 < W; r2++) {
			if (coord(r2, TP) !== 0) continue;
			var tm = members(r2, TP), d = v.dom[Math.floor(this.rankSlot[r2] / G)], bad = false;
			for (var i = 1; i < tm.length && !bad; i++)
				bad = v.dom[Math.floor(this.rankSlot[tm[i]] / G)] !== d;
			if (bad) {
				this.nsplit++;
				for (var k = 0; k < tm.length; k++) this.split[tm[k]] = 1;
			}
		}
	}
	var wrap = this.wrap = el('section', 'view');
	wrap.setAttribute('aria-label', v.name);
	wrap.appendChild(el('h2', '', v.name));
	wrap.appendChild(this.report());
	this.canvas = el('canvas');
	this.canvas.setAttribute('role', 'img');
	this.canvas.setAttribute('aria-label', v.name + ': ' + (W) + ' GPUs on ' + (nh - v.nspare) +
		' nodes, ' + v.leaves.length + ' leaves; click a GPU for its rank');
	this.canvas.tabIndex = 0;
	wrap.appendChild(this.canvas);
	box.appendChild(wrap);
	this.ctx = this.canvas.getContext('2d');
	this.s = 1;
	this.ox = this.oy = 0;
	this.drawnGpus = this.drawnNodes = 0;
	var drag = null;
	this.canvas.addEventListener('mousedown', function (e) { drag = { x: e.clientX, y: e.clientY, moved: false }; });
	window.addEventListener('mousemove', function (e) {
		if (!drag) return;
		var dx = e.clientX - drag.x, dy = e.clientY - drag.y;
		if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
		if (drag.moved) {
			self.ox += dx; self.oy += dy;
			drag.x = e.clientX; drag.y = e.clientY;
			self.draw();
		}
	});
	window.addEventListener('mouseup', function (e) {
		if (drag && !drag.moved && e.target === self.canvas) self.click(e);
		drag = null;
	});
	this.canvas.addEventListener('wheel', function (e) {
		e.preventDefault();
		var rc = self.canvas.getBoundingClientRect();
		self.zoomAt(e.clientX - rc.left, e.clientY - rc.top, e.deltaY < 0 ? 1.25 : 0.8);
	}, { passive: false });
	this.canvas.addEventListener('dblclick', function () { self.fit(); });
}

View.prototype.crosses = function (a, b) {
	var v = this.v, sa = this.rankSlot[a], sb = this.rankSlot[b];
	var ha = Math.floor(sa / G), hb = Math.floor(sb / G);
	if (ha === hb) return false;
	if (v.unit[ha] || v.unit[hb])
		return !(v.unit[ha] && v.unit[hb] && v.loc[ha] === v.loc[hb] && sa % G === sb % G);
	return v.loc[ha] !== v.loc[hb];
};

View.prototype.report = function () {
	var R = this.v.report, d = el('div', 'report');
	function line(cls, text) { var p = el('p', cls, text); d.appendChild(p); return p; }
	if (this.v.price) line('price', this.v.price);
	line(R.must_ok ? 'pass' : 'fail', (R.must_ok ? 'PASS' : 'FAIL') + '  all must-rules hold: ' + (R.must_ok ? 'yes' : 'no'));
	line(R.tp_split ? 'fail' : 'pass', (R.tp_split ? 'FAIL' : 'PASS') + '  TP groups inside one NVLink domain (' +
		R.tp_split + ' of ' + R.tp_groups + ' split; ' + this.nsplit + ' outlined in red)');
	if (R.cp_must) line(R.cp_split ? 'fail' : 'pass', 'CP groups inside one NVLink domain: ' + R.cp_split + ' split');
	if (R.ep_must) line(R.ep_split ? 'fail' : 'pass', 'EP groups inside one NVLink domain: ' + R.ep_split + ' split');
	var p = line('', 'pipeline: ' + R.pp_cross + ' of ' + R.pp_pairs + ' neighbour pairs cross a leaf, lower bound ' +
		R.pp_cross_lower_bound + ' (' + this.v.pp_bound + '); drawn: ');
	var c = el('span', 'drawn-cross', String(this.cross.length / 2));
	p.appendChild(c);
	line('tiers', this.v.tiers);
	var nspare = this.v.nspare;
	this.v.spans.forEach(function (t, i) { line('', t + (i ? '' : '; ' + nspare + ' spare nodes')); });
	(R.warnings || []).slice(0, 3).forEach(function (w) { line('warn', 'warning: ' + w); });
	return d;
};

View.prototype.resize = function () {
	var r = this.canvas.getBoundingClientRect(), dpr = window.devicePixelRatio || 1;
	this.cw = r.width; this.ch = r.height; this.dpr = dpr;
	this.canvas.width = Math.max(1, Math.round(r.width * dpr));
	this.canvas.height = Math.max(1, Math.round(r.height * dpr));
};

View.prototype.fit = function () {
	this.s = Math.min(this.cw / (this.v.w + 2), this.ch / (this.v.h + 2));
	this.ox = (this.cw - this.v.w * this.s) / 2;
	this.oy = (this.ch - this.v.h * this.s) / 2;
	this.draw();
};

View.prototype.zoomAt = function (x, y, f) {
	this.ox = x - (x - this.ox) * f;
	this.oy = y - (y - this.oy) * f;
	this.s *= f;
	this.draw();
};

/* Centre of a rank's GPU cell, in page (client) coordinates. */
View.prototype.cellCenter = function (r) {
	var s = this.rankSlot[r], h = Math.floor(s / G), i = s % G, rc = this.canvas.getBoundingClientRect();
	var x = this.v.hxy[2 * h] + (i % COLS) + 0.5, y = this.v.hxy[2 * h + 1] + Math.floor(i / COLS) + 0.5;
	return { x: rc.left + this.ox + x * this.s, y: rc.top + this.oy + y * this.s };
};

View.prototype.cellOf = function (r) {
	var s = this.rankSlot[r], h = Math.floor(s / G), i = s % G;
	return [this.v.hxy[2 * h] + (i % COLS), this.v.hxy[2 * h + 1] + Math.floor(i / COLS)];
};

/* Centres of both GPU cells of every crossing link, x1 y1 x2 y2. */
View.prototype.linkEnds = function () {
	if (!this.ends) {
		var E = new Float64Array(this.cross.length * 2);
		for (var i = 0; i < this.cross.length; i += 2) {
			var a = this.cellOf(this.cross[i]), b = this.cellOf(this.cross[i + 1]);
			E[2 * i] = a[0] + 0.5; E[2 * i + 1] = a[1] + 0.5;
			E[2 * i + 2] = b[0] + 0.5; E[2 * i + 3] = b[1] + 0.5;
		}
		this.ends = E;
	}
	return this.ends;
};

View.prototype.draw = function () {
	var c = this.ctx, v = this.v, s = this.s, dpr = this.dpr, k, i;
	c.setTransform(1, 0, 0, 1, 0, 0);
	c.fillStyle = '#fff';
	c.fillRect(0, 0, this.canvas.width, this.canvas.height);
	c.setTransform(dpr * s, 0, 0, dpr * s, dpr * this.ox, dpr * this.oy);
	var x0 = -this.ox / s, y0 = -this.oy / s, x1 = x0 + this.cw / s, y1 = y0 + this.ch / s;
	function seen(x, y, w, h) { return x < x1 && y < y1 && x + w > x0 && y + h > y0; }
	/* Whether the segment meets the view: its box must, and the view's
	 * corners must not all lie on one side of its line. */
	function crossesView(ax, ay, bx, by) {
		if (!seen(Math.min(ax, bx), Math.min(ay, by), Math.abs(ax - bx) + 1e-9, Math.abs(ay - by) + 1e-9)) return false;
		var dx = bx - ax, dy = by - ay;
		var c1 = dx * (y0 - ay) - dy * (x0 - ax), c2 = dx * (y0 - ay) - dy * (x1 - ax);
		var c3 = dx * (y1 - ay) - dy * (x0 - ax), c4 = dx * (y1 - ay) - dy * (x1 - ax);
		return !((c1 > 0 && c2 > 0 && c3 > 0 && c4 > 0) || (c1 < 0 && c2 < 0 && c3 < 0 && c4 < 0));
	}
	c.lineWidth = 1 / s;
	c.fillStyle = '#f4f4f4';
	c.strokeStyle = '#999';
	v.tops.forEach(function (t) {
		if (t[0] && seen(t[1], t[2], t[3], t[4])) { c.fillRect(t[1], t[2], t[3], t[4]); c.strokeRect(t[1], t[2], t[3], t[4]); }
	});
	c.fillStyle = '#fff';
	c.strokeStyle = '#bbb';
	v.leaves.forEach(function (t) {
		if (seen(t[1], t[2], t[3], t[4])) { c.fillRect(t[1], t[2], t[3], t[4]); c.strokeRect(t[1], t[2], t[3], t[4]); }
	});
	/* Multi-node NVLink domains: dashed boxes inside their leaf. */
	if (v.doms.length) {
		c.strokeStyle = '#7b3fb5';
		c.setLineDash([4 / s, 3 / s]);
		v.doms.forEach(function (t) { if (seen(t[1], t[2], t[3], t[4])) c.strokeRect(t[1], t[2], t[3], t[4]); });
		c.setLineDash([]);
	}
	/* GPUs: one path per colour, so the canvas changes style only a few
	 * times however many GPUs there are. */
	var detail = s >= 3, paths = {}, spare = new Path2D(), red = new Path2D(), nred = 0;
	var gpus = 0, nodes = 0;
	for (var h = 0; h < this.nh; h++) {
		var hx = v.hxy[2 * h], hy = v.hxy[2 * h + 1];
		if (!seen(hx, hy, COLS, ROWS)) continue;
		nodes++;
		if (!detail) {
			var r0 = v.slots[h * G];
			var p0 = r0 < 0 ? spare : (paths[CI[r0]] = paths[CI[r0]] || new Path2D());
			p0.rect(hx, hy, COLS, ROWS);
			continue;
		}
		for (i = 0; i < G; i++) {
			var r = v.slots[h * G + i], x = hx + (i % COLS), y = hy + Math.floor(i / COLS);
			gpus++;
			if (r < 0) { spare.rect(x + 0.08, y + 0.08, 0.84, 0.84); continue; }
			k = CI[r];
			(paths[k] = paths[k] || new Path2D()).rect(x + 0.08, y + 0.08, 0.84, 0.84);
			if (this.split[r]) { red.rect(x + 0.08, y + 0.08, 0.84, 0.84); nred++; }
		}
	}
	this.drawnGpus = gpus;
	this.drawnNodes = nodes;
	this.detail = detail;
	for (k in paths) { c.fillStyle = colour(+k); c.fill(paths[k]); }
	c.fillStyle = SPARE;
	c.fill(spare);
	if (nred) { c.strokeStyle = '#e00000'; c.lineWidth = Math.max(0.12, 2 / s); c.stroke(red); }
	/* Pipeline links that leave their leaf. */
	if (this.cross.length) {
		var ln = new Path2D(), cx = COLS / 2, cy = ROWS / 2;
		if (detail) {
			var E = this.linkEnds();
			for (i = 0; i < E.length; i += 4) {
				if (!crossesView(E[i], E[i + 1], E[i + 2], E[i + 3])) continue;
				ln.moveTo(E[i], E[i + 1]);
				ln.lineTo(E[i + 2], E[i + 3]);
			}
		} else {
			var L = this.nodeLinks;
			for (i = 0; i < L.length; i += 2) {
				ln.moveTo(v.hxy[2 * L[i]] + cx, v.hxy[2 * L[i] + 1] + cy);
				ln.lineTo(v.hxy[2 * L[i + 1]] + cx, v.hxy[2 * L[i + 1] + 1] + cy);
			}
		}
		c.strokeStyle = detail ? 'rgba(20,20,20,0.45)' : 'rgba(20,20,20,0.12)';
		c.lineWidth = Math.max(0.06, 1 / s);
		c.stroke(ln);
	}
	/* The selected group and rank. */
	if (selGroup) {
		var g = new Path2D();
		for (i = 0; i < selGroup.members.length; i++) {
			var m = this.cellOf(selGroup.members[i]);
			g.rect(m[0], m[1], 1, 1);
		}
		c.strokeStyle = '#000';
		c.lineWidth = Math.max(0.15, 2.5 / s);
		c.stroke(g);
	}
	if (selRank >= 0) {
		var sc = this.cellOf(selRank);
		c.strokeStyle = '#ff00c8';
		c.lineWidth = Math.max(0.25, 3 / s);
		c.strokeRect(sc[0] - 0.2, sc[1] - 0.2, 1.4, 1.4);
	}
	/* Names, in screen pixels, where they fit. */
	c.setTransform(dpr, 0, 0, dpr, 0, 0);
	c.fillStyle = '#444';
	var ox = this.ox, oy = this.oy;
	if (s * 1.5 >= 9) {
		c.font = Math.min(13, s * 1.1) + 'px sans-serif';
		v.tops.forEach(function (t) { if (t[0] && seen(t[1], t[2], t[3], 1.5)) c.fillText(t[0], ox + (t[1] + 0.3) * s, oy + (t[2] + 1.1) * s); });
		c.font = Math.min(11, s * 0.9) + 'px sans-serif';
		v.leaves.concat(v.doms).forEach(function (t) { if (seen(t[1], t[2], t[3], 1.5)) c.fillText(t[0], ox + (t[1] + 0.3) * s, oy + (t[2] + 1.1) * s); });
	}
};

View.prototype.hit = function (x, y) {
	var v = this.v;
	for (var h = 0; h < this.nh; h++) {
		var hx = v.hxy[2 * h], hy = v.hxy[2 * h + 1];
		if (x >= hx && x < hx + COLS && y >= hy && y < hy + ROWS) {
			var i = Math.floor(y - hy) * COLS + Math.floor(x - hx);
			return i < G ? { host: h, gpu: i, rank: v.slots[h * G + i] } : null;
		}
	}
	return null;
};

View.prototype.click = function (e) {
	var rc = this.canvas.getBoundingClientRect();
	var hit = this.hit((e.clientX - rc.left - this.ox) / this.s, (e.clientY - rc.top - this.oy) / this.s);
	if (hit) show(this, hit);
};

function show(view, hit) {
	var v = view.v;
	info.textContent = '';
	var head = el('p');
	var leaf = v.leaves[v.leaf[hit.host]][0];
	if (hit.rank < 0) {
		head.textContent = v.name + ': ' + v.hosts[hit.host] + ' GPU ' + hit.gpu + ' is ' +
			(v.spare[hit.host] ? 'on a spare node' : 'idle') + ' (leaf ' + leaf + ')';
		info.appendChild(head);
		return;
	}
	var r = hit.rank;
	selRank = r;
	var coords = AX.map(function (a) { return a.name + '=' + coord(r, a); }).join(' ');
	head.innerHTML = '';
	var b = el('b', 'sel-rank', 'rank ' + r);
	head.appendChild(b);
	head.appendChild(document.createTextNode(': '));
	head.appendChild(el('span', 'sel-coords', coords));
	head.appendChild(document.createTextNode(' on ' + v.hosts[hit.host] + ' GPU ' + hit.gpu + ', leaf ' + leaf +
		' (' + v.name + ')'));
	info.appendChild(head);
	AX.forEach(function (a) {
		if (a.size < 2) return;
		var m = members(r, a), p = el('p');
		var btn = el('button', 'group-' + a.name, 'highlight ' + a.name + ' group');
		btn.type = 'button';
		btn.addEventListener('click', function () {
			selGroup = { axis: a.name, members: m };
			views.forEach(function (x) { x.draw(); });
		});
		p.appendChild(btn);
		var list = m.length > 16 ? m.slice(0, 16).join(', ') + ', ... (' + m.length + ')' : m.join(', ');
		p.appendChild(el('span', 'members', a.name + ' group of ' + a.size + ': ranks ' + list));
		info.appendChild(p);
	});
	views.forEach(function (x) { x.draw(); });
}

function redraw() { views.forEach(function (x) { x.draw(); }); }
sel.addEventListener('change', function () { colourBy = axis(sel.value); decodeColours(); drawLegend(); redraw(); });
window.addEventListener('resize', function () { views.forEach(function (x) { x.resize(); x.fit(); }); });

drawLegend();
D.views.forEach(function (v, i) { views.push(new View(v, i)); });
views.forEach(function (x) { x.resize(); x.fit(); });

/* What the browser test checks (tests/picture/t_browser.sh). */
window.rankmapPicture = {
	renderMs: performance.now(),         /* drawing done, not yet painted */
	/* One redraw of every view until it is painted (what a zoom, pan or
	 * click costs), as a promise of milliseconds. */
	redrawMs: function () {
		var t = performance.now();
		redraw();
		return new Promise(function (done) {
			requestAnimationFrame(function () { requestAnimationFrame(function () { done(performance.now() - t); }); });
		});
	},
	world: W,
	axes: AX.map(function (a) { return a.name; }),
	/* The highlighted group: {axis, members}, or null. */
	selectedGroup: function () { return selGroup; },
	views: views.map(function (x) {
		return {
			name: x.v.name,
			gpuSlots: x.nh * G,
			drawnGpus: function () { return x.drawnGpus; },
			drawnNodes: function () { return x.drawnNodes; },
			detail: function () { return x.detail; },
			crossings: x.cross.length / 2,
			reportCross: x.v.report.pp_cross,
			tpSplit: x.nsplit,
			reportTpSplit: x.v.report.tp_split,
			/* the report above the view, as the reader sees it */
			header: function () { return x.wrap.querySelector('.report').textContent; },
			cellCenter: function (r) { return x.cellCenter(r); }
		};
	}),
	ready: false
};
/* Ready once the first picture has been painted: the frame after the
 * one that drew it. */
requestAnimationFrame(function () {
	requestAnimationFrame(function () {
		window.rankmapPicture.paintedMs = performance.now();
		window.rankmapPicture.ready = true;
	});
});
})();
