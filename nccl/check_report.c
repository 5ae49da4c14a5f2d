/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check_report.c - turn every rank's timings into per-axis bus bandwidth,
 * find the groups far below what their placement promised, and say so
 * for people (text) or programs (JSON).
 */
#include "check.h"
#include "nccl_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double clean(double v)
{
	/* Records crossed the network: never let a NaN reach the report. */
	return isfinite(v) && v > 0 ? v : 0;
}

static rmn_status analyse_axis(const nck_plan *p, size_t i,
			       const rmn_nominal *nom, const double *rec,
			       nck_axis_result *ar, rmn_error *err)
{
	const nck_axis *x = &p->ax[i];
	size_t ns = p->nsizes;
	ar->measured = x->nunits > 0 && x->unit_size > 1;
	ar->unit = calloc(x->nunits ? x->nunits : 1, sizeof(*ar->unit));
	ar->size_stats = calloc(ns, sizeof(*ar->size_stats));
	double *col = malloc(sizeof(*col) * (x->nunits ? x->nunits : 1));
	if (!ar->unit || !ar->size_stats || !col) {
		free(col);
		return rmni_err(err, RMN_ENOMEM, "out of memory");
	}
	for (uint32_t u = 0; u < x->nunits; u++) {
		nck_unit_result *ur = &ar->unit[u];
		ur->seconds = calloc(ns, sizeof(double));
		ur->busbw = calloc(ns, sizeof(double));
		if (!ur->seconds || !ur->busbw) {
			free(col);
			return rmni_err(err, RMN_ENOMEM, "out of memory");
		}
		const uint32_t *mem = p->ax[i].members + (size_t)u * x->unit_size;
		for (uint32_t j = 0; j < x->unit_size; j++) {
			int slot = x->op == RMN_OP_SENDRECV ? (int)j : 0;
			const double *r = rec + (size_t)mem[j] * p->record;
			for (size_t s = 0; s < ns; s++) {
				/* The operation ends with its slowest member. */
				double t = clean(r[nck_rec_index(p, i, slot, s)]);
				if (t > ur->seconds[s])
					ur->seconds[s] = t;
			}
			ur->wrong += (uint64_t)clean(r[nck_rec_index(p, i, slot,
								     ns)]);
		}
		for (size_t s = 0; s < ns; s++) {
			ur->busbw[s] = rmn_busbw(x->op, x->unit_size,
						 p->sizes[s], ur->seconds[s]);
			if (ur->busbw[s] > ur->peak)
				ur->peak = ur->busbw[s];
		}
		ur->slow = ar->measured &&
			   ur->peak < nom->slow_fraction * nom->gbps[x->link[u]];
		ar->wrong += ur->wrong;
		ar->slow += ur->slow;
		col[u] = ur->peak;
	}
	rmn_status st = rmn_stats_of(col, x->nunits, &ar->peak_stats, err);
	for (size_t s = 0; s < ns && st == RMN_OK; s++) {
		for (uint32_t u = 0; u < x->nunits; u++)
			col[u] = ar->unit[u].busbw[s];
		st = rmn_stats_of(col, x->nunits, &ar->size_stats[s], err);
	}
	free(col);
	return st;
}

rmn_status nck_analyse(const nck_plan *p, const rmn_nominal *nom,
		       const double *records, nck_result *r, rmn_error *err)
{
	memset(r, 0, sizeof(*r));
	for (size_t i = 0; i < p->nax; i++) {
		rmn_status st = analyse_axis(p, i, nom, records, &r->ax[i], err);
		if (st != RMN_OK) {
			nck_result_free(p, r);
			return st;
		}
		r->wrong += r->ax[i].wrong;
		r->slow += r->ax[i].slow;
	}
	return RMN_OK;
}

void nck_result_free(const nck_plan *p, nck_result *r)
{
	for (size_t i = 0; i < p->nax; i++) {
		nck_axis_result *ar = &r->ax[i];
		for (uint32_t u = 0; ar->unit && u < p->ax[i].nunits; u++) {
			free(ar->unit[u].seconds);
			free(ar->unit[u].busbw);
		}
		free(ar->unit);
		free(ar->size_stats);
		memset(ar, 0, sizeof(*ar));
	}
}

/* ---------------------------------------------------------------- text */

