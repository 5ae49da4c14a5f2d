/* SPDX-License-Identifier: Apache-2.0 */
/*
 * model_suggest.h - what the three parts of `suggest` share: the search's
 * bounds (model_suggest.c enumerates the layouts within them), pricing one
 * layout (model_suggest_price.c) and the compared layout with its
 * neighbours (model_suggest_around.c), and the search's order, floor and
 * report (model_suggest_order.c, _bound.c, _text.c). Only these files
 * include it; the folder's header stays model_int.h.
 */
#ifndef RM_MODEL_SUGGEST_H
#define RM_MODEL_SUGGEST_H

#include "model/model_int.h"

/* One search: its inputs and the bounds derived from them, which the
 * compared layout's report names when that layout falls outside them. */
typedef struct rmi_search {
	const rm_model *m;
	const rm_hw *hw;
	const rm_train *t;
	const rm_suggest_options *o;
	uint64_t gpus;
	uint32_t seq;
	uint32_t max_cp, max_mb, max_tp;
	/* m's shape with t, derived once for every estimate of the search
	 * (the reference derives it afresh for each) */
	rmi_shape shape;
	/* price every pair from scratch, no shortcut: the reference the
	 * tests hold the shortcuts to (rmi_suggest_reference) */
	bool reference;
} rmi_search;

/* model_suggest.c: the layout tp x cp x pp x dp nested as explain argues. */
RMI_HIDDEN void rmi_suggest_layout(rm_layout *l, uint32_t tp, uint32_t cp,
				   uint32_t pp, uint32_t dp);

/* The same with ep experts-parallel ranks and experts split etp ways
 * (etp = tp and ep = 1: the dense layout); false when etp x ep does not
 * divide tp x cp x dp. */
RMI_HIDDEN bool rmi_suggest_layout_ep(rm_layout *l, uint32_t tp, uint32_t cp,
				      uint32_t pp, uint32_t dp, uint32_t ep,
				      uint32_t etp);

/* model_suggest_price.c: the fastest valid schedule and recomputation of
 * layout l at micro-batch mb (0 sets: Megatron's schedules, t's
 * recomputation); false when none is valid, out->why then says why. */
RMI_HIDDEN bool rmi_best_schedule(const rm_model *m, const rm_hw *hw,
				  const rm_train *t, const rm_layout *l,
				  uint32_t mb, unsigned schedules,
				  unsigned recomputes, rm_candidate *out);
/* The fastest micro-batch of l on hw (1, 2, 4 .. max_mb); false when
 * none is valid, and then *mem (may be NULL) says whether *best is the
 * first that failed for memory alone. *considered (may be NULL) counts
 * the micro-batches tried. */
RMI_HIDDEN bool rmi_best_micro_batch(const rmi_search *q, const rm_hw *hw,
				     const rm_layout *l, rm_candidate *best,
				     bool *mem, size_t *considered);

/* What memory alone says of a layout at each micro-batch (1, 2, 4 ..
 * max_mb), found without its time: which fit, and when none does,
 * whether memory is why (the reference's rmi_best_micro_batch's *mem)
 * and the variant nearest to fitting at the first micro-batch it
 * misses, with its memory only. */
typedef struct rmi_fit {
	unsigned mask;               /* bit k: micro-batch 2^k fits */
	size_t nmb;                  /* micro-batches counted */
	bool mem;
	uint32_t mem_mb;
	rm_estimate near;            /* set only where mem is */
} rmi_fit;
RMI_HIDDEN void rmi_fit_scan(const rmi_search *q, const rm_layout *l,
			     rmi_fit *out);
/* rmi_best_micro_batch of a layout that fits at the micro-batches in
 * mask, which are all it prices (counted in *priced), each variant's
 * time only where its memory fits; memo: l's EP links. */
RMI_HIDDEN bool rmi_price_fitting(const rmi_search *q, const rm_layout *l,
				  unsigned mask, rmi_ep_memo *memo,
				  rm_candidate *best, size_t *priced);
/* The micro-batches whose floor terms a layout keeps between its two
 * floors: 1 .. 8, the default max_mb; above, the floor recomputes. */
#define RMI_BOUND_MBS 4
/* The rejects a report lists: the nearest to fitting memory. */
#define RMI_REJECTS_SHOWN 5
/* What a layout's first floor (the fastest EP links) keeps of each
 * micro-batch: its terms but the communication, which rmi_compute does
 * not read. The second floor (the layout's own EP links) changes the EP
 * exposure only, so it takes them rather than run rmi_compute again at
 * each smaller micro-batch; where the largest one's compute, optimizer
 * step or DP tail came out otherwise, it recomputes them all. */
typedef struct rmi_bound_keep {
	bool set;
	double dps;                       /* the DP tail they were taken with */
	double compute[RMI_BOUND_MBS], bubble[RMI_BOUND_MBS],
	       dp[RMI_BOUND_MBS], optim[RMI_BOUND_MBS];
} rmi_bound_keep;
/* A lower bound of l's step time at any micro-batch in mask, schedule
 * and recomputation (model_suggest_bound.c); memo: l's EP links. keep
 * (may be NULL): filled where unset, taken from where set. */
RMI_HIDDEN double rmi_suggest_bound(const rmi_search *q, const rm_layout *l,
				    unsigned mask, rmi_ep_memo *memo,
				    rmi_bound_keep *keep);
/* EP links as fast as any of q's hardware: a floor with them (memo)
 * bounds the floor with the layout's own. */
RMI_HIDDEN void rmi_suggest_fast_links(const rmi_search *q,
				       rmi_ep_memo *memo);
/* model_suggest_order.c: the search that times only what the report
 * can show, cheapest bound first (s->ranked then holds those). */
RMI_HIDDEN bool rmi_suggest_ordered(const rmi_search *q, const rm_layout *lay,
				    size_t n, rm_suggestion *s);
/* model_suggest.c: the ranking's orders, and c appended to v (n of
 * cap); false: out of memory. */
RMI_HIDDEN int rmi_by_time(const void *a, const void *b);
RMI_HIDDEN int rmi_by_mem(const void *a, const void *b);
RMI_HIDDEN bool rmi_suggest_push(rm_candidate **v, size_t *n, size_t *cap,
				 const rm_candidate *c);

/* model_suggest_around.c: s->base becomes o->around, ranked or priced
 * apart, with how much memory holds it back (s->unbounded). */
RMI_HIDDEN rm_status rmi_suggest_around(const rmi_search *q,
					rm_suggestion *s, rm_error *err);
/* The neighbours of the compared layout, as it would run with the memory
 * when memory holds it back; none when it is not valid. */
RMI_HIDDEN void rmi_suggest_neighbours(const rmi_search *q, rm_suggestion *s);

#endif
