/* SPDX-License-Identifier: Apache-2.0 */
/*
 * node_topo.c - an NCCL topology file (NCCL_TOPO_FILE) from the hwloc data,
 * for virtual machines whose PCI tree NCCL cannot see.
 *
 * Only what hwloc knows is written. NCCL keeps attributes found in the file
 * and fills missing ones at init (GPU sm/rank/gdr from CUDA and NVML, NIC
 * speed/guid/gdr from the network plugin; it also renumbers net "dev"), so a
 * guessed GPU attribute would override the truth: GPUs are bare <pci>
 * elements, as in AWS's published p4d/p5 topology files.
 */
#include "node/node_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct topo_ctx {
	const rm_node_hw *hw;
	rm_buf *b;
} topo_ctx;

/* An attribute value from the hwloc data, which may come from a hostile
 * file: XML-escaped, control characters dropped. */
static void xml_attr(rm_buf *b, const char *key, const char *val)
{
	rm_buf_printf(b, " %s=\"", key);
	for (const unsigned char *p = (const unsigned char *)val; *p; p++) {
		switch (*p) {
		case '"': rm_buf_puts(b, "&quot;"); break;
		case '&': rm_buf_puts(b, "&amp;"); break;
		case '<': rm_buf_puts(b, "&lt;"); break;
		case '>': rm_buf_puts(b, "&gt;"); break;
		default:
			if (*p >= 0x20 && *p != 0x7f)
				rm_buf_add(b, (const char *)p, 1);
		}
	}
	rm_buf_add(b, "\"", 1);
}

static void indent(rm_buf *b, unsigned depth)
{
	for (unsigned i = 0; i < depth; i++)
		rm_buf_add(b, "  ", 2);
}

static int gpu_index(const rm_node_hw *hw, hwloc_obj_t o)
{
	for (size_t i = 0; i < hw->ngpu; i++)
		if (hw->gpu[i].pci == o)
			return (int)i;
	return -1;
}

static bool has_compute_port(const rm_node_hw *hw, hwloc_obj_t o)
{
	for (size_t i = 0; i < hw->nport; i++)
		if (hw->port[i].pci == o && hw->port[i].compute)
			return true;
	return false;
}

static bool wanted(const rm_node_hw *hw, hwloc_obj_t o)
{
	if (o->type == HWLOC_OBJ_PCI_DEVICE &&
	    (gpu_index(hw, o) >= 0 || has_compute_port(hw, o)))
		return true;
	for (hwloc_obj_t c = o->io_first_child; c; c = c->next_sibling)
		if (wanted(hw, c))
			return true;
	return false;
}

/* hwloc keeps the link as GB/s; NCCL wants generation and width. Pick the
 * pair whose product matches, preferring the widest link (NCCL multiplies
 * them back, so only the product matters). */
static void link_attrs(rm_buf *b, float gbps)
{
	static const struct { const char *name; double lane; } gen[] = {
		{ "2.5 GT/s PCIe", 0.25 }, { "5.0 GT/s PCIe", 0.5 },
		{ "8.0 GT/s PCIe", 0.984615 }, { "16.0 GT/s PCIe", 1.969231 },
		{ "32.0 GT/s PCIe", 3.938462 }, { "64.0 GT/s PCIe", 7.876923 },
	};
	static const unsigned width[] = { 16, 8, 4, 2, 1 };
	if (!(gbps > 0.01f))
		return;
	double best = 1e30;
	size_t bg = 0, bw = 0;
	for (size_t w = 0; w < sizeof(width) / sizeof(width[0]); w++)
		for (size_t g = 0; g < sizeof(gen) / sizeof(gen[0]); g++) {
			double d = gen[g].lane * width[w] - gbps;
			d = d < 0 ? -d : d;
			if (d < best - 1e-3) {
				best = d;
				bg = g;
				bw = w;
			}
		}
	rm_buf_printf(b, " link_speed=\"%s\" link_width=\"%u\"", gen[bg].name,
		       width[bw]);
}

