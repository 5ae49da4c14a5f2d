/* SPDX-License-Identifier: Apache-2.0 */
/* model_needs.c - what a compared layout that memory holds back needs to
 * run as it would with more memory, and where it ranks then. */
#include "model/model_int.h"

#include <stdio.h>
#include <string.h>

static const char *const shard_words[] = {
	[RM_SHARD_ZERO2] = "sharded gradients: each micro-batch's reduce-"
			   "scattered after its backward, as DeepSpeed's stage "
			   "2 and FSDP run",
	[RM_SHARD_FSDP] = "sharded weights and gradients: gathered for every "
			  "micro-batch's forward and backward",
};

/*
 * The settings a framework could change without changing the layout:
 * first the gradients sharded (zero2), then the weights too (fsdp), each
 * with the recomputation the layout would choose with unlimited memory
 * (so no recomputation forced by memory). The first under which the
 * layout fits that way is kept, with the whole search redone under it:
 * every rank and every neighbour's reason are then priced alike. The
 * stage split stays the model's: with layers that do not divide, the
 * first and last stage get a layer less (they hold the embedding and
 * the output layer), as Megatron's account_for_embedding/loss does.
 */
void rmi_suggest_needs(const rm_model *m, const rm_hw *hw, const rm_train *t,
		       const rm_suggest_options *o, rm_suggestion *s)
{
	if (!o->around || !s->unbounded_rank)
		return;
	const rm_estimate *u = &s->unbounded.est;
	for (rm_sharding sh = RM_SHARD_ZERO2; sh <= RM_SHARD_FSDP; sh++) {
		if (sh <= t->sharding)
			continue;
		rm_train t2 = *t;
		t2.sharding = sh;
		rm_suggest_options o2 = *o;
		o2.recomputes = 1u << u->recompute;
		rm_suggestion *s2 = NULL;
		if (rm_suggest(m, hw, &t2, &o2, &s2, NULL))
			continue;
		if (s2->base_rank && s2->base.valid && !s2->unbounded_rank &&
		    s2->base.est.recompute == u->recompute) {
			const rm_estimate *b = &s2->base.est;
			char rl[24];
			uint32_t pp = b->layout.size[RM_AXIS_PP];
			char split[96] = "one stage";
			if (pp > 1)
				snprintf(split, sizeof(split),
					 "stages %u + %u x %u + %u", b->layers_first,
					 pp - 2, b->layers_stage, b->layers_last);
			snprintf(s->needs_what, sizeof(s->needs_what),
				 "sharding %s (%s), recompute %s; %s",
				 rm_sharding_name(sh), shard_words[sh],
				 rmi_recompute_label(b->recompute,
						     b->recompute_layers, rl),
				 split);
			s->needs = s2;
			return;
		}
		rm_suggestion_free(s2);
	}
}
