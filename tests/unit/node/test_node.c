/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_node.c - node hardware over fixtures written by tests/gen/gen_hwloc.py.
 * Every expectation below comes from the machine descriptions in that
 * generator (and, for the DGX H100, from NVIDIA's published bus ids and
 * GPU-NIC pairing), not from this code's output.
 */
#include "node/node_int.h"
#include "test.h"

#include <stdlib.h>
#include <unistd.h>

/* The pci plugin of Debian's hwloc (libpciaccess) leaks ~1 KiB per live
 * scan from a dlclose'd module; only the live-load case meets it. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:hwloc_topology_load\n";
}
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "fast_unwind_on_malloc=0";
}

static char dir[64];
static rm_error E;

static char *fx(const char *name)
{
	static char path[192];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static rm_node_hw *load(const char *name, const rm_site *site)
{
	rm_node_hw *hw = NULL;
	memset(&E, 0, sizeof(E));
	if (rm_node_load(fx(name), site, &hw, &E) != RM_OK) {
		printf("  load %s: %s\n", name, E.msg);
		return NULL;
	}
	return hw;
}

/* Test fn on the fixture `name` (no site), which must load; freed after. */
static void on(const char *name, void (*fn)(rm_node_hw *hw))
{
	rm_node_hw *hw = load(name, NULL);
	CHECK(hw != NULL);
	if (hw)
		fn(hw);
	rm_node_free(hw);
}

#define RUN_ON(name, fn) RUN_CALL("node", #fn, on(name, fn))

/* Local rank r of n gets the CPU list `want`. */
static void check_rank_cpus(const rm_node_hw *hw, uint32_t r, uint32_t n,
			    const char *want)
{
	char *c = NULL;
	CHECK_INT(rm_node_rank_cpus(hw, r, n, &c, &E), RM_OK);
	CHECK_STR(c, want);
	free(c);
}

static const char *env_get(const rm_env *e, const char *k)
{
	for (size_t i = 0; i < e->n; i++)
		if (!strcmp(e->key[i], k))
			return e->val[i];
	return NULL;
}

/* "mlx5_2:1,mlx5_2:2" for GPU g. */
static const char *gpu_nics(const rm_node_hw *hw, size_t g)
{
	static char out[256];
	rm_gpu_info gi;
	out[0] = '\0';
	if (!rm_node_gpu(hw, g, &gi))
		return "(no such gpu)";
	for (size_t j = 0; j < gi.nnic; j++) {
		rm_nic_info ni;
		rm_node_nic(hw, gi.nic[j], &ni);
		size_t l = strlen(out);
		snprintf(out + l, sizeof(out) - l, "%s%s:%u", j ? "," : "", ni.name, ni.port);
	}
	return out;
}

static const char *busid(const rm_node_hw *hw, size_t g)
{
	rm_gpu_info gi;
	return rm_node_gpu(hw, g, &gi) ? gi.busid : "(none)";
}

static bool nic_named(const rm_node_hw *hw, const char *name, unsigned port,
		      rm_nic_info *out)
{
	for (size_t i = 0; i < rm_node_nic_count(hw); i++)
		if (rm_node_nic(hw, i, out) && !strcmp(out->name, name) &&
		    out->port == port)
			return true;
	return false;
}

static const char *hca(const rm_node_hw *hw, const rm_site *site)
{
	static char out[1024];
	rm_env e;
	CHECK_INT(rm_node_nccl_env(hw, site, &e, &E), RM_OK);
	const char *v = env_get(&e, "NCCL_IB_HCA");
	snprintf(out, sizeof(out), "%s", v ? v : "(unset)");
	rm_env_clear(&e);
	return out;
}