static void pci_open(rm_buf *b, const struct hwloc_pcidev_attr_s *a,
		     unsigned cls)
{
	rm_buf_printf(b,
		       "<pci busid=\"%04x:%02x:%02x.%x\" class=\"0x%06x\" vendor=\"0x%04x\""
		       " device=\"0x%04x\" subsystem_vendor=\"0x%04x\" subsystem_device=\"0x%04x\"",
		       (unsigned)a->domain & 0xffffu, (unsigned)a->bus,
		       (unsigned)a->dev, (unsigned)a->func & 0xfu, cls,
		       (unsigned)a->vendor_id, (unsigned)a->device_id,
		       (unsigned)a->subvendor_id, (unsigned)a->subdevice_id);
	link_attrs(b, a->linkspeed);
}

static void emit(topo_ctx *c, hwloc_obj_t o, unsigned depth);

static void emit_children(topo_ctx *c, hwloc_obj_t o, unsigned depth)
{
	for (hwloc_obj_t k = o->io_first_child; k; k = k->next_sibling)
		emit(c, k, depth);
}

static void emit_nic(topo_ctx *c, hwloc_obj_t o, unsigned depth)
{
	rm_buf *b = c->b;
	indent(b, depth);
	rm_buf_puts(b, "<nic>\n");
	unsigned dev = 0;
	for (size_t i = 0; i < c->hw->nport; i++) {
		const rmi_port *p = &c->hw->port[i];
		if (!p->compute)
			continue;
		if (p->pci == o) {
			indent(b, depth + 1);
			rm_buf_puts(b, "<net");
			xml_attr(b, "name", p->name);
			rm_buf_printf(b, " dev=\"%u\" port=\"%u\"/>\n", dev, p->port);
		}
		dev++;
	}
	indent(b, depth);
	rm_buf_puts(b, "</nic>\n");
}

static void emit(topo_ctx *c, hwloc_obj_t o, unsigned depth)
{
	rm_buf *b = c->b;
	if (!wanted(c->hw, o))
		return;
	if (o->type == HWLOC_OBJ_BRIDGE) {
		if (o->attr->bridge.upstream_type != HWLOC_OBJ_BRIDGE_PCI) {
			emit_children(c, o, depth); /* host bridge: NCCL's CPU */
			return;
		}
		indent(b, depth);
		pci_open(b, &o->attr->bridge.upstream.pci, 0x060400);
		rm_buf_puts(b, ">\n");
		emit_children(c, o, depth + 1);
		indent(b, depth);
		rm_buf_puts(b, "</pci>\n");
		return;
	}
	if (o->type != HWLOC_OBJ_PCI_DEVICE)
		return;
	unsigned cls = (unsigned)o->attr->pcidev.class_id << 8;
	indent(b, depth);
	pci_open(b, &o->attr->pcidev, cls);
	if (gpu_index(c->hw, o) >= 0) {
		rm_buf_puts(b, "/>\n");
		return;
	}
	rm_buf_puts(b, ">\n");
	emit_nic(c, o, depth + 1);
	indent(b, depth);
	rm_buf_puts(b, "</pci>\n");
}

/* Linux cpumap style, as NCCL reads it: 32-bit hex words, high first. */
static void affinity(rm_buf *b, hwloc_const_bitmap_t set)
{
	int last = hwloc_bitmap_last(set);
	if (last < 0) {
		rm_buf_puts(b, "00000000");
		return;
	}
	unsigned words = (unsigned)last / 32 + 1;
	for (unsigned w = words; w-- > 0;) {
		unsigned long v = hwloc_bitmap_to_ith_ulong(set, w / (sizeof(unsigned long) * 8 / 32));
		if (sizeof(unsigned long) == 8)
			v = (w & 1) ? (v >> 32) : (v & 0xffffffffUL);
		rm_buf_printf(b, "%08lx%s", v & 0xffffffffUL, w ? "," : "");
	}
}

static const char *nccl_arch(const char *a)
{
	if (!a)
		return NULL;
	if (!strcmp(a, "x86_64") || !strcmp(a, "i686"))
		return "x86_64";
	if (!strcmp(a, "aarch64") || !strcmp(a, "arm64"))
		return "arm64";
	if (!strncmp(a, "ppc64", 5))
		return "ppc64";
	return NULL;
}

