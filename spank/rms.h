/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rms.h - the rankmap SPANK plugin's own parts. Everything declared here
 * except options.c, local.c, remote.c and rankmap_spank.c is free of SPANK
 * calls, so the benchmark and the unit test link it without Slurm.
 * Names start with rms_; the version script keeps them out of the plugin's
 * exported symbols.
 */
#ifndef RANKMAP_SPANK_RMS_H
#define RANKMAP_SPANK_RMS_H

#include "rankmap.h"
#include "rankmap_priv.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define RMS_ERRLEN 1024
/* Longest option value we accept (layouts and orders are short). */
#define RMS_MAX_OPT 256
/* Environment variable srun uses to hand its plan's stamp to the nodes.
 * SLURM_ because srun --export=NONE (or a list) passes only SLURM_*
 * variables of its own environment to the step. */
#define RMS_STAMP_ENV "SLURM_RANKMAP_STEP_STAMP"
#define RMS_STAMP_LEN 320
/* The stamp of a step srun refused: the nodes fail its tasks quietly. */
#define RMS_STAMP_REFUSED "refused"
/* Root-owned base of the per-job directories (plugstack runtime_dir=). */
#define RMS_RUNTIME_DIR "/run/rankmap"
/* Compared between srun and the nodes: a rolling upgrade that changes
 * placement is drift like any other. */
#define RMS_PLUGIN_VERSION RM_VERSION_STRING

/* ---- plugstack.conf arguments (conf.c) ---- */
typedef struct rms_conf {
	char *site;                  /* site file; NULL: none */
	char *topology;              /* topology.conf or .yaml; NULL: site's
					or beside slurm.conf */
	char *slurm_conf;            /* slurmstepd's/srun's slurm.conf */
	char *order;                 /* default numbering; NULL: site's */
	char *runtime_dir;           /* root-owned base of per-job dirs */
	char *hwcache;               /* topology cache dir; NULL: the default */
	bool hwcache_off;            /* hwcache=off: scan at every step */
	int enforce;                 /* rm_enforce, or -1: the site's */
	int export_slurm;            /* 1: also SLURM_PROCID; -1: not given */
	bool topology_default;       /* path guessed, absence is not an error */
	char args_sha256[65];        /* every argument, in order */
} rms_conf;

void rms_conf_init(rms_conf *c);
void rms_conf_free(rms_conf *c);
/*
 * Parse "key=value" words. Unknown keys and bad values are reported in
 * `errbuf` (one line, empty when all is well): the plugin logs it and
 * refuses layout steps with it (fail closed). Returns false only when
 * memory ran out.
 */
bool rms_conf_parse(rms_conf *c, int argc, char **argv, char *errbuf,
		    size_t errlen);
/* One line with the effective configuration, for the slurmd log. */
void rms_conf_describe(const rms_conf *c, char *buf, size_t len);
/* Fill in the topology default: dirname($SLURM_CONF)/topology.conf, and
 * remember slurm.conf (topology.yaml beside it wins, and it names the
 * partition's topology). */
bool rms_conf_default_topology(rms_conf *c, const char *slurm_conf);

/* ---- the step's inputs and its map (plan.c) ---- */
typedef struct rms_step {
	const char *layout;          /* --parallel-layout */
	const char *order;           /* --parallel-order; NULL: default */
	const char *nodelist;        /* the step's nodes, Slurm hostlist */
	const char *tasks_per_node;  /* SLURM_STEP_TASKS_PER_NODE, "8(x4)" */
	const char *partition;       /* the job's; NULL: cluster default */
	uint32_t ntasks;             /* total tasks of the step */
	uint32_t nnodes;             /* nodes of the step */
} rms_step;

typedef struct rms_plan {
	rm_site *site;               /* NULL: no site file */
	bool have_site;
	rm_fabric *fabric;           /* NULL: one flat switch */
	rm_map *map;
	rm_hostlist nodes;           /* the step's nodes, Slurm's order */
	uint32_t tasks_per_node;
	uint32_t nproc;              /* one launcher per node: its workers; 0
				      * when every task is a rank */
	rm_enforce enforce;
	char layout_text[128];       /* canonical forms for the env */
	char order_text[64];
	char topology_sha256[65];    /* bytes of the topology.conf used, or "" */
	char site_sha256[65];        /* bytes of the site file, or "" */
	char *json;                  /* the map file's bytes */
	size_t json_len;
	char json_sha256[65];
	char *warning;               /* policy warning (warn mode), or NULL */
} rms_plan;

