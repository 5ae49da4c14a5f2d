/* buf.c - growable text buffer and whole-file reads. */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void rmi_buf_init(rmi_buf *b)
{
	memset(b, 0, sizeof(*b));
}

void rmi_buf_free(rmi_buf *b)
{
	free(b->data);
	rmi_buf_init(b);
}

bool rmi_buf_reserve(rmi_buf *b, size_t extra)
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

void rmi_buf_add(rmi_buf *b, const char *s, size_t n)
{
	if (!rmi_buf_reserve(b, n))
		return;
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void rmi_buf_puts(rmi_buf *b, const char *s)
{
	rmi_buf_add(b, s, strlen(s));
}

void rmi_buf_printf(rmi_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !rmi_buf_reserve(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void rmi_buf_u64(rmi_buf *b, uint64_t v)
{
	char tmp[24];
	int i = 23;
	tmp[i] = '\0';
	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	rmi_buf_add(b, tmp + i, (size_t)(23 - i));
}

void rmi_buf_json_str(rmi_buf *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	rmi_buf_add(b, "\"", 1);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\') {
			char e[2] = { '\\', (char)*p };
			rmi_buf_add(b, e, 2);
		} else if (*p < 0x20) {
			char e[6] = { '\\', 'u', '0', '0', hex[*p >> 4],
				      hex[*p & 15] };
			rmi_buf_add(b, e, 6);
		} else {
			rmi_buf_add(b, (const char *)p, 1);
		}
	}
	rmi_buf_add(b, "\"", 1);
}

void rmi_buf_env(rmi_buf *b, const char *key, const char *val)
{
	/* Single quotes unless the value is made of characters no shell
	 * treats specially, so `. <(rankmap ... --format env)` is safe;
	 * control bytes are dropped so one variable stays on one line. */
	if (!val)
		val = "";
	rmi_buf_puts(b, key);
	rmi_buf_add(b, "=", 1);
	bool plain = *val != '\0';
	for (const char *p = val; *p && plain; p++)
		plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			       "0123456789_:,=./@%+-", *p) != NULL;
	if (plain) {
		rmi_buf_puts(b, val);
	} else {
		rmi_buf_add(b, "'", 1);
		for (const char *p = val; *p; p++) {
			if (*p == '\'')
				rmi_buf_puts(b, "'\\''");
			else if ((unsigned char)*p >= 0x20)
				rmi_buf_add(b, p, 1);
		}
		rmi_buf_add(b, "'", 1);
	}
	rmi_buf_add(b, "\n", 1);
}

char *rmi_buf_take(rmi_buf *b, size_t *len)
{
	if (b->oom) {
		rmi_buf_free(b);
		return NULL;
	}
	if (!b->data) {
		if (!rmi_buf_reserve(b, 0))
			return NULL;
		b->data[0] = '\0';
	}
	char *p = b->data;
	if (len)
		*len = b->len;
	rmi_buf_init(b);
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

rm_status rmi_read_file(const char *path, char **out, size_t *len,
			rm_error *err)
{
	*out = NULL;
	if (len)
		*len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return rmi_err_at(err, RM_EIO, path, 0, 0, "cannot open: %s",
				  strerror(errno));
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return rmi_err_at(err, RM_EIO, path, 0, 0,
				  "not a regular file");
	}
	if ((uint64_t)st.st_size > RM_MAX_INPUT) {
		close(fd);
		return rmi_err_at(err, RM_EINPUT, path, 0, 0,
				  "file is %lld bytes, more than the %u allowed",
				  (long long)st.st_size, RM_MAX_INPUT);
	}
	size_t cap = (size_t)st.st_size + 1, n = 0;
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