static void dgx_h100(rm_node_hw *hw)
{
	static const char *bus[] = { "0000:1b:00.0", "0000:43:00.0", "0000:52:00.0",
				     "0000:61:00.0", "0000:9d:00.0", "0000:c3:00.0",
				     "0000:d1:00.0", "0000:df:00.0" };
	static const char *nic[] = { "mlx5_0:1", "mlx5_3:1", "mlx5_4:1", "mlx5_5:1",
				     "mlx5_6:1", "mlx5_9:1", "mlx5_10:1", "mlx5_11:1" };
	CHECK_INT(rm_node_gpu_count(hw), 8);
	CHECK_INT(rm_node_nvswitch_count(hw), 4);
	for (size_t g = 0; g < 8; g++) {
		rm_gpu_info gi;
		CHECK(rm_node_gpu(hw, g, &gi));
		CHECK_STR(gi.busid, bus[g]);
		CHECK_STR(gpu_nics(hw, g), nic[g]);
		CHECK_INT(gi.dist, RM_DIST_PXB);
		CHECK_INT(gi.numa, g < 4 ? 0 : 1);
		CHECK_STR(gi.cpus, g < 4 ? "0-55,112-167" : "56-111,168-223");
	}
	rm_gpu_info gi;
	CHECK(!rm_node_gpu(hw, 8, &gi));
	CHECK_STR(hca(hw, NULL),
		  "=mlx5_0:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_9:1,mlx5_10:1,mlx5_11:1");
	/* Storage NICs are up but sit on host bridges of their own. */
	const char *storage[] = { "mlx5_1", "mlx5_2", "mlx5_7", "mlx5_8" };
	for (size_t i = 0; i < 4; i++) {
		rm_nic_info ni;
		CHECK(nic_named(hw, storage[i], 1, &ni));
		CHECK(!ni.compute);
		CHECK_INT(ni.state, 4);
		CHECK_INT(ni.dist, RM_DIST_NODE);
		CHECK_HAS(ni.why_not, "PHB");
	}
	rm_env e;
	CHECK_INT(rm_node_nccl_env(hw, NULL, &e, &E), RM_OK);
	CHECK_STR(env_get(&e, "CUDA_DEVICE_ORDER"), "PCI_BUS_ID");
	CHECK(env_get(&e, "NCCL_CROSS_NIC") == NULL);
	rm_env_clear(&e);
	CHECK(!rm_node_numa_fallback(hw));
}

/* 56 cores per socket, four GPUs per socket: 14 cores each, with their
 * hyperthread siblings (PU n+112). */
static void dgx_rank_cpus(rm_node_hw *hw)
{
	rm_env e;
	CHECK_INT(rm_node_rank_env(hw, 0, 8, &e, &E), RM_OK);
	CHECK_STR(env_get(&e, "RANKMAP_GPU"), "0");
	CHECK_STR(env_get(&e, "RANKMAP_GPU_BUSID"), "0000:1b:00.0");
	CHECK_STR(env_get(&e, "RANKMAP_NIC"), "mlx5_0:1");
	CHECK_STR(env_get(&e, "RANKMAP_CPUS"), "0-13,112-125");
	CHECK_STR(env_get(&e, "RANKMAP_NUMA"), "0");
	CHECK(env_get(&e, "CUDA_VISIBLE_DEVICES") == NULL);
	rm_env_clear(&e);
	CHECK_INT(rm_node_rank_env(hw, 7, 8, &e, &E), RM_OK);
	CHECK_STR(env_get(&e, "RANKMAP_CPUS"), "98-111,210-223");
	CHECK_STR(env_get(&e, "RANKMAP_NIC"), "mlx5_11:1");
	rm_env_clear(&e);
	/* Two ranks, both on socket 0: half a socket each. */
	check_rank_cpus(hw, 0, 2, "0-27,112-139");
	check_rank_cpus(hw, 1, 2, "28-55,140-167");
	/* Five ranks: rank 4 alone on socket 1 gets all of it. */
	check_rank_cpus(hw, 4, 5, "56-111,168-223");
}

/* A job allowed cores 0-27 only: every GPU's set is cut to what the job
 * may use, socket-1 GPUs get the job's own cores, and eight ranks share
 * those 28 cores (3 or 4 each, floor(28 * j / 8) onwards). */
