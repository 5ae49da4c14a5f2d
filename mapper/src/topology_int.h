/*
 * topology_int.h - between the topology.conf reader (topology.c) and the
 * switch-tree builder (topology_tree.c).
 */
#ifndef RANKMAP_TOPOLOGY_INT_H
#define RANKMAP_TOPOLOGY_INT_H

#include "internal.h"

/* A Switches= value: switches may be named before they are defined, so
 * links wait until the whole file is read. */
typedef struct rmi_topo_link {
	uint32_t sw;                 /* the switch whose line this is */
	const char *v;               /* hostlist of child switch names */
	size_t vlen;
	unsigned long line, col;     /* where the value starts */
} rmi_topo_link;

/* Link children to parents (each switch at most one parent, no unknown
 * names, no cycles) and set every switch's level. */
RMI_HIDDEN rm_status rmi_topo_build_tree(rm_fabric *f,
					 const rmi_topo_link *link, size_t n,
					 const char *file, rm_error *err);

#endif
