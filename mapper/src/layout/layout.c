/* SPDX-License-Identifier: Apache-2.0 */
/* layout.c - parallel layouts: "8x16x128" or "tp=8,pp=16,dp=auto". */
#include "layout/layout_int.h"

#include <ctype.h>
#include <inttypes.h>
#include <string.h>
#include <strings.h>

/* Long enough for any honest layout, short enough that a hostile one is
 * rejected before anything looks at it. */
#define LAYOUT_MAX_TEXT 256

static const char *const axis_names[RM_NAXES] = { "tp", "cp", "ep", "pp",
						  "dp" };

const char *rm_axis_name(rm_axis a)
{
	if ((unsigned)a >= RM_NAXES)
		return "?";
	return axis_names[a];
}

int rm_axis_from_name(const char *s, size_t len)
{
	if (!s || len != 2)
		return -1;
	for (int a = 0; a < RM_NAXES; a++)
		if (tolower((unsigned char)s[0]) == axis_names[a][0] &&
		    tolower((unsigned char)s[1]) == axis_names[a][1])
			return a;
	return -1;
}

rm_status rmi_short_text(const char *what, size_t max, const char **text,
			 size_t *n, rm_error *err)
{
	const char *t = *text;
	size_t len = t ? strnlen(t, max + 1) : 0;
	if (len > max) {
		char q[96];
		return rmi_err(err, RM_EINPUT, "%s %s: longer than %zu bytes",
			       what, rm_quote(t, len, q, sizeof(q)), max);
	}
	/* " 8x2x2" or "8x2x2\n" is a quoting slip (a variable with a
	 * newline, a stray space inside quotes): refused, so that what was
	 * asked for is exactly what the map file and the environment say. */
	if (len && (isspace((unsigned char)t[0]) ||
		    isspace((unsigned char)t[len - 1]))) {
		char q[96];
		return rmi_err(err, RM_EINPUT,
			       "%s %s: blank at its start or end (a space, tab "
			       "or newline); write it without",
			       what, rm_quote(t, len, q, sizeof(q)));
	}
	*text = t;
	*n = len;
	return RM_OK;
}

static bool is_auto(const char *s, size_t len)
{
	return len == 4 && strncasecmp(s, "auto", 4) == 0;
}

/*
 * One size field. Only plain decimal digits: "+8", "0x10" or "8.0" are
 * typos in a layout, not notations to honour.
 */
static rm_status parse_size(const char *s, size_t len, const char *what,
			    uint32_t *out, rm_error *err)
{
	char q[96];
	if (len == 0)
		return rmi_err(err, RM_EINPUT, "layout: empty size for %s",
			       what);
	if (s[0] == '-')
		return rmi_err(err, RM_EINPUT,
			       "layout: %s size %s is negative", what,
			       rm_quote(s, len, q, sizeof(q)));
	uint64_t v = 0;
	for (size_t i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return rmi_err(err, RM_EINPUT,
				       "layout: %s size %s is not a number",
				       what, rm_quote(s, len, q, sizeof(q)));
		v = v * 10 + (uint64_t)(s[i] - '0');
		if (v > UINT32_MAX)
			return rmi_err(err, RM_EINPUT,
				       "layout: %s size %s is too large (at most %u GPUs in a layout)",
				       what, rm_quote(s, len, q, sizeof(q)),
				       RM_MAX_WORLD);
	}
	if (v == 0)
		return rmi_err(err, RM_EINPUT,
			       "layout: %s size %s must be at least 1", what,
			       rm_quote(s, len, q, sizeof(q)));
	*out = (uint32_t)v;
	return RM_OK;
}

static rm_status check_product(const rm_layout *l, const char *text,
			       rm_error *err)
{
	uint64_t p = 1;
	for (int a = 0; a < RM_NAXES; a++) {
		p *= l->size[a];
		if (p > RM_MAX_WORLD) {
			char q[96];
			return rmi_err(err, RM_EINPUT,
				       "layout %s: more than %u GPUs (2^24) in one layout",
				       rm_quote(text, strlen(text), q,
						 sizeof(q)),
				       RM_MAX_WORLD);
		}
	}
	return RM_OK;
}

