/* SPDX-License-Identifier: Apache-2.0 */
/* errors.c - errors as values for librankmap-nccl, and small helpers. */
#include "nccl_internal.h"

#include <stdarg.h>
#include <string.h>
#include <time.h>

const char *rmn_status_name(rmn_status s)
{
	switch (s) {
	case RMN_OK: return "ok";
	case RMN_EINPUT: return "invalid input";
	case RMN_ENOMEM: return "out of memory";
	case RMN_ENET: return "network error";
	case RMN_ETIMEOUT: return "timed out";
	case RMN_EREFUSED: return "refused";
	case RMN_ENOCUDA: return "no CUDA device";
	case RMN_ENCCL: return "NCCL error";
	case RMN_EAUTH: return "authentication failed";
	}
	return "unknown status";
}

rmn_status rmni_err(rmn_error *err, rmn_status code, const char *fmt, ...)
{
	if (!err)
		return code;
	err->code = code;
	err->nccl = 0;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}

rmn_status rmni_from_rm(rmn_error *err, const rm_error *e)
{
	rmn_status code;
	switch (e->code) {
	case RM_ENOMEM: code = RMN_ENOMEM; break;
	case RM_OK: code = RMN_OK; break;
	default: code = RMN_EINPUT; break;
	}
	return rmni_err(err, code, "%s", e->msg);
}

int64_t rmni_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void rmni_ranges(const uint32_t *v, size_t n, char *out, size_t cap)
{
	size_t o = 0;
	if (!cap)
		return;
	out[0] = '\0';
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j + 1 < n && v[j + 1] == v[j] + 1)
			j++;
		char item[48];
		if (j > i)
			snprintf(item, sizeof(item), "%s%u-%u", i ? ", " : "",
				 v[i], v[j]);
		else
			snprintf(item, sizeof(item), "%s%u", i ? ", " : "",
				 v[i]);
		size_t len = strlen(item);
		/* Keep room for the tail that says how many were left out. */
		if (o + len + 24 >= cap) {
			snprintf(out + o, cap - o, " ... (%zu more)", n - i);
			return;
		}
		memcpy(out + o, item, len + 1);
		o += len;
		i = j + 1;
	}
}