static void unit_name(rm_buf *b, const nck_plan *p, const nck_axis *x,
		      uint32_t u)
{
	const uint32_t *mem = x->members + (size_t)u * x->unit_size;
	char list[160];
	rm_buf_printf(b, "%s ", x->name);
	if (x->op == RMN_OP_SENDRECV) {
		uint32_t per = x->group_size - 1;
		rm_buf_printf(b, "group %u stages %u-%u", x->group[u],
			       u % per, u % per + 1);
	} else {
		rm_buf_printf(b, "group %u", x->group[u]);
	}
	/* Ranks as written in the group, hosts once each. */
	rm_buf_puts(b, " (ranks ");
	for (uint32_t i = 0; i < x->unit_size && i < 8; i++)
		rm_buf_printf(b, "%s%u", i ? "," : "", mem[i]);
	if (x->unit_size > 8)
		rm_buf_printf(b, ",... %u in all", x->unit_size);
	rm_buf_puts(b, " on ");
	/* Hosts once each, the first four; compared against those four
	 * only, so a DP group of thousands costs a few passes. */
	uint32_t seen[4];
	size_t shown = 0, o = 0;
	bool more = false;
	list[0] = '\0';
	for (uint32_t i = 0; i < x->unit_size && !more; i++) {
		rm_rank r = { 0 };
		bool dup = !rm_map_rank(p->map, mem[i], &r) ||
			   r.node >= rm_map_host_count(p->map);
		uint32_t node = r.node;
		for (size_t k = 0; k < shown && !dup; k++)
			dup = seen[k] == node;
		if (dup)
			continue;
		if (shown == 4) {
			more = true;
			break;
		}
		int n = snprintf(list + o, sizeof(list) - o, "%s%s",
				 shown ? "," : "", rm_map_host(p->map, node));
		if (n < 0 || (size_t)n >= sizeof(list) - o) {
			more = true;
			break;
		}
		o += (size_t)n;
		seen[shown++] = node;
	}
	rm_buf_puts(b, list);
	rm_buf_puts(b, more ? ",...)" : ")");
}

static void links_summary(rm_buf *b, const nck_axis *x)
{
	uint32_t count[3] = { 0, 0, 0 };
	for (uint32_t u = 0; u < x->nunits; u++)
		count[x->link[u]]++;
	const char *sep = "";
	rm_buf_puts(b, "  placed on:");
	for (int l = 0; l < 3; l++)
		if (count[l]) {
			rm_buf_printf(b, "%s %s %u", sep,
				       rmn_link_name((rmn_link)l), count[l]);
			sep = ",";
		}
	rm_buf_puts(b, "\n");
}

/* Median time of one message size over the axis's units; 0 when memory is
 * short, so the row still prints. */
static double median_seconds(const nck_axis *x, const nck_axis_result *ar,
			     size_t s)
{
	double *t = malloc(sizeof(*t) * x->nunits);
	rmn_stats ts = { 0 };
	if (t) {
		for (uint32_t u = 0; u < x->nunits; u++)
			t[u] = ar->unit[u].seconds[s];
		rmn_stats_of(t, x->nunits, &ts, NULL);
		free(t);
	}
	return ts.median;
}

static void axis_text(rm_buf *b, const nck_plan *p, size_t i,
		      const rmn_nominal *nom, const nck_axis_result *ar)
{
	const nck_axis *x = &p->ax[i];
	char sz[32];
	if (x->op == RMN_OP_SENDRECV)
		rm_buf_printf(b, "\n%s  sendrecv between %u pairs of "
				  "consecutive stages (groups of %u)",
			       x->name, x->nunits,
			       x->group_size);
	else
		rm_buf_printf(b, "\n%s  allreduce over %u groups of %u",
			       x->name, x->nunits,
			       x->group_size);
	if (!ar->measured) {
		if (!x->nunits) {
			rm_buf_puts(b, ": no neighbours to measure\n");
			return;
		}
		/* Still worth showing: the operation ran and was checked. */
		rm_buf_puts(b, ": one rank per group, no link to judge\n"
				"        size  time us (median)   algBw GB/s "
				"(median, local)\n");
		for (size_t s = 0; s < p->nsizes; s++) {
			double med = median_seconds(x, ar, s);
			nck_fmt_bytes(p->sizes[s], sz, sizeof(sz));
			rm_buf_printf(b, "  %10s  %15.1f   %16.2f\n", sz,
				       med * 1e6, rmn_algbw(p->sizes[s], med));
		}
		return;
	}
	links_summary(b, x);
	rm_buf_puts(b, "        size  time us (median)   busBw GB/s:  min"
			"   median      max\n");
	for (size_t s = 0; s < p->nsizes; s++) {
		nck_fmt_bytes(p->sizes[s], sz, sizeof(sz));
		rm_buf_printf(b, "  %10s  %15.1f   %16.2f %8.2f %8.2f\n", sz,
			       median_seconds(x, ar, s) * 1e6,
			       ar->size_stats[s].min,
			       ar->size_stats[s].median, ar->size_stats[s].max);
	}
	rm_buf_printf(b, "  peak busBw over sizes: min %.2f, median %.2f, "
			  "max %.2f GB/s",
		       ar->peak_stats.min, ar->peak_stats.median,
		       ar->peak_stats.max);
	rm_buf_printf(b, "; %llu slow, %llu with wrong results\n",
		       (unsigned long long)ar->slow,
		       (unsigned long long)ar->wrong);
	(void)nom;
}

