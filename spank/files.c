/* SPDX-License-Identifier: Apache-2.0 */
/*
 * files.c - the per-node map file under a root-owned runtime directory:
 *
 *   RUNTIME/                  root's, not writable by others (runtime_dir=)
 *   RUNTIME/JOB/              made by root, then the job user's, 0700
 *   RUNTIME/JOB/STEP.NODE/    made as the job user, 0700
 *   RUNTIME/JOB/STEP.NODE/map.json
 *
 * Only root can create names in RUNTIME, so no user can squat another's
 * job directory the way anyone could mkdir or symlink /tmp/rankmap-UID.
 * Every level is opened with O_NOFOLLOW|O_DIRECTORY relative to the one
 * above and its owner checked. The node name is in the step level because
 * several "nodes" may share one machine (test clusters). The step level
 * goes at step end; the job level in the job epilog, which also catches
 * what a killed slurmstepd left behind.
 */
#include "rms.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAP_NAME "map.json"
#define TMP_NAME ".map.json.tmp"
#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

static bool bad(char *err, size_t errlen, const char *what, const char *path)
{
	snprintf(err, errlen, "%s %.400s: %s", what, path, strerror(errno));
	return false;
}

/* The runtime root: root's, a real directory, nobody else may write in it.
 * Created (0755) when missing; its parent must exist. */
static int open_root(const char *root, char *err, size_t errlen)
{
	if (!root || root[0] != '/' || strlen(root) > 200) {
		snprintf(err, errlen, "runtime_dir must be an absolute path");
		return -1;
	}
	if (mkdir(root, 0755) != 0 && errno != EEXIST) {
		bad(err, errlen, "cannot create the runtime directory", root);
		return -1;
	}
	int fd = open(root, DIR_FLAGS);
	if (fd < 0) {
		bad(err, errlen, "cannot open the runtime directory", root);
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || st.st_uid != 0 || (st.st_mode & 022)) {
		snprintf(err, errlen,
			 "runtime directory %.400s belongs to uid %lu with mode "
			 "%04o; it must be root's and writable by root alone: "
			 "refusing to use it",
			 root, (unsigned long)st.st_uid,
			 (unsigned)(st.st_mode & 07777));
		close(fd);
		return -1;
	}
	return fd;
}

/* A directory we may use: `uid`'s, private, really a directory. */
static int open_private(int at, const char *name, const char *shown,
			uid_t uid, bool create, char *err, size_t errlen)
{
	if (create && mkdirat(at, name, 0700) != 0 && errno != EEXIST) {
		bad(err, errlen, "cannot create", shown);
		return -1;
	}
	int fd = openat(at, name, DIR_FLAGS);
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

int rms_job_dir_open(const char *root, uint32_t jobid, uid_t uid, gid_t gid,
		     char *err, size_t errlen)
{
	char name[16], shown[256];
	snprintf(name, sizeof(name), "%" PRIu32, jobid);
	snprintf(shown, sizeof(shown), "%.200s/%s", root, name);
	int rfd = open_root(root, err, errlen);
	if (rfd < 0)
		return -1;
	int fd = -1;
	if (mkdirat(rfd, name, 0700) != 0 && errno != EEXIST) {
		bad(err, errlen, "cannot create", shown);
	} else if ((fd = openat(rfd, name, DIR_FLAGS)) < 0) {
		bad(err, errlen, "cannot open", shown);
	} else {
		/* Only root creates names here: a directory of root's is one
		 * another step of this job made a moment ago. */
		struct stat st;
		if (fstat(fd, &st) != 0 || (st.st_uid != 0 && st.st_uid != uid)) {
			snprintf(err, errlen, "%.250s belongs to uid %lu, not to "
				 "the job's user %lu: refusing to use it", shown,
				 (unsigned long)st.st_uid, (unsigned long)uid);
			close(fd);
			fd = -1;
		} else if (fchown(fd, uid, gid) != 0 || fchmod(fd, 0700) != 0) {
			bad(err, errlen, "cannot hand over", shown);
			close(fd);
			fd = -1;
		}
	}
	close(rfd);
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

bool rms_file_write(rms_file *f, int jobfd, const char *root, uint32_t jobid,
		    uint32_t stepid, const char *node, uid_t uid,
		    const char *data, size_t len, char *err, size_t errlen)
{
	memset(f, 0, sizeof(*f));
	if (!node || !*node || strchr(node, '/') || node[0] == '.' ||
	    strlen(node) > RM_MAX_HOSTNAME) {
		snprintf(err, errlen, "unusable node name");
		return false;
	}
	snprintf(f->root, sizeof(f->root), "%s", root);
	f->jobid = jobid;
	snprintf(f->leaf, sizeof(f->leaf), "%" PRIu32 ".%s", stepid, node);
	if (snprintf(f->dir, sizeof(f->dir), "%s/%" PRIu32 "/%s", root, jobid,
		     f->leaf) >= (int)sizeof(f->dir) ||
	    snprintf(f->path, sizeof(f->path), "%s/" MAP_NAME, f->dir) >=
		    (int)sizeof(f->path)) {
		snprintf(err, errlen, "map directory name too long");
		return false;
	}
	int dfd = open_private(jobfd, f->leaf, f->dir, uid, true, err, errlen);
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
	char err[256], name[16];
	snprintf(name, sizeof(name), "%" PRIu32, f->jobid);
	int rfd = open(f->root, DIR_FLAGS);
	if (rfd < 0)
		return;
	int jfd = open_private(rfd, name, f->dir, uid, false, err, sizeof(err));
	close(rfd);
	if (jfd < 0)
		return;
	int dfd = open_private(jfd, f->leaf, f->dir, uid, false, err,
			       sizeof(err));
	if (dfd >= 0) {
		unlinkat(dfd, MAP_NAME, 0);
		unlinkat(dfd, TMP_NAME, 0);
		close(dfd);
		unlinkat(jfd, f->leaf, AT_REMOVEDIR);
	}
	/* The job level stays: another step of the job may be creating its
	 * directory in it right now. The job epilog removes it. */
	close(jfd);
}

/* Empties the directory `fd` (consumed), never following a link; what the
 * user nested deeper than `depth` levels is left (and reported). */
static bool empty_dir(int fd, int depth)
{
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return false;
	}
	bool ok = true;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (unlinkat(dirfd(d), e->d_name, 0) == 0)
			continue;
		int sub = depth > 0 ? openat(dirfd(d), e->d_name, DIR_FLAGS) : -1;
		if (sub < 0 || !empty_dir(sub, depth - 1) ||
		    unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR) != 0)
			ok = false;
	}
	closedir(d);
	return ok;
}

bool rms_job_dir_remove(const char *root, uint32_t jobid, char *err,
			size_t errlen)
{
	char name[16];
	snprintf(name, sizeof(name), "%" PRIu32, jobid);
	int rfd = open(root, DIR_FLAGS);
	if (rfd < 0)
		return errno == ENOENT || bad(err, errlen, "cannot open", root);
	int jfd = openat(rfd, name, DIR_FLAGS);
	bool ok = true;
	if (jfd < 0) {
		/* Nothing there, or something that is not a directory (only
		 * root could have put it there): removed as it is. */
		if (errno != ENOENT && unlinkat(rfd, name, 0) != 0)
			ok = bad(err, errlen, "cannot remove in", root);
	} else if (!empty_dir(jfd, 4) ||
		   unlinkat(rfd, name, AT_REMOVEDIR) != 0) {
		snprintf(err, errlen, "cannot remove all of %.200s/%s", root,
			 name);
		ok = false;
	}
	close(rfd);
	return ok;
}
