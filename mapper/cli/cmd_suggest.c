/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_suggest.c - `rankmap suggest`: the fastest layouts that fit. */
#include "cmd_model.h"
#include "rankmap_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void help(FILE *f)
{
	fputs("usage: rankmap suggest --model M --gpus N [--hw H] [--top N]\n"
	      "         [--batch TOKENS] [--seq N] [--recompute R] [--sharding S]\n"
	      "         [--max-cp N] [--max-mb N] [--around LAYOUT] [--schedules L]\n"
	      "         [--set KEY=VALUE]... [--format text|json]\n\n"
	      "  Tries tp = 1, 2, 4 ... up to 4 NVLink domains, cp = 1, 2, 4 ... as far\n"
	      "  as the sequence allows (--max-cp), every pp dividing the rest, dp =\n"
	      "  the rest, micro-batches 1 .. --max-mb (8), the schedules and, unless\n"
	      "  --recompute is given, selective and full recomputation; drops what\n"
	      "  does not fit memory, ranks the rest by predicted step time (closer\n"
	      "  than 1 % is a tie, said so) and says why each neighbour of #1\n"
	      "  (tp x2, tp /2, pp x2, pp /2, cp x2, cp /2, mb x2, mb /2) lost.\n"
	      "  --around LAYOUT  show where LAYOUT ranks and why its neighbours lose\n"
	      "                   (default: the layout published for the model\n"
	      "                   on this many GPUs, if any; best: #1's)\n"
	      "  --schedules L    e.g. zb-v,interleaved (default: Megatron-LM's own,\n"
	      "                   1f1b and interleaved:V; also zb-h1, zb-h2, zb-v)\n"
	      "  --top N          rows to show (default 10)\n"
	      "  Model, hardware and training options as in `rankmap explain --help`.\n\n"
	      "exit: 0 at least one layout fits, 1 none does, 2 usage or input error\n",
	      f);
}

/* 1-based rank of layout `lay` in s, 0 when it is not ranked. */
static size_t rank_of(const rm_suggestion *s, const char *lay)
{
	char buf[96];
	for (size_t i = 0; i < rm_suggestion_count(s); i++)
		if (rm_suggestion_layout(s, i, buf, sizeof(buf)) < sizeof(buf) &&
		    !strcmp(buf, lay))
			return i + 1;
	return 0;
}

/* Its rank with the published run's batch and/or sharding over a's
 * training settings; 0 when unranked or the run fails. The search ranks
 * only as far as the report reaches (rm_suggestion_count), so `lay` is
 * the layout compared: it is then ranked wherever it falls. */
static size_t rank_with(const rmc_model_args *a, const rm_suggest_options *o,
			const char *lay, const char *batch,
			const char *sharding)
{
	rm_train t = a->train;
	rm_error e;
	memset(&e, 0, sizeof(e));
	if ((batch && rm_train_set(&t, "batch", batch, &e)) ||
	    (sharding && rm_train_set(&t, "sharding", sharding, &e)))
		return 0;
	rm_layout l;
	rm_suggest_options o2 = *o;
	if (rm_layout_parse(lay, &l, &e) ||
	    rm_layout_resolve(&l, a->gpus, true, &e))
		return 0;
	o2.around = &l;
	rm_suggestion *s = NULL;
	if (rm_suggest(&a->model, &a->hw, &t, &o2, &s, &e))
		return 0;
	size_t r = rank_of(s, lay);
	rm_suggestion_free(s);
	return r;
}

static void rank_text(char *buf, size_t n, size_t r)
{
	if (r)
		snprintf(buf, n, "#%zu", r);
	else
		snprintf(buf, n, "not ranked");
}

/*
 * The seed question (issue 40.4): on the defaults, the layout a model's
 * authors published can rank low only because the defaults are not
 * their run's (4M tokens and ZeRO-1 against Meta's 16M and ZeRO-2 put
 * Llama 3 405B's 8x16x128 at #65). Out of the top three, one line says
 * which default keeps it out: where it ranks with the run's batch and
 * sharding, together and each alone.
 */
