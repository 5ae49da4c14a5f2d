/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mapio.h - shared between the map writers and readers (map/) and the
 * picture, which embeds a map's report. Not installed.
 */
#ifndef RANKMAP_MAPIO_H
#define RANKMAP_MAPIO_H

#include "internal.h"

/* Axes a map file spells out: tp, pp and dp always, cp and ep when the
 * layout uses them. Readers and writers must agree on this set. */
RMI_HIDDEN bool rmi_map_axis_shown(const rm_layout *l, rm_axis a);

/* Rendering per format (map_json.c, map_text.c, map_write.c). */
RMI_HIDDEN rm_status rmi_map_json(const rm_map *m, bool yaml, rm_buf *b,
				  rm_error *err);
RMI_HIDDEN rm_status rmi_map_text(const rm_map *m, rm_buf *b, rm_error *err);
/* KEY=value lines: the job-wide variables (MASTER_PORT when master_port
 * is not 0), then (rank >= 0) those of the task playing `rank`, as the
 * SPANK plugin would set them. */
RMI_HIDDEN rm_status rmi_map_env(const rm_map *m, int64_t rank,
				 uint32_t master_port, rm_buf *b,
				 rm_error *err);

/* pp_cross against its lower bound for people: "optimal", "at least
 * twice its lower bound (N vs bound B)" or "not proven optimal"; the
 * text report, the comparison and the picture all say it this way. */
RMI_HIDDEN const char *rmi_pp_bound_words(const rm_report *r, char *buf,
					  size_t n);

/* The validation object of a map file back into `rp` (warnings are
 * malloc'd; rm_map_free releases them with the map). */
RMI_HIDDEN rm_status rmi_report_read(const rmi_ynode *v, const char *file,
				     rm_report *rp, rm_error *err);

/* rm_map_read_assignment over text in memory; `name` stands for the file
 * in messages (rmi_map_stream_text below is rm_map_read's). */
RMI_HIDDEN rm_status rmi_map_parse_assignment(const char *text, size_t len,
					      const char *name,
					      const rm_layout *l,
					      const rm_order *o,
					      uint32_t gpus_per_node,
					      rm_map **out, rm_error *err);

/*
 * A map file read in phases (map_read.c), as the one-pass reader
 * (map_stream.c) meets its parts: head (keys,
 * schema, layout, nodes; `root` holds everything before "ranks"), each
 * rank record, the end of the records, each kind of "groups" and
 * "expert_groups", tail (the
 * validation object and digest; `root` holds every top-level key).
 */
typedef struct rmi_mapread rmi_mapread;
RMI_HIDDEN rmi_mapread *rmi_mr_new(const char *file, rm_error *err);
/* Frees the reader; returns its map when keep, else frees that too. */
RMI_HIDDEN rm_map *rmi_mr_free(rmi_mapread *mr, bool keep);
RMI_HIDDEN rm_status rmi_mr_head(rmi_mapread *mr, const rmi_ynode *root);
RMI_HIDDEN rm_status rmi_mr_rank(rmi_mapread *mr, const rmi_ynode *rec);
RMI_HIDDEN rm_status rmi_mr_ranks_end(rmi_mapread *mr);
RMI_HIDDEN rm_status rmi_mr_groups(rmi_mapread *mr, const rmi_ynode *key,
				   const rmi_ynode *list, bool expert);
RMI_HIDDEN rm_status rmi_mr_tail(rmi_mapread *mr, const rmi_ynode *root);

/* rm_map_read(_digest), every size through the stream reader;
 * sha256_hex may be NULL. */
RMI_HIDDEN rm_status rmi_map_read_file(const char *path, rm_map **out,
				       char *sha256_hex, rm_error *err);
/* The same reader over text in memory (tests, fuzzing). */
RMI_HIDDEN rm_status rmi_map_stream_text(const char *text, size_t len,
					 const char *name, rm_map **out,
					 rm_error *err);



/* Two reports side by side for people, columns headed name_a and name_c
 * (map_text.c; rm_report_compare_priced_text without the prices). */
void rm_report_compare_text(rm_buf *b, const rm_report *a,
			    const char *name_a, const rm_report *c,
			    const char *name_c);

/* rm_plan on options this library's version (plan_api.c upgrades a
 * caller's), with the fabric's digest when the caller has it: place/'s
 * placement, scored by rm_check (plan.c). */
RMI_HIDDEN rm_status rmi_plan(const rm_plan_options *opts,
			      const char *fabric_digest, rm_map **out,
			      rm_error *err);

#endif
