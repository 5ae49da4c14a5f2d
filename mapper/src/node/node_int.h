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

#endif /* RANKMAP_NODE_INT_H */
