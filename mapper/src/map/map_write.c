/* SPDX-License-Identifier: Apache-2.0 */
/*
 * map_write.c - rm_map_write: pick the renderer, plus the two small
 * formats (csv for spreadsheets and scripts, env for shells).
 */
#include "map/mapio.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static void csv_field(rm_buf *b, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		rm_buf_puts(b, s);
		return;
	}
	rm_buf_add(b, "\"", 1);
	for (const char *p = s; *p; p++) {
		if (*p == '"')
			rm_buf_add(b, "\"\"", 2);
		else
			rm_buf_add(b, p, 1);
	}
	rm_buf_add(b, "\"", 1);
}

/* Column order: rank,host,local_gpu, then the coordinates the JSON map
 * shows (tp[,cp][,ep,etp,edp],pp,dp[,dp_replicate,dp_shard]), leaf[,unit]
 * - the first three are what `rankmap check --assignment` reads back. */
static rm_status csv(const rm_map *m, rm_buf *b, rm_error *err)
{
	rm_group_kind cols[RMI_MAX_KINDS];
	rmi_coord co[RMI_MAX_KINDS];
	unsigned ncols = rmi_map_kinds(&m->layout, cols);
	for (unsigned i = 0; i < ncols; i++) {
		rm_status st = rmi_coord_prep(&m->layout, &m->order, cols[i],
					      &co[i], err);
		if (st)
			return st;
	}
	bool units = false;
	for (uint32_t h = 0; m->host_unit && h < m->nhost; h++)
		units |= m->host_unit[h] != NULL;
	rm_buf_puts(b, "rank,host,local_gpu");
	for (unsigned i = 0; i < ncols; i++) {
		rm_buf_add(b, ",", 1);
		rm_buf_puts(b, rm_group_kind_name(cols[i]));
	}
	rm_buf_puts(b, units ? ",leaf,unit\n" : ",leaf\n");
	for (uint32_t r = 0; r < m->world; r++) {
		const rm_rank *rk = &m->rank[r];
		if (rk->node >= m->nhost)
			return rmi_err(err, RM_EINPUT,
				       "rank %u sits on node index %u, but the "
				       "map has %u nodes", r, rk->node,
				       m->nhost);
		rm_buf_u64(b, r);
		rm_buf_add(b, ",", 1);
		csv_field(b, m->host[rk->node]);
		rm_buf_add(b, ",", 1);
		rm_buf_u64(b, rk->local_gpu);
		for (unsigned i = 0; i < ncols; i++) {
			rm_buf_add(b, ",", 1);
			rm_buf_u64(b, rmi_coord_of(&co[i], r));
		}
		rm_buf_add(b, ",", 1);
		if (m->host_leaf)
			csv_field(b, m->host_leaf[rk->node]);
		if (units) {
			rm_buf_add(b, ",", 1);
			csv_field(b, m->host_unit[rk->node]);
		}
		rm_buf_add(b, "\n", 1);
	}
	return RM_OK;
}

static void env_u64(rm_buf *b, const char *k, uint64_t v)
{
	char num[24];
	snprintf(num, sizeof(num), "%llu", (unsigned long long)v);
	rm_buf_env(b, k, num);
}

static void upper(char *dst, size_t n, const char *pre, const char *axis,
		  const char *post)
{
	snprintf(dst, n, "%s%s%s", pre, axis, post);
	for (char *p = dst; *p; p++)
		if (*p >= 'a' && *p <= 'z')
			*p = (char)(*p - 'a' + 'A');
}

