/* SPDX-License-Identifier: Apache-2.0 */
/* check_args.c - rankmap-nccl-check's options, in nccl-tests' spelling
 * where nccl-tests has one (-b, -e, -f, -n, -w). */
#include "check.h"
#include "nccl_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char nck_usage[] =
	"usage: rankmap-nccl-check [options]   (one task per GPU, e.g.\n"
	"       srun --parallel-layout=8x16x128 rankmap-nccl-check)\n"
	"  -b, --minbytes SIZE    smallest message (default 8)\n"
	"  -e, --maxbytes SIZE    largest message (default 256M)\n"
	"  -f, --stepfactor N     size multiplier between steps (default 4)\n"
	"  -n, --iters N          timed iterations per size (default 20)\n"
	"  -w, --warmup N         untimed iterations first (default 5)\n"
	"      --axes LIST        axes and combined groups to measure, e.g.\n"
	"                         tp,pp,dp-cp (default: every axis); groups:\n"
	"                         mp, tp-cp, dp-cp, tp-dp-cp, embedding, etp,\n"
	"                         edp; 'all' = every axis and group\n"
	"      --format F         text (default) or json; --json = --format json\n"
	"      --fail-slow        exit 1 when a group is slow\n"
	"      --nvlink-gbps X    nominal NVLink GB/s per GPU and direction (450)\n"
	"      --nic-gbps X       nominal network GB/s per GPU (50)\n"
	"      --spine-gbps X     across leaves, if less (default: --nic-gbps)\n"
	"      --slow-fraction F  slow below F x nominal (default 0.5)\n"
	"      --site FILE        nominal figures from the site file's tiers\n"
	"                         (the options above win over it)\n"
	"      --map FILE         map file (default $RANKMAP_MAP)\n"
	"      --timeout S        limit of every wait in s: id exchange,\n"
	"                         communicator set-up, each measurement (120)\n"
	"  -V, --version          print the version and exit\n"
	"SIZE takes K, M, G (powers of 1024). Exit: 0 ok, 1 wrong results\n"
	"(or slow groups with --fail-slow), 2 usage, 3 no GPU or NCCL error.\n";

/* "opt: what 'val'", opt and val optional (val quoted: it is the
 * user's text). */
static int bad(char *msg, size_t cap, const char *opt, const char *what,
	       const char *val)
{
	char q[96];
	snprintf(msg, cap, "%s%s%s%s%s", opt ? opt : "", opt ? ": " : "",
		 what, val ? " " : "",
		 val ? rm_quote(val, 64, q, sizeof(q)) : "");
	return NCK_EXIT_USAGE;
}

static bool parse_size(const char *s, uint64_t *out)
{
	char *end;
	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno)
		return false;
	unsigned shift = 0;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	default: break;
	}
	if (shift && *end == 'i')
		end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || v > (NCK_MAX_BYTES >> shift))
		return false;
	v <<= shift;
	/* Messages are 32-bit elements. */
	*out = (v + 3) / 4 * 4;
	return *out >= 4 && *out <= NCK_MAX_BYTES;
}

static bool parse_uint(const char *s, unsigned long min, unsigned long max,
		       unsigned long *out)
{
	char *end;
	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

static bool parse_real(const char *s, double min, double max, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= min && v <= max))
		return false;
	*out = v;
	return true;
}

static bool parse_axes(const char *s, bool want[RM_NAXES],
		       bool group[RMN_NGROUPS])
{
	memset(want, 0, sizeof(bool) * RM_NAXES);
	memset(group, 0, sizeof(bool) * RMN_NGROUPS);
	if (!strcmp(s, "all")) {
		memset(want, 1, sizeof(bool) * RM_NAXES);
		memset(group, 1, sizeof(bool) * RMN_NGROUPS);
		return true;
	}
	while (*s) {
		size_t n = strcspn(s, ",");
		int a = rm_axis_from_name(s, n);
		int g = a < 0 ? rmn_group_from_name(s, n) : -1;
		if ((a < 0 && g < 0) || (a >= 0 && want[a]) ||
		    (g >= 0 && group[g]))
			return false;
		if (a >= 0)
			want[a] = true;
		else
			group[g] = true;
		s += n;
		if (*s == ',' && *++s == '\0')
			return false;
	}
	return true;
}

/*
 * Tiers are innermost first: the NVLink domain, the leaf (or rail), then
 * the levels above. Above the leaf a group may cross any of them, so the
 * spine gets the slowest per-GPU figure up there (bandwidth over
 * oversubscription): lenient rather than crying wolf.
 */
static int apply_site(const char *path, rmn_nominal *nom, char *msg,
		      size_t cap)
{
	rm_site *site = NULL;
	rm_error e = { 0 };
	if (rm_site_load(path, &site, &e) != RM_OK) {
		snprintf(msg, cap, "--site: %s", e.msg);
		return NCK_EXIT_USAGE;
	}
	rm_tier tier;
	if (rm_site_tier(site, 0, &tier) && tier.gbytes_per_s > 0)
		nom->gbps[RMN_LINK_NVLINK] = tier.gbytes_per_s;
	if (rm_site_tier(site, 1, &tier) && tier.gbytes_per_s > 0)
		nom->gbps[RMN_LINK_LEAF] = nom->gbps[RMN_LINK_SPINE] =
			tier.gbytes_per_s;
	double spine = 0;
	for (size_t t = 2; rm_site_tier(site, t, &tier); t++) {
		double g = tier.gbytes_per_s;
		double over = tier.oversubscription;
		if (!(g > 0))
			continue;
		if (over > 1)
			g /= over;
		if (spine == 0 || g < spine)
			spine = g;
	}
	if (spine > 0)
		nom->gbps[RMN_LINK_SPINE] = spine;
	rm_site_free(site);
	return 0;
}