bool rmi_next_field(const char *t, size_t n, const char *seps, size_t *pos,
		    const char **f, size_t *len)
{
	if (*pos > n)
		return false;
	size_t i = *pos, ns = strlen(seps);
	while (i < n && !memchr(seps, t[i], ns))
		i++;
	*f = t + *pos;
	*len = i - *pos;
	*pos = i + 1;
	return true;
}

static rm_status parse_positional(const char *t, size_t n, rm_layout *l,
				  rm_error *err)
{
	static const rm_axis pos[3] = { RM_AXIS_TP, RM_AXIS_PP, RM_AXIS_DP };
	size_t at = 0, len;
	const char *f;
	unsigned field = 0;
	char q[96];
	while (rmi_next_field(t, n, "xX", &at, &f, &len)) {
		if (field >= 3)
			return rmi_err(err, RM_EINPUT,
				       "layout %s: the positional form has exactly three fields, TPxPPxDP",
				       rm_quote(t, n, q, sizeof(q)));
		rm_axis a = pos[field];
		if (len == 0)
			return rmi_err(err, RM_EINPUT,
				       "layout %s: empty field %u (expected TPxPPxDP, e.g. 8x16x128)",
				       rm_quote(t, n, q, sizeof(q)),
				       field + 1);
		if (a == RM_AXIS_DP && is_auto(f, len)) {
			l->dp_auto = true;
		} else {
			rm_status st = parse_size(f, len, axis_names[a],
						  &l->size[a], err);
			if (st)
				return st;
		}
		l->nest[l->naxes++] = a;
		field++;
	}
	if (field != 3)
		return rmi_err(err, RM_EINPUT,
			       "layout %s: the positional form has exactly three fields, TPxPPxDP",
			       rm_quote(t, n, q, sizeof(q)));
	return RM_OK;
}

/* Named keys that set a framework degree but are not placement axes. */
enum { KEY_ETP = RM_NAXES, KEY_DPS, KEY_DPR, NKEYS };

static int key_from_name(const char *s, size_t len)
{
	int a = rm_axis_from_name(s, len);
	if (a >= 0)
		return a;
	if (len == 3 && strncasecmp(s, "etp", 3) == 0)
		return KEY_ETP;
	if (len == 8 && strncasecmp(s, "dp_shard", 8) == 0)
		return KEY_DPS;
	if (len == 12 && strncasecmp(s, "dp_replicate", 12) == 0)
		return KEY_DPR;
	return -1;
}

static void nest_push(rm_layout *l, rm_axis a)
{
	for (unsigned i = 0; i < l->naxes; i++)
		if (l->nest[i] == a)
			return;
	l->nest[l->naxes++] = a;
}

/* HSDP: dp_replicate defaults to 1 and dp_shard to "the rest", as
 * torchtitan's data_parallel_*_degree do. */
static rm_status hsdp_finish(rm_layout *l, bool seen_s, bool seen_r,
			     const char *t, size_t n, rm_error *err)
{
	char q[96];
	if (!seen_r)
		l->dp_replicate = 1;
	if (!seen_s)
		l->dp_shard = 0;
	if (!l->dp_replicate && !l->dp_shard)
		return rmi_err(err, RM_EINPUT,
			       "layout %s: dp_shard and dp_replicate cannot both be auto",
			       rm_quote(t, n, q, sizeof(q)));
	if (l->dp_replicate && l->dp_shard) {
		uint64_t d = (uint64_t)l->dp_replicate * l->dp_shard;
		if (d > RM_MAX_WORLD)
			return rmi_err(err, RM_EINPUT,
				       "layout %s: more than %u GPUs (2^24) in one layout",
				       rm_quote(t, n, q, sizeof(q)),
				       RM_MAX_WORLD);
		l->size[RM_AXIS_DP] = (uint32_t)d;
	} else {
		l->dp_auto = true;
	}
	return RM_OK;
}

