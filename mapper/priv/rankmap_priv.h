/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rankmap_priv.h - what librankmap shares with its own programs and no one
 * else: the rankmap CLI, the SPANK plugin, librankmap-nccl and the tests
 * and benches. Never installed, and none of it is exported from
 * librankmap.so (mapper/librankmap.map); the programs link librankmap.a
 * and librankmap-priv.a statically. Nothing here is a promise: change it
 * with its callers in one commit.
 *
 * The text buffer: the CLI, the plugin and librankmap-nccl write reports
 * as text, JSON and KEY=value lines in an rm_buf, the buffer the library
 * writes its own maps and reports with, so that every JSON string and
 * every shell value is escaped one way everywhere. An rm_buf grows as
 * needed; once an allocation fails it stays failed (oom), every later
 * call is a no-op and rm_buf_take returns NULL: check once, at the end.
 */
#ifndef RANKMAP_PRIV_H
#define RANKMAP_PRIV_H

#include "rankmap.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * An untrusted value (a user's option, a word from a file) made safe to put
 * in a message: at most `len` bytes of `s`, single-quoted, control bytes and
 * quotes escaped as \xNN, cut with "..." to fit `bufsz` bytes. Returns
 * buf ("" when bufsz < 8).
 */
const char *rm_quote(const char *s, size_t len, char *buf, size_t bufsz);
/* Read a whole regular file of at most RM_MAX_INPUT bytes into *out
 * (malloc'd, NUL-terminated); the message names the path. */
rm_status rm_file_read(const char *path, char **out, size_t *len,
		       rm_error *err);

#if defined(__GNUC__)
#define RM_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define RM_PRINTF(a, b)
#endif

typedef struct rm_buf {
	char *data;                  /* NUL-terminated once anything is added */
	size_t len, cap;
	bool oom;                    /* sticky: set once an allocation failed */
} rm_buf;

void rm_buf_init(rm_buf *b);
/* Frees the text and empties the buffer. */
void rm_buf_clear(rm_buf *b);
/* Room for `extra` more bytes (and the NUL); false once oom. */
bool rm_buf_reserve(rm_buf *b, size_t extra);
void rm_buf_add(rm_buf *b, const char *s, size_t n);
void rm_buf_puts(rm_buf *b, const char *s);
void rm_buf_printf(rm_buf *b, const char *fmt, ...) RM_PRINTF(2, 3);
void rm_buf_u64(rm_buf *b, uint64_t v);
/* A double-quoted JSON string (also valid YAML): quotes and backslashes
 * escaped, control bytes and DEL as \u00NN; NULL writes "". */
void rm_buf_json_str(rm_buf *b, const char *s);
/* One KEY=value line; the value single-quoted unless it is made of
 * characters no shell treats specially, control bytes dropped. */
void rm_buf_env(rm_buf *b, const char *key, const char *val);
/* Hand the text over (malloc'd, NUL-terminated, "" when empty) and reset
 * the buffer; NULL, with the buffer freed, when it ran out of memory. */
char *rm_buf_take(rm_buf *b, size_t *len);

/* A map's validation report (rm_report) as one JSON object, its lines
 * indented by `indent` levels of two spaces - the "validation" object of
 * a map file. */
void rm_report_json(rm_buf *b, const rm_report *r, int indent);
/* Two reports side by side for people, columns headed name_a and name_c
 * ("rankmap" and "baseline"), headed by each map's seconds per step and
 * MFU under one model (rm_estimate_map on the same fabric) when ea and ec are both
 * given; NULL for either leaves the prices out. */
void rm_report_compare_priced_text(rm_buf *b, const rm_report *a,
				   const rm_estimate *ea, const char *name_a,
				   const rm_report *c, const rm_estimate *ec,
				   const char *name_c);
/* The one-line verdict of rm_estimate_compare_write on two estimates of
 * one layout (b against a): "the baseline is 15.2 % slower than the plan:
 * ..." or "... within 0.4 % of the plan here: rankmap changes nothing". */