static void cgroup_cpus(rm_node_hw *hw)
{
	rm_gpu_info gi;
	CHECK(rm_node_gpu(hw, 0, &gi));
	CHECK_STR(gi.cpus, "0-27,112-139");
	CHECK(rm_node_gpu(hw, 7, &gi));
	CHECK_STR(gi.cpus, "0-27,112-139");
	CHECK_STR(gpu_nics(hw, 7), "mlx5_11:1");
	check_rank_cpus(hw, 0, 8, "0-2,112-114");
	check_rank_cpus(hw, 7, 8, "24-27,136-139");
}

static void too_many_ranks(rm_node_hw *hw)
{
	rm_env e;
	CHECK_INT(rm_node_rank_env(hw, 0, 9, &e, &E), RM_EINPUT);
	CHECK_HAS(E.msg, "9 local ranks");
	CHECK_HAS(E.msg, "8 GPUs");
	CHECK_INT(e.n, 0);
	CHECK_INT(rm_node_rank_env(hw, 3, 3, &e, &E), RM_EINPUT);
	CHECK_HAS(E.msg, "out of range");
	CHECK_INT(rm_node_rank_env(hw, 0, 0, &e, &E), RM_EINPUT);
	char *out = NULL;
	CHECK_INT(rm_node_format(hw, NULL, RM_FMT_ENV, 9, &out, NULL, &E), RM_EINPUT);
	CHECK(out == NULL);
}

static void p5en_two_per_gpu(rm_node_hw *hw)
{
	/* Per switch: EFA at base+2..5, GPUs at base+6/7 (bases 20,40,a0,c0). */
	static const char *bus[] = { "0000:26:00.0", "0000:27:00.0", "0000:46:00.0",
				     "0000:47:00.0", "0000:a6:00.0", "0000:a7:00.0",
				     "0000:c6:00.0", "0000:c7:00.0" };
	static const char *nic[] = {
		"rdmap34s0:1,rdmap35s0:1", "rdmap36s0:1,rdmap37s0:1",
		"rdmap66s0:1,rdmap67s0:1", "rdmap68s0:1,rdmap69s0:1",
		"rdmap162s0:1,rdmap163s0:1", "rdmap164s0:1,rdmap165s0:1",
		"rdmap194s0:1,rdmap195s0:1", "rdmap196s0:1,rdmap197s0:1" };
	CHECK_INT(rm_node_gpu_count(hw), 8);
	for (size_t g = 0; g < 8; g++) {
		CHECK_STR(busid(hw, g), bus[g]);
		CHECK_STR(gpu_nics(hw, g), nic[g]);
	}
	CHECK_STR(hca(hw, NULL),
		  "=rdmap34s0:1,rdmap35s0:1,rdmap36s0:1,rdmap37s0:1,"
		  "rdmap66s0:1,rdmap67s0:1,rdmap68s0:1,rdmap69s0:1,"
		  "rdmap162s0:1,rdmap163s0:1,rdmap164s0:1,rdmap165s0:1,"
		  "rdmap194s0:1,rdmap195s0:1,rdmap196s0:1,rdmap197s0:1");
	/* ENA Ethernet NICs carry no RDMA device and are not listed. */
	CHECK_INT(rm_node_nic_count(hw), 16);
}

static void half_nic_shared(rm_node_hw *hw)
{
	static const char *nic[] = { "mlx5_0:1", "mlx5_0:1", "mlx5_1:1", "mlx5_1:1",
				     "mlx5_2:1", "mlx5_2:1", "mlx5_3:1", "mlx5_3:1" };
	CHECK_INT(rm_node_gpu_count(hw), 8);
	for (size_t g = 0; g < 8; g++) {
		rm_gpu_info gi;
		CHECK(rm_node_gpu(hw, g, &gi));
		CHECK_STR(gpu_nics(hw, g), nic[g]);
		CHECK_INT(gi.dist, RM_DIST_PIX);
	}
	CHECK_STR(busid(hw, 0), "0000:11:00.0");
	CHECK_STR(busid(hw, 7), "0000:b2:00.0");
	CHECK_STR(hca(hw, NULL), "=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1");
}

