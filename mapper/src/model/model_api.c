/* SPDX-License-Identifier: Apache-2.0 */
/*
 * model_api.c - the cost model's objects for programs: rm_estimate and
 * rm_suggestion are read through these accessors, and a caller's rm_train
 * and rm_suggest_options of any known version become this library's
 * before the model reads them. Inside the library estimates stay values
 * (rmi_estimate_run): suggest prices thousands without an allocation.
 */
#include "model_int.h"

#include <stddef.h>
#include <stdlib.h>

static const size_t train_sizes[] = {
	[1] = offsetof(rm_train, moe_overlap),
	[2] = offsetof(rm_train, fp8),
	[3] = offsetof(rm_train, coll_base_us),
	[4] = sizeof(rm_train),
};

static const size_t suggest_sizes[] = {
	[1] = sizeof(rm_suggest_options),
};

#define NSIZES(a) ((unsigned)(sizeof(a) / sizeof(*(a))))

rm_status rm_train_init(rm_train *t, unsigned version)
{
	rm_train full;
	rmi_train_defaults(&full);
	if (version == 0 || version >= NSIZES(train_sizes))
		return RM_EUNSUPPORTED;
	memcpy(t, &full, train_sizes[version]);
	t->version = version;
	return RM_OK;
}

/* A caller's struct `in` of any known version as this library's `out`,
 * which holds the defaults already; what = the type's name. */
static rm_status upgrade(const void *in, void *out, const size_t *sizes,
			 unsigned nsizes, const char *what, rm_error *err)
{
	if (!in)
		return rmi_err(err, RM_EINPUT, "no %s given", what);
	rm_status st = rmi_versioned(in, sizes, nsizes, out, what, err);
	unsigned current = nsizes - 1;
	memcpy(out, &current, sizeof(current));
	return st;
}

rm_status rmi_train_upgrade(const rm_train *in, rm_train *out, rm_error *err)
{
	rmi_train_defaults(out);
	return upgrade(in, out, train_sizes, NSIZES(train_sizes), "rm_train",
		       err);
}

rm_status rmi_suggest_upgrade(const rm_suggest_options *in,
			      rm_suggest_options *out, rm_error *err)
{
	*out = (rm_suggest_options)RM_SUGGEST_OPTIONS_INIT;
	return upgrade(in, out, suggest_sizes, NSIZES(suggest_sizes),
		       "rm_suggest_options", err);
}

/* rm_estimate_run (map NULL: the layout alone) and rm_estimate_map: the
 * caller's settings upgraded, the estimate allocated for the caller. */
static rm_status price(const rm_model *m, const rm_hw *hw, const rm_train *t,
		       const rm_layout *layout, const rm_map *map,
		       const rm_fabric *fabric, rm_estimate **out,
		       rm_error *err)
{
	if (!out)
		return rmi_err(err, RM_EINPUT, "estimate: no output given");
	*out = NULL;
	RMI_TRAIN_ARG(t, err);
	RMI_MODEL_HW_ARG(m, hw, err);
	rm_estimate *e = malloc(sizeof(*e));
	if (!e)
		return rmi_err(err, RM_ENOMEM, "out of memory");
	rm_status st = map ? rmi_estimate_map(m, hw, t, map, fabric, e, err)
			   : rmi_estimate_run(m, hw, t, layout, e, err);
	if (st) {
		free(e);
		return st;
	}
	*out = e;
	return RM_OK;
}

rm_status rm_estimate_run(const rm_model *m, const rm_hw *hw,
			  const rm_train *t, const rm_layout *layout,
			  rm_estimate **out, rm_error *err)
{
	return price(m, hw, t, layout, NULL, NULL, out, err);
}

rm_status rm_estimate_map(const rm_model *m, const rm_hw *hw,
			  const rm_train *t, const rm_map *map,
			  const rm_fabric *fabric, rm_estimate **out,
			  rm_error *err)
{
	if (!map)
		return rmi_err(err, RM_EINPUT, "estimate: no map given");
	return price(m, hw, t, NULL, map, fabric, out, err);
}

