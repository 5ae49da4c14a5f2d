/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nccl_fixture.h - maps for the librankmap-nccl tests, made the way a job
 * gets them: planned by librankmap, written as rankmap-map/1 JSON to a
 * file, read back with rm_map_read.
 */
#ifndef RM_NCCL_FIXTURE_H
#define RM_NCCL_FIXTURE_H

#include "internal.h"
#include "rankmap_nccl.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* A port on 127.0.0.1 that was free a moment ago. */
static inline uint16_t free_port(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t l = sizeof(a);
	bind(fd, (struct sockaddr *)&a, sizeof(a));
	getsockname(fd, (struct sockaddr *)&a, &l);
	close(fd);
	return ntohs(a.sin_port);
}

typedef struct fx_map {
	char path[64];
	char *json;                  /* the file's text */
	size_t len;
	rm_map *map;                 /* read back from the file */
} fx_map;

/* fork() with a pipe from the child: the parent gets the read end in
 * *rfd, the child the write end in *wfd. -1 when either fails. */
static inline pid_t fork_piped(int *rfd, int *wfd)
{
	int p[2];
	if (pipe(p) != 0)
		return -1;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		*wfd = p[1];
		return 0;
	}
	close(p[1]);
	*rfd = p[0];
	return pid;
}

/* Plan `layout` on `nodes` (gpn GPUs each) under `topology` (Slurm
 * topology.conf text, NULL = flat), write it, read it back. */
static inline bool fx_make(fx_map *fx, const char *layout, const char *order,
		    const char *nodes, uint32_t gpn, const char *topology)
{
	rm_layout l;
	rm_order o;
	rm_hostlist hl = { 0 };
	rm_error e = { 0 };
	rm_fabric *f = NULL;
	rm_map *planned = NULL;
	memset(fx, 0, sizeof(*fx));
	bool ok = !rm_layout_parse(layout, &l, &e) &&
		  !rm_order_parse(order, &l, &o, &e) &&
		  !rm_hostlist_parse(nodes, &hl, &e);
	if (ok && topology)
		ok = !rm_fabric_new(&f, &e) &&
		     !rm_fabric_parse_topology(f, topology, strlen(topology),
					       "test.conf", &e);
	if (ok) {
		rm_plan_options po = { .version = RM_PLAN_OPTIONS_VERSION,
				       .layout = &l, .order = order ? &o : NULL,
				       .nodes = (const char *const *)hl.host,
				       .nnodes = hl.n, .gpus_per_node = gpn,
				       .fabric = f };
		ok = !rm_plan(&po, &planned, &e) &&
		     !rm_map_write(planned, RM_FMT_JSON, &fx->json, &fx->len,
				   &e);
	}
	if (ok) {
		/* mkstemp fills in the six trailing X. */
		snprintf(fx->path, sizeof(fx->path), "/tmp/rmn-map.%s",
			 "XX" "XX" "XX");
		int fd = mkstemp(fx->path);
		ok = fd >= 0 && write(fd, fx->json, fx->len) ==
					(ssize_t)fx->len;
		if (fd >= 0)
			close(fd);
	}
	if (ok)
		ok = !rm_map_read(fx->path, &fx->map, &e);
	if (!ok)
		printf("  fixture %s: %s\n", layout, e.msg);
	rm_map_free(planned);
	rm_fabric_free(f);
	rm_hostlist_clear(&hl);
	return ok;
}

#ifdef RM_TEST_H
/* fx_make for a case that cannot go on without its map: a set-up that
 * fails fails the case (fx_make has said why). */
static inline bool fx_ready(fx_map *fx, const char *layout, const char *order,
			    const char *nodes, uint32_t gpn,
			    const char *topology)
{
	if (fx_make(fx, layout, order, nodes, gpn, topology))
		return true;
	t_bad++;
	return false;
}
#endif

static inline void fx_free(fx_map *fx)
{
	if (fx->path[0])
		unlink(fx->path);
	free(fx->json);
	rm_map_free(fx->map);
	memset(fx, 0, sizeof(*fx));
}

#endif
