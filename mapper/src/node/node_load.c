/* SPDX-License-Identifier: Apache-2.0 */
/*
 * node_load.c - read one node's hardware through hwloc (live or XML) and
 * collect its GPUs, NVSwitches and RDMA ports.
 *
 * Debian's hwloc 2.9 has no NVML/CUDA plugin, so GPUs are plain PCI
 * devices. I/O objects are dropped by default, also from XML, so the filters
 * must be set before the load; NVSwitches only survive when every PCI device
 * is kept.
 */
#include "node/node_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PCI_VENDOR_NVIDIA 0x10de
#define PCI_VENDOR_MELLANOX 0x15b3

const char *rm_pci_dist_name(rm_pci_dist d)
{
	switch (d) {
	case RM_DIST_PIX: return "PIX";
	case RM_DIST_PXB: return "PXB";
	case RM_DIST_PHB: return "PHB";
	case RM_DIST_NODE: return "NODE";
	case RM_DIST_SYS: return "SYS";
	case RM_DIST_NONE: return "-";
	}
	return "?";
}

static void busid_of(hwloc_obj_t o, char out[16])
{
	snprintf(out, 16, "%04x:%02x:%02x.%01x",
		 (unsigned)o->attr->pcidev.domain & 0xffffu,
		 (unsigned)o->attr->pcidev.bus, (unsigned)o->attr->pcidev.dev,
		 (unsigned)o->attr->pcidev.func & 0xfu);
}

static int bus_cmp(hwloc_obj_t a, hwloc_obj_t b)
{
	const struct hwloc_pcidev_attr_s *x = &a->attr->pcidev, *y = &b->attr->pcidev;
	int c;
	if ((c = RMI_CMP(x->domain, y->domain)) ||
	    (c = RMI_CMP(x->bus, y->bus)) || (c = RMI_CMP(x->dev, y->dev)))
		return c;
	return RMI_CMP(x->func, y->func);
}

static int gpu_cmp(const void *a, const void *b)
{
	return bus_cmp(((const rmi_gpu *)a)->pci, ((const rmi_gpu *)b)->pci);
}

static int port_cmp(const void *a, const void *b)
{
	const rmi_port *x = a, *y = b;
	int c = bus_cmp(x->pci, y->pci);
	if (c || (c = strcmp(x->name, y->name)))
		return c;
	return RMI_CMP(x->port, y->port);
}

/* The NUMA node of an I/O object's locality, or -1 when it spans several
 * (I/O attached to the whole machine) or the file has none. NUMA nodes
 * without CPUs (GPU memory exposed as NUMA on POWER9) do not count. */
static int32_t numa_of(hwloc_topology_t t, hwloc_obj_t local)
{
	if (!local || !local->nodeset)
		return -1;
	int32_t found = -1;
	int n = 0;
	hwloc_obj_t nn = NULL;
	while ((nn = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, nn))) {
		if (!hwloc_bitmap_isset(local->nodeset, nn->os_index) ||
		    !nn->cpuset || hwloc_bitmap_iszero(nn->cpuset))
			continue;
		found = (int32_t)nn->os_index;
		n++;
	}
	return n == 1 ? found : -1;
}

/* *slot a new zeroed element of `size` bytes at the end of *arr (*n in
 * use, *cap allocated); more than max of them (`what`) is no real node. */
static rm_status append(const rm_node_hw *hw, void **arr, size_t *n,
			size_t *cap, size_t size, int max, const char *what,
			void **slot, rm_error *err)
{
	if (*n >= (size_t)max)
		return rmi_err(err, RM_EINPUT,
			       "%s: more than %d %s; not a real node",
			       hw->source, max, what);
	if (!rmi_grow(arr, cap, *n + 1, size))
		return rmi_err(err, RM_ENOMEM, "out of memory");
	*slot = memset((char *)*arr + *n * size, 0, size);
	(*n)++;
	return RM_OK;
}

