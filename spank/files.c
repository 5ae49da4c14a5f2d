/* SPDX-License-Identifier: Apache-2.0 */
/*
 * files.c - the per-node map file under a root-owned runtime directory:
 *
 *   RUNTIME/                  root's, 0711: nobody else can list or write
 *   RUNTIME/JOB/              root:JOBGID 0750
 *   RUNTIME/JOB/STEP.NODE/    root:JOBGID 0750
 *   RUNTIME/JOB/STEP.NODE/map.json   root:JOBGID 0440
 *
 * Everything is made by root (slurmstepd, before it drops to the job user)
 * and stays root's: the job user can read the map but cannot create a name
 * anywhere below RUNTIME, so a job cannot park data in /run (RAM) and cannot
 * leave anything that trips the next job with the same id. Only root can
 * create names in RUNTIME, so no user can squat a job directory either.
 * Every level is opened with O_NOFOLLOW|O_DIRECTORY relative to the one
 * above. A directory found in the way that is not ours (another owner: an
 * older plugin's, or a leftover whose epilog never ran) is moved aside and
 * removed. The node name is in the step level because several "nodes" may
 * share one machine (test clusters). The step level goes at step end; the
 * job level in the job epilog, which also catches what a killed slurmstepd
 * left behind; and slurmd's start removes the job levels of jobs with no
 * slurmstepd left (a node that died never ran their epilog).
 */
#include "rms.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAP_NAME "map.json"
#define TMP_NAME ".map.json.tmp"
#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#define DIR_MODE 0750
#define MAP_MODE 0440
/* Entries one removal may visit: far above anything the plugin makes, a
 * bound on a tree an older plugin let a user build. */
#define REMOVE_MAX 10000000L

static bool bad(char *err, size_t errlen, const char *what, const char *path)
{
	snprintf(err, errlen, "%s %.400s: %s", what, path, strerror(errno));
	return false;
}

/* The runtime root: root's, a real directory, nobody else may write in it
 * or list it. Created (0711) when missing; its parent must exist. */
static int open_root(const char *root, char *err, size_t errlen)
{
	if (!root || root[0] != '/' || strlen(root) > 200) {
		snprintf(err, errlen, "runtime_dir must be an absolute path");
		return -1;
	}
	if (mkdir(root, 0711) != 0 && errno != EEXIST) {
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
	/* Job ids and their groups are nobody else's business (a 0755 one
	 * from an older plugin is tightened). */
	if ((st.st_mode & 044) && fchmod(fd, st.st_mode & 07711) != 0) {
		bad(err, errlen, "cannot make private", root);
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Empties the directory `fd` (consumed) and everything below it, never
 * following a link, whatever the depth, with two descriptors at most: the
 * directories found one level down are renamed up into `fd` itself (fresh
 * names, never replacing one), so each pass works one level deep and the
 * next pass meets what was deeper.
 */
static bool empty_dir(int fd)
{
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return false;
	}
	bool ok = true, again = true;
	long seen = 0, moved = 0;
	while (again && ok) {
		again = false;
		rewinddir(d);
		struct dirent *e;
		while (ok && (e = readdir(d))) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			if (++seen > REMOVE_MAX) {
				ok = false;
				break;
			}
			if (unlinkat(dirfd(d), e->d_name, 0) == 0 ||
			    unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR) == 0)
				continue;
			int sub = openat(dirfd(d), e->d_name, DIR_FLAGS);
			DIR *s = sub >= 0 ? fdopendir(sub) : NULL;
			if (!s) {
				if (sub >= 0)
					close(sub);
				ok = false;
				break;
			}
			struct dirent *f;
			while (ok && (f = readdir(s))) {
				if (!strcmp(f->d_name, ".") ||
				    !strcmp(f->d_name, "..") ||
				    unlinkat(sub, f->d_name, 0) == 0)
					continue;
				/* A directory: up into `d`, for a later pass. */
				char up[32];
				int r;
				do {
					snprintf(up, sizeof(up), ".rm.%ld",
						 moved++);
					r = renameat2(sub, f->d_name, dirfd(d),
						      up, RENAME_NOREPLACE);
				} while (r != 0 && errno == EEXIST);
				if (r != 0)
					ok = false;
				again = true;
			}
			closedir(s);
			if (ok && unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR))
				again = true;
		}
	}
	closedir(d);
	return ok;
}