static rm_status parse_named(const char *t, size_t n, rm_layout *l,
			     rm_error *err)
{
	char q[96], q2[96];
	size_t at = 0, len;
	const char *f;
	bool seen[NKEYS] = { false };
	while (rmi_next_field(t, n, ",", &at, &f, &len)) {
		if (len == 0)
			return rmi_err(err, RM_EINPUT,
				       "layout %s: empty field at column %zu (separators must sit between axis=size pairs)",
				       rm_quote(t, n, q, sizeof(q)),
				       (size_t)(f - t) + 1);
		const char *eq = memchr(f, '=', len);
		if (!eq)
			return rmi_err(err, RM_EINPUT,
				       "layout: %s is not axis=size (named and positional forms cannot be mixed)",
				       rm_quote(f, len, q, sizeof(q)));
		size_t klen = (size_t)(eq - f);
		int a = key_from_name(f, klen);
		if (a < 0)
			return rmi_err(err, RM_EINPUT,
				       "layout: unknown axis %s in %s (known: tp, cp, ep, etp, pp, dp, dp_shard, dp_replicate)",
				       rm_quote(f, klen, q, sizeof(q)),
				       rm_quote(t, n, q2, sizeof(q2)));
		if ((a == RM_AXIS_DP && (seen[KEY_DPS] || seen[KEY_DPR])) ||
		    ((a == KEY_DPS || a == KEY_DPR) && seen[RM_AXIS_DP]))
			return rmi_err(err, RM_EINPUT,
				       "layout %s: give dp or dp_shard/dp_replicate, not both (dp = dp_replicate x dp_shard)",
				       rm_quote(t, n, q2, sizeof(q2)));
		if (seen[a])
			return rmi_err(err, RM_EINPUT,
				       "layout: axis %s given twice in %s",
				       rm_quote(f, klen, q, sizeof(q)),
				       rm_quote(t, n, q2, sizeof(q2)));
		seen[a] = true;
		const char *v = eq + 1;
		size_t vlen = len - klen - 1;
		if (memchr(v, '=', vlen))
			return rmi_err(err, RM_EINPUT,
				       "layout: %s has more than one '=' (pairs are separated by ',')",
				       rm_quote(f, len, q, sizeof(q)));
		static const char *const extra[] = { "etp", "dp_shard",
						     "dp_replicate" };
		const char *what = a < RM_NAXES ? axis_names[a]
						: extra[a - RM_NAXES];
		uint32_t *dst = a == RM_AXIS_EP ? &l->ep
				: a == KEY_ETP	? &l->etp
				: a == KEY_DPS	? &l->dp_shard
				: a == KEY_DPR	? &l->dp_replicate
						: &l->size[a];
		if ((a == RM_AXIS_DP || a == KEY_DPS || a == KEY_DPR) &&
		    is_auto(v, vlen)) {
			if (a == RM_AXIS_DP)
				l->dp_auto = true;
			else
				*dst = 0;
		} else {
			rm_status st = parse_size(v, vlen, what, dst, err);
			if (st)
				return st;
		}
		if (a == KEY_DPS || a == KEY_DPR) {
			l->hsdp = true;
			nest_push(l, RM_AXIS_DP);
		} else if (a != KEY_ETP) {
			l->nest[l->naxes++] = (rm_axis)a;
		}
	}
	if (l->hsdp) {
		rm_status st = hsdp_finish(l, seen[KEY_DPS], seen[KEY_DPR], t,
					   n, err);
		if (st)
			return st;
	} else if (!seen[RM_AXIS_DP]) {
		/* Data parallel is what is left once the model is split:
		 * outermost, sized by the allocation. */
		l->dp_auto = true;
		l->nest[l->naxes++] = RM_AXIS_DP;
	}
	return RM_OK;
}

static uint64_t expert_block(const rm_layout *l)
{
	return (uint64_t)rm_layout_etp(l) * rm_layout_ep(l);
}

/*
 * Megatron-Core numbers expert ranks etp x ep x edp x pp over the same
 * ranks as tp x cp x dp x pp, so one expert block of etp*ep consecutive
 * ranks covers TP x CP and, when larger, the first etp*ep/(tp*cp) DP
 * replicas. That part of DP becomes the ep placement factor, nested where
 * ep is written, so the placer can keep expert blocks together.
 */