char *nck_report_text(const nck_plan *p, const rmn_nominal *nom,
		      const nck_result *r, const nck_meta *m)
{
	rm_buf b;
	char lay[128], ord[128], lo[32], hi[32];
	rm_buf_init(&b);
	rm_layout_format(rm_map_layout(p->map), lay, sizeof(lay));
	rm_order_format(rm_map_order(p->map), ord, sizeof(ord));
	nck_fmt_bytes(p->sizes[0], lo, sizeof(lo));
	nck_fmt_bytes(p->sizes[p->nsizes - 1], hi, sizeof(hi));
	rm_buf_printf(&b, "rankmap-nccl-check: %u ranks, layout %s, order %s,"
			   " NCCL %s\n",
		       rm_map_world(p->map), lay, ord, m->nccl_version);
	rm_buf_printf(&b, "%zu sizes %s .. %s, %u iterations after %u "
			   "warm-up; busBw as nccl-tests reports it\n",
		       p->nsizes, lo, hi, m->iters, m->warmup);
	rm_buf_printf(&b, "nominal GB/s: nvlink %.0f, leaf %.0f, spine %.0f; "
			   "slow below %.0f%%\n",
		       nom->gbps[0], nom->gbps[1], nom->gbps[2],
		       nom->slow_fraction * 100);
	for (size_t i = 0; i < p->nax; i++)
		axis_text(&b, p, i, nom, &r->ax[i]);
	if (r->slow || r->wrong)
		rm_buf_puts(&b, "\n");
	for (size_t i = 0; i < p->nax; i++) {
		const nck_axis *x = &p->ax[i];
		for (uint32_t u = 0; u < x->nunits; u++) {
			const nck_unit_result *ur = &r->ax[i].unit[u];
			if (ur->wrong) {
				rm_buf_puts(&b, "WRONG: ");
				unit_name(&b, p, x, u);
				rm_buf_printf(&b, ": %llu wrong elements\n",
					       (unsigned long long)ur->wrong);
			}
			if (ur->slow) {
				rmn_link l = x->link[u];
				rm_buf_puts(&b, "SLOW: ");
				unit_name(&b, p, x, u);
				rm_buf_printf(&b, ": peak %.2f GB/s, placed "
						   "on %s (nominal %.0f GB/s)\n",
					       ur->peak, rmn_link_name(l),
					       nom->gbps[l]);
			}
		}
	}
	if (!r->slow && !r->wrong)
		rm_buf_puts(&b, "\nresult: all results exact, no slow "
				 "group\n");
	else
		rm_buf_printf(&b, "result: %llu wrong elements, %llu slow "
				   "groups or pairs\n",
			       (unsigned long long)r->wrong,
			       (unsigned long long)r->slow);
	return rm_buf_take(&b, NULL);
}

/* ---------------------------------------------------------------- JSON */

static void jnum(rm_buf *b, double v)
{
	rm_buf_printf(b, "%.4f", isfinite(v) ? v : 0.0);
}

static void jstats(rm_buf *b, const rmn_stats *s)
{
	rm_buf_puts(b, "{\"min\": ");
	jnum(b, s->min);
	rm_buf_puts(b, ", \"median\": ");
	jnum(b, s->median);
	rm_buf_puts(b, ", \"max\": ");
	jnum(b, s->max);
	rm_buf_puts(b, "}");
}

static void unit_json(rm_buf *b, const nck_plan *p, const nck_axis *x,
		      uint32_t u, const nck_unit_result *ur,
		      const rmn_nominal *nom)
{
	const uint32_t *mem = x->members + (size_t)u * x->unit_size;
	rm_buf_printf(b, "        {\"group\": %u, ", x->group[u]);
	if (x->op == RMN_OP_SENDRECV)
		rm_buf_printf(b, "\"stage\": %u, ",
			       u % (x->group_size - 1));
	rm_buf_puts(b, "\"ranks\": [");
	for (uint32_t i = 0; i < x->unit_size; i++)
		rm_buf_printf(b, "%s%u", i ? ", " : "", mem[i]);
	rm_buf_puts(b, "], \"hosts\": [");
	for (uint32_t i = 0; i < x->unit_size; i++) {
		rm_rank r;
		const char *host = rm_map_rank(p->map, mem[i], &r)
					   ? rm_map_host(p->map, r.node)
					   : NULL;
		if (i)
			rm_buf_puts(b, ", ");
		rm_buf_json_str(b, host ? host : "");
	}
	rm_buf_printf(b, "], \"link\": \"%s\", \"nominal_gbps\": ",
		       rmn_link_name(x->link[u]));
	jnum(b, nom->gbps[x->link[u]]);
	rm_buf_puts(b, ", \"peak_busbw\": ");
	jnum(b, ur->peak);
	rm_buf_puts(b, ", \"busbw\": [");
	for (size_t s = 0; s < p->nsizes; s++) {
		if (s)
			rm_buf_puts(b, ", ");
		jnum(b, ur->busbw[s]);
	}
	rm_buf_printf(b, "], \"slow\": %s, \"wrong\": %llu}",
		       ur->slow ? "true" : "false",
		       (unsigned long long)ur->wrong);
}