rm_status rmi_map_env(const rm_map *m, int64_t rank, uint32_t master_port,
		      rm_buf *b, rm_error *err)
{
	if (rank >= (int64_t)m->world)
		return rmi_err(err, RM_EINPUT,
			       "rank %lld is outside the world of %u ranks",
			       (long long)rank, m->world);
	if (master_port > 65535)
		return rmi_err(err, RM_EINPUT,
			       "master port %u is not a TCP port (1-65535)",
			       master_port);
	/* The map file's own digest: what the plugin exports as
	 * RANKMAP_MAP_SHA256 when it writes the JSON map. */
	rm_buf json;
	rm_buf_init(&json);
	rm_status st = rmi_map_json(m, false, &json, err);
	if (st != RM_OK) {
		rm_buf_clear(&json);
		return st;
	}
	char digest[65], text[256], name[64];
	rm_sha256_hex(json.data, json.len, digest);
	rm_buf_clear(&json);
	rm_group_kind kind[RMI_MAX_KINDS];
	rmi_coord co[RMI_MAX_KINDS];
	unsigned nk = rmi_map_kinds(&m->layout, kind);
	for (unsigned i = 0; i < nk; i++)
		if ((st = rmi_coord_prep(&m->layout, &m->order, kind[i], &co[i],
					 err)))
			return st;

	if (rank >= 0) {
		const rm_rank *rk = &m->rank[rank];
		if (rk->node >= m->nhost)
			return rmi_err(err, RM_EINPUT,
				       "rank %lld sits on node index %u, but "
				       "the map has %u nodes", (long long)rank,
				       rk->node, m->nhost);
		uint64_t local = 0;
		for (uint32_t r = 0; r < m->world; r++)
			local += m->rank[r].node == rk->node;
		env_u64(b, "RANK", (uint64_t)rank);
		env_u64(b, "LOCAL_RANK", rk->local_gpu);
		env_u64(b, "LOCAL_WORLD_SIZE", local);
		env_u64(b, "RANKMAP_NODE_INDEX", rk->node);
		rm_buf_env(b, "RANKMAP_HOST", m->host[rk->node]);
		for (unsigned i = 0; i < nk; i++)
			if (rmi_kind_env(&m->layout, kind[i])) {
				upper(name, sizeof(name), "RANKMAP_",
				      rm_group_kind_name(kind[i]), "_RANK");
				env_u64(b, name,
					rmi_coord_of(&co[i], (uint64_t)rank));
			}
		if (m->host_leaf && m->host_leaf[rk->node])
			rm_buf_env(b, "RANKMAP_LEAF", m->host_leaf[rk->node]);
	}
	env_u64(b, "WORLD_SIZE", m->world);
	if (m->world && m->rank[0].node < m->nhost)
		rm_buf_env(b, "MASTER_ADDR", m->host[m->rank[0].node]);
	if (master_port)
		env_u64(b, "MASTER_PORT", master_port);
	for (unsigned i = 0; i < nk; i++)
		if (rmi_kind_env(&m->layout, kind[i])) {
			upper(name, sizeof(name), "RANKMAP_",
			      rm_group_kind_name(kind[i]), "_SIZE");
			env_u64(b, name, rmi_kind_size(&m->layout, kind[i]));
		}
	rm_layout_format(&m->layout, text, sizeof(text));
	rm_buf_env(b, "RANKMAP_LAYOUT", text);
	rm_order_format(&m->order, text, sizeof(text));
	rm_buf_env(b, "RANKMAP_ORDER", text);
	rm_buf_env(b, "RANKMAP_ORDER_NAME", m->order.name);
	rm_buf_env(b, "RANKMAP_MAP_SHA256", digest);
	return RM_OK;
}

/* What every writer does first: nothing out until it succeeds, and a map
 * whose counts have their arrays (a caller-built one may not); b is ready
 * when this returns RM_OK. */
static rm_status write_start(const rm_map *m, char **out, size_t *len,
			     rm_buf *b, rm_error *err)
{
	*out = NULL;
	if (len)
		*len = 0;
	if (!m || (m->world && !m->rank) || (m->nhost && !m->host))
		return rmi_err(err, RM_EINPUT, "no map to write");
	rm_buf_init(b);
	return RM_OK;
}

rm_status rm_map_write_hostfile(const rm_map *m, char **out, size_t *len,
				rm_error *err)
{
	rm_buf b;
	rm_status st = write_start(m, out, len, &b, err);
	if (st)
		return st;
	for (uint32_t r = 0; r < m->world; r++) {
		if (m->rank[r].node >= m->nhost) {
			rm_buf_clear(&b);
			return rmi_err(err, RM_EINPUT,
				       "rank %u sits on node index %u, but "
				       "the map has %u nodes", r,
				       m->rank[r].node, m->nhost);
		}
		rm_buf_puts(&b, m->host[m->rank[r].node]);
		rm_buf_add(&b, "\n", 1);
	}
	if (!b.oom && (*out = rm_buf_take(&b, len)))
		return RM_OK;
	rm_buf_clear(&b);
	return rmi_err(err, RM_ENOMEM, "out of memory writing the hostfile");
}

/*
 * DeepSpeed's launcher numbers ranks node by node in the hostfile's order
 * and gives local rank j the node's j-th slot (runner.py keeps the file's
 * order; launch.py sorts a node's slots). So the file expresses the map
 * only where each node holds consecutive ranks on its GPUs in order; the
 * hosts are written in the order of their ranks.
 */
