/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pic_layout.c - where every box of the picture goes. Hosts are sorted the
 * way the planner walks the fabric (top-level subtree, leaf, name), so a
 * plan and its baseline over one allocation put every node in the same
 * place and differ only in which rank each GPU plays.
 */
#include "picture/pic.h"
#include "place/place.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NODE_GAP 0.5                 /* between node boxes */
#define PAD 0.75                     /* inside a leaf or top box */
#define LABEL 1.5                    /* name row on top of a box */
#define ASPECT 1.5                   /* width / height of the picture */

typedef struct key {
	uint32_t top, loc, dom, ix;  /* dom: multi-node domain, else ~0 */
	const char *name;
} key;

static int cmp_key(const void *a, const void *b)
{
	const key *x = a, *y = b;
	int c;
	if ((c = RMI_CMP(x->top, y->top)) || (c = RMI_CMP(x->loc, y->loc)) ||
	    (c = RMI_CMP(x->dom, y->dom)) ||
	    (c = rm_host_cmp(x->name, y->name)))
		return c;
	return RMI_CMP(x->ix, y->ix);
}

static const char *top_name(const rmi_where *w, const rmi_hostinfo *h)
{
	const rm_fabric *f = w->f;
	if (!f || h->fnode < 0 || (uint32_t)h->fnode >= f->nnode)
		return "";
	int32_t leaf = f->node[h->fnode].leaf;
	if (leaf < 0 || (uint32_t)leaf >= f->nsw)
		return "";
	return f->sw[w->sw_root[leaf]].name;
}

/* The host's NVLink domain when it spans several nodes and is not the
 * host's leaf itself (a topology/block block without a tree), else ~0. */
static uint32_t multi_dom(const rmi_where *w, const rmi_hostinfo *h,
			  const char *host)
{
	if (!w->f || h->dom >= w->ndom || h->dom >= w->f->ndomain)
		return UINT32_MAX;
	const char *name = w->f->domain_name[h->dom];
	return strcmp(name, rmi_where_loc_name(w, h, host)) ? h->dom
							    : UINT32_MAX;
}

/* Rows of boxes no wider than `width`; returns the size they take. */
static void flow(rmi_pic_box *v, uint32_t n, double width, double *w,
		 double *h)
{
	double x = 0, y = 0, row = 0;
	*w = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (x > 0 && x + v[i].w > width) {
			y += row + PAD;
			x = row = 0;
		}
		v[i].x = x;
		v[i].y = y;
		x += v[i].w + PAD;
		if (v[i].h > row)
			row = v[i].h;
		if (x - PAD > *w)
			*w = x - PAD;
	}
	*h = n ? y + row : 0;
}

/* A width that makes the flowed boxes roughly `aspect` times wider than
 * tall, and never narrower than the widest box. */
static double target_width(const rmi_pic_box *v, uint32_t n, double aspect)
{
	double area = 0, widest = 0;
	for (uint32_t i = 0; i < n; i++) {
		area += (v[i].w + PAD) * (v[i].h + PAD);
		if (v[i].w > widest)
			widest = v[i].w;
	}
	double t = sqrt(area * aspect);
	return t > widest ? t : widest;
}

/* k nodes from host `first` in columns filled top to bottom, from
 * (x0, y0); returns the size they take. */
static void columns(rmi_pic *p, uint32_t first, uint32_t k, double x0,
		    double y0, double *w, double *h)
{
	double nw = p->cols + NODE_GAP, nh = p->rows + NODE_GAP;
	uint32_t c = (uint32_t)lround(sqrt(k * nh / nw));
	c = c < 1 ? 1 : c > k ? k : c;
	uint32_t r = (k + c - 1) / c;
	*w = c * nw - NODE_GAP;
	*h = r * nh - NODE_GAP;
	for (uint32_t j = 0; j < k; j++) {
		p->host[first + j].x = x0 + (j / r) * nw;
		p->host[first + j].y = y0 + (j % r) * nh;
	}
}

/* A leaf holding multi-node NVLink domains: each domain a framed box of
 * its nodes, other nodes in unframed runs, all flowed inside the leaf.
 * `run` and `first` are scratch for up to the leaf's host count. */