static rm_status experts_split(rm_layout *l, const char *text, rm_error *err)
{
	char q[96];
	uint64_t tc = (uint64_t)l->size[RM_AXIS_TP] * l->size[RM_AXIS_CP];
	uint64_t e = expert_block(l);
	if (e > RM_MAX_WORLD)
		return rmi_err(err, RM_EINPUT,
			       "layout %s: etp x ep is more than %u GPUs",
			       rm_quote(text, strlen(text), q, sizeof(q)),
			       RM_MAX_WORLD);
	uint32_t f = e > tc && e % tc == 0 ? (uint32_t)(e / tc) : 1;
	l->size[RM_AXIS_EP] = f;
	if (f > 1 && rmi_layout_pos(l, RM_AXIS_EP) < 0) {
		/* etp alone larger than tp*cp: the block sits next to dp. */
		int d = rmi_layout_pos(l, RM_AXIS_DP);
		for (int i = (int)l->naxes; i > d; i--)
			l->nest[i] = l->nest[i - 1];
		l->nest[d] = RM_AXIS_EP;
		l->naxes++;
	}
	if (l->dp_auto)
		return RM_OK;
	uint64_t dp = l->size[RM_AXIS_DP];
	if (dp % f || (tc * dp) % e)
		return rmi_err(err, RM_EINPUT,
			       "layout %s: etp x ep = %" PRIu64
			       " must divide tp x cp x dp = %" PRIu64
			       " (Megatron-Core carves expert parallelism out of data parallelism)",
			       rm_quote(text, strlen(text), q, sizeof(q)), e,
			       tc * dp);
	l->size[RM_AXIS_DP] = (uint32_t)(dp / f);
	return RM_OK;
}

int rmi_layout_pos(const rm_layout *l, rm_axis a)
{
	for (unsigned i = 0; i < l->naxes && i < RM_NAXES; i++)
		if (l->nest[i] == a)
			return (int)i;
	return -1;
}

static rm_status hsdp_resolve(rm_layout *l, const char *name, rm_error *err)
{
	uint32_t dp = rm_layout_dp(l);
	uint64_t tc = (uint64_t)l->size[RM_AXIS_TP] * l->size[RM_AXIS_CP];
	if ((tc * dp) % expert_block(l))
		return rmi_err(err, RM_EINPUT,
			       "layout %s: etp x ep = %" PRIu64
			       " must divide tp x cp x dp = %" PRIu64
			       " (Megatron-Core carves expert parallelism out of data parallelism)",
			       name, expert_block(l), tc * dp);
	if (!l->hsdp)
		return RM_OK;
	uint32_t known = l->dp_shard ? l->dp_shard : l->dp_replicate;
	if (!known || dp % known)
		return rmi_err(err, RM_EINPUT,
			       "layout %s: dp=%u is not a multiple of %s=%u",
			       name, dp,
			       l->dp_shard ? "dp_shard" : "dp_replicate",
			       known);
	if (!l->dp_shard)
		l->dp_shard = dp / known;
	else
		l->dp_replicate = dp / known;
	return RM_OK;
}

rm_status rm_layout_parse(const char *text, rm_layout *out, rm_error *err)
{
	char q[96];
	if (!text || !out)
		return rmi_err(err, RM_EINPUT, "layout: no layout given");
	size_t n;
	rm_status st = rmi_short_text("layout", LAYOUT_MAX_TEXT, &text, &n,
				      err);
	if (st)
		return st;
	if (n == 0)
		return rmi_err(err, RM_EINPUT,
			       "layout: empty (expected e.g. 8x16x128 or tp=8,pp=16,dp=auto)");
	/* Blanks inside would make "tp=8, pp=2" mean something unclear. */
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)text[i];
		if (isspace(c) || c < 0x20 || c >= 0x7f)
			return rmi_err(err, RM_EINPUT,
				       "layout %s: unexpected character at column %zu",
				       rm_quote(text, n, q, sizeof(q)), i + 1);
	}
	rm_layout l;
	memset(&l, 0, sizeof(l));
	for (int a = 0; a < RM_NAXES; a++)
		l.size[a] = 1;
	st = memchr(text, '=', n) ? parse_named(text, n, &l, err)
				  : parse_positional(text, n, &l, err);
	if (st)
		return st;
	char copy[LAYOUT_MAX_TEXT + 1];
	memcpy(copy, text, n);
	copy[n] = '\0';
	st = experts_split(&l, copy, err);
	if (st)
		return st;
	st = check_product(&l, copy, err);
	if (st)
		return st;
	*out = l;
	return RM_OK;
}