static void attr_if(rm_buf *b, const char *key, const char *val)
{
	if (val && *val)
		xml_attr(b, key, val);
}

static hwloc_obj_t package_of(hwloc_topology_t t, hwloc_obj_t local)
{
	if (local->type == HWLOC_OBJ_PACKAGE)
		return local;
	hwloc_obj_t p = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_PACKAGE, local);
	if (p)
		return p;
	return hwloc_get_next_obj_inside_cpuset_by_type(t, local->cpuset,
							HWLOC_OBJ_PACKAGE, NULL);
}

static int numa_id(hwloc_obj_t local)
{
	int n = local->nodeset ? hwloc_bitmap_first(local->nodeset) : -1;
	return n < 0 ? 0 : n;
}

rm_status rm_node_nccl_topo_xml(const rm_node_hw *hw, char **xml, size_t *len,
				rm_error *err)
{
	*xml = NULL;
	if (len)
		*len = 0;
	size_t nl = 0, cap = hw->ngpu + hw->nport + 1;
	hwloc_obj_t *local = calloc(cap, sizeof(*local));
	if (!local)
		return rmi_err(err, RM_ENOMEM, "out of memory");
	for (size_t i = 0; i < hw->ngpu + hw->nport; i++) {
		hwloc_obj_t l = i < hw->ngpu ? hw->gpu[i].local : hw->port[i - hw->ngpu].local;
		if (i >= hw->ngpu && !hw->port[i - hw->ngpu].compute)
			continue;
		bool dup = !l;
		for (size_t j = 0; j < nl && !dup; j++)
			dup = local[j] == l;
		if (!dup)
			local[nl++] = l;
	}
	hwloc_obj_t root = hwloc_get_root_obj(hw->topo);
	const char *arch = nccl_arch(hwloc_obj_get_info_by_name(root, "Architecture"));
	rm_buf b;
	rm_buf_init(&b);
	rm_buf_puts(&b, "<system version=\"1\">\n");
	/* One <cpu> per NUMA node in ascending order; NCCL keys CPUs by
	 * numaid, so localities on the same node share one element. */
	bool *done = calloc(nl ? nl : 1, sizeof(*done));
	hwloc_bitmap_t aff = hwloc_bitmap_alloc();
	topo_ctx c = { hw, &b };
	while (done && aff) {
		int best = -1;
		for (size_t j = 0; j < nl; j++)
			if (!done[j] && (best < 0 || numa_id(local[j]) < numa_id(local[best])))
				best = (int)j;
		if (best < 0)
			break;
		int id = numa_id(local[best]);
		hwloc_bitmap_zero(aff);
		for (size_t j = 0; j < nl; j++)
			if (!done[j] && numa_id(local[j]) == id && local[j]->cpuset)
				hwloc_bitmap_or(aff, aff, local[j]->cpuset);
		hwloc_obj_t pkg = package_of(hw->topo, local[best]);
		rm_buf_printf(&b, "  <cpu numaid=\"%d\" affinity=\"", id);
		affinity(&b, aff);
		rm_buf_puts(&b, "\"");
		attr_if(&b, "arch", arch);
		if (pkg && arch && !strcmp(arch, "x86_64")) {
			attr_if(&b, "vendor", hwloc_obj_get_info_by_name(pkg, "CPUVendor"));
			attr_if(&b, "familyid", hwloc_obj_get_info_by_name(pkg, "CPUFamilyNumber"));
			attr_if(&b, "modelid", hwloc_obj_get_info_by_name(pkg, "CPUModelNumber"));
		}
		rm_buf_puts(&b, ">\n");
		for (size_t j = 0; j < nl; j++)
			if (!done[j] && numa_id(local[j]) == id) {
				done[j] = true;
				emit_children(&c, local[j], 2);
			}
		rm_buf_puts(&b, "  </cpu>\n");
	}
	rm_buf_puts(&b, "</system>\n");
	bool ok = done && aff && !b.oom;
	free(done);
	free(local);
	hwloc_bitmap_free(aff);
	if (!ok) {
		rm_buf_clear(&b);
		return rmi_err(err, RM_ENOMEM, "out of memory");
	}
	*xml = rm_buf_take(&b, len);
	return RM_OK;
}