static void mixed_exclusions(rm_node_hw *hw)
{
	CHECK_INT(rm_node_gpu_count(hw), 4);
	CHECK_STR(busid(hw, 0), "0000:10:00.0");
	CHECK_STR(busid(hw, 3), "0000:a0:00.0");
	/* GPU1's own NIC (mlx5_0) is down: the other socket-0 NIC serves it. */
	CHECK_STR(gpu_nics(hw, 0), "mlx5_1:1");
	CHECK_STR(gpu_nics(hw, 1), "mlx5_1:1");
	rm_gpu_info gi;
	CHECK(rm_node_gpu(hw, 1, &gi));
	CHECK_INT(gi.dist, RM_DIST_NODE);
	CHECK_STR(gpu_nics(hw, 2), "mlx5_2:1,mlx5_2:2");
	CHECK_STR(gpu_nics(hw, 3), "mlx5_3:1");
	CHECK_STR(hca(hw, NULL), "=mlx5_1:1,mlx5_2:1,mlx5_2:2,mlx5_3:1");
	rm_nic_info ni;
	CHECK(nic_named(hw, "mlx5_0", 1, &ni));
	CHECK(!ni.compute);
	CHECK_INT(ni.state, 1);
	CHECK_HAS(ni.why_not, "DOWN");
	CHECK(nic_named(hw, "mlx5_4", 1, &ni));
	CHECK(!ni.compute);
	CHECK_HAS(ni.why_not, "virtual function");
	CHECK(nic_named(hw, "mlx5_5", 1, &ni));
	CHECK(!ni.compute);
	CHECK(nic_named(hw, "mlx5_6", 1, &ni));
	CHECK(!ni.compute);
	CHECK(nic_named(hw, "irdma0", 1, &ni));
	CHECK(!ni.compute);
	CHECK_INT(ni.state, -1);
	CHECK(nic_named(hw, "eno1", 1, &ni));
	CHECK(!ni.compute);
	CHECK_HAS(ni.why_not, "RDMA");
}

static void site_rules(void)
{
	rm_site site;
	memset(&site, 0, sizeof(site));
	char *pats[] = { "mlx5_3", "irdma*" };
	char *keys[] = { "NCCL_IB_GID_INDEX", "NCCL_DEBUG" };
	char *vals[] = { "3", "WARN" };
	site.nic_exclude = pats;
	site.n_nic_exclude = 2;
	site.nccl_key = keys;
	site.nccl_val = vals;
	site.n_nccl = 2;
	site.rails = 4;
	rm_node_hw *hw = load("mixed.xml", &site);
	if (!hw)
		return;
	CHECK_STR(gpu_nics(hw, 3), "mlx5_2:1,mlx5_2:2");
	CHECK_STR(gpu_nics(hw, 2), "mlx5_2:1,mlx5_2:2");
	rm_nic_info ni;
	CHECK(nic_named(hw, "mlx5_3", 1, &ni));
	CHECK(!ni.compute);
	CHECK_HAS(ni.why_not, "excluded by the site");
	CHECK_HAS(ni.why_not, "mlx5_3");
	rm_env e;
	CHECK_INT(rm_node_nccl_env(hw, &site, &e, &E), RM_OK);
	CHECK_STR(env_get(&e, "NCCL_IB_HCA"), "=mlx5_1:1,mlx5_2:1,mlx5_2:2");
	CHECK_STR(env_get(&e, "NCCL_CROSS_NIC"), "0");
	CHECK_STR(env_get(&e, "NCCL_IB_GID_INDEX"), "3");
	CHECK_STR(env_get(&e, "NCCL_DEBUG"), "WARN");
	rm_env_clear(&e);
	rm_node_free(hw);
	/* A name:port pattern drops one port of a dual-port NIC. */
	char *pp[] = { "mlx5_2:2" };
	site.nic_exclude = pp;
	site.n_nic_exclude = 1;
	site.rails = 0;
	hw = load("mixed.xml", &site);
	if (!hw)
		return;
	CHECK_STR(gpu_nics(hw, 2), "mlx5_2:1");
	CHECK_STR(hca(hw, &site), "=mlx5_1:1,mlx5_2:1,mlx5_3:1");
	CHECK_INT(rm_node_nccl_env(hw, &site, &e, &E), RM_OK);
	CHECK(env_get(&e, "NCCL_CROSS_NIC") == NULL);
	rm_env_clear(&e);
	rm_node_free(hw);
}