void rm_estimate_compare_verdict(rm_buf *b, const rm_estimate *a,
				 const char *name_a, const rm_estimate *e,
				 const char *name_b);
/* The verdict of rm_estimate_baselines_write: `a` against the fastest of
 * `n` baselines, kind[i] of base[i], each other one's difference after. */
void rm_estimate_baselines_verdict(rm_buf *b, const rm_estimate *a,
				   const char *name_a,
				   const rm_estimate *const *base,
				   const rm_baseline *kind, size_t n);


/* rm_plan with the fabric's digest (rm_fabric_digest) computed once by a
 * caller that plans twice on one fabric (a plan and its baseline); NULL
 * hashes it. A wrong value makes a wrong stamp. */
rm_status rm_plan_with_digest(const rm_plan_options *opts,
			      const char *fabric_digest, rm_map **out,
			      rm_error *err);

/*
 * The plan where a model prices it (model/model_plan.c): the planner's map
 * (rm_plan, fewest PP pairs leaving a leaf) and the map of every baseline
 * kind of the same layout that keeps the must-rules, each priced by
 * rm_estimate_map on opts->fabric; the fastest is *out with its estimate
 * *est (the planner's on a tie), whose note ends "the plan is the
 * fastest of N candidates as priced (...)". *ncand: the maps priced.
 * Both outputs are the caller's (rm_map_free, rm_estimate_free).
 */
rm_status rm_plan_priced(const rm_model *model, const rm_hw *hw,
			 const rm_train *t, const rm_plan_options *opts,
			 const char *fabric_digest, rm_map **out,
			 rm_estimate **est, unsigned *ncand, rm_error *err);

/* Slurm's ports (mapper/priv/port.c and fabric/slurm_topo.c). */
/*
 * The MASTER_PORT of a Slurm step, the one the SPANK plugin sets: the
 * first port of resv_ports (SLURM_STEP_RESV_PORTS, "12000-12003" or
 * "12000,12007", from Slurm's MpiParams=ports; NULL or unusable:
 * ignored), else a port derived from (jobid, stepid) such that it and the
 * next port lie outside the node's ephemeral range [eph_lo, eph_hi] (the
 * caller reads /proc/sys/net/ipv4/ip_local_port_range; 0, 0 or an inverted
 * range: RM_EPHEMERAL_LO-RM_EPHEMERAL_HI), below 1024 never, and never on
 * Slurm's default ports 6817-6819: ports from 20000 up when at least 1,000
 * of them are left there, else from 1024 up; a job starts at a hashed
 * place in that pool (MurmurHash3's finaliser of the job id) and its
 * consecutive steps take consecutive ports. Only when the range leaves no
 * port outside it, 20000 + (mix % 20000). The same inputs give the same
 * port on every node. Always 1-65535.
 */
#define RM_EPHEMERAL_LO 32768u
#define RM_EPHEMERAL_HI 60999u
uint32_t rm_master_port(uint32_t jobid, uint32_t stepid,
			const char *resv_ports, uint32_t eph_lo,
			uint32_t eph_hi);
/* The same, and the derived port (and the next) also outside
 * [mpi_lo, mpi_hi], the ports Slurm reserves for steps (MpiParams=ports,
 * rm_slurm_mpi_ports), which a step run without reserved ports
 * (--resv-ports=0) could otherwise take from another step. 0, 0: none. */
uint32_t rm_master_port_avoiding(uint32_t jobid, uint32_t stepid,
				 const char *resv_ports, uint32_t eph_lo,
				 uint32_t eph_hi, uint32_t mpi_lo,
				 uint32_t mpi_hi);
/* MpiParams=ports=LOW-HIGH of `slurm_conf`: 0, 0 where the file or the
 * key is absent; RM_EINPUT (naming the file and the value) for a
 * malformed ports=. */
rm_status rm_slurm_mpi_ports(const char *slurm_conf, uint32_t *lo,
			     uint32_t *hi, rm_error *err);