static void leaf_domains(rmi_pic *p, uint32_t l, uint32_t a, uint32_t b,
			 rmi_pic_box *run, uint32_t *first)
{
	uint32_t n = 0;
	for (uint32_t i = a; i < b; n++) {
		uint32_t j = i;
		while (j < b && p->host[j].mdom == p->host[i].mdom)
			j++;
		double w, h;
		int32_t d = p->host[i].mdom;
		columns(p, i, j - i, d >= 0 ? PAD : 0, d >= 0 ? LABEL : 0, &w,
			&h);
		run[n] = (rmi_pic_box){ .w = d >= 0 ? w + 2 * PAD : w,
					.h = d >= 0 ? LABEL + h + PAD : h };
		first[n] = i;
		first[n + 1] = j;
		i = j;
	}
	double fw, fh;
	flow(run, n, target_width(run, n, ASPECT), &fw, &fh);
	for (uint32_t k = 0; k < n; k++) {
		double dx = PAD + run[k].x, dy = LABEL + run[k].y;
		for (uint32_t i = first[k]; i < first[k + 1]; i++) {
			p->host[i].x += dx;
			p->host[i].y += dy;
		}
		int32_t d = p->host[first[k]].mdom;
		if (d >= 0) {
			p->dom[d].x = dx;
			p->dom[d].y = dy;
			p->dom[d].w = run[k].w;
			p->dom[d].h = run[k].h;
			p->dom[d].parent = l;
		}
	}
	p->leaf[l].w = fw + 2 * PAD;
	p->leaf[l].h = LABEL + fh + PAD;
}

static void layout(rmi_pic *p, const uint32_t *leaf_first,
		   const uint32_t *top_first, rmi_pic_box *run,
		   uint32_t *first)
{
	for (uint32_t l = 0; l < p->nleaf; l++) {
		uint32_t a = leaf_first[l], b = leaf_first[l + 1];
		bool doms = false;
		for (uint32_t i = a; i < b && !doms; i++)
			doms = p->host[i].mdom >= 0;
		if (doms) {
			leaf_domains(p, l, a, b, run, first);
			continue;
		}
		double w, h;
		columns(p, a, b - a, PAD, LABEL, &w, &h);
		p->leaf[l].w = w + 2 * PAD;
		p->leaf[l].h = LABEL + h + PAD;
	}
	/* Tops in a grid of about sqrt(tops) columns, each top shaped so
	 * that the grid comes out about ASPECT times wider than tall. */
	uint32_t c = (uint32_t)ceil(sqrt(p->ntop)), r = (p->ntop + c - 1) / c;
	double widest = 0;
	for (uint32_t t = 0; t < p->ntop; t++) {
		rmi_pic_box *v = p->leaf + top_first[t];
		uint32_t n = top_first[t + 1] - top_first[t];
		double w, h;
		flow(v, n, target_width(v, n, ASPECT * r / c), &w, &h);
		p->top[t].w = w + 2 * PAD;
		p->top[t].h = LABEL + h + PAD;
		if (p->top[t].w > widest)
			widest = p->top[t].w;
	}
	flow(p->top, p->ntop, c * (widest + PAD), &p->w, &p->h);
	/* Relative positions to absolute ones. */
	for (uint32_t t = 0; t < p->ntop; t++)
		for (uint32_t l = top_first[t]; l < top_first[t + 1]; l++) {
			p->leaf[l].x += p->top[t].x + PAD;
			p->leaf[l].y += p->top[t].y + LABEL;
			for (uint32_t i = leaf_first[l]; i < leaf_first[l + 1];
			     i++) {
				p->host[i].x += p->leaf[l].x;
				p->host[i].y += p->leaf[l].y;
			}
		}
	for (uint32_t d = 0; d < p->ndom; d++) {
		p->dom[d].x += p->leaf[p->dom[d].parent].x;
		p->dom[d].y += p->leaf[p->dom[d].parent].y;
	}
}

static rm_status fill(rmi_pic *p, const rm_map *m, const rmi_where *w,
		      key *k, rmi_hostinfo *info, uint32_t *loc,
		      rm_error *err)
{
	uint32_t n = p->nhost;
	uint32_t *leaf_first = malloc((n + 2) * sizeof(uint32_t));
	uint32_t *top_first = malloc((n + 2) * sizeof(uint32_t));
	uint32_t *drawn = malloc((n + 1) * sizeof(uint32_t));
	uint32_t *first = malloc((n + 2) * sizeof(uint32_t));
	rmi_pic_box *run = malloc((n + 1) * sizeof(rmi_pic_box));
	p->leaf = calloc(n + 1, sizeof(rmi_pic_box));
	p->top = calloc(n + 1, sizeof(rmi_pic_box));
	p->dom = calloc(n + 1, sizeof(rmi_pic_box));
	if (!leaf_first || !top_first || !drawn || !first || !run ||
	    !p->leaf || !p->top || !p->dom) {
		free(leaf_first);
		free(top_first);
		free(drawn);
		free(first);
		free(run);
		return rmi_err(err, RM_ENOMEM, "out of memory");
	}
	for (uint32_t i = 0; i < n; i++) {
		const key *c = &k[i];
		const rmi_hostinfo *h = &info[c->ix];
		bool new_top = !i || k[i - 1].top != c->top;
		if (new_top) {
			top_first[p->ntop] = p->nleaf;
			p->top[p->ntop++].name = top_name(w, h);
		}
		if (new_top || k[i - 1].loc != c->loc) {
			leaf_first[p->nleaf] = i;
			p->leaf[p->nleaf++].name =
				rmi_where_loc_name(w, h, c->name);
		}
		p->host[i] = (rmi_pic_host){
			.name = c->name, .leaf = p->nleaf - 1, .dom = h->dom,
			.unit = h->unit >= 0, .spare = c->ix >= m->nhost,
			.mdom = -1,
		};
		if (c->dom != UINT32_MAX) {
			if (!i || i == leaf_first[p->nleaf - 1] ||
			    k[i - 1].dom != c->dom)
				p->dom[p->ndom++].name =
					w->f->domain_name[c->dom];
			p->host[i].mdom = (int32_t)p->ndom - 1;
		}
		loc[i] = h->loc;
		drawn[c->ix] = i;
	}
	leaf_first[p->nleaf] = n;
	top_first[p->ntop] = p->nleaf;
	layout(p, leaf_first, top_first, run, first);
	uint32_t g = m->gpus_per_node;
	for (uint32_t r = 0; r < m->world; r++) {
		uint64_t s = (uint64_t)drawn[m->rank[r].node] * g +
			     m->rank[r].local_gpu;
		p->slot[s] = r;
		p->rank_slot[r] = (uint32_t)s;
	}
	free(leaf_first);
	free(top_first);
	free(drawn);
	free(first);
	free(run);
	return RM_OK;
}

