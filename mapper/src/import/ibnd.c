/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ibnd.c - infiniband-diags' ibnetdiscover text into a wiring graph.
 *
 * Two forms, told apart by the first line that is not a comment:
 *  - the topology file (plain and --full): a section per node,
 *      Switch  65 "S-<guid>"   # "desc" enhanced port 0 lid 73 lmc 0
 *      [1]  "H-<guid>"[1](<portguid>)   # "remote desc" lid 647 4xNDR
 *    and for a CA or router
 *      Ca  1 "H-<guid>"   # "desc"
 *      [1](<portguid>)  "S-<guid>"[17]   # lid 657 lmc 0 "remote desc" lid 73 4xNDR
 *  - the ports report (-p): one line per port,
 *      SW    73  1 0x<guid> 4x NDR - CA   647  1 0x<guid> ( 'desc' - 'remote' )
 * Every link is listed at both ends in a whole capture; a link seen at one
 * end only, or a node seen only as a remote end, is what a partial capture
 * looks like and is counted, not refused. What is refused, with
 * file:line:col: lines of neither form, a port cabled to two places, a
 * port cabled to its own node, a GUID that is two kinds of node,
 * descriptions longer than IB's 64 bytes or holding control bytes.
 */
#include "import/import_int.h"

#include <stdlib.h>
#include <string.h>

#define MAX_LINE 4096u

typedef struct lx {
	rmi_ibgraph *g;
	const char *s;               /* this line */
	size_t n, at;                /* its length, the cursor */
	unsigned long line;
	int32_t cur;                 /* node of the section, -1 none */
	rm_error *err;
} lx;