/* slurm.conf's ProctrackType= ("proctrack/linuxproc"; empty where the
 * file does not set it: Slurm's default, proctrack/cgroup) into out;
 * false where the file cannot be read. */
bool rm_slurm_proctrack(const char *slurm_conf, char *out, size_t n);
/* The two ports of ip_local_port_range ("32768\t60999\n"): 1-65535,
 * low <= high. */
rm_status rm_port_range_parse(const char *text, uint32_t *lo, uint32_t *hi,
			      rm_error *err);

/*
 * The site's rankmap configuration as slurmd hands it to the SPANK plugin
 * (mapper/priv/siteconf.c): slurm.conf (`slurm_conf`, else $SLURM_CONF,
 * else /etc/slurm/slurm.conf; none there: all NULL), its plugstack.conf
 * with its include lines, and on rankmap's line the site=, topology= and
 * order= arguments (NULL where not given). plugstack NULL: no rankmap
 * line. The CLI plans with these by default, as the plugin does.
 */
typedef struct rm_site_config {
	char *slurm_conf;            /* the slurm.conf found, or NULL */
	char *plugstack;             /* the file with rankmap's line */
	unsigned line;               /* its line number */
	char *site, *topology, *order;
	/* pyxis loaded after rankmap: the file and line of its line */
	char *pyxis_after;
	unsigned pyxis_line;
} rm_site_config;
rm_status rm_site_config_find(const char *slurm_conf, rm_site_config *out,
			      rm_error *err);
void rm_site_config_clear(rm_site_config *c);

/*
 * The step-shape checks the SPANK plugin makes before it plans, shared
 * with `rankmap fit` (mapper/priv/fit.c). rm_step_nproc: with one task per
 * node (a launcher such as torchrun) the ranks each node's launcher
 * starts, else 0 (one rank per task). rm_step_fit: false with the
 * plugin's message in err when `l` (as the user wrote it: layout_text)
 * cannot run on nnodes x tasks_per_node: more tasks than the site's GPUs
 * per node, a launcher given more ranks than GPUs, a layout whose size
 * is not the step's. Else *nproc and *resolved (dp=auto resolved), each
 * where not NULL. site may be NULL (no GPU count known).
 */
#define RM_STEP_MAX_NPROC 1024
uint32_t rm_step_nproc(const rm_layout *l, const rm_site *site,
		       uint32_t tasks_per_node, size_t nnodes);
bool rm_step_fit(const char *layout_text, const rm_layout *l,
		 const rm_site *site, size_t nnodes, uint32_t tasks_per_node,
		 uint32_t *nproc, rm_layout *resolved, char *err,
		 size_t errlen);

/* The layout published for model m on `gpus` GPUs (as
 * rm_model_published_layout) with that run's batch and sharding in
 * --batch/--sharding's words; NULL where none was published. */
const char *rm_model_published_run(const rm_model *m, uint64_t gpus,
				   const char **batch, const char **sharding);

/* SHA-256 of a buffer, lowercase hex. */
void rm_sha256_hex(const void *data, size_t len, char hex[65]);
/* The same over several pieces (FIPS 180-4): init, add as often as
 * needed, then end once; the context is spent after end. */
#define RM_SHA256_LEN 32
typedef struct rm_sha256_ctx {
	uint32_t h[8];
	uint64_t total;              /* bytes hashed so far */
	unsigned char block[64];
	size_t fill;                 /* bytes waiting in block[] */
} rm_sha256_ctx;
void rm_sha256_init(rm_sha256_ctx *c);
void rm_sha256_add(rm_sha256_ctx *c, const void *data, size_t len);
void rm_sha256_end(rm_sha256_ctx *c, unsigned char out[RM_SHA256_LEN]);
void rm_sha256_end_hex(rm_sha256_ctx *c, char hex[65]);

/*
 * Calibration (`rankmap calibrate`) is the CLI's alone for now: its
 * structs embed rm_model, rm_train and rm_hw by value, and the way site
 * logs are read is being reworked (issue 40). It becomes public, behind
 * an opaque object, once that settles.
 */