/* MASTER_ADDR: the host of RANK 0. */
static inline const char *rms_master_addr(const rm_map *m)
{
	rm_rank r0;
	return rm_map_rank(m, 0, &r0) ? rm_map_host(m, r0.node) : "";
}

void rms_plan_init(rms_plan *p);
void rms_plan_free(rms_plan *p);
/* Check the option's syntax alone (option callbacks). */
bool rms_check_syntax(const char *layout, const char *order, char *err,
		      size_t errlen);
/*
 * Everything from the inputs to the map file's bytes: site, fabric,
 * layout against the step's tasks, placement, policy. On failure `err`
 * holds one line for the user. Under strict enforcement a policy breach is
 * a failure; under warn it lands in p->warning.
 */
bool rms_plan_step(const rms_conf *conf, const rms_step *step, rms_plan *p,
		   char *err, size_t errlen);

/* ---- srun's plan, as the nodes see it (stamp.c) ---- */
typedef enum rms_drift {
	RMS_DRIFT_NONE = 0,          /* same inputs, same map */
	RMS_DRIFT_INPUTS,            /* an input differs, the map is the same */
	RMS_DRIFT_MAP,               /* this node's map is not srun's */
} rms_drift;

/* One line: plugin version, digests of the inputs and of the map. */
bool rms_stamp_format(const rms_plan *p, const rms_conf *c, char *buf,
		      size_t len);
/* srun's stamp against this node's; `why` names the differing inputs. */
rms_drift rms_stamp_compare(const char *theirs, const char *mine, char *why,
			    size_t len);

/* ---- runtime directory and per-node map file (files.c) ---- */
typedef struct rms_file {
	char root[256];              /* runtime_dir */
	uint32_t jobid;
	char leaf[300];              /* STEP.NODE */
	char dir[600];               /* root/JOB/STEP.NODE */
	char path[700];              /* dir/map.json */
	bool written;
} rms_file;

/*
 * As root: the job's directory root/JOB, root's, group gid, 0750, created
 * if needed; one of another owner in the way (an earlier job's) is removed
 * first. Refuses a root that is not root's or that others can write, and
 * a root that is a symbolic link. Returns an open directory fd, or -1.
 */
int rms_job_dir_open(const char *root, uint32_t jobid, gid_t gid, char *err,
		     size_t errlen);
/*
 * As root: root/JOB/STEP.NODE (root:gid 0750) and the map in it (0440),
 * written atomically, never following a symbolic link.
 */
bool rms_file_write(rms_file *f, int jobfd, const char *root, uint32_t jobid,
		    uint32_t stepid, const char *node, gid_t gid,
		    const char *data, size_t len, char *err, size_t errlen);
/* Remove what rms_file_write made. */
void rms_file_remove(rms_file *f);
/* As root, in the job epilog: remove root/JOB and everything in it. */
/* Removes the job directories of jobs with no slurmstepd here, older
 * than `young` seconds (slurmd's start); how many, or -1. */
int rms_runtime_sweep(const char *root, int young, char *err, size_t errlen);
bool rms_job_dir_remove(const char *root, uint32_t jobid, char *err,
			size_t errlen);

/* ---- per-task environment (env.c) ---- */
typedef struct rms_kv {
	char key[40];
	char val[256];
	bool overwrite;              /* false: the job's own value wins */
} rms_kv;

typedef struct rms_envset {
	rms_kv *kv;
	size_t n, cap;
} rms_envset;

void rms_envset_free(rms_envset *e);
bool rms_envset_add(rms_envset *e, const char *key, const char *val,
		    bool overwrite);
typedef struct rms_task_ids {
	uint32_t jobid, stepid;
	const char *resv_ports;      /* SLURM_STEP_RESV_PORTS, or NULL */
	uint32_t eph_lo, eph_hi;     /* the node's ephemeral port range */
	uint32_t mpi_lo, mpi_hi;     /* Slurm's MpiParams=ports, or 0 0 */
	bool export_slurm;           /* also SLURM_PROCID, SLURM_LOCALID */
	const char *visible;         /* CUDA_VISIBLE_DEVICES as Slurm set it */
} rms_task_ids;

