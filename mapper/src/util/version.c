/* SPDX-License-Identifier: Apache-2.0 */
/*
 * version.c - the library's version, and the one rule every versioned
 * options struct follows: fields are only ever appended, so a caller's
 * struct of an older version is a prefix of this library's, and the
 * fields it lacks keep the defaults.
 */
#include "util/util.h"

#include <string.h>

const char *rm_version(void)
{
	return RM_VERSION_STRING;
}

rm_status rmi_versioned(const void *in, const size_t *sizes, unsigned nsizes,
			void *full, const char *what, rm_error *err)
{
	/* `version` is the first member of every versioned struct. */
	unsigned version;
	memcpy(&version, in, sizeof(version));
	if (version == 0 || version >= nsizes || sizes[version] == 0)
		return rmi_err(err, RM_EUNSUPPORTED,
			       "%s version %u: this librankmap (%s) knows "
			       "versions 1-%u (declare the struct with its "
			       "_INIT macro or init function)",
			       what, version, RM_VERSION_STRING, nsizes - 1);
	memcpy(full, in, sizes[version]);
	return RM_OK;
}