static rm_status add_gpu(rm_node_hw *hw, hwloc_obj_t pci, size_t *cap,
			 rm_error *err)
{
	void *slot;
	rm_status st = append(hw, (void **)&hw->gpu, &hw->ngpu, cap,
			      sizeof(*hw->gpu), RMI_NODE_MAX_GPUS, "GPUs",
			      &slot, err);
	if (st)
		return st;
	rmi_gpu *g = slot;
	g->pci = pci;
	g->local = hwloc_get_non_io_ancestor_obj(hw->topo, pci);
	busid_of(pci, g->busid);
	g->vendor = pci->attr->pcidev.vendor_id;
	g->device = pci->attr->pcidev.device_id;
	g->numa = numa_of(hw->topo, g->local);
	g->dist = RM_DIST_NONE;
	g->cpuset = hwloc_bitmap_alloc();
	if (!g->cpuset)
		return rmi_err(err, RM_ENOMEM, "out of memory");
	/* Under a Slurm cgroup only the allowed PUs are usable; a job given
	 * none of a GPU's local cores gets all of its own instead. */
	hwloc_const_bitmap_t allowed = hwloc_topology_get_allowed_cpuset(hw->topo);
	if (g->local && g->local->cpuset)
		hwloc_bitmap_and(g->cpuset, g->local->cpuset, allowed);
	if (hwloc_bitmap_iszero(g->cpuset))
		hwloc_bitmap_copy(g->cpuset, allowed);
	g->cpus = rmi_cpuset_list(g->cpuset);
	if (!g->cpus)
		return rmi_err(err, RM_ENOMEM, "out of memory");
	return RM_OK;
}

/* Mellanox SR-IOV virtual functions have their own device ids (ConnectX-2
 * to the generic mlx5 VF); they would look like extra NICs otherwise. */
static bool is_vf(const rm_node_hw *hw, hwloc_obj_t pci, char busid[16])
{
	static const uint16_t mlx_vf[] = { 0x1002, 0x1004, 0x1012, 0x1014,
					   0x1016, 0x1018, 0x101a, 0x101c,
					   0x101e };
	if (pci->attr->pcidev.vendor_id == PCI_VENDOR_MELLANOX)
		for (size_t i = 0; i < sizeof(mlx_vf) / sizeof(mlx_vf[0]); i++)
			if (pci->attr->pcidev.device_id == mlx_vf[i])
				return true;
	const char *name = hwloc_obj_get_info_by_name(pci, "PCIDevice");
	if (name && strstr(name, "Virtual Function"))
		return true;
	if (hw->live) {
		char path[96];
		struct stat st;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/physfn",
			 busid);
		if (lstat(path, &st) == 0)
			return true;
	}
	return false;
}

static rm_status add_port(rm_node_hw *hw, size_t *cap, hwloc_obj_t pci,
			  const char *name, unsigned port, int32_t state,
			  const char *netdev, rm_error *err)
{
	void *slot;
	rm_status st = append(hw, (void **)&hw->port, &hw->nport, cap,
			      sizeof(*hw->port), RMI_NODE_MAX_PORTS,
			      "NIC ports", &slot, err);
	if (st)
		return st;
	rmi_port *p = slot;
	p->pci = pci;
	p->local = hwloc_get_non_io_ancestor_obj(hw->topo, pci);
	p->port = port;
	p->state = state;
	p->numa = numa_of(hw->topo, p->local);
	p->gpu = -1;
	p->dist = RM_DIST_NONE;
	busid_of(pci, p->busid);
	p->vf = is_vf(hw, pci, p->busid);
	p->name = strdup(name);
	p->netdev = strdup(netdev ? netdev : "");
	if (!p->name || !p->netdev)
		return rmi_err(err, RM_ENOMEM, "out of memory");
	return RM_OK;
}

/* The network interface of `port` on the same PCI function, if any. */
static const char *netdev_of(hwloc_obj_t pci, unsigned port)
{
	const char *first = NULL;
	for (hwloc_obj_t c = pci->io_first_child; c; c = c->next_sibling) {
		if (c->type != HWLOC_OBJ_OS_DEVICE ||
		    c->attr->osdev.type != HWLOC_OBJ_OSDEV_NETWORK || !c->name)
			continue;
		const char *p = hwloc_obj_get_info_by_name(c, "Port");
		if (p && strtoul(p, NULL, 10) == port)
			return c->name;
		if (!first)
			first = c->name;
	}
	return first;
}