static void cpu_only(rm_node_hw *hw)
{
	CHECK_INT(rm_node_gpu_count(hw), 0);
	CHECK_INT(rm_node_nic_count(hw), 1);
	rm_nic_info ni;
	CHECK(rm_node_nic(hw, 0, &ni));
	CHECK(!ni.compute);
	CHECK_HAS(ni.why_not, "no GPU");
	rm_env e;
	CHECK_INT(rm_node_nccl_env(hw, NULL, &e, &E), RM_OK);
	CHECK(env_get(&e, "NCCL_IB_HCA") == NULL);
	rm_env_clear(&e);
	/* A CPU-only job asks for its rank environment and must not fail. */
	CHECK_INT(rm_node_rank_env(hw, 0, 4, &e, &E), RM_OK);
	CHECK_INT(e.n, 0);
	char *out = NULL;
	CHECK_INT(rm_node_format(hw, NULL, RM_FMT_TEXT, 0, &out, NULL, &E), RM_OK);
	CHECK_HAS(out, "no GPUs");
	free(out);
}

static void bad_input(void)
{
	rm_node_hw *hw = NULL;
	CHECK_INT(rm_node_load(fx("missing.xml"), NULL, &hw, &E), RM_EIO);
	CHECK_HAS(E.msg, "missing.xml");
	CHECK(hw == NULL);
	CHECK_INT(rm_node_load(fx("dgx-h100-v3.xml"), NULL, &hw, &E), RM_EUNSUPPORTED);
	CHECK_HAS(E.msg, "dgx-h100-v3.xml");
	CHECK_HAS(E.msg, "3.0");
	CHECK_INT(rm_node_load(fx("truncated.xml"), NULL, &hw, &E), RM_EINPUT);
	CHECK_HAS(E.msg, "truncated.xml");
	CHECK_INT(rm_node_load(fx("garbage.xml"), NULL, &hw, &E), RM_EINPUT);
	CHECK_HAS(E.msg, "garbage.xml");
	CHECK(hw == NULL);
	CHECK_INT(rm_node_load(dir, NULL, &hw, &E), RM_EIO);
}

static void topo_xml(void)
{
	rm_node_hw *hw = load("half-nic.xml", NULL);
	if (!hw)
		return;
	char *x = NULL;
	size_t len = 0;
	CHECK_INT(rm_node_nccl_topo_xml(hw, &x, &len, &E), RM_OK);
	CHECK(x && strlen(x) == len);
	CHECK_HAS(x, "<system version=\"1\">");
	/* Socket 0 is PUs 0-31 and 64-95: words 0 and 2 full. */
	CHECK_HAS(x, "<cpu numaid=\"0\" affinity=\"ffffffff,00000000,ffffffff\" arch=\"x86_64\" vendor=\"GenuineIntel\"");
	CHECK_HAS(x, "<cpu numaid=\"1\" affinity=\"ffffffff,00000000,ffffffff,00000000\"");
	CHECK_HAS(x, "<pci busid=\"0000:11:00.0\" class=\"0x030200\" vendor=\"0x10de\" device=\"0x20b2\"");
	/* 63.015385 GB/s is PCIe gen5 x16. */
	CHECK_HAS(x, "link_speed=\"32.0 GT/s PCIe\" link_width=\"16\"");
	CHECK_HAS(x, "<net name=\"mlx5_0\" dev=\"0\" port=\"1\"/>");
	CHECK_HAS(x, "<net name=\"mlx5_3\" dev=\"3\" port=\"1\"/>");
	free(x);
	rm_node_free(hw);
	hw = load("dgx-h100.xml", NULL);
	if (!hw)
		return;
	CHECK_INT(rm_node_nccl_topo_xml(hw, &x, &len, &E), RM_OK);
	CHECK(strstr(x, "\"mlx5_1\"") == NULL); /* storage stays out */
	CHECK_HAS(x, "<net name=\"mlx5_11\"");
	free(x);
	rm_node_free(hw);
}