static void axis_json(rm_buf *b, const nck_plan *p, size_t i,
		      const rmn_nominal *nom, const nck_axis_result *ar)
{
	const nck_axis *x = &p->ax[i];
	rm_buf_printf(b, "    {\"axis\": \"%s\", \"op\": \"%s\", "
			  "\"group_size\": %u, \"units\": %u, "
			  "\"measured\": %s, \"slow\": %llu, \"wrong\": %llu,\n",
		       x->name, rmn_op_name(x->op),
		       x->group_size, x->nunits,
		       ar->measured ? "true" : "false",
		       (unsigned long long)ar->slow,
		       (unsigned long long)ar->wrong);
	rm_buf_puts(b, "      \"busbw_by_size\": [");
	for (size_t s = 0; s < p->nsizes; s++) {
		rm_buf_printf(b, "%s\n        {\"bytes\": %llu, \"busbw\": ",
			       s ? "," : "",
			       (unsigned long long)p->sizes[s]);
		jstats(b, &ar->size_stats[s]);
		rm_buf_puts(b, "}");
	}
	rm_buf_puts(b, "],\n      \"peak_busbw\": ");
	jstats(b, &ar->peak_stats);
	rm_buf_puts(b, ",\n      \"groups\": [");
	for (uint32_t u = 0; u < x->nunits; u++) {
		rm_buf_puts(b, u ? ",\n" : "\n");
		unit_json(b, p, x, u, &ar->unit[u], nom);
	}
	rm_buf_puts(b, "]}");
}

char *nck_report_json(const nck_plan *p, const rmn_nominal *nom,
		      const nck_result *r, const nck_meta *m)
{
	rm_buf b;
	char lay[128], ord[128];
	rm_buf_init(&b);
	rm_layout_format(rm_map_layout(p->map), lay, sizeof(lay));
	rm_order_format(rm_map_order(p->map), ord, sizeof(ord));
	rm_buf_puts(&b, "{\n  \"schema\": \"rankmap-nccl-check/1\",\n");
	rm_buf_printf(&b, "  \"world\": %u,\n  \"layout\": ", rm_map_world(p->map));
	rm_buf_json_str(&b, lay);
	rm_buf_puts(&b, ",\n  \"order\": ");
	rm_buf_json_str(&b, ord);
	rm_buf_puts(&b, ",\n  \"nccl_version\": ");
	rm_buf_json_str(&b, m->nccl_version);
	rm_buf_printf(&b, ",\n  \"iters\": %u,\n  \"warmup\": %u,\n"
			   "  \"sizes\": [",
		       m->iters, m->warmup);
	for (size_t s = 0; s < p->nsizes; s++)
		rm_buf_printf(&b, "%s%llu", s ? ", " : "",
			       (unsigned long long)p->sizes[s]);
	rm_buf_puts(&b, "],\n  \"nominal_gbps\": {");
	for (int l = 0; l < 3; l++) {
		rm_buf_printf(&b, "%s\"%s\": ", l ? ", " : "",
			       rmn_link_name((rmn_link)l));
		jnum(&b, nom->gbps[l]);
	}
	rm_buf_puts(&b, "},\n  \"slow_fraction\": ");
	jnum(&b, nom->slow_fraction);
	rm_buf_puts(&b, ",\n  \"axes\": [\n");
	for (size_t i = 0; i < p->nax; i++) {
		if (i)
			rm_buf_puts(&b, ",\n");
		axis_json(&b, p, i, nom, &r->ax[i]);
	}
	rm_buf_printf(&b, "],\n  \"wrong\": %llu,\n  \"slow\": %llu,\n"
			   "  \"ok\": %s\n}\n",
		       (unsigned long long)r->wrong,
		       (unsigned long long)r->slow,
		       r->wrong || r->slow ? "false" : "true");
	return rm_buf_take(&b, NULL);
}