/* One entry per "PortNState" info; a device without port info gets one
 * port of unknown state. */
static rm_status add_rdma(rm_node_hw *hw, size_t *cap, hwloc_obj_t os,
			  rm_error *err)
{
	hwloc_obj_t pci = os->parent;
	while (pci && pci->type != HWLOC_OBJ_PCI_DEVICE)
		pci = pci->parent;
	if (!pci || !os->name || !*os->name)
		return RM_OK;
	bool any = false;
	for (unsigned i = 0; i < os->infos_count; i++) {
		const char *n = os->infos[i].name, *v = os->infos[i].value;
		if (!n || !v || strncmp(n, "Port", 4) != 0)
			continue;
		char *end;
		errno = 0;
		unsigned long port = strtoul(n + 4, &end, 10);
		if (end == n + 4 || strcmp(end, "State") != 0 || errno ||
		    port == 0 || port > 255)
			continue;
		char *vend;
		long st = strtol(v, &vend, 10);
		int32_t state = (vend != v && st >= 0 && st <= 16) ? (int32_t)st : -1;
		rm_status s = add_port(hw, cap, pci, os->name, (unsigned)port,
				       state, netdev_of(pci, (unsigned)port), err);
		if (s)
			return s;
		any = true;
	}
	if (!any)
		return add_port(hw, cap, pci, os->name, 1, -1,
				netdev_of(pci, 1), err);
	return RM_OK;
}

static bool has_rdma_child(hwloc_obj_t pci)
{
	for (hwloc_obj_t c = pci->io_first_child; c; c = c->next_sibling)
		if (c->type == HWLOC_OBJ_OS_DEVICE &&
		    c->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS)
			return true;
	return false;
}

static rm_status scan(rm_node_hw *hw, rm_error *err)
{
	size_t gcap = 0, pcap = 0;
	rm_status s;
	for (hwloc_obj_t o = hwloc_get_next_pcidev(hw->topo, NULL); o;
	     o = hwloc_get_next_pcidev(hw->topo, o)) {
		unsigned cls = o->attr->pcidev.class_id;
		unsigned ven = o->attr->pcidev.vendor_id;
		if (ven == PCI_VENDOR_NVIDIA && (cls == 0x0302 || cls == 0x0300)) {
			if ((s = add_gpu(hw, o, &gcap, err)))
				return s;
		} else if ((ven == PCI_VENDOR_NVIDIA && cls == 0x0680) ||
			   (o->subtype && !strcmp(o->subtype, "NVSwitch"))) {
			/* hwloc's NVML backend names NVSwitches even when their
			 * config space reads back as zeros. */
			hw->nnvswitch++;
		} else if (ven == PCI_VENDOR_MELLANOX &&
			   (cls == 0x0207 || cls == 0x0200) && !has_rdma_child(o)) {
			/* A Mellanox NIC without its RDMA device in the data:
			 * list it, but NCCL_IB_HCA needs the verbs name. */
			char bid[16];
			busid_of(o, bid);
			const char *nd = netdev_of(o, 1);
			if ((s = add_port(hw, &pcap, o, nd ? nd : bid, 1, -1,
					  nd, err)))
				return s;
			snprintf(hw->port[hw->nport - 1].why,
				 sizeof(hw->port[0].why),
				 "no RDMA device in the hwloc data");
		}
	}
	for (hwloc_obj_t o = hwloc_get_next_osdev(hw->topo, NULL); o;
	     o = hwloc_get_next_osdev(hw->topo, o))
		if (o->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS &&
		    (s = add_rdma(hw, &pcap, o, err)))
			return s;
	if (hw->ngpu)
		qsort(hw->gpu, hw->ngpu, sizeof(*hw->gpu), gpu_cmp);
	if (hw->nport)
		qsort(hw->port, hw->nport, sizeof(*hw->port), port_cmp);
	return RM_OK;
}

