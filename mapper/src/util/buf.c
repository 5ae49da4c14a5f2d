/* SPDX-License-Identifier: Apache-2.0 */
/* buf.c - growable text buffer, string arrays and whole-file reads. */
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void rm_buf_init(rm_buf *b)
{
	memset(b, 0, sizeof(*b));
}

void rm_buf_clear(rm_buf *b)
{
	free(b->data);
	rm_buf_init(b);
}

bool rm_buf_reserve(rm_buf *b, size_t extra)
{
	if (b->oom)
		return false;
	if (b->len + extra + 1 <= b->cap)
		return true;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + extra + 1) {
		if (cap > SIZE_MAX / 2) {
			b->oom = true;
			return false;
		}
		cap *= 2;
	}
	char *p = realloc(b->data, cap);
	if (!p) {
		b->oom = true;
		return false;
	}
	b->data = p;
	b->cap = cap;
	return true;
}

void rm_buf_add(rm_buf *b, const char *s, size_t n)
{
	if (!rm_buf_reserve(b, n))
		return;
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void rm_buf_puts(rm_buf *b, const char *s)
{
	rm_buf_add(b, s, strlen(s));
}

void rm_buf_printf(rm_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !rm_buf_reserve(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void rm_buf_u64(rm_buf *b, uint64_t v)
{
	char tmp[24];
	int i = 23;
	tmp[i] = '\0';
	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	rm_buf_add(b, tmp + i, (size_t)(23 - i));
}

void rm_buf_json_str(rm_buf *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	rm_buf_add(b, "\"", 1);
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	while (*p) {
		/* Plain runs are copied whole: map files are mostly names. */
		const unsigned char *run = p;
		while (*p >= 0x20 && *p != 0x7f && *p != '"' && *p != '\\')
			p++;
		rm_buf_add(b, (const char *)run, (size_t)(p - run));
		if (!*p)
			break;
		if (*p == '"' || *p == '\\') {
			char esc[2] = { '\\', (char)*p };
			rm_buf_add(b, esc, 2);
		} else {
			/* Control bytes and DEL: YAML refuses them raw. */
			char esc[6] = { '\\', 'u', '0', '0', hex[*p >> 4],
					hex[*p & 15] };
			rm_buf_add(b, esc, 6);
		}
		p++;
	}
	rm_buf_add(b, "\"", 1);
}

void rm_buf_env(rm_buf *b, const char *key, const char *val)
{
	/* Single quotes unless the value is made of characters no shell
	 * treats specially, so `. <(rankmap ... --format env)` is safe;
	 * control bytes are dropped so one variable stays on one line. */
	if (!val)
		val = "";
	rm_buf_puts(b, key);
	rm_buf_add(b, "=", 1);
	bool plain = *val != '\0';
	for (const char *p = val; *p && plain; p++)
		plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			       "0123456789_:,=./@%+-", *p) != NULL;
	if (plain) {
		rm_buf_puts(b, val);
	} else {
		rm_buf_add(b, "'", 1);
		for (const char *p = val; *p; p++) {
			if (*p == '\'')
				rm_buf_puts(b, "'\\''");
			else if ((unsigned char)*p >= 0x20)
				rm_buf_add(b, p, 1);
		}
		rm_buf_add(b, "'", 1);
	}
	rm_buf_add(b, "\n", 1);
}

char *rm_buf_take(rm_buf *b, size_t *len)
{
	if (b->oom) {
		rm_buf_clear(b);
		return NULL;
	}
	if (!b->data) {
		if (!rm_buf_reserve(b, 0))
			return NULL;
		b->data[0] = '\0';
	}
	char *p = b->data;
	if (len)
		*len = b->len;
	rm_buf_init(b);
	return p;
}

bool rmi_grow(void **arr, size_t *cap, size_t need, size_t elsize)
{
	if (need <= *cap)
		return true;
	size_t c = *cap ? *cap * 2 : 16;
	while (c < need)
		c *= 2;
	void *p = realloc(*arr, c * elsize);
	if (!p)
		return false;
	*arr = p;
	*cap = c;
	return true;
}

size_t rmi_copy_out(const char *src, size_t len, char *buf, size_t n)
{
	if (buf && n) {
		size_t c = len < n ? len : n - 1;
		memcpy(buf, src, c);
		buf[c] = '\0';
	}
	return len;
}

void rmi_strv_free(char **v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

char *rmi_dup_or_null(const char *s, bool *oom)
{
	if (!s)
		return NULL;
	char *p = strdup(s);
	if (!p)
		*oom = true;
	return p;
}

int rmi_word_find(const char *s, const rmi_word *w)
{
	for (; w->word; w++)
		if (strcmp(s, w->word) == 0)
			return w->value;
	return -1;
}

rm_status rmi_open_file(const char *path, int *fd, uint64_t *size,
			rm_error *err)
{
	*fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (*fd < 0)
		return rmi_err_at(err, RM_EIO, path, 0, 0, "cannot open: %s",
				  strerror(errno));
	struct stat st;
	if (fstat(*fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(*fd);
		*fd = -1;
		return rmi_err_at(err, RM_EIO, path, 0, 0,
				  "not a regular file");
	}
	*size = (uint64_t)st.st_size;
	return RM_OK;
}

rm_status rm_file_read(const char *path, char **out, size_t *len,
			rm_error *err)
{
	*out = NULL;
	if (len)
		*len = 0;
	int fd;
	uint64_t size;
	rm_status st = rmi_open_file(path, &fd, &size, err);
	if (st)
		return st;
	if (size > RM_MAX_INPUT) {
		close(fd);
		return rmi_err_at(err, RM_EINPUT, path, 0, 0,
				  "file is %lld bytes, more than the %u allowed",
				  (long long)size, RM_MAX_INPUT);
	}
	size_t cap = (size_t)size + 1, n = 0;
	char *p = malloc(cap);
	if (!p) {
		close(fd);
		return rmi_err(err, RM_ENOMEM, "%s: out of memory", path);
	}
	for (;;) {
		if (n + 1 >= cap) {
			/* The file grew while we read it: stay bounded. */
			if (cap > RM_MAX_INPUT) {
				free(p);
				close(fd);
				return rmi_err_at(err, RM_EINPUT, path, 0, 0,
						  "file larger than %u bytes",
						  RM_MAX_INPUT);
			}
			char *q = realloc(p, cap * 2);
			if (!q) {
				free(p);
				close(fd);
				return rmi_err(err, RM_ENOMEM,
					       "%s: out of memory", path);
			}
			p = q;
			cap *= 2;
		}
		ssize_t r = read(fd, p + n, cap - n - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			free(p);
			close(fd);
			return rmi_err_at(err, RM_EIO, path, 0, 0,
					  "read failed: %s", strerror(e));
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	p[n] = '\0';
	*out = p;
	if (len)
		*len = n;
	return RM_OK;
}

rm_status rmi_parse_file(const char *path, rmi_parse_fn parse, void *obj,
			 rm_error *err)
{
	char *text;
	size_t len;
	rm_status st = rm_file_read(path, &text, &len, err);
	if (st)
		return st;
	st = parse(obj, text, len, path, err);
	free(text);
	return st;
}