static void published_defaults(const rmc_model_args *a,
			       const rm_suggest_options *o,
			       const rm_suggestion *s)
{
	const char *batch, *sharding;
	const char *lay = rm_model_published_run(&a->model, a->gpus, &batch,
						 &sharding);
	if (!lay || a->batch_given || a->sharding_given)
		return;
	size_t r = rank_of(s, lay);
	/* compared with another layout (--around), s may stop short of it */
	if (!r && !o->around_source)
		r = rank_with(a, o, lay, NULL, NULL);
	if (r && r <= 3)
		return;
	char now[24], both[24], b[24], sh[24];
	rank_text(now, sizeof(now), r);
	rank_text(both, sizeof(both), rank_with(a, o, lay, batch, sharding));
	rank_text(b, sizeof(b), rank_with(a, o, lay, batch, NULL));
	rank_text(sh, sizeof(sh), rank_with(a, o, lay, NULL, sharding));
	static const char *const shard[] = { "none", "zero1", "zero2", "fsdp" };
	unsigned k = (unsigned)a->train.sharding;
	char def[24];
	snprintf(def, sizeof(def), "%llu", (unsigned long long)a->train.batch_tokens);
	if (a->train.batch_tokens % (1u << 20) == 0)
		snprintf(def, sizeof(def), "%lluM",
			 (unsigned long long)(a->train.batch_tokens >> 20));
	printf("\n%s is %s on the defaults, which keep it out of the top three: "
	       "batch %s (published %s) and sharding %s (published %s); with "
	       "both as published (--batch %s --sharding %s) it is %s (the "
	       "batch alone: %s, the sharding alone: %s)\n",
	       lay, now, def, batch, k < 4 ? shard[k] : "?", sharding, batch,
	       sharding, both, b, sh);
}

int rmc_suggest(int argc, char **argv)
{
	rmc_model_args a;
	int rc = rmc_model_parse(argc, argv, RMC_SUGGEST, &a, help);
	if (rc >= 0)
		return rc;
	rm_error e;
	memset(&e, 0, sizeof(e));
	rm_layout around;
	rm_suggest_options o = RM_SUGGEST_OPTIONS_INIT;
	o.gpus = a.gpus;
	o.top = a.top;
	o.max_cp = a.max_cp;
	o.max_mb = a.max_mb;
	o.schedules = a.schedules;
	o.recomputes = a.recompute_given ? 0
					 : (1u << RM_RECOMPUTE_SELECTIVE) |
						   (1u << RM_RECOMPUTE_FULL);
	/* no --around: the layout the model's authors published for this
	 * many GPUs, where there is one (the question a user of a published
	 * recipe asks first) */
	const char *src = NULL;
	if (a.around && !strcmp(a.around, "best"))
		a.around = NULL; /* #1's neighbours, even where one was published */
	else if (!a.around &&
		 (a.around = rm_model_published_layout(&a.model, a.gpus, &src)))
		o.around_source = src;
	if (a.around) {
		if (rm_layout_parse(a.around, &around, &e) ||
		    rm_layout_resolve(&around, a.gpus, true, &e)) {
			return rmc_usage("--around %s: %s", a.around, e.msg);
		}
		o.around = &around;
	}
	rm_suggestion *s = NULL;
	rm_status st = rm_suggest(&a.model, &a.hw, &a.train, &o, &s, &e);
	if (st) {
		return rmc_fail(&e);
	}
	char *text = NULL;
	size_t len = 0;
	st = rm_suggestion_write(&a.model, &a.hw, &a.train, &o, s, a.fmt,
				 &text, &len, &e);
	if (st) {
		rm_suggestion_free(s);
		return rmc_fail(&e);
	}
	fwrite(text, 1, len, stdout);
	free(text);
	if (a.fmt == RM_FMT_TEXT)
		published_defaults(&a, &o, s);
	rm_suggestion_free(s);
	return RMC_OK;
}
