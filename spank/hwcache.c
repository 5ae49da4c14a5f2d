/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hwcache.c - the node's topology, cached per boot.
 *
 * A live hwloc scan costs more than all the rest of the plugin's work per
 * step, and a node's hardware only changes with a reboot, a driver or a
 * device (or a link going down). So slurmstepd, as root, keeps this
 * machine's hwloc export in DIR/KEY-SHA.xml: KEY digests what would change
 * the topology, SHA the file's own bytes, so a file of another boot or
 * device list is never read and a truncated or altered one is refused and
 * replaced. DIR is root's and private (0700); nothing in it is read unless
 * it is a regular root-owned file nobody else may write, opened without
 * following links. The job user can neither write nor redirect it.
 */
#include "rms.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
/* A node's export is some 100 kB; anything far larger is not ours. */
#define MAX_XML (16u << 20)
#define NAME_LEN (64 + 1 + 64 + 4)

const rms_hwkey_src rms_hwkey_this_machine = {
	.boot_id = "/proc/sys/kernel/random/boot_id",
	.nvidia = { "/proc/driver/nvidia/version", "/sys/module/nvidia/version" },
	.pci = "/sys/bus/pci/devices",
	.ib = "/sys/class/infiniband",
};

/* Adds "tag=<first 4 kB of path>\n"; false when it cannot be read. */
static bool add_file(rm_sha256_ctx *c, const char *tag, const char *path)
{
	char buf[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0)
		return false;
	rm_sha256_add(c, tag, strlen(tag));
	rm_sha256_add(c, "=", 1);
	rm_sha256_add(c, buf, (size_t)n);
	rm_sha256_add(c, "\n", 1);
	return true;
}

static int no_dots(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/* Every entry of `dir` (sorted, so the order is the machine's, not the
 * directory's) with the files `leaf` names under it. `sub` descends one
 * more level first (IB devices' ports/N). */
static void add_tree(rm_sha256_ctx *c, const char *dir, const char *sub,
		     const char *const *leaf)
{
	struct dirent **e = NULL;
	int n = scandir(dir, &e, no_dots, alphasort);
	for (int i = 0; i < n; i++) {
		char path[1024], f[1024];
		int pl = snprintf(path, sizeof(path), "%s/%s", dir, e[i]->d_name);
		free(e[i]);
		if (pl < 0 || (size_t)pl >= sizeof(path) - 64)
			continue; /* sysfs names are short; this is not one */
		if (sub) {
			snprintf(f, sizeof(f), "%.900s/%.60s", path, sub);
			add_tree(c, f, NULL, leaf);
			continue;
		}
		for (const char *const *l = leaf; *l; l++) {
			snprintf(f, sizeof(f), "%.900s/%.60s", path, *l);
			add_file(c, f, f);
		}
	}
	free(e);
}

bool rms_hwcache_key(const rms_hwkey_src *src, char key[65], char *err,
		     size_t errlen)
{
	static const char *const pci_leaf[] = { "vendor", "device", "class", NULL };
	static const char *const ib_leaf[] = { "state", NULL };
	rm_sha256_ctx c;
	rm_sha256_init(&c);
	/* A boot id is what makes the cache per boot: without one, none. */
	if (!add_file(&c, "boot", src->boot_id)) {
		snprintf(err, errlen, "cannot read %.300s: %s", src->boot_id,
			 strerror(errno));
		return false;
	}
	char v[64];
	snprintf(v, sizeof(v), "hwloc=%x rankmap=%s\n", hwloc_get_api_version(),
		 RMS_PLUGIN_VERSION);
	rm_sha256_add(&c, v, strlen(v));
	for (int i = 0; i < 2; i++)
		if (src->nvidia[i] && !add_file(&c, "nvidia", src->nvidia[i]))
			rm_sha256_add(&c, "-\n", 2);
	add_tree(&c, src->pci, NULL, pci_leaf);
	add_tree(&c, src->ib, "ports", ib_leaf);
	rm_sha256_end_hex(&c, key);
	return true;
}

bool rms_hwcache_valid(const char *name, const char *key, const char *xml,
		       size_t len)
{
	if (strlen(name) != NAME_LEN || strncmp(name, key, 64) != 0 ||
	    name[64] != '-' || strcmp(name + NAME_LEN - 4, ".xml") != 0)
		return false;
	char sha[65];
	rm_sha256_hex(xml, len, sha);
	return !strncmp(name + 65, sha, 64);
}

char *rms_hwcache_dir(const rms_conf *c)
{
	if (c->hwcache_off)
		return NULL;
	if (c->hwcache)
		return strdup(c->hwcache);
	const char *rt = c->runtime_dir ? c->runtime_dir : RMS_RUNTIME_DIR;
	size_t n = strlen(rt) + sizeof(RMS_HWCACHE_NAME) + 1;
	char *d = malloc(n);
	if (d)
		snprintf(d, n, "%s/%s", rt, RMS_HWCACHE_NAME);
	return d;
}

/* fd (-1 when it did not open) is root's with none of the `forbid` mode
 * bits; otherwise it is closed here, so each caller only says why. */
static bool root_owned(int fd, mode_t forbid)
{
	struct stat st;
	if (fd >= 0 && fstat(fd, &st) == 0 && st.st_uid == 0 &&
	    !(st.st_mode & forbid))
		return true;
	if (fd >= 0)
		close(fd);
	return false;
}

/* The cache directory: root's, private, really a directory, in a
 * directory only root may change (so nobody can swap it after the check). */
static int open_dir(const char *dir, char *note, size_t notelen)
{
	char parent[256];
	const char *slash = strrchr(dir, '/');
	if (dir[0] != '/' || !slash || !slash[1] ||
	    (size_t)(slash - dir) >= sizeof(parent)) {
		snprintf(note, notelen, "hwcache %.300s: not an absolute path "
			 "of a directory", dir);
		return -1;
	}
	snprintf(parent, sizeof(parent), "%.*s", (int)(slash - dir), dir);
	int pfd = open(parent[0] ? parent : "/", DIR_FLAGS);
	if (!root_owned(pfd, 022)) {
		snprintf(note, notelen, "%.300s is not a directory only root "
			 "may write: no topology cache in it", parent);
		return -1;
	}
	if (mkdirat(pfd, slash + 1, 0700) != 0 && errno != EEXIST) {
		snprintf(note, notelen, "cannot create %.300s: %s", dir,
			 strerror(errno));
		close(pfd);
		return -1;
	}
	int fd = openat(pfd, slash + 1, DIR_FLAGS);
	close(pfd);
	if (!root_owned(fd, 077)) {
		snprintf(note, notelen, "%.300s is not a directory of root's "
			 "alone (0700): not using it", dir);
		return -1;
	}
	return fd;
}

/* The file's bytes when it is one root wrote for us; else NULL. */
static char *read_entry(int dfd, const char *name, size_t *len)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	char *buf = NULL;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == 0 &&
	    !(st.st_mode & 077) && st.st_nlink == 1 && st.st_size > 0 &&
	    (size_t)st.st_size <= MAX_XML &&
	    (buf = malloc((size_t)st.st_size + 1))) {
		ssize_t n = read(fd, buf, (size_t)st.st_size);
		if (n != st.st_size) {
			free(buf);
			buf = NULL;
		} else {
			buf[n] = 0;
			*len = (size_t)n;
		}
	}
	close(fd);
	return buf;
}

