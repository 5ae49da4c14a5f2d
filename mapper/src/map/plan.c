/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plan.c - rm_plan's composition: place/ fills a map, rm_check scores it.
 * It lives in map/ because the map and its check are map/'s; place/ only
 * places, so the folders call each other in one direction (the order
 * tests/layers/layers.py checks).
 */
#include "mapio.h"
#include "place/place.h"

#include <stdlib.h>

rm_status rmi_plan(const rm_plan_options *opts, const char *fabric_digest,
		   rm_map **out, rm_error *err)
{
	if (out)
		*out = NULL;
	if (!out)
		return rmi_err(err, RM_EINPUT, "plan: no output given");
	rm_map *m = calloc(1, sizeof(*m));
	if (!m)
		return rmi_err(err, RM_ENOMEM, "out of memory");
	rm_status st = rmi_place(opts, fabric_digest, m, err);
	if (!st)
		st = rm_check(m, opts->fabric, err);
	if (st) {
		rm_map_free(m);
		return st;
	}
	*out = m;
	return RM_OK;
}