static rm_status bad(lx *x, size_t at, const char *fmt, ...) RMI_PRINTF(3, 4);
static rm_status bad(lx *x, size_t at, const char *fmt, ...)
{
	char m[600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	return rmi_err_at(x->err, RM_EINPUT, x->g->file, x->line, at + 1,
			  "%s", m);
}

static void ws(lx *x)
{
	while (x->at < x->n && (x->s[x->at] == ' ' || x->s[x->at] == '\t'))
		x->at++;
}

static bool lit(lx *x, const char *w)
{
	size_t k = strlen(w);
	if (x->n - x->at < k || memcmp(x->s + x->at, w, k))
		return false;
	x->at += k;
	return true;
}

static bool num(lx *x, unsigned long max, unsigned long *v)
{
	size_t b = x->at;
	unsigned long r = 0;
	while (x->at < x->n && x->s[x->at] >= '0' && x->s[x->at] <= '9') {
		r = r * 10 + (unsigned long)(x->s[x->at++] - '0');
		if (r > max)
			return false;
	}
	*v = r;
	return x->at > b;
}

static bool hex(lx *x, uint64_t *v)
{
	size_t b = x->at;
	uint64_t r = 0;
	for (; x->at < x->n && x->at - b < 17; x->at++) {
		char c = x->s[x->at];
		int d = c >= '0' && c <= '9' ? c - '0'
			: c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			break;
		r = r << 4 | (uint64_t)d;
	}
	*v = r;
	return x->at > b && x->at - b <= 16;
}

/* A description s[b..e): checked, then kept on the node if it has none. */
static rm_status desc(lx *x, uint32_t node, size_t b, size_t e)
{
	if (e - b > RMI_IB_MAX_DESC)
		return bad(x, b, "node description of %zu bytes: an IB "
			   "NodeDescription holds at most %u", e - b,
			   RMI_IB_MAX_DESC);
	for (size_t i = b; i < e; i++)
		if ((unsigned char)x->s[i] < 0x20 || x->s[i] == 0x7f)
			return bad(x, i, "control byte 0x%02x in a node "
				   "description", (unsigned char)x->s[i]);
	rmi_ibnode *nd = &x->g->node[node];
	if (nd->desc)
		return RM_OK;
	nd->desc = strndup(x->s + b, e - b);
	return nd->desc ? RM_OK
			: rmi_err(x->err, RM_ENOMEM, "out of memory");
}

/* The node of (type, guid), added when new; -1 after an error. */
static int64_t node_of(lx *x, char type, uint64_t guid, size_t col)
{
	rmi_ibgraph *g = x->g;
	int64_t k = rmi_u64map_get(&g->nodes, guid);
	if (k >= 0) {
		if (g->node[k].type != type) {
			bad(x, col, "GUID %016llx is a %s here but a %s at "
			    "line %lu", (unsigned long long)guid,
			    type == RMI_IB_SWITCH ? "switch" : "CA/router",
			    g->node[k].type == RMI_IB_SWITCH ? "switch"
							     : "CA/router",
			    g->node[k].line);
			return -1;
		}
		return k;
	}
	if (g->nnode >= RMI_IB_MAX_NODES) {
		bad(x, col, "more than %u nodes in one capture",
		    RMI_IB_MAX_NODES);
		return -1;
	}
	if (!rmi_grow((void **)&g->node, &g->node_cap, g->nnode + 1,
		      sizeof(*g->node)) ||
	    !rmi_u64map_put(&g->nodes, guid, (uint32_t)g->nnode)) {
		rmi_err(x->err, RM_ENOMEM, "out of memory");
		return -1;
	}
	rmi_ibnode *nd = &g->node[g->nnode];
	memset(nd, 0, sizeof(*nd));
	nd->guid = guid;
	nd->type = type;
	nd->line = x->line;
	nd->col = col + 1;
	return (int64_t)g->nnode++;
}

static uint64_t pkey(uint32_t node, unsigned long port)
{
	return (uint64_t)node * (RMI_IB_MAX_PORT + 1) + port;
}

static const char *nd_name(const rmi_ibnode *n, char *buf, size_t sz)
{
	if (n->desc)
		return rm_quote(n->desc, strlen(n->desc), buf, sz);
	snprintf(buf, sz, "%c-%016llx", n->type, (unsigned long long)n->guid);
	return buf;
}

/* The cable a[pa] -- b[pb], listed at a's end. */
static rm_status cable(lx *x, uint32_t a, unsigned long pa, uint32_t b,
		       unsigned long pb, size_t col)
{
	rmi_ibgraph *g = x->g;
	char q1[96], q2[96], q3[96];
	if (a == b)
		return bad(x, col, "wiring loop: %s port %lu is cabled to "
			   "its own port %lu", nd_name(&g->node[a], q1,
						       sizeof(q1)), pa, pb);
	int64_t la = rmi_u64map_get(&g->ports, pkey(a, pa));
	int64_t lb = rmi_u64map_get(&g->ports, pkey(b, pb));
	if (la >= 0 && la == lb) {
		rmi_iblink *l = &g->link[la];
		l->seen |= l->a == a ? 1 : 2;
		return RM_OK;
	}
	for (int side = 0; side < 2; side++) {
		int64_t o = side ? lb : la;
		if (o < 0)
			continue;
		const rmi_iblink *l = &g->link[o];
		uint32_t me = side ? b : a;
		unsigned long mp = side ? pb : pa;
		uint32_t other = l->a == me && l->pa == mp ? l->b : l->a;
		return bad(x, col, "%s port %lu is cabled to %s (line %lu) "
			   "and, here, to %s", nd_name(&g->node[me], q1,
						       sizeof(q1)), mp,
			   nd_name(&g->node[other], q2, sizeof(q2)), l->line,
			   nd_name(&g->node[side ? a : b], q3, sizeof(q3)));
	}
	if (!rmi_grow((void **)&g->link, &g->link_cap, g->nlink + 1,
		      sizeof(*g->link)) ||
	    !rmi_u64map_put(&g->ports, pkey(a, pa), (uint32_t)g->nlink) ||
	    !rmi_u64map_put(&g->ports, pkey(b, pb), (uint32_t)g->nlink))
		return rmi_err(x->err, RM_ENOMEM, "out of memory");
	g->link[g->nlink++] = (rmi_iblink){ .a = a, .b = b,
					    .pa = (uint16_t)pa,
					    .pb = (uint16_t)pb, .seen = 1,
					    .line = x->line };
	return RM_OK;
}

/* "X-<guid>" in quotes; *type and *guid. */
static rm_status quoted_id(lx *x, char *type, uint64_t *guid)
{
	size_t b = x->at;
	if (!lit(x, "\"") || x->at >= x->n ||
	    !strchr("SHR", x->s[x->at]) || !x->s[x->at])
		return bad(x, b, "expected a node id like \"S-<guid>\"");
	*type = x->s[x->at++];
	if (!lit(x, "-") || !hex(x, guid) || !lit(x, "\""))
		return bad(x, b, "expected a node id like \"S-<guid>\" "
			   "(16 hex digits)");
	return RM_OK;
}

static rm_status port_no(lx *x, unsigned long *p)
{
	size_t b = x->at;
	if (!lit(x, "[") || !num(x, RMI_IB_MAX_PORT, p) || !lit(x, "]"))
		return bad(x, b, "expected a port number [1..%u]",
			   RMI_IB_MAX_PORT);
	if (lit(x, "[ext ")) {       /* -g: the external port number */
		unsigned long e;
		if (!num(x, 100000, &e) || !lit(x, "]"))
			return bad(x, b, "expected [ext N]");
	}
	return RM_OK;
}

/* "(hex)" if there. */
static rm_status opt_guid(lx *x)
{
	size_t b = x->at;
	uint64_t v;
	if (!lit(x, "("))
		return RM_OK;
	if (!hex(x, &v) || !lit(x, ")"))
		return bad(x, b, "expected a port GUID (16 hex digits)");
	return RM_OK;
}

/* From the cursor: '"desc"' ending at the last `" lid` (or the last `"`). */
static rm_status tail_desc(lx *x, uint32_t node, bool need)
{
	const char *q = memchr(x->s + x->at, '"', x->n - x->at);
	if (!q)
		return need ? bad(x, x->at, "expected a quoted node "
				  "description") : RM_OK;
	size_t b = (size_t)(q - x->s) + 1, lid = 0, last = 0;
	for (size_t i = b; i < x->n; i++) {
		if (x->s[i] != '"')
			continue;
		last = i;
		if (x->n - i >= 5 && !memcmp(x->s + i, "\" lid", 5))
			lid = i;
	}
	if (!last)
		return bad(x, b - 1, "unterminated node description");
	return desc(x, node, b, lid ? lid : last);
}

static rm_status header(lx *x, char want)
{
	unsigned long np;
	char type;
	uint64_t guid;
	ws(x);
	if (!num(x, RMI_IB_MAX_PORT, &np))
		return bad(x, x->at, "expected the number of ports");
	ws(x);
	size_t col = x->at;
	rm_status st = quoted_id(x, &type, &guid);
	if (st)
		return st;
	if (type != want)
		return bad(x, col, "a %s section with a %c- node id",
			   want == RMI_IB_SWITCH ? "Switch" : "Ca/Rt", type);
	int64_t k = node_of(x, type, guid, col);
	if (k < 0)
		return x->err ? x->err->code : RM_EINPUT;
	rmi_ibnode *nd = &x->g->node[k];
	if (nd->header)
		return bad(x, col, "node %c-%016llx has a second section "
			   "(the first at line %lu)", type,
			   (unsigned long long)guid, nd->line);
	nd->header = true;
	nd->line = x->line;
	nd->col = col + 1;
	free(nd->desc);              /* its own words beat a neighbour's */
	nd->desc = NULL;
	x->cur = (int32_t)k;
	ws(x);
	if (!lit(x, "#"))
		return bad(x, x->at, "expected # \"description\"");
	return tail_desc(x, (uint32_t)k, true);
}

/* [P](guid)? "X-guid"[RP](guid)? # ... */
static rm_status port_line(lx *x)
{
	unsigned long p, rp;
	size_t col = x->at;
	if (x->cur < 0)
		return bad(x, col, "a port line before any Switch/Ca/Rt "
			   "section");
	rm_status st = port_no(x, &p);
	if (!st)
		st = opt_guid(x);
	if (st)
		return st;
	ws(x);
	size_t rcol = x->at;
	char type;
	uint64_t guid;
	if ((st = quoted_id(x, &type, &guid)) || (st = port_no(x, &rp)))
		return st;
	ws(x);
	if ((st = opt_guid(x)))
		return st;
	ws(x);
	if (!lit(x, "#"))
		return bad(x, x->at, "expected # and the remote description");
	int64_t r = node_of(x, type, guid, rcol);
	if (r < 0)
		return x->err ? x->err->code : RM_EINPUT;
	if ((st = cable(x, (uint32_t)x->cur, p, (uint32_t)r, rp, col)))
		return st;
	return tail_desc(x, (uint32_t)r, false);
}

/* ---- the ports report (-p) ---- */
static rm_status p_end(lx *x, char *type, unsigned long *port,
		       uint64_t *guid, size_t *col)
{
	ws(x);
	*col = x->at;
	if (lit(x, "SW"))
		*type = RMI_IB_SWITCH;
	else if (lit(x, "CA"))
		*type = RMI_IB_CA;
	else if (lit(x, "RT"))
		*type = RMI_IB_ROUTER;
	else
		return bad(x, x->at, "expected SW, CA or RT");
	unsigned long lid;
	ws(x);
	if (!num(x, 0xffff, &lid))
		return bad(x, x->at, "expected a LID (0-65535)");
	ws(x);
	if (!num(x, RMI_IB_MAX_PORT, port))
		return bad(x, x->at, "expected a port number (0-%u)",
			   RMI_IB_MAX_PORT);
	ws(x);
	if (!lit(x, "0x") || !hex(x, guid))
		return bad(x, x->at, "expected a GUID 0x<16 hex digits>");
	return RM_OK;
}

static rm_status ports_line(lx *x)
{
	char ta, tb;
	unsigned long pa, pb;
	uint64_t ga, gb;
	size_t ca, cb;
	rm_status st = p_end(x, &ta, &pa, &ga, &ca);
	if (st)
		return st;
	/* width and speed words, then " - " and the remote end, or only the
	 * quoted description of an unconnected port */
	const char *dash = NULL;
	for (size_t i = x->at; i + 2 < x->n; i++) {
		if (x->s[i] == '\'')
			break;
		if (x->s[i] == ' ' && x->s[i + 1] == '-' && x->s[i + 2] == ' ') {
			dash = x->s + i;
			break;
		}
	}
	int64_t a = node_of(x, ta, ga, ca);
	if (a < 0)
		return x->err ? x->err->code : RM_EINPUT;
	if (!dash) {
		const char *q = memchr(x->s + x->at, '\'', x->n - x->at);
		if (!q || x->s[x->n - 1] != '\'' || q == x->s + x->n - 1)
			return bad(x, x->at, "expected ' - ' and the remote "
				   "end, or the quoted description");
		size_t b = (size_t)(q - x->s) + 1;
		return desc(x, (uint32_t)a, b, x->n - 1);
	}
	x->at = (size_t)(dash - x->s) + 3;
	if ((st = p_end(x, &tb, &pb, &gb, &cb)))
		return st;
	ws(x);
	size_t b = x->at;
	if (!lit(x, "( '") || x->n < 3 || memcmp(x->s + x->n - 3, "' )", 3) ||
	    x->n - 3 < x->at)
		return bad(x, b, "expected ( 'description' - 'remote' )");
	size_t e = x->n - 3, mid = 0;
	int seps = 0;
	for (size_t i = x->at; i + 5 <= e; i++)
		if (!memcmp(x->s + i, "' - '", 5)) {
			mid = i;
			seps++;
		}
	if (seps != 1)
		return bad(x, b, "%s ' - ' between the two descriptions: "
			   "cannot tell where one ends", seps ? "more than one"
							       : "no");
	int64_t r = node_of(x, tb, gb, cb);
	if (r < 0)
		return x->err ? x->err->code : RM_EINPUT;
	if ((st = desc(x, (uint32_t)a, x->at, mid)) ||
	    (st = desc(x, (uint32_t)r, mid + 5, e)))
		return st;
	x->g->node[a].header = true;   /* it listed its own ports */
	return cable(x, (uint32_t)a, pa, (uint32_t)r, pb, ca);
}

/* Lines that carry nothing for the wiring. */
static bool skippable(const lx *x)
{
	static const char *const kv[] = { "vendid=", "devid=", "sysimgguid=",
					  "switchguid=", "caguid=", "rtguid=",
					  "Hostname:", "Non-Chassis Nodes",
					  "ChassisNum", NULL };
	if (x->at >= x->n || x->s[x->at] == '#')
		return true;
	for (size_t i = 0; kv[i]; i++)
		if (x->n - x->at >= strlen(kv[i]) &&
		    !memcmp(x->s + x->at, kv[i], strlen(kv[i])))
			return true;
	return false;
}

static rm_status one_line(lx *x, int *form)
{
	ws(x);
	if (skippable(x))
		return RM_OK;
	bool p = x->n - x->at > 3 &&
		 (!memcmp(x->s + x->at, "SW ", 3) ||
		  !memcmp(x->s + x->at, "CA ", 3) ||
		  !memcmp(x->s + x->at, "RT ", 3));
	if (!*form)
		*form = p ? 2 : 1;
	if ((*form == 2) != p)
		return bad(x, x->at, "%s line in a capture that began in the "
			   "%s form", p ? "a ports-report (-p)" : "a topology",
			   *form == 2 ? "ports-report (-p)" : "topology");
	if (p)
		return ports_line(x);
	if (lit(x, "Switch") && x->at < x->n && (x->s[x->at] == ' ' ||
						 x->s[x->at] == '\t'))
		return header(x, RMI_IB_SWITCH);
	if ((lit(x, "Ca") || lit(x, "Rt")) && x->at < x->n &&
	    (x->s[x->at] == ' ' || x->s[x->at] == '\t'))
		return header(x, x->s[x->at - 1] == 'a' ? RMI_IB_CA
							: RMI_IB_ROUTER);
	if (x->s[x->at] == '[')
		return port_line(x);
	return bad(x, x->at, "not an ibnetdiscover line (expected Switch, "
		   "Ca, Rt, a [port] line or a -p ports line)");
}

rm_status rmi_ibnd_parse(rmi_ibgraph *g, const char *text, size_t len,
			 const char *file, rm_error *err)
{
	memset(g, 0, sizeof(*g));
	g->file = file;
	lx x = { .g = g, .err = err, .cur = -1 };
	if (len > RM_MAX_INPUT)
		return rmi_err(err, RM_EINPUT, "%s: %zu bytes: more than the "
			       "%u a capture may have", file, len,
			       RM_MAX_INPUT);
	int form = 0;
	size_t at = 0;
	while (at < len) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t e = nl ? (size_t)(nl - text) : len;
		x.line++;
		x.s = text + at;
		x.n = e - at;
		x.at = 0;
		if (x.n && x.s[x.n - 1] == '\r')
			x.n--;
		const char *nul = memchr(x.s, '\0', x.n);
		if (nul)
			return bad(&x, (size_t)(nul - x.s), "NUL byte");
		if (x.n > MAX_LINE)
			return bad(&x, MAX_LINE, "line longer than %u bytes",
				   MAX_LINE);
		rm_status st = one_line(&x, &form);
		if (st)
			return st;
		at = e + 1;
	}
	if (!g->nnode)
		return rmi_err(err, RM_EINPUT, "%s: no Switch, Ca or ports "
			       "line: not ibnetdiscover output", file);
	g->ports_form = form == 2;
	return RM_OK;
}

void rmi_ibgraph_free(rmi_ibgraph *g)
{
	for (size_t i = 0; i < g->nnode; i++)
		free(g->node[i].desc);
	free(g->node);
	free(g->link);
	rmi_u64map_free(&g->nodes);
	rmi_u64map_free(&g->ports);
	memset(g, 0, sizeof(*g));
}