int nck_parse_args(int argc, char **argv, nck_opts *o, char *msg, size_t cap)
{
	memset(o, 0, sizeof(*o));
	o->minbytes = 8;
	o->maxbytes = 256u << 20;
	o->factor = 4;
	o->iters = 20;
	o->warmup = 5;
	for (int a = 0; a < RM_NAXES; a++)
		o->want[a] = true;
	rmn_nominal_init(&o->nominal);
	/* Given values wait until the site file, if any, has been read. */
	double nvlink = -1, nic = -1, spine = -1;
	const char *site = NULL;
	msg[0] = '\0';

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *val = NULL;
		char name[32];
		const char *eq = strchr(arg, '=');
		if (!strncmp(arg, "--", 2) && eq) {
			size_t n = (size_t)(eq - arg);
			if (n >= sizeof(name))
				return bad(msg, cap, NULL, "unknown option",
					   arg);
			memcpy(name, arg, n);
			name[n] = '\0';
			val = eq + 1;
		} else {
			snprintf(name, sizeof(name), "%s", arg);
		}
#define IS(s, l) (!strcmp(name, s) || !strcmp(name, l))
		if (IS("-h", "--help")) {
			o->help = true;
			continue;
		}
		if (IS("-V", "--version")) {
			o->version = true;
			continue;
		}
		if (IS("--json", "--json") || IS("--fail-slow", "--fail-slow")) {
			if (val)
				return bad(msg, cap, name, "takes no value",
					   NULL);
			if (name[2] == 'j')
				o->json = true;
			else
				o->fail_slow = true;
			continue;
		}
		bool known = IS("-b", "--minbytes") || IS("-e", "--maxbytes") ||
			     IS("-f", "--stepfactor") || IS("-n", "--iters") ||
			     IS("-w", "--warmup") || IS("--axes", "--map") ||
			     IS("--nvlink-gbps", "--nic-gbps") ||
			     IS("--spine-gbps", "--slow-fraction") ||
			     IS("--timeout", "--site") ||
			     IS("--format", "--format");
		if (!known)
			return bad(msg, cap, NULL, "unknown option", name);
		if (!val) {
			if (i + 1 >= argc)
				return bad(msg, cap, name, "needs a value", NULL);
			val = argv[++i];
		}
		unsigned long u = 0;
		bool ok;
		if (IS("-b", "--minbytes"))
			ok = parse_size(val, &o->minbytes);
		else if (IS("-e", "--maxbytes"))
			ok = parse_size(val, &o->maxbytes);
		else if (IS("-f", "--stepfactor"))
			ok = parse_uint(val, 2, 1024, &u), o->factor = u;
		else if (IS("-n", "--iters"))
			ok = parse_uint(val, 1, 100000, &u),
			o->iters = (unsigned)u;
		else if (IS("-w", "--warmup"))
			ok = parse_uint(val, 0, 100000, &u),
			o->warmup = (unsigned)u;
		else if (IS("--axes", "--axes"))
			ok = parse_axes(val, o->want, o->want_group);
		else if (IS("--format", "--format"))
			ok = !strcmp(val, "json") || !strcmp(val, "text"),
			o->json = !strcmp(val, "json");
		else if (IS("--map", "--map"))
			ok = *val != '\0', o->map_path = val;
		else if (IS("--site", "--site"))
			ok = *val != '\0', site = val;
		else if (IS("--nvlink-gbps", "--nvlink-gbps"))
			ok = parse_real(val, 0.001, 1e6, &nvlink);
		else if (IS("--nic-gbps", "--nic-gbps"))
			ok = parse_real(val, 0.001, 1e6, &nic);
		else if (IS("--spine-gbps", "--spine-gbps"))
			ok = parse_real(val, 0.001, 1e6, &spine);
		else if (IS("--slow-fraction", "--slow-fraction"))
			ok = parse_real(val, 0, 1, &o->nominal.slow_fraction);
		else
			ok = parse_real(val, 0.1, 86400, &o->timeout_s);
#undef IS
		if (!ok)
			return bad(msg, cap, name, "bad value", val);
	}
	if (site && apply_site(site, &o->nominal, msg, cap))
		return NCK_EXIT_USAGE;
	if (nvlink > 0)
		o->nominal.gbps[RMN_LINK_NVLINK] = nvlink;
	if (nic > 0)
		o->nominal.gbps[RMN_LINK_LEAF] = o->nominal.gbps[RMN_LINK_SPINE] =
			nic;
	if (spine > 0)
		o->nominal.gbps[RMN_LINK_SPINE] = spine;
	if (o->minbytes > o->maxbytes)
		return bad(msg, cap, NULL, "--minbytes is above --maxbytes",
			   NULL);
	return 0;
}

size_t nck_sizes(const nck_opts *o, uint64_t *sizes, size_t cap)
{
	size_t n = 0;
	uint64_t s = o->minbytes;
	while (n + 1 < cap && s < o->maxbytes) {
		sizes[n++] = s;
		if (s > o->maxbytes / o->factor)
			break;
		s *= o->factor;
	}
	sizes[n++] = o->maxbytes;
	return n;
}

void nck_fmt_bytes(uint64_t b, char *out, size_t cap)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB" };
	int u = 0;
	while (u < 3 && b >= 1024 && b % 1024 == 0) {
		b /= 1024;
		u++;
	}
	snprintf(out, cap, "%llu %s", (unsigned long long)b, unit[u]);
}