/* hwloc 2.9 rejects 3.x XML with a terse message of its own; say which
 * file and what to do before handing it over. */
static rm_status check_xml_version(const char *path, const char *text,
				   rm_error *err)
{
	char q[160];
	const char *top = strstr(text, "<topology");
	if (!top)
		return rmi_err(err, RM_EINPUT,
			       "%s: not an hwloc XML topology (no <topology> element)",
			       rm_quote(path, strlen(path), q, sizeof(q)));
	const char *end = strchr(top, '>');
	const char *v = strstr(top, "version=\"");
	if (!v || (end && v > end))
		return RM_OK; /* hwloc 1.x files carry no version */
	v += 9;
	unsigned long major = strtoul(v, NULL, 10);
	if (major > 2) {
		char qv[32];
		size_t vl = strcspn(v, "\"");
		unsigned api = hwloc_get_api_version();
		return rmi_err(err, RM_EUNSUPPORTED,
			       "%s: hwloc XML version %s cannot be read by hwloc %u.x (it reads XML 1.x and 2.x);"
			       " export it again with hwloc 2.x (lstopo-no-graphics --of xml FILE)",
			       rm_quote(path, strlen(path), q, sizeof(q)),
			       rm_quote(v, vl, qv, sizeof(qv)), api >> 16);
	}
	return RM_OK;
}

/* The filters every read uses, so that an export reads back the same. */
static void set_filters(hwloc_topology_t t)
{
	hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
	hwloc_topology_set_type_filter(t, HWLOC_OBJ_PCI_DEVICE,
				       HWLOC_TYPE_FILTER_KEEP_ALL);
}

static rm_status open_topology(rm_node_hw *hw, const char *xml_path,
			       bool own, rm_error *err)
{
	char q[160];
	char *text = NULL;
	size_t len = 0;
	rm_status s;
	if (xml_path) {
		if ((s = rm_file_read(xml_path, &text, &len, err)))
			return s;
		if (len == 0) {
			free(text);
			return rmi_err(err, RM_EINPUT, "%s: empty hwloc XML file",
				       rm_quote(xml_path, strlen(xml_path), q, sizeof(q)));
		}
		if ((s = check_xml_version(xml_path, text, err))) {
			free(text);
			return s;
		}
	}
	if (hwloc_topology_init(&hw->topo) < 0) {
		free(text);
		hw->topo = NULL;
		return rmi_err(err, RM_ENOMEM, "hwloc: cannot create a topology");
	}
	set_filters(hw->topo);
	/* This machine's own export holds every CPU; this process (a job's
	 * slurmstepd in its cgroup) gets its own share, as a live scan does. */
	if (own)
		hwloc_topology_set_flags(hw->topo,
					 HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM |
					 HWLOC_TOPOLOGY_FLAG_THISSYSTEM_ALLOWED_RESOURCES);
	if (text) {
		/* hwloc wants the size including the final NUL. */
		if (hwloc_topology_set_xmlbuffer(hw->topo, text, (int)len + 1) < 0) {
			int e = errno;
			free(text);
			return rmi_err(err, RM_EINPUT,
				       "%s: hwloc cannot parse this XML (%s); truncated, not an hwloc export, or corrupt",
				       rm_quote(xml_path, strlen(xml_path), q, sizeof(q)),
				       strerror(e ? e : EINVAL));
		}
	}
	int rc = hwloc_topology_load(hw->topo);
	int e = errno;
	free(text);
	if (rc < 0) {
		if (xml_path)
			return rmi_err(err, RM_EINPUT,
				       "%s: hwloc could not load this XML (%s)",
				       rm_quote(xml_path, strlen(xml_path), q, sizeof(q)),
				       strerror(e ? e : EINVAL));
		return rmi_err(err, RM_EIO, "hwloc: cannot read this machine's topology (%s)",
			       strerror(e ? e : EIO));
	}
	return RM_OK;
}