/* One task per GPU: the task's own CUDA_VISIBLE_DEVICES (as Slurm set it
 * for that task, NULL if unset) does not narrow what the map assumes. */
bool rms_task_visible_ok(const rms_plan *p, uint32_t local_rank,
			 const char *visible, char *err, size_t errlen);
/*
 * The variables of the task playing `local_rank` on map host `host_index`.
 * `nccl` (node-wide, may be NULL) is appended with the job-wins rule unless
 * `nccl_override`.
 */
bool rms_task_env(const rms_plan *p, int64_t host_index, uint32_t local_rank,
		  const rms_task_ids *ids, const char *map_path, const rm_env *nccl,
		  bool nccl_override, const rm_env *rank_env, rms_envset *out,
		  char *err, size_t errlen);

/* ---- the node's topology, cached per boot (hwcache.c) ---- */
/* Under the runtime directory unless plugstack.conf says hwcache=DIR. */
#define RMS_HWCACHE_NAME ".hwcache"

/* Where the cache key is read from: this machine's files, or a test's. */
typedef struct rms_hwkey_src {
	const char *boot_id;         /* /proc/sys/kernel/random/boot_id */
	const char *nvidia[2];       /* driver version files, when present */
	const char *pci;             /* /sys/bus/pci/devices */
	const char *ib;              /* /sys/class/infiniband */
} rms_hwkey_src;
extern const rms_hwkey_src rms_hwkey_this_machine;

/* What would change the node's topology, as a SHA-256 hex: boot id,
 * hwloc's version, the NVIDIA driver, the PCI devices, the IB port
 * states. False (with a message) when the boot id cannot be read. */
bool rms_hwcache_key(const rms_hwkey_src *src, char key[65], char *err,
		     size_t errlen);
/* Whether `name` is a cache file of `key` ("KEY-SHA256.xml") and `xml`
 * (len bytes) the content its name promises. */
bool rms_hwcache_valid(const char *name, const char *key, const char *xml,
		       size_t len);

typedef enum {
	RMS_HW_LIVE,                 /* scanned; no cache (off, not root) */
	RMS_HW_CACHED,               /* read from a valid cache file */
	RMS_HW_REBUILT               /* scanned and the cache (re)written */
} rms_hw_how;

/*
 * The node's hardware for the plugin: the site's hwloc_xml when it names
 * one, else the cache in `dir` (NULL: off) when running as root and it is
 * valid, else a live scan that (as root) rewrites the cache. A cache that
 * cannot be used is a note in `note` (empty when all is well), never an
 * error: the scan still runs.
 */
rm_status rms_hwcache_load(const char *dir, const rm_site *site,
			   rm_node_hw **out, rms_hw_how *how, char *note,
			   size_t notelen, rm_error *err);
/* The conf's cache directory (malloc'd), or NULL when off. */
char *rms_hwcache_dir(const rms_conf *c);
/* ---- one launcher task per node: torchrun (launcher.c; the workers
 * per node: rm_step_nproc, mapper/priv/fit.c) ---- */
/* Whether every node's ranks are nproc consecutive ones, as torchrun
 * numbers them; else `err` says which node and what would work. */
bool rms_per_node_check(const rm_map *m, uint32_t nproc, char *err,
			size_t errlen);
/* Entries in a CUDA_VISIBLE_DEVICES value (0 for none). */
size_t rms_visible_count(const char *vis);
/* The launcher task's variables on map host `h`. */
bool rms_node_env(const rms_plan *p, uint32_t h, const rms_task_ids *ids,
		  rms_envset *out, char *err, size_t errlen);

/* The kernel's ephemeral port range, which MASTER_PORT stays out of. */
#define RMS_PORT_RANGE_FILE "/proc/sys/net/ipv4/ip_local_port_range"
/* The range in `path`; unreadable or not two ports: Linux's default
 * (RM_EPHEMERAL_LO-RM_EPHEMERAL_HI), so the step still gets a port. */
void rms_ephemeral_ports(const char *path, uint32_t *lo, uint32_t *hi);

/* ---- helpers shared by the SPANK files ---- */
/* "8(x4)", "8,8,8" or "5,1(x3)": the per-node count when it is uniform. */
bool rms_uniform_tasks(const char *spec, uint32_t nnodes, uint32_t *per_node,
		       char *err, size_t errlen);

#endif
