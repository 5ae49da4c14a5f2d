/* SPDX-License-Identifier: Apache-2.0 */
/*
 * topology_tree.c - turn the Switches= lines of a topology.conf into a
 * forest: parent and child links, a level per switch, and clear errors for
 * unknown names, second parents and cycles.
 */
#include "fabric/topology_int.h"

#include <stdlib.h>
#include <string.h>

static const char *qa(ctx *c, const char *v)
{
	return rm_quote(v, strlen(v), c->qa, sizeof(c->qa));
}

static const char *qb(ctx *c, const char *v)
{
	return rm_quote(v, strlen(v), c->qb, sizeof(c->qb));
}

static const char *qc(ctx *c, const char *v)
{
	return rm_quote(v, strlen(v), c->qc, sizeof(c->qc));
}

/*
 * A switch listed under a second parent (a fat tree written out, as in
 * Slurm's own topology.conf example): slurmctld's topology/tree sets the
 * parent link once per listing, so the last parent listed is the one it
 * keeps (switch_record.c, _find_child_switches). rankmap does the same
 * and says so once per file.
 */
static void leave_parent(ctx *c, uint32_t j, const rmi_topo_link *t)
{
	rm_fabric *f = c->f;
	rmi_switch *o = &f->sw[f->sw[j].parent];
	for (uint32_t k = 0; k < o->nchild; k++)
		if ((uint32_t)o->child[k] == j) {
			memmove(&o->child[k], &o->child[k + 1],
				(o->nchild - k - 1) * sizeof(*o->child));
			o->nchild--;
			break;
		}
	if (c->nreparent++ == 0)
		snprintf(c->reparent_eg, sizeof(c->reparent_eg),
			 "%s:%lu: switch %s is listed under %s (line %lu) and again under %s",
			 c->file, t->line, qc(c, f->sw[j].name),
			 qa(c, o->name), o->line, qb(c, f->sw[t->sw].name));
}

/* One child name of switch `sw`; returns its index or -1 after an error. */
static int64_t child(ctx *c, const rmi_topo_link *t, const char *nm)
{
	rm_fabric *f = c->f;
	const char *me = f->sw[t->sw].name;
	int64_t j = rmi_fabric_find_switch(f, nm);
	if (j < 0) {
		rmi_topo_at(c, t->line, t->col,
			    "switch %s: %s names %s, which no %s line defines",
			    qa(c, me), c->w->switches, qc(c, nm),
			    c->w->switchname);
		return -1;
	}
	if ((uint32_t)j == t->sw) {
		rmi_topo_at(c, t->line, t->col,
			    "switch %s lists itself in %s", qc(c, nm),
			    c->w->switches);
		return -1;
	}
	if (f->sw[j].parent == (int32_t)t->sw) {
		rmi_topo_at(c, t->line, t->col,
			    "switch %s is listed twice in %s", qc(c, nm),
			    c->w->switches);
		return -1;
	}
	if (f->sw[j].parent >= 0)
		leave_parent(c, (uint32_t)j, t);
	f->sw[j].parent = (int32_t)t->sw;
	return j;
}

static rm_status link_one(ctx *c, const rmi_topo_link *t)
{
	rm_fabric *f = c->f;
	rm_hostlist hl;
	size_t col = 0;
	rm_error e;
	rm_status st = rmi_hostlist_parse_n(t->v, t->vlen, &hl, &col, &e);
	if (st == RM_ENOMEM)
		return rmi_topo_oom(c);
	if (st)
		return rmi_topo_at(c, t->line, t->col + (col ? col - 1 : 0),
				   "%s: %s", c->w->switches, e.msg);
	int32_t *kids = malloc((hl.n ? hl.n : 1) * sizeof(*kids));
	if (!kids) {
		rm_hostlist_clear(&hl);
		return rmi_topo_oom(c);
	}
	for (size_t i = 0; i < hl.n; i++) {
		int64_t j = child(c, t, hl.host[i]);
		if (j < 0) {
			st = RM_EINPUT;
			break;
		}
		kids[i] = (int32_t)j;
	}
	if (st) {
		free(kids);
	} else {
		free(f->sw[t->sw].child);
		f->sw[t->sw].child = kids;
		f->sw[t->sw].nchild = (uint32_t)hl.n;
	}
	rm_hostlist_clear(&hl);
	return st;
}

/* Names the switches around the loop of parent links through `s`. */
static rm_status cycle_error(ctx *c, uint32_t s)
{
	const rm_fabric *f = c->f;
	char path[600];
	size_t o = 0;
	uint32_t k = s;
	for (int hops = 0; hops < 8; hops++) {
		o += (size_t)snprintf(path + o, sizeof(path) - o, "%s'%.60s'",
				      hops ? " <- " : "", f->sw[k].name);
		k = (uint32_t)f->sw[k].parent;
		if (k == s || o >= sizeof(path) - 80)
			break;
	}
	snprintf(path + o, sizeof(path) - o, " <- '%.60s'", f->sw[k].name);
	return rmi_topo_at(c, f->sw[s].line, 0,
			   "switches form a cycle (child <- parent): %s", path);
}

/*
 * Levels bottom-up. Every switch has at most one parent by now, so a
 * switch that no top-level switch reaches sits on a cycle.
 */
static rm_status levels(ctx *c)
{
	rm_fabric *f = c->f;
	if (!f->nsw)
		return RM_OK;
	uint32_t *order = malloc(f->nsw * sizeof(*order));
	bool *seen = calloc(f->nsw, sizeof(*seen));
	if (!order || !seen) {
		free(order);
		free(seen);
		return rmi_topo_oom(c);
	}
	uint32_t n = 0;
	for (uint32_t i = 0; i < f->nsw; i++)
		if (f->sw[i].parent < 0)
			order[n++] = i;
	for (uint32_t k = 0; k < n; k++) {
		const rmi_switch *s = &f->sw[order[k]];
		seen[order[k]] = true;
		for (uint32_t j = 0; j < s->nchild; j++)
			order[n++] = (uint32_t)s->child[j];
	}
	rm_status st = RM_OK;
	if (n < f->nsw) {
		uint32_t s = 0;
		while (seen[s])
			s++;
		/* Walk up until a switch repeats: that one is on the loop. */
		memset(seen, 0, f->nsw * sizeof(*seen));
		while (!seen[s]) {
			seen[s] = true;
			s = (uint32_t)f->sw[s].parent;
		}
		st = cycle_error(c, s);
	} else {
		for (uint32_t k = n; k-- > 0;) {
			rmi_switch *s = &f->sw[order[k]];
			uint32_t lv = 0;
			for (uint32_t j = 0; j < s->nchild; j++) {
				uint32_t cl = f->sw[s->child[j]].level + 1;
				if (cl > lv)
					lv = cl;
			}
			s->level = lv;
		}
	}
	free(order);
	free(seen);
	return st;
}

rm_status rmi_topo_build_tree(ctx *c)
{
	for (size_t i = 0; i < c->npend; i++) {
		rm_status st = link_one(c, &c->pend[i]);
		if (st)
			return st;
	}
	if (c->nreparent)
		rmi_fabric_warn(c->f,
				"%s; %u listing(s) of a switch under another parent: slurmctld keeps the last parent listed for each switch, and rankmap plans with the same tree",
				c->reparent_eg, c->nreparent);
	return levels(c);
}