static rm_status load(const char *xml_path, bool own, const rm_site *site,
		      rm_node_hw **out, rm_error *err);

rm_status rm_node_load(const char *xml_path, const rm_site *site,
		       rm_node_hw **out, rm_error *err)
{
	return load(xml_path, false, site, out, err);
}

rm_status rm_node_load_own_xml(const char *xml_path, const rm_site *site,
			       rm_node_hw **out, rm_error *err)
{
	if (!xml_path)
		return rmi_err(err, RM_EINPUT, "no XML file to read");
	return load(xml_path, true, site, out, err);
}

rm_status rm_node_export_machine_xml(char **xml, size_t *len, rm_error *err)
{
	*xml = NULL;
	*len = 0;
	hwloc_topology_t t;
	if (hwloc_topology_init(&t) < 0)
		return rmi_err(err, RM_ENOMEM, "hwloc: cannot create a topology");
	set_filters(t);
	/* Not this process's share (a job's cgroup) but the whole machine. */
	hwloc_topology_set_flags(t, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
	char *buf = NULL;
	int n = 0;
	if (hwloc_topology_load(t) < 0 ||
	    hwloc_topology_export_xmlbuffer(t, &buf, &n, 0) < 0 || n < 1) {
		int e = errno;
		hwloc_topology_destroy(t);
		return rmi_err(err, RM_EIO, "hwloc cannot export this machine (%s)",
			       strerror(e ? e : EIO));
	}
	/* hwloc counts the final NUL. */
	*xml = malloc((size_t)n);
	if (*xml) {
		memcpy(*xml, buf, (size_t)n);
		*len = (size_t)n - 1;
	}
	hwloc_free_xmlbuffer(t, buf);
	hwloc_topology_destroy(t);
	return *xml ? RM_OK : rmi_err(err, RM_ENOMEM, "out of memory");
}

static rm_status load(const char *xml_path, bool own, const rm_site *site,
		      rm_node_hw **out, rm_error *err)
{
	*out = NULL;
	char *cached = NULL;
	rm_status s;
	if (!xml_path && site && site->hwloc_xml) {
		char host[RM_MAX_HOSTNAME + 1];
		if (gethostname(host, sizeof(host)) == 0) {
			host[RM_MAX_HOSTNAME] = '\0';
			if ((s = rm_node_xml_path(site, host, &cached, err)))
				return s;
			/* A node whose admin has not exported its XML yet is
			 * scanned live rather than failing the job. */
			if (cached && access(cached, R_OK) != 0) {
				free(cached);
				cached = NULL;
			}
			xml_path = cached;
		}
	}
	rm_node_hw *hw = calloc(1, sizeof(*hw));
	if (!hw) {
		free(cached);
		return rmi_err(err, RM_ENOMEM, "out of memory");
	}
	bool from_xml = xml_path != NULL;
	hw->source = strdup(from_xml ? xml_path : "live");
	hw->live = !from_xml || own;
	free(cached);
	if (!hw->source) {
		free(hw);
		return rmi_err(err, RM_ENOMEM, "out of memory");
	}
	if ((s = open_topology(hw, from_xml ? hw->source : NULL, own, err)) ||
	    (s = scan(hw, err)) || (s = rmi_node_classify(hw, site, err))) {
		rm_node_free(hw);
		return s;
	}
	*out = hw;
	return RM_OK;
}

void rm_node_free(rm_node_hw *hw)
{
	if (!hw)
		return;
	for (size_t i = 0; i < hw->ngpu; i++) {
		hwloc_bitmap_free(hw->gpu[i].cpuset);
		free(hw->gpu[i].cpus);
		free(hw->gpu[i].nic);
	}
	for (size_t i = 0; i < hw->nport; i++) {
		free(hw->port[i].name);
		free(hw->port[i].netdev);
	}
	free(hw->gpu);
	free(hw->port);
	if (hw->topo)
		hwloc_topology_destroy(hw->topo);
	free(hw->source);
	free(hw);
}