/* Finds this key's file (name into `found`), removing every other one:
 * other boots' and devices', corrupt ones, a crashed writer's leftovers. */
static bool find(int dfd, const char *key, char found[NAME_LEN + 1])
{
	found[0] = 0;
	int fd = dup(dfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		size_t len = 0;
		char *xml = NULL;
		if (!found[0] && !strncmp(e->d_name, key, 64) &&
		    (xml = read_entry(dfd, e->d_name, &len)) &&
		    rms_hwcache_valid(e->d_name, key, xml, len)) {
			memcpy(found, e->d_name, NAME_LEN + 1);
		} else if (strncmp(e->d_name, ".tmp", 4) != 0) {
			/* Another step's writer may own a .tmp file now. */
			unlinkat(dfd, e->d_name, 0);
		}
		free(xml);
	}
	closedir(d);
	return found[0] != 0;
}

/* The whole machine (not this job's share of it), written by mkstemp in
 * the private directory, then rename: a reader sees the whole
 * file or none. */
static void store(const char *dir, int dfd, const char *key, char *note,
		  size_t notelen)
{
	char *xml = NULL;
	size_t len = 0;
	rm_error e;
	if (rm_node_export_machine_xml(&xml, &len, &e) != RM_OK) {
		snprintf(note, notelen, "topology cache: %.300s", e.msg);
		return;
	}
	char tmp[512], name[NAME_LEN + 1], sha[65];
	rm_sha256_hex(xml, len, sha);
	snprintf(name, sizeof(name), "%s-%s.xml", key, sha);
	snprintf(tmp, sizeof(tmp), "%s/.tmpXXXXXX", dir);
	int fd = mkostemp(tmp, O_CLOEXEC);
	bool ok = fd >= 0;
	const char *base = ok ? strrchr(tmp, '/') + 1 : NULL;
	if (ok) {
		struct stat st;
		/* mkstemp opened it O_EXCL: it is ours, not a planted link. */
		ok = fstat(fd, &st) == 0 && st.st_uid == 0 &&
		     fchmod(fd, 0600) == 0 &&
		     write(fd, xml, len) == (ssize_t)len;
		ok = (close(fd) == 0) && ok;
		ok = ok && renameat(dfd, base, dfd, name) == 0;
		if (!ok)
			unlinkat(dfd, base, 0);
	}
	if (!ok)
		snprintf(note, notelen, "cannot write the topology cache in "
			 "%.300s: %s", dir, strerror(errno));
	free(xml);
}

rm_status rms_hwcache_load(const char *dir, const rm_site *site,
			   rm_node_hw **out, rms_hw_how *how, char *note,
			   size_t notelen, rm_error *err)
{
	*how = RMS_HW_LIVE;
	note[0] = 0;
	/* The site's own export wins; only root may write the cache. */
	if ((site && rm_site_hwloc_xml(site)) || !dir || geteuid() != 0)
		return rm_node_load(NULL, site, out, err);
	char key[65];
	if (!rms_hwcache_key(&rms_hwkey_this_machine, key, note, notelen))
		return rm_node_load(NULL, site, out, err);
	int dfd = open_dir(dir, note, notelen);
	if (dfd < 0)
		return rm_node_load(NULL, site, out, err);
	char name[NAME_LEN + 1];
	if (find(dfd, key, name)) {
		char path[512];
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		if (rm_node_load_own_xml(path, site, out, err) == RM_OK) {
			close(dfd);
			*how = RMS_HW_CACHED;
			return RM_OK;
		}
		/* Valid bytes hwloc will not read (another hwloc build?). */
		snprintf(note, notelen, "topology cache %.300s: %.400s: "
			 "rebuilt", path, err->msg);
		unlinkat(dfd, name, 0);
	}
	rm_status s = rm_node_load(NULL, site, out, err);
	if (s == RM_OK) {
		store(dir, dfd, key, note, notelen);
		*how = RMS_HW_REBUILT;
	}
	close(dfd);
	return s;
}