rm_status rm_map_write_deepspeed_hostfile(const rm_map *m, char **out,
					  size_t *len, rm_error *err)
{
	*out = NULL;
	if (len)
		*len = 0;
	if (!m || !m->world || !m->rank || !m->host || !m->gpus_per_node)
		return rmi_err(err, RM_EINPUT, "no map to write");
	rm_buf b;
	rm_buf_init(&b);
	uint32_t r = 0;
	while (r < m->world) {
		uint32_t h = m->rank[r].node, n = 0;
		for (; r + n < m->world && m->rank[r + n].node == h; n++)
			if (m->rank[r + n].local_gpu != n) {
				rm_buf_clear(&b);
				return rmi_err(err, RM_EINPUT,
					       "rank %u plays GPU %u of %s, but "
					       "DeepSpeed gives it GPU %u (a "
					       "node's ranks in GPU order): no "
					       "hostfile expresses this map; "
					       "launch with srun instead",
					       r + n, m->rank[r + n].local_gpu,
					       h < m->nhost ? m->host[h] : "?", n);
			}
		for (uint32_t q = r + n; q < m->world; q++)
			if (m->rank[q].node == h) {
				rm_buf_clear(&b);
				return rmi_err(err, RM_EINPUT,
					       "%s holds ranks %u and %u but not "
					       "those between: DeepSpeed numbers "
					       "a node's ranks consecutively; use "
					       "an order that numbers a node's "
					       "GPUs together (--order nest)",
					       m->host[h], r, q);
			}
		rm_buf_printf(&b, "%s slots=%u\n", m->host[h], n);
		r += n;
	}
	if (!b.oom && (*out = rm_buf_take(&b, len)))
		return RM_OK;
	rm_buf_clear(&b);
	return rmi_err(err, RM_ENOMEM, "out of memory writing the hostfile");
}

static size_t slen(const char *s)
{
	return s ? strlen(s) : 0;
}

/*
 * Reserve the whole output up front. A large map is mostly the cost of
 * touching fresh memory: on a virtual machine every 4 KiB page fault is
 * expensive, so a buffer of several MiB asks for transparent huge pages.
 */
static void presize(rm_buf *b, const rm_map *m, rm_format fmt)
{
	size_t names = 0, host = 0;
	for (uint32_t h = 0; h < m->nhost; h++) {
		size_t n = slen(m->host[h]) +
			   (m->host_leaf ? slen(m->host_leaf[h]) : 0) +
			   (m->host_unit ? slen(m->host_unit[h]) : 0);
		if (n > names)
			names = n;
		if (slen(m->host[h]) > host)
			host = slen(m->host[h]);
	}
	/* Rank records with every number at its widest, plus one number
	 * per rank and axis in the group lists. */
	size_t per_rank = 2 * names + 24 + RM_NAXES * 12 +
			  (fmt == RM_FMT_TEXT ? 0 : 140);
	size_t want = (size_t)m->world * per_rank +
		      ((size_t)m->nhost + m->nspare) * (2 * names + 48) +
		      m->report.nwarning * 512 + 65536;
	if (fmt == RM_FMT_TEXT || fmt == RM_FMT_ENV)
		want = 65536 + (size_t)m->nspare * (host + 2);
	const size_t huge = (size_t)2 << 20;
	if (want >= 2 * huge) {
		want = (want + huge - 1) / huge * huge;
		void *p = NULL;
		if (posix_memalign(&p, huge, want) == 0) {
			madvise(p, want, MADV_HUGEPAGE);
			b->data = p;
			b->cap = want;
			b->data[0] = '\0';
			return;
		}
	}
	rm_buf_reserve(b, want);
}

/* rank: the task whose variables RM_FMT_ENV adds, -1 for none;
 * master_port: RM_FMT_ENV's MASTER_PORT, 0 for none. */
static rm_status write_fmt(const rm_map *map, rm_format fmt, int64_t rank,
			   uint32_t master_port, char **out, size_t *len,
			   rm_error *err)
{
	rm_buf b;
	rm_status st = write_start(map, out, len, &b, err);
	if (st)
		return st;
	presize(&b, map, fmt);
	switch (fmt) {
	case RM_FMT_JSON: st = rmi_map_json(map, false, &b, err); break;
	case RM_FMT_YAML: st = rmi_map_json(map, true, &b, err); break;
	case RM_FMT_CSV: st = csv(map, &b, err); break;
	case RM_FMT_ENV:
		st = rmi_map_env(map, rank, master_port, &b, err);
		break;
	case RM_FMT_TEXT: st = rmi_map_text(map, &b, err); break;
	case RM_FMT_HTML:
	case RM_FMT_SVG:
		st = rmi_err(err, RM_EUNSUPPORTED, "a picture needs the "
			     "fabric: use rm_map_picture");
		break;
	default:
		st = rmi_err(err, RM_EINPUT, "unknown format %d", (int)fmt);
	}
	if (st == RM_OK && b.oom)
		st = rmi_err(err, RM_ENOMEM, "out of memory writing the map");
	if (st != RM_OK) {
		rm_buf_clear(&b);
		return st;
	}
	*out = rm_buf_take(&b, len);
	return *out ? RM_OK
		    : rmi_err(err, RM_ENOMEM, "out of memory writing the map");
}

rm_status rm_map_write(const rm_map *map, rm_format fmt, char **out,
		       size_t *len, rm_error *err)
{
	return write_fmt(map, fmt, -1, 0, out, len, err);
}

rm_status rm_map_write_env(const rm_map *map, int64_t rank,
			   uint32_t master_port, char **out, size_t *len,
			   rm_error *err)
{
	return write_fmt(map, RM_FMT_ENV, rank, master_port, out, len, err);
}