/*
 * A site's own calibration (`rankmap calibrate`): step times of its runs
 * and bus bandwidths of its links, fitted into a hardware file that
 * inherits the rest from a preset.
 */
#define RM_CAL_MAX 64                /* measurements of each kind */
#define RM_CAL_NOTES 8               /* lines of each kind per step */
#define RM_CAL_NOTE_LEN 240
typedef struct rm_cal_step {
	rm_model model;
	rm_train train;
	rm_layout layout;
	double seconds;              /* measured, per step */
	size_t samples;              /* iteration lines the time is the median of */
	char what[200];              /* the file, and what it said the run was */
	/* note: what the reader made of the log where it is not plain (an
	 * old argument's modern meaning); warn: what the log says that the
	 * model does not price, each naming the setting */
	char note[RM_CAL_NOTES][RM_CAL_NOTE_LEN];
	char warn[RM_CAL_NOTES][RM_CAL_NOTE_LEN];
	size_t nnote, nwarn;
} rm_cal_step;
typedef struct rm_cal_link {
	bool network;                /* false: inside one NVLink domain */
	double busbw;                /* GB/s, the largest size's (nccl-tests) or
				      * the median group's peak (nccl-check) */
	uint32_t per_host;           /* GPUs of each host in the measurement:
				      * on the network, busbw is that many
				      * GPUs' NICs together; on NVLink, the
				      * GPUs of the collective */
	double gbps;                 /* one GPU's link: busbw on NVLink,
				      * busbw / per_host on the network */
	char what[160];
} rm_cal_link;
/* Megatron-LM's log of one run (and Megatron-DeepSpeed's): the arguments
 * it prints at start-up ("------------------------ arguments
 * ------------------------", one "  name ..... value" line each; 20
 * dashes and 32-column names before 2021) and its iteration lines
 * ("iteration N/ M | ... | elapsed time per iteration (ms): X | ...");
 * the step time is the median of the iterations after the first. `m` is
 * the architecture; the log's num_layers, hidden_size and
 * num_attention_heads must match it. Arguments of older releases are
 * read as the ones that replaced them (checkpoint_activations: full
 * recomputation; model_parallel_size: tensor_model_parallel_size ...),
 * each said in a note; FP8 and other settings the model does not price
 * are warnings. */
rm_status rm_cal_megatron_log(const char *text, size_t len, const char *file,
			      const rm_model *m, rm_cal_step *out,
			      rm_error *err);
/* NeMo's log of one run: the configuration it prints at start-up
 * ("Experiment configuration", then the YAML of trainer: and model:) and
 * its step times ("train_step_timing in s: X" of its progress printer,
 * "train_step_timing in s=X" of its progress bar and timing callback, or
 * the older "train_step_timing=X"), in seconds; the median of the steps
 * after the first. */
rm_status rm_cal_nemo_log(const char *text, size_t len, const char *file,
			  const rm_model *m, rm_cal_step *out, rm_error *err);
/* torchtitan's log ("step: N  loss: ...  tps: T  ..."; tps per GPU),
 * with the run as the caller says it was (t, l): step = batch / (tps x
 * GPUs), the median after the first step. */
rm_status rm_cal_torchtitan_log(const char *text, size_t len, const char *file,
				const rm_model *m, const rm_train *t,
				const rm_layout *l, rm_cal_step *out,
				rm_error *err);
/* An MLPerf Training result log (mlcommons/logging's mllog: one
 * ":::MLLOG {json}" record a line): global_batch_size,
 * max_sequence_length, gradient_accumulation_steps and mllog's
 * parallelism keys (tensor_parallelism, pipeline_parallelism,
 * context_parallelism, micro_batch_size) say the run; the step time is
 * tracked_stats' train_step_time, else global_batch_size over its
 * throughput, else the blocks' time_ms over their steps (the median after
 * the first). `t` says what the log does not (recompute, sharding ...;
 * seq where no max_sequence_length is logged); `l` the layout where the
 * log gives no parallelism keys (NULL: the log must; given, the sizes
 * logged must agree). What the log says that the model does not price
 * (LoRA, FP8, keys it does not read) are warnings. */