rm_status rmi_pic_build(rmi_pic *p, const rm_map *m, const rm_fabric *f,
			rm_error *err)
{
	memset(p, 0, sizeof(*p));
	p->m = m;
	if (!m || !m->rank || !m->host || !m->nhost || !m->gpus_per_node ||
	    m->report.world != m->world)
		return rmi_err(err, RM_EINPUT,
			       "picture: the map has not been checked");
	uint32_t n = m->nhost + m->nspare, g = m->gpus_per_node;
	p->nhost = n;
	p->cols = g <= 16 ? g : 16;
	p->rows = (g + p->cols - 1) / p->cols;
	rmi_where w;
	rm_status st = rmi_where_init(&w, f, n, err);
	if (st)
		return st;
	key *k = malloc((n + 1) * sizeof(*k));
	rmi_hostinfo *info = malloc((n + 1) * sizeof(*info));
	uint32_t *loc = malloc((n + 1) * sizeof(*loc));
	p->host = calloc(n + 1, sizeof(*p->host));
	p->slot = malloc(((size_t)n * g + 1) * sizeof(*p->slot));
	p->rank_slot = malloc(((size_t)m->world + 1) * sizeof(uint32_t));
	if (!k || !info || !loc || !p->host || !p->slot || !p->rank_slot) {
		st = rmi_err(err, RM_ENOMEM, "out of memory");
	} else {
		for (uint32_t i = 0; i < n; i++) {
			const char *h = i < m->nhost ? m->host[i]
						     : m->spare[i - m->nhost];
			rmi_where_host(&w, h, i, &info[i]);
			k[i] = (key){ info[i].top, info[i].loc,
				      multi_dom(&w, &info[i], h), i, h };
		}
		qsort(k, n, sizeof(*k), cmp_key);
		for (size_t i = 0; i < (size_t)n * g; i++)
			p->slot[i] = -1;
		st = fill(p, m, &w, k, info, loc, err);
	}
	if (st == RM_OK) {
		p->loc = loc;
		loc = NULL;
	}
	free(k);
	free(info);
	free(loc);
	rmi_where_free(&w);
	if (st)
		rmi_pic_free(p);
	return st;
}

void rmi_pic_free(rmi_pic *p)
{
	free(p->host);
	free(p->leaf);
	free(p->top);
	free(p->dom);
	free(p->slot);
	free(p->rank_slot);
	free(p->loc);
	memset(p, 0, sizeof(*p));
}

void rmi_pic_cell(const rmi_pic *p, uint64_t slot, double *x, double *y)
{
	uint32_t g = p->m->gpus_per_node;
	const rmi_pic_host *h = &p->host[slot / g];
	uint32_t i = (uint32_t)(slot % g);
	*x = h->x + i % p->cols;
	*y = h->y + i / p->cols;
}

void rmi_pic_strides(const rm_map *m, uint64_t stride[RM_NAXES])
{
	uint64_t s = 1;
	memset(stride, 0, RM_NAXES * sizeof(uint64_t));
	for (unsigned i = 0; i < m->order.naxes; i++) {
		stride[m->order.axis[i]] = s;
		s *= m->layout.size[m->order.axis[i]];
	}
}

bool rmi_pic_crosses(const rmi_pic *p, uint32_t a, uint32_t b)
{
	uint32_t g = p->m->gpus_per_node;
	uint32_t sa = p->rank_slot[a], sb = p->rank_slot[b];
	uint32_t ha = sa / g, hb = sb / g;
	if (ha == hb)
		return false;
	if (p->host[ha].unit || p->host[hb].unit)
		return !(p->host[ha].unit && p->host[hb].unit &&
			 p->loc[ha] == p->loc[hb] && sa % g == sb % g);
	return p->loc[ha] != p->loc[hb];
}
