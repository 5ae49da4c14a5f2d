/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_suggest.c - `rankmap suggest`: the fastest layouts that fit. */
#include "cmd_model.h"

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
	rm_suggestion_free(s);
	if (st) {
		return rmc_fail(&e);
	}
	fwrite(text, 1, len, stdout);
	free(text);
	return RMC_OK;
}
