/*
 * files.c - the per-node map file in a directory only the job's user can
 * enter: BASE/rankmap-UID/JOB.STEP.NODE/map.json. The node name is part of
 * the path because several "nodes" can share one /tmp (test clusters, or a
 * shared scratch directory).
 *
 * Writing happens with the user's effective ids, so nothing is created
 * where the user could not create it; removal may run as root and walks
 * the path with O_NOFOLLOW directory descriptors, checking the owner, so a
 * symbolic link planted in the user's directory cannot redirect it.
 */
#include "rms.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAP_NAME "map.json"
#define TMP_NAME ".map.json.tmp"

static bool bad(char *err, size_t errlen, const char *what, const char *path)
{
	snprintf(err, errlen, "%s %.400s: %s", what, path, strerror(errno));
	return false;
}

/* A directory we may use: ours, private, really a directory. */
static int open_private(int at, const char *name, const char *shown,
			uid_t uid, bool create, char *err, size_t errlen)
{
	if (create && mkdirat(at, name, 0700) != 0 && errno != EEXIST) {
		bad(err, errlen, "cannot create", shown);
		return -1;
	}
	int fd = openat(at, name,
			O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		bad(err, errlen, "cannot open", shown);
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) != 0) {
		bad(err, errlen, "cannot stat", shown);
		close(fd);
		return -1;
	}
	if (st.st_uid != uid || (st.st_mode & 077)) {
		snprintf(err, errlen,
			 "%.400s belongs to uid %lu with mode %04o; it must be "
			 "uid %lu's and private (0700): refusing to use it",
			 shown, (unsigned long)st.st_uid,
			 (unsigned)(st.st_mode & 07777), (unsigned long)uid);
		close(fd);
		return -1;
	}
	return fd;
}

static bool write_all(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t w = write(fd, data, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		data += w;
		len -= (size_t)w;
	}
	return true;
}

bool rms_file_write(rms_file *f, const char *base, uid_t uid, uint32_t jobid,
		    uint32_t stepid, const char *node, const char *data,
		    size_t len, char *err, size_t errlen)
{
	char top[256], leaf[300];
	memset(f, 0, sizeof(*f));
	if (!base || base[0] != '/' || strlen(base) > 200 || !node ||
	    !*node || strchr(node, '/') || strlen(node) > RM_MAX_HOSTNAME) {
		snprintf(err, errlen, "unusable map directory or node name");
		return false;
	}
	snprintf(top, sizeof(top), "rankmap-%lu", (unsigned long)uid);
	snprintf(leaf, sizeof(leaf), "%" PRIu32 ".%" PRIu32 ".%s", jobid,
		 stepid, node);
	if (snprintf(f->dir, sizeof(f->dir), "%s/%s/%s",
		     strcmp(base, "/") ? base : "", top, leaf) >=
		    (int)sizeof(f->dir) ||
	    snprintf(f->path, sizeof(f->path), "%s/" MAP_NAME, f->dir) >=
		    (int)sizeof(f->path)) {
		snprintf(err, errlen, "map directory name too long");
		return false;
	}

	int bfd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (bfd < 0)
		return bad(err, errlen, "cannot open", base);
	int tfd = open_private(bfd, top, f->dir, uid, true, err, errlen);
	close(bfd);
	if (tfd < 0)
		return false;
	int dfd = open_private(tfd, leaf, f->dir, uid, true, err, errlen);
	close(tfd);
	if (dfd < 0)
		return false;
	bool ok = false;
	int fd = openat(dfd, TMP_NAME,
			O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
			0600);
	if (fd < 0) {
		bad(err, errlen, "cannot create a file in", f->dir);
	} else {
		bool w = write_all(fd, data, len);
		if (close(fd) != 0)
			w = false;
		if (!w)
			bad(err, errlen, "cannot write", f->path);
		else if (renameat(dfd, TMP_NAME, dfd, MAP_NAME) != 0)
			bad(err, errlen, "cannot rename into", f->path);
		else
			ok = true;
		if (!ok)
			unlinkat(dfd, TMP_NAME, 0);
	}
	close(dfd);
	f->written = ok;
	return ok;
}

void rms_file_remove(rms_file *f, uid_t uid)
{
	if (!f->written)
		return;
	f->written = false;
	/* Walk down again from the base: dir = BASE/top/leaf. */
	char base[512];
	snprintf(base, sizeof(base), "%s", f->dir);
	char *leaf = strrchr(base, '/');
	if (!leaf)
		return;
	*leaf++ = 0;
	char *top = strrchr(base, '/');
	if (!top)
		return;
	*top++ = 0;
	char err[256];
	int bfd = open(base[0] ? base : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (bfd < 0)
		return;
	int tfd = open_private(bfd, top, f->dir, uid, false, err, sizeof(err));
	close(bfd);
	if (tfd < 0)
		return;
	int dfd = open_private(tfd, leaf, f->dir, uid, false, err, sizeof(err));
	if (dfd >= 0) {
		unlinkat(dfd, MAP_NAME, 0);
		unlinkat(dfd, TMP_NAME, 0);
		close(dfd);
		unlinkat(tfd, leaf, AT_REMOVEDIR);
	}
	/* BASE/rankmap-UID stays: another step of the same user may be
	 * creating its directory in it right now. */
	close(tfd);
}