void rm_estimate_free(rm_estimate *e)
{
	free(e);
}

double rm_estimate_step_seconds(const rm_estimate *e) { return e->t_step; }
double rm_estimate_mfu(const rm_estimate *e) { return e->mfu; }
double rm_estimate_mfu_causal(const rm_estimate *e) { return e->mfu_causal; }
double rm_estimate_tokens_per_second(const rm_estimate *e) { return e->tokens_per_s; }
double rm_estimate_memory_peak(const rm_estimate *e) { return e->mem_peak; }
bool rm_estimate_fits(const rm_estimate *e) { return e->fits; }

double rm_estimate_axis_seconds(const rm_estimate *e, rm_axis a)
{
	return (unsigned)a < RM_NAXES ? e->axis[a].seconds : 0;
}

double rm_estimate_axis_exposed(const rm_estimate *e, rm_axis a)
{
	return (unsigned)a < RM_NAXES ? e->axis[a].exposed : 0;
}

size_t rm_suggestion_count(const rm_suggestion *s)
{
	return s->nranked;
}

size_t rm_suggestion_layout(const rm_suggestion *s, size_t i, char *buf,
			    size_t n)
{
	if (i >= s->nranked) {
		if (n)
			buf[0] = '\0';
		return 0;
	}
	return rm_layout_format(&s->ranked[i].est.layout, buf, n);
}

const rm_estimate *rm_suggestion_estimate(const rm_suggestion *s, size_t i)
{
	return i < s->nranked ? &s->ranked[i].est : NULL;
}

static const size_t model_sizes[] = {
	[1] = offsetof(rm_model, experts),
	[2] = sizeof(rm_model),
};

static const size_t hw_sizes[] = {
	[1] = offsetof(rm_hw, peak_fp8_flops),
	[2] = sizeof(rm_hw),
};

rm_status rmi_model_upgrade(const rm_model *in, rm_model *out, rm_error *err)
{
	memset(out, 0, sizeof(*out));
	return upgrade(in, out, model_sizes, NSIZES(model_sizes), "rm_model",
		       err);
}

rm_status rmi_hw_upgrade(const rm_hw *in, rm_hw *out, rm_error *err)
{
	memset(out, 0, sizeof(*out));
	return upgrade(in, out, hw_sizes, NSIZES(hw_sizes), "rm_hw", err);
}

/* Hand `full` to a caller's struct of the version it declared. */
static rm_status give(const void *full, void *out, const size_t *sizes,
		      unsigned nsizes, const char *what, rm_error *err)
{
	unsigned version;
	memcpy(&version, out, sizeof(version));
	if (version == 0 || version >= nsizes)
		return rmi_err(err, RM_EUNSUPPORTED,
			       "%s version %u: this librankmap (%s) knows "
			       "versions 1-%u (declare it with its _INIT macro)",
			       what, version, RM_VERSION_STRING, nsizes - 1);
	memcpy(out, full, sizes[version]);
	memcpy(out, &version, sizeof(version));
	return RM_OK;
}

rm_status rm_model_get(const char *spec, rm_model *out, rm_error *err)
{
	rm_model full;
	rm_status st = rmi_model_get(spec, &full, err);
	return st ? st : give(&full, out, model_sizes, NSIZES(model_sizes),
			      "rm_model", err);
}

/* rm_hw_get and rm_hw_preset: `get` fills this library's version. */
static rm_status give_hw(rm_status (*get)(const char *, rm_hw *, rm_error *),
			 const char *spec, rm_hw *out, rm_error *err)
{
	rm_hw full;
	rm_status st = get(spec, &full, err);
	return st ? st : give(&full, out, hw_sizes, NSIZES(hw_sizes), "rm_hw",
			      err);
}

rm_status rm_hw_get(const char *spec, rm_hw *out, rm_error *err)
{
	return give_hw(rmi_hw_get, spec, out, err);
}

rm_status rm_hw_preset(const char *name, rm_hw *out, rm_error *err)
{
	return give_hw(rmi_hw_preset, name, out, err);
}
