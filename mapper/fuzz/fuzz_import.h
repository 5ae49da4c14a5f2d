/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_import.h - the body the import fuzz targets share: run one
 * importer on the bytes; whatever it accepts must write all three parts
 * and a topology.conf rankmap reads back; whatever it refuses must say so
 * naming the input. */
#ifndef RANKMAP_FUZZ_IMPORT_H
#define RANKMAP_FUZZ_IMPORT_H
#include "internal.h"
#include "fuzz.h"

typedef rm_status (*fuzz_importer)(const char *, size_t, const char *,
				   const rm_import_options *, rm_import **,
				   rm_error *);

static inline int fuzz_import(const uint8_t *data, size_t size,
			      fuzz_importer imp)
{
	char *s = fuzz_cstr(data, size, 65536);
	if (!s)
		return 0;
	rm_import *im = NULL;
	rm_error e;
	if (imp(s, size, "fuzz", NULL, &im, &e) == RM_OK) {
		char *part[4];
		size_t n[4];
		for (int p = 0; p < 4; p++)
			if (rm_import_write(im, (rm_import_part)p, &part[p],
					    &n[p], &e))
				abort();
		/* Its topology.conf and topology.yaml, where it has a
		 * topology (an NVLink-only import writes neither, and an
		 * empty topology.conf is refused as slurmctld 26.05 does). */
		rm_fabric *f = NULL;
		if (rm_import_has_topology(im) &&
		    rm_fabric_new(&f, &e) == RM_OK) {
			if (rm_fabric_parse_topology(f, part[0], n[0], "import",
						     &e))
				abort();
			rm_fabric_free(f);
		}
		if (rm_import_has_topology(im) &&
		    rm_fabric_new(&f, &e) == RM_OK) {
			if (rm_fabric_parse_topology_yaml(f, part[3], n[3],
							  "import.yaml", NULL,
							  &e))
				abort();
			rm_fabric_free(f);
		}
		rm_site st;
		if (rmi_site_parse(part[1], n[1], "site", &st, &e))
			abort();
		rmi_site_clear(&st);
		for (int p = 0; p < 4; p++)
			free(part[p]);
		rm_import_free(im);
	} else if (!strstr(e.msg, "fuzz") && e.code != RM_ENOMEM) {
		abort();
	}
	free(s);
	return 0;
}
#endif
