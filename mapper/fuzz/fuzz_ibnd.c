/* fuzz_ibnd.c - ibnetdiscover text from arbitrary bytes, through the import. */
#include "internal.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size, 65536);
	if (!s)
		return 0;
	rm_import *im = NULL;
	rm_error e;
	if (rm_import_ibnetdiscover(s, size, "fuzz", NULL, &im, &e) == RM_OK) {
		/* Whatever imports writes a topology.conf that rankmap reads. */
		char *topo, *site, *rep;
		size_t n;
		if (rm_import_write(im, RM_IMPORT_TOPOLOGY, &topo, &n, &e))
			abort();
		rm_fabric *f = NULL;
		if (rm_fabric_new(&f, &e) == RM_OK) {
			if (rm_fabric_parse_topology(f, topo, n, "import", &e))
				abort();
			rm_fabric_free(f);
		}
		if (rm_import_write(im, RM_IMPORT_SITE, &site, &n, &e) ||
		    rm_import_write(im, RM_IMPORT_REPORT, &rep, &n, &e))
			abort();
		rm_site st;
		if (rm_site_parse(site, strlen(site), "site", &st, &e))
			abort();
		rm_site_free(&st);
		free(topo);
		free(site);
		free(rep);
		rm_import_free(im);
	} else if (!strstr(e.msg, "fuzz") && e.code != RM_ENOMEM) {
		abort();
	}
	free(s);
	return 0;
}