/* Removes `name` in `at`, whatever it is, without following it. */
static bool remove_tree(int at, const char *name)
{
	if (unlinkat(at, name, 0) == 0 || errno == ENOENT)
		return true;
	int fd = openat(at, name, DIR_FLAGS);
	if (fd < 0)
		return false;
	return empty_dir(fd) && unlinkat(at, name, AT_REMOVEDIR) == 0;
}

/*
 * Opens `name` in `at` as root's directory of group `gid` (0750), made if
 * missing. Anything else in the way (another owner's directory, a link, a
 * file) is first moved aside under a fresh name, so that another step
 * racing us never loses the directory it just made, and removed.
 */
static int open_ours(int at, const char *name, const char *shown, gid_t gid,
		     char *err, size_t errlen)
{
	for (int tries = 0; tries < 4; tries++) {
		if (mkdirat(at, name, DIR_MODE) != 0 && errno != EEXIST) {
			bad(err, errlen, "cannot create", shown);
			return -1;
		}
		int fd = openat(at, name, DIR_FLAGS);
		struct stat st;
		if (fd >= 0 && fstat(fd, &st) == 0 && st.st_uid == geteuid()) {
			if ((st.st_gid == gid || fchown(fd, (uid_t)-1, gid) == 0) &&
			    ((st.st_mode & 07777) == DIR_MODE ||
			     fchmod(fd, DIR_MODE) == 0))
				return fd;
			bad(err, errlen, "cannot hand over", shown);
			close(fd);
			return -1;
		}
		if (fd >= 0)
			close(fd);
		char aside[64];
		snprintf(aside, sizeof(aside), ".stale.%.30s.%ld", name,
			 (long)getpid());
		if (renameat(at, name, at, aside) != 0) {
			if (errno == ENOENT)
				continue; /* someone else moved it: again */
			bad(err, errlen, "cannot move aside the stale", shown);
			return -1;
		}
		if (!remove_tree(at, aside)) {
			bad(err, errlen, "cannot remove the stale", shown);
			return -1;
		}
	}
	snprintf(err, errlen, "%.400s keeps changing under us: refusing it",
		 shown);
	return -1;
}