rm_status rm_cal_mlperf_log(const char *text, size_t len, const char *file,
			    const rm_model *m, const rm_train *t,
			    const rm_layout *l, rm_cal_step *out,
			    rm_error *err);
/* nccl-tests' output (all_reduce_perf ...): the busbw of its largest size
 * (out of place); network when its "# Rank" lines name more than one
 * host, and then shared by the NICs of the GPUs each host runs (the
 * fewest). rankmap-nccl-check's text report: one link per axis, the
 * median group's peak busBw, network unless "placed on: nvlink". Returns
 * the links found (*n), at most max. */
rm_status rm_cal_nccl_tests(const char *text, size_t len, const char *file,
			    rm_cal_link *out, rm_error *err);
rm_status rm_cal_nccl_check(const char *text, size_t len, const char *file,
			    rm_cal_link *out, size_t max, size_t *n,
			    rm_error *err);
typedef struct rm_cal_fit {
	rm_hw hw;                    /* base with the fitted keys */
	const char *keys[8];         /* fitted, NULL-ended */
	size_t nkeys;
	double step_pred[RM_CAL_MAX];/* model's seconds per measured step */
	double link_eff[RM_CAL_MAX]; /* measured link / nominal; above 1 on
				      * NVLink with NVLink SHARP (the eff
				      * fitted stops at 1) */
	double mem_over[RM_CAL_MAX]; /* bytes a step's fullest GPU holds over
				      * HBM as the model prices its run, no
				      * more than RM_CAL_MEM_SLACK of it; 0
				      * when it fits */
	char warn[4][RM_CAL_NOTE_LEN]; /* what makes the fit doubtful: a key
					* stopped at an end of its range */
	size_t nwarn;
} rm_cal_fit;
/* The most a run may hold over HBM as the model prices it and still be
 * fitted (with a warning): the margin its memory is known to be
 * conservative by (docs/explain.md, Limits: 3.9 % on NVIDIA's 405B
 * recipe, checked within 5 %). */
#define RM_CAL_MEM_SLACK 0.05
/*
 * Fit `fit` (step-time keys: gemm_eff, gemm_dim0, attn_eff, hbm_eff) to
 * the step times and nvlink_eff / net_eff to the links (the median share
 * of nominal, at most 1), starting from `base`. Refuses more step keys
 * than step times, a link key with no link measured, a link faster than
 * its hardware can be (a GPU's NIC: nic_gbps; NVLink: twice nvlink_gbps,
 * what NVLink SHARP can reach), and a run that holds more than RM_CAL_MEM_SLACK of HBM
 * over it as the model prices it (its settings are not what ran: a log
 * that does not say its recomputation, say).
 */
rm_status rm_calibrate(const rm_hw *base, const rm_cal_step *steps, size_t ns,
		       const rm_cal_link *links, size_t nl,
		       const char *const *fit, rm_cal_fit *out, rm_error *err);
/* A calibration key's value in h (gemm_eff, fp8_eff, nvlink_eff, ...,
 * as rm_cal_fit.keys names them); 0 for a key it does not know. */
double rm_cal_key_value(const rm_hw *h, const char *key);
/* The fit as a hardware file, with the measurements, residuals, notes
 * and warnings as comments: `base: NAME` and the fitted keys when the
 * fit started from preset NAME; when `base` is NULL (it started from a
 * file, whose own base the loaded rm_hw no longer names) every figure,
 * calibration key and tier, so that the file stands alone. */
rm_status rm_cal_write(const rm_cal_fit *f, const char *base,
		       const rm_cal_step *steps, size_t ns,
		       const rm_cal_link *links, size_t nl, char **out,
		       size_t *len, rm_error *err);

#ifdef __cplusplus
}
#endif

#endif /* RANKMAP_PRIV_H */
