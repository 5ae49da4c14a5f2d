/* SPDX-License-Identifier: Apache-2.0 */
/*
 * port.c - rm_master_port, the MASTER_PORT of a Slurm step: the rule the
 * SPANK plugin and `rankmap plan --format env` share, so that tasks
 * started with and without the plugin meet on one port.
 */
#include "internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* The derived port stays at or above 20000 when enough ports are left
 * there: below it sit most registered services (databases at 3306 and
 * 5432, 8080, 9090...). Too few left (an ephemeral range starting low):
 * anything unprivileged outside the range, rather than a clash. */
#define PORT_FLOOR 20000u
#define PORT_FLOOR_MIN_POOL 1000u
#define PORT_UNPRIVILEGED 1024u
/* Slurm's default slurmctld, slurmd and slurmdbd ports. */
#define PORT_SLURM_LO 6817u
#define PORT_SLURM_HI 6819u

/* MurmurHash3's 32-bit finaliser: every bit of the job id moves every bit
 * of the start, so job J's later steps do not land on job J+1's first
 * ones (job * 101 + step did: J's step 101 was J+1's step 0). */
static uint32_t mix_job(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

/* The first port of SLURM_STEP_RESV_PORTS ("12000-12003", "12000,12007"),
 * or 0 when the value cannot be a port pair we may listen on: malformed, a
 * range past 65535 or backwards, privileged, Slurm's own ports, or with P
 * or P + 1 inside the ephemeral range (a user may set the variable by hand;
 * Slurm's own reservations pass). */
static uint32_t resv_first(const char *v, uint32_t eph_lo, uint32_t eph_hi)
{
	char *end;
	if (!isdigit((unsigned char)*v))
		return 0;
	unsigned long lo = strtoul(v, &end, 10), hi = lo;
	if (*end == '-') {
		const char *h = end + 1;
		if (!isdigit((unsigned char)*h))
			return 0;
		hi = strtoul(h, &end, 10);
	}
	if ((*end != 0 && *end != ',') || lo < PORT_UNPRIVILEGED || hi < lo ||
	    hi > 65535 || lo + 1 > 65535)
		return 0;
	if (lo + 1 >= PORT_SLURM_LO && lo <= PORT_SLURM_HI)
		return 0;
	if ((lo >= eph_lo && lo <= eph_hi) ||
	    (lo + 1 >= eph_lo && lo + 1 <= eph_hi))
		return 0;
	return (uint32_t)lo;
}

typedef struct span {
	uint32_t lo, hi;             /* inclusive */
} span;

/* The window split by three cuts: at most 4 spans. */
typedef struct pool {
	span s[4];
	unsigned n;
	uint32_t size;
} pool;

/* Remove [lo, hi] from every span of the pool. */
static void cut(pool *p, uint32_t lo, uint32_t hi)
{
	pool out = { .n = 0 };
	for (unsigned i = 0; i < p->n; i++) {
		span a = p->s[i];
		if (hi < a.lo || lo > a.hi) {
			out.s[out.n++] = a;
			continue;
		}
		if (lo > a.lo)
			out.s[out.n++] = (span){ a.lo, lo - 1 };
		if (hi < a.hi)
			out.s[out.n++] = (span){ hi + 1, a.hi };
	}
	out.size = 0;
	for (unsigned i = 0; i < out.n; i++)
		out.size += out.s[i].hi - out.s[i].lo + 1;
	*p = out;
}

/*
 * The ports P from `floor` (at least 1024) up such that P and P + 1 are both outside the
 * ephemeral range and Slurm's ports: P + 1 is where librankmap-nccl's id
 * exchange listens by default (nccl.md), and the kernel hands out
 * ephemeral ports to any outgoing connection on the node, so a listener
 * there fails now and then with EADDRINUSE.
 */
static pool allowed(uint32_t floor, uint32_t eph_lo, uint32_t eph_hi,
		    uint32_t mpi_lo, uint32_t mpi_hi)
{
	pool p = { .s = { { floor, 65534 } }, .n = 1,
		   .size = 65534 - floor + 1 };
	cut(&p, eph_lo > 0 ? eph_lo - 1 : 0, eph_hi);
	cut(&p, PORT_SLURM_LO - 1, PORT_SLURM_HI);
	if (mpi_lo > 0 && mpi_lo <= mpi_hi)
		cut(&p, mpi_lo - 1, mpi_hi);
	return p;
}

rm_status rm_port_range_parse(const char *text, uint32_t *lo, uint32_t *hi,
			      rm_error *err)
{
	char q[96];
	unsigned long v[2];
	const char *p = text ? text : "";
	for (int i = 0; i < 2; i++) {
		while (*p == ' ' || *p == '\t')
			p++;
		char *end;
		if (!isdigit((unsigned char)*p))
			goto bad;
		v[i] = strtoul(p, &end, 10);
		if (v[i] == 0 || v[i] > 65535)
			goto bad;
		p = end;
	}
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	if (*p || v[0] > v[1])
		goto bad;
	*lo = (uint32_t)v[0];
	*hi = (uint32_t)v[1];
	return RM_OK;
bad:
	return rmi_err(err, RM_EINPUT,
		       "ephemeral port range %s: expected two ports LOW HIGH "
		       "(1-65535, LOW <= HIGH), as in "
		       "/proc/sys/net/ipv4/ip_local_port_range",
		       rm_quote(text ? text : "", text ? strlen(text) : 0, q,
				sizeof(q)));
}

uint32_t rm_master_port(uint32_t jobid, uint32_t stepid,
			const char *resv_ports, uint32_t eph_lo,
			uint32_t eph_hi)
{
	return rm_master_port_avoiding(jobid, stepid, resv_ports, eph_lo,
				       eph_hi, 0, 0);
}

uint32_t rm_master_port_avoiding(uint32_t jobid, uint32_t stepid,
				 const char *resv_ports, uint32_t eph_lo,
				 uint32_t eph_hi, uint32_t mpi_lo,
				 uint32_t mpi_hi)
{
	/* MpiParams=ports: Slurm hands the step its own ports ("12000-12003"
	 * or "12000,12007"), the same on every node; the first is ours. */
	if (eph_lo == 0 || eph_lo > eph_hi || eph_hi > 65535) {
		eph_lo = RM_EPHEMERAL_LO;
		eph_hi = RM_EPHEMERAL_HI;
	}
	if (resv_ports && *resv_ports) {
		uint32_t v = resv_first(resv_ports, eph_lo, eph_hi);
		if (v)
			return v;
	}
	/* Consecutive steps of a job get consecutive ports of the pool, so
	 * two steps sharing a first node (srun --exact) do not collide; jobs
	 * start at a hashed place, so two jobs collide no more often than
	 * random ports would. */
	uint64_t mix = (uint64_t)mix_job(jobid) + stepid;
	pool p = allowed(PORT_FLOOR, eph_lo, eph_hi, mpi_lo, mpi_hi);
	if (p.size < PORT_FLOOR_MIN_POOL)
		p = allowed(PORT_UNPRIVILEGED, eph_lo, eph_hi, mpi_lo, mpi_hi);
	if (p.size == 0) /* the range covers 1024-65535: nothing is outside */
		return PORT_FLOOR + (uint32_t)(mix % PORT_FLOOR);
	uint32_t k = (uint32_t)(mix % p.size);
	for (unsigned i = 0;; i++) {
		uint32_t n = p.s[i].hi - p.s[i].lo + 1;
		if (k < n)
			return p.s[i].lo + k;
		k -= n;
	}
}