int rms_job_dir_open(const char *root, uint32_t jobid, gid_t gid, char *err,
		     size_t errlen)
{
	char name[16], shown[256];
	snprintf(name, sizeof(name), "%" PRIu32, jobid);
	snprintf(shown, sizeof(shown), "%.200s/%s", root, name);
	int rfd = open_root(root, err, errlen);
	if (rfd < 0)
		return -1;
	int fd = open_ours(rfd, name, shown, gid, err, errlen);
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
		    uint32_t stepid, const char *node, gid_t gid,
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
	int dfd = open_ours(jobfd, f->leaf, f->dir, gid, err, errlen);
	if (dfd < 0)
		return false;
	/* From here on the directory is ours to remove at step end, even if
	 * the map cannot be written. */
	f->written = true;
	bool ok = false;
	int fd = openat(dfd, TMP_NAME,
			O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
			0600);
	if (fd < 0) {
		bad(err, errlen, "cannot create a file in", f->dir);
	} else {
		bool w = write_all(fd, data, len) &&
			 fchown(fd, (uid_t)-1, gid) == 0 && fchmod(fd, MAP_MODE) == 0;
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
	return ok;
}

void rms_file_remove(rms_file *f)
{
	if (!f->written)
		return;
	f->written = false;
	char name[16];
	snprintf(name, sizeof(name), "%" PRIu32, f->jobid);
	int rfd = open(f->root, DIR_FLAGS);
	if (rfd < 0)
		return;
	int jfd = openat(rfd, name, DIR_FLAGS);
	close(rfd);
	if (jfd < 0)
		return;
	struct stat st;
	if (fstat(jfd, &st) == 0 && st.st_uid == geteuid())
		remove_tree(jfd, f->leaf);
	/* The job level stays: another step of the job may be creating its
	 * directory in it right now. The job epilog removes it. */
	close(jfd);
}

bool rms_job_dir_remove(const char *root, uint32_t jobid, char *err,
			size_t errlen)
{
	char name[16];
	snprintf(name, sizeof(name), "%" PRIu32, jobid);
	int rfd = open(root, DIR_FLAGS);
	if (rfd < 0)
		return errno == ENOENT || bad(err, errlen, "cannot open", root);
	bool ok = remove_tree(rfd, name);
	if (!ok)
		snprintf(err, errlen, "cannot remove all of %.200s/%s: %s",
			 root, name, strerror(errno));
	close(rfd);
	return ok;
}

/* Job ids that have a slurmstepd on this machine ("slurmstepd: [JOB.STEP]"
 * is the title it gives itself), sorted; NULL with *n = 0 when /proc
 * cannot be read, and then nothing counts as gone. */
static uint32_t *live_jobs(size_t *n, bool *ok)
{
	*n = 0;
	*ok = false;
	DIR *d = opendir("/proc");
	if (!d)
		return NULL;
	size_t cap = 0;
	uint32_t *v = NULL;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		char path[64], buf[48];
		snprintf(path, sizeof(path), "/proc/%.20s/cmdline", e->d_name);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t k = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		static const char title[] = "slurmstepd: [";
		if (k <= (ssize_t)strlen(title))
			continue;
		buf[k] = '\0';
		if (strncmp(buf, title, strlen(title)))
			continue;
		char *end;
		unsigned long id = strtoul(buf + strlen(title), &end, 10);
		if (end == buf + strlen(title) || id > UINT32_MAX)
			continue;
		if (*n == cap) {
			size_t nc = cap ? 2 * cap : 64;
			uint32_t *t = realloc(v, nc * sizeof(*v));
			if (!t) {
				free(v);
				closedir(d);
				*n = 0;
				return NULL;
			}
			v = t;
			cap = nc;
		}
		v[(*n)++] = (uint32_t)id;
	}
	closedir(d);
	*ok = true;
	return v;
}

static bool has_id(const uint32_t *v, size_t n, uint32_t id)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == id)
			return true;
	return false;
}

/*
 * slurmd's start: a node that died (slurmd and its slurmstepds killed, no
 * reboot) never ran the epilog of the jobs it had, and their maps stayed.
 * A job directory of ours whose job has no slurmstepd here is removed -
 * unless it changed in the last `young` seconds: a step that is starting
 * right now makes its directory before our scan of /proc could see it.
 * Returns how many were removed, or -1 (err says why).
 */
int rms_runtime_sweep(const char *root, int young, char *err, size_t errlen)
{
	int rfd = open(root, DIR_FLAGS);
	if (rfd < 0) {
		if (errno == ENOENT)
			return 0;
		bad(err, errlen, "cannot open", root);
		return -1;
	}
	struct stat rs;
	if (fstat(rfd, &rs) != 0 || rs.st_uid != geteuid()) {
		close(rfd);
		snprintf(err, errlen, "%.200s is not root's: not swept", root);
		return -1;
	}
	bool ok;
	size_t nlive;
	uint32_t *live = live_jobs(&nlive, &ok);
	if (!ok) {
		close(rfd);
		snprintf(err, errlen, "cannot read /proc: %.200s not swept",
			 root);
		return -1;
	}
	int dup = fcntl(rfd, F_DUPFD_CLOEXEC, 0);
	DIR *d = dup >= 0 ? fdopendir(dup) : NULL;
	if (!d) {
		if (dup >= 0)
			close(dup);
		free(live);
		close(rfd);
		return bad(err, errlen, "cannot list", root) ? 0 : -1;
	}
	time_t now = time(NULL);
	int removed = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		char *end;
		errno = 0;
		unsigned long id = strtoul(e->d_name, &end, 10);
		if (e->d_name[0] < '0' || e->d_name[0] > '9' || *end ||
		    errno || id > UINT32_MAX || has_id(live, nlive, (uint32_t)id))
			continue;
		struct stat st;
		if (fstatat(rfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
		    now - st.st_mtime < young)
			continue;
		if (remove_tree(rfd, e->d_name))
			removed++;
	}
	closedir(d);
	free(live);
	close(rfd);
	return removed;
}
