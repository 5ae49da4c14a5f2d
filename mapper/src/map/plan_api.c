/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plan_api.c - rm_plan's public entry: the caller's options, of whatever
 * version its header had, become this library's before place/ sees them.
 */
#include "mapio.h"
#include "place/place.h"

#include <stddef.h>
#include <string.h>

/* Version 1 ends where version 2's baseline_kind begins; the padding a
 * version 1 caller leaves there is never read. */
static const size_t plan_sizes[] = {
	[1] = offsetof(rm_plan_options, baseline_kind),
	[2] = sizeof(rm_plan_options),
};

rm_status rm_plan_with_digest(const rm_plan_options *opts,
			      const char *fabric_digest, rm_map **out,
			      rm_error *err)
{
	if (out)
		*out = NULL;
	if (!opts)
		return rmi_err(err, RM_EINPUT, "plan: no options given");
	rm_plan_options o = RM_PLAN_OPTIONS_INIT;
	rm_status st = rmi_versioned(opts, plan_sizes,
				     sizeof(plan_sizes) / sizeof(*plan_sizes),
				     &o, "rm_plan_options", err);
	if (st)
		return st;
	if (o.baseline && !rm_baseline_name(o.baseline_kind))
		return rmi_err(err, RM_EINPUT, "plan: baseline kind %u is not "
			       "one of slurm, sorted, switch-rank",
			       (unsigned)o.baseline_kind);
	return rmi_plan(&o, fabric_digest, out, err);
}

rm_status rm_plan(const rm_plan_options *opts, rm_map **out, rm_error *err)
{
	return rm_plan_with_digest(opts, NULL, out, err);
}
