/* SPDX-License-Identifier: Apache-2.0 */
/*
 * node_int.h - what the node*.c files share: the loaded hardware of one node.
 * The hwloc topology stays open for the life of rm_node_hw because the NCCL
 * topology writer walks its PCI tree again.
 */
#ifndef RANKMAP_NODE_INT_H
#define RANKMAP_NODE_INT_H

#include "internal.h"

#include <hwloc.h>

/* Generous ceilings: real nodes have at most a few dozen of each; anything
 * beyond is a hostile or broken file and fails with a message. */
#define RMI_NODE_MAX_GPUS 1024
#define RMI_NODE_MAX_PORTS 4096

/* PCI distance between a GPU and a NIC, in NCCL's words. */
typedef enum rm_pci_dist {
	RM_DIST_PIX = 0,             /* at most one PCIe switch between them */
	RM_DIST_PXB,                 /* several PCIe switches, no host bridge */
	RM_DIST_PHB,                 /* through the host bridge */
	RM_DIST_NODE,                /* same NUMA node, different host bridges */
	RM_DIST_SYS,                 /* across sockets / NUMA nodes */
	RM_DIST_NONE                 /* no NIC at all */
} rm_pci_dist;

typedef struct rmi_gpu {
	hwloc_obj_t pci;
	hwloc_obj_t local;           /* first non-I/O ancestor */
	char busid[16];
	uint16_t vendor, device;
	int32_t numa;
	hwloc_bitmap_t cpuset;       /* local PUs, within the allowed set */
	char *cpus;                  /* cpuset as a list */
	uint32_t *nic;               /* paired compute ports */
	size_t nnic;
	rm_pci_dist dist;
} rmi_gpu;

typedef struct rmi_port {
	hwloc_obj_t pci;
	hwloc_obj_t local;
	char *name;                  /* RDMA device name */
	uint32_t port;
	char busid[16];
	char *netdev;
	int32_t state;
	int32_t numa;
	bool vf;                     /* SR-IOV virtual function */
	bool compute;
	char why[160];
	int32_t gpu;                 /* nearest GPU */
	rm_pci_dist dist;
	unsigned hops;               /* PCI bridges to that GPU */
} rmi_port;

struct rm_node_hw {
	hwloc_topology_t topo;
	char *source;
	rmi_gpu *gpu;
	size_t ngpu;
	rmi_port *port;
	size_t nport;
	size_t nnvswitch;
	bool live;                   /* this machine now: live, or its own cache */
	bool numa_fallback;
};

/* node_nic.c: distances, compute NICs and the GPU-NIC pairing. */
RMI_HIDDEN rm_pci_dist rmi_pci_distance(hwloc_obj_t a, hwloc_obj_t b,
					unsigned *hops);
RMI_HIDDEN rm_status rmi_node_classify(rm_node_hw *hw, const rm_site *site,
				       rm_error *err);
/* IB port state name (1 DOWN .. 5 ACTIVE_DEFER), NULL for any other. */
RMI_HIDDEN const char *rmi_port_state(int32_t st);

/* node_env.c: cpuset list text ("0-13,112-125"); malloc'd or NULL. */
RMI_HIDDEN char *rmi_cpuset_list(hwloc_const_bitmap_t set);


/* Left the public header with ABI 1 (no program needs them); the library
 * and its white-box tests use them. */
const char *rm_pci_dist_name(rm_pci_dist d);

/*
 * Where rm_node_load(NULL, site, ...) reads from: the site's cached XML
 * (hwloc_xml with "%n" = short host name of `host`, "%%" = "%") when the
 * site names one, else NULL (*out) for the live machine. rm_node_load
 * uses this itself with this machine's name and falls back to the live
 * machine when the expanded file does not exist.
 */
rm_status rm_node_xml_path(const rm_site *site, const char *host, char **out,
			   rm_error *err);

/* One GPU, in PCI bus order (CUDA's order with CUDA_DEVICE_ORDER=PCI_BUS_ID).
 * Strings and arrays belong to the rm_node_hw and live as long as it. */
typedef struct rm_gpu_info {
	const char *busid;           /* "0000:1b:00.0" */
	uint16_t vendor, device;     /* PCI ids, 0x10de:0x2330 */
	int32_t numa;                /* NUMA node OS index; -1 unknown */
	const char *cpus;            /* its local PUs, "0-55,112-167" */
	const uint32_t *nic;         /* paired compute NIC ports (rm_node_nic) */
	size_t nnic;                 /* 0 = none on this node */
	rm_pci_dist dist;            /* distance to nic[0]; RM_DIST_NONE if none */
} rm_gpu_info;

/* One RDMA port (a dual-port NIC gives two). */
typedef struct rm_nic_info {
	const char *name;            /* RDMA device, "mlx5_0", "rdmap85s0" */
	uint32_t port;               /* 1-based */
	const char *busid;
	const char *netdev;          /* "ibp24s0", "" when none */
	int32_t state;               /* IB port state: 4 ACTIVE, 1 DOWN; -1 unknown */
	int32_t numa;                /* -1 unknown */
	bool compute;                /* goes into NCCL_IB_HCA */
	const char *why_not;         /* reason when !compute, else "" */
	int32_t gpu;                 /* nearest GPU index; -1 none */
	rm_pci_dist dist;            /* distance to that GPU */
} rm_nic_info;

size_t rm_node_nic_count(const rm_node_hw *hw);
size_t rm_node_nvswitch_count(const rm_node_hw *hw);
/* false when i is out of range. */
bool rm_node_gpu(const rm_node_hw *hw, size_t i, rm_gpu_info *out);
bool rm_node_nic(const rm_node_hw *hw, size_t i, rm_nic_info *out);
/* True when no NIC served a GPU at PHB or closer and the compute NICs
 * were taken from the GPUs' NUMA nodes instead (POWER9-like machines). */
bool rm_node_numa_fallback(const rm_node_hw *hw);
/* The cpuset of a local rank as a list ("0-13,112-125"); malloc'd. */
rm_status rm_node_rank_cpus(const rm_node_hw *hw, uint32_t local_rank,
			    uint32_t local_ranks, char **out, rm_error *err);


#endif /* RANKMAP_NODE_INT_H */