static void xml_path(void)
{
	rm_site site;
	memset(&site, 0, sizeof(site));
	char *out = NULL;
	CHECK_INT(rm_node_xml_path(&site, "gpu01", &out, &E), RM_OK);
	CHECK(out == NULL);
	site.hwloc_xml = "/var/cache/hwloc/%n-100%%.xml";
	CHECK_INT(rm_node_xml_path(&site, "gpu01.cluster.example", &out, &E), RM_OK);
	CHECK_STR(out, "/var/cache/hwloc/gpu01-100%.xml");
	free(out);
	/* The site's cached XML is what rm_node_load(NULL, ...) reads. */
	site.hwloc_xml = fx("half-nic.xml");
	rm_node_hw *hw = NULL;
	CHECK_INT(rm_node_load(NULL, &site, &hw, &E), RM_OK);
	if (hw) {
		CHECK_STR(rm_node_source(hw), fx("half-nic.xml"));
		CHECK_INT(rm_node_gpu_count(hw), 8);
		rm_node_free(hw);
	}
	/* Not exported yet: scan the live machine instead of failing. */
	site.hwloc_xml = fx("not-exported-%n.xml");
	CHECK_INT(rm_node_load(NULL, &site, &hw, &E), RM_OK);
	if (hw) {
		CHECK_STR(rm_node_source(hw), "live");
		rm_node_free(hw);
	}
}

static void formats(rm_node_hw *hw)
{
	char *out = NULL;
	CHECK_INT(rm_node_format(hw, NULL, RM_FMT_ENV, 0, &out, NULL, &E), RM_OK);
	CHECK_HAS(out, "NCCL_IB_HCA==mlx5_0:1,mlx5_3:1,");
	CHECK_HAS(out, "# local rank 7\nRANKMAP_GPU=7\n");
	free(out);
	CHECK_INT(rm_node_format(hw, NULL, RM_FMT_JSON, 2, &out, NULL, &E), RM_OK);
	CHECK_HAS(out, "\"busid\":\"0000:1b:00.0\"");
	CHECK_HAS(out, "\"nics\":[\"mlx5_0:1\"]");
	CHECK_HAS(out, "\"local_rank\":1");
	CHECK(strstr(out, "\"local_rank\":2") == NULL);
	free(out);
	CHECK_INT(rm_node_format(hw, NULL, RM_FMT_CSV, 0, &out, NULL, &E), RM_EINPUT);
}

int main(void)
{
	const char *root = getenv("RM_ROOT");
	if (!t_tmpdir(dir, sizeof(dir), "/tmp/rm-node-test.")) {
		printf("FAIL: node/setup: mkdtemp\n");
		return 1;
	}
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "python3 '%s/tests/gen/gen_hwloc.py' '%s'",
		 root ? root : ".", dir);
	if (system(cmd) != 0) {
		printf("SKIP: node/all: cannot run the fixture generator (python3)\n");
		return 0;
	}
	RUN_ON("dgx-h100.xml", dgx_h100);
	RUN_ON("dgx-h100.xml", dgx_rank_cpus);
	RUN_ON("dgx-h100-cgroup.xml", cgroup_cpus);
	RUN_ON("dgx-h100.xml", too_many_ranks);
	RUN_ON("p5en.xml", p5en_two_per_gpu);
	RUN_ON("half-nic.xml", half_nic_shared);
	RUN_ON("mixed.xml", mixed_exclusions);
	RUN("node", site_rules);
	RUN_ON("cpu-only.xml", cpu_only);
	RUN("node", bad_input);
	RUN("node", topo_xml);
	RUN("node", xml_path);
	RUN_ON("dgx-h100.xml", formats);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		printf("  could not remove %s\n", dir);
	TEST_EXIT();
}