static uint64_t product_without_dp(const rm_layout *l)
{
	uint64_t p = 1;
	for (int a = 0; a < RM_NAXES; a++)
		if (a != RM_AXIS_DP)
			p *= l->size[a];
	return p;
}

/*
 * dp=auto with spares allowed: the placement dp factor must be a multiple
 * of this so that the dense dp splits into the given HSDP degree and
 * tp*cp*dp into expert blocks.
 */
static uint64_t dp_step(const rm_layout *l)
{
	uint64_t tc = (uint64_t)l->size[RM_AXIS_TP] * l->size[RM_AXIS_CP];
	uint64_t e = expert_block(l), f = l->size[RM_AXIS_EP];
	uint64_t m = e / rmi_gcd(e, tc);
	uint64_t k = l->hsdp ? (l->dp_shard ? l->dp_shard : l->dp_replicate)
			     : 1;
	if (k)
		m = m / rmi_gcd(m, k) * k;
	return m / rmi_gcd(m, f);
}

rm_status rm_layout_resolve(rm_layout *l, uint64_t gpus, bool exact,
			    rm_error *err)
{
	char name[LAYOUT_MAX_TEXT];
	if (!l)
		return rmi_err(err, RM_EINPUT, "layout: none given");
	rm_layout_format(l, name, sizeof(name));
	if (l->dp_auto) {
		uint64_t per = product_without_dp(l);
		if (gpus < per)
			return rmi_err(err, RM_EINPUT,
				       "layout %s needs at least %" PRIu64
				       " GPUs (one replica), %" PRIu64
				       " available",
				       name, per, gpus);
		/* One rule for dp=auto: as many whole replicas as fit; what
		 * is left over is spare, unless every GPU must be used. */
		if (exact && gpus % per != 0) {
			uint64_t dp = gpus / per;
			return rmi_err(err, RM_EINPUT,
				       "layout %s: %" PRIu64
				       " GPUs available is not a multiple of the %" PRIu64
				       " GPUs in one replica; dp=%" PRIu64
				       " would use %" PRIu64 " of them",
				       name, gpus, per, dp, dp * per);
		}
		uint64_t dp = gpus / per;
		if (dp > RM_MAX_WORLD / per)
			return rmi_err(err, RM_EINPUT,
				       "layout %s: dp=auto gives %" PRIu64
				       " GPUs, more than the limit of %u",
				       name, gpus, RM_MAX_WORLD);
		if (!exact)
			dp -= dp % dp_step(l);
		if (dp == 0)
			return rmi_err(err, RM_EINPUT,
				       "layout %s needs at least %" PRIu64
				       " GPUs (the smallest dp the expert and HSDP degrees allow), %" PRIu64
				       " available",
				       name, per * dp_step(l), gpus);
		l->size[RM_AXIS_DP] = (uint32_t)dp;
		l->dp_auto = false;
		return hsdp_resolve(l, name, err);
	}
	uint64_t world = rm_layout_world(l);
	if (exact ? world != gpus : world > gpus)
		return rmi_err(err, RM_EINPUT,
			       "layout %s needs %" PRIu64 " GPUs, %" PRIu64
			       " available%s",
			       name, world, gpus,
			       exact && world < gpus ? " (all must be used)"
						     : "");
	return RM_OK;
}

uint64_t rm_layout_world(const rm_layout *l)
{
	if (!l || l->dp_auto)
		return 0;
	uint64_t p = 1;
	for (int a = 0; a < RM_NAXES; a++)
		p *= l->size[a];
	return p;
}

static size_t put_size(char *tmp, size_t o, size_t cap, const char *sep,
		       const char *key, uint32_t v)
{
	if (o >= cap)
		return o;
	if (v)
		return o + (size_t)snprintf(tmp + o, cap - o, "%s%s=%" PRIu32,
					    sep, key, v);
	return o + (size_t)snprintf(tmp + o, cap - o, "%s%s=auto", sep, key);
}

size_t rm_layout_format(const rm_layout *l, char *buf, size_t n)
{
	/* Eight keys of at most ten digits each: fits with room to spare. */
	char tmp[256];
	size_t o = 0, cap = sizeof(tmp);
	bool etp_done = !l || !l->etp;
	for (unsigned i = 0; l && i < l->naxes && i < RM_NAXES; i++) {
		rm_axis a = l->nest[i];
		const char *sep = i ? "," : "";
		if ((unsigned)a >= RM_NAXES)
			continue;
		if (a == RM_AXIS_DP && l->hsdp) {
			o = put_size(tmp, o, cap, sep, "dp_replicate",
				     l->dp_replicate);
			o = put_size(tmp, o, cap, ",", "dp_shard",
				     l->dp_shard);
		} else if (a == RM_AXIS_DP) {
			o = put_size(tmp, o, cap, sep, "dp",
				     l->dp_auto ? 0 : rm_layout_dp(l));
		} else if (a == RM_AXIS_EP) {
			o = put_size(tmp, o, cap, sep, "ep", rm_layout_ep(l));
			if (!etp_done)
				o = put_size(tmp, o, cap, ",", "etp", l->etp);
			etp_done = true;
		} else {
			o = put_size(tmp, o, cap, sep, rm_axis_name(a),
				     l->size[a]);
		}
	}
	if (!etp_done)
		o = put_size(tmp, o, cap, ",", "etp", l->etp);
	if (o > cap - 1)
		o = cap - 1;
	return rmi_copy_out(tmp, o, buf, n);
}

uint32_t rm_layout_dp(const rm_layout *l)
{
	if (!l || l->dp_auto)
		return 0;
	return l->size[RM_AXIS_DP] * l->size[RM_AXIS_EP];
}

uint32_t rm_layout_etp(const rm_layout *l)
{
	return l && l->etp ? l->etp : l ? l->size[RM_AXIS_TP] : 1;
}

/* A layout built by hand with size[EP] set but no ep degree means the
 * expert block is that many TP x CP blocks. */
uint32_t rm_layout_ep(const rm_layout *l)
{
	if (!l)
		return 1;
	if (l->ep)
		return l->ep;
	if (l->size[RM_AXIS_EP] <= 1)
		return 1;
	uint64_t e = (uint64_t)l->size[RM_AXIS_EP] * l->size[RM_AXIS_TP] *
		     l->size[RM_AXIS_CP];
	uint32_t etp = rm_layout_etp(l);
	return etp && e % etp == 0 ? (uint32_t)(e / etp) : 1;
}

uint32_t rm_layout_edp(const rm_layout *l)
{
	uint64_t e = expert_block(l);
	uint64_t d = (uint64_t)rm_layout_dp(l) * l->size[RM_AXIS_TP] *
		     l->size[RM_AXIS_CP];
	return e && d % e == 0 ? (uint32_t)(d / e) : 0;
}

uint32_t rm_layout_dp_shard(const rm_layout *l)
{
	return l && l->hsdp ? l->dp_shard : rm_layout_dp(l);
}

uint32_t rm_layout_dp_replicate(const rm_layout *l)
{
	return l && l->hsdp ? l->dp_replicate : 1;
}

bool rm_layout_equal(const rm_layout *a, const rm_layout *b)
{
	if (a->naxes != b->naxes || a->dp_auto != b->dp_auto)
		return false;
	for (unsigned i = 0; i < a->naxes; i++)
		if (a->nest[i] != b->nest[i])
			return false;
	for (int i = 0; i < RM_NAXES; i++)
		if (a->size[i] != b->size[i])
			return false;
	return rm_layout_ep(a) == rm_layout_ep(b) && a->etp == b->etp &&
	       a->hsdp == b->hsdp && a->dp_shard == b->dp_shard &&
	       a->dp_replicate == b->dp_replicate;
}
