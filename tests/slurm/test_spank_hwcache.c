/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_spank_hwcache.c - the plugin's per-boot topology cache: the key
 * follows what would change the topology (on a tree of files made here),
 * file names are checked against their bytes, and, as root, the cache on
 * this machine's real hwloc is written once, used, and replaced when
 * corrupt, planted, or not root's alone.
 */
#include "rms.h"
#include "test.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp[64];

static void put(const char *rel, const char *text)
{
	char path[256], cmd[600];
	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	if (system(cmd) != 0)
		return;
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void key_follows_hardware(void)
{
	char boot[128], nv[128], pci[128], ib[128], err[256];
	snprintf(boot, sizeof(boot), "%s/boot_id", tmp);
	snprintf(nv, sizeof(nv), "%s/nvidia", tmp);
	snprintf(pci, sizeof(pci), "%s/pci", tmp);
	snprintf(ib, sizeof(ib), "%s/ib", tmp);
	rms_hwkey_src src = { .boot_id = boot, .nvidia = { nv, NULL },
			      .pci = pci, .ib = ib };
	put("boot_id", "6c3e1d5a-0000-4000-8000-000000000001\n");
	put("pci/0000:17:00.0/vendor", "0x10de\n");
	put("pci/0000:17:00.0/device", "0x2330\n");
	put("pci/0000:17:00.0/class", "0x030200\n");
	put("ib/mlx5_0/ports/1/state", "4: ACTIVE\n");
	char k0[65], k[65];
	CHECK(rms_hwcache_key(&src, k0, err, sizeof(err)));
	CHECK_INT(strlen(k0), 64);
	CHECK(rms_hwcache_key(&src, k, err, sizeof(err)));
	CHECK_STR(k, k0); /* same machine, same key */

	/* Each of these is another topology: another key. */
	static const char *const change[][2] = {
		{ "nvidia", "NVRM version: 550.54.15\n" },
		{ "nvidia", "NVRM version: 555.42.02\n" },
		{ "ib/mlx5_0/ports/1/state", "1: DOWN\n" },
		{ "pci/0000:17:00.0/class", "0x030000\n" },
		{ "pci/0000:18:00.0/vendor", "0x15b3\n" },
		{ "boot_id", "6c3e1d5a-0000-4000-8000-000000000002\n" },
	};
	char prev[65];
	memcpy(prev, k0, sizeof(prev));
	for (size_t i = 0; i < sizeof(change) / sizeof(change[0]); i++) {
		put(change[i][0], change[i][1]);
		CHECK(rms_hwcache_key(&src, k, err, sizeof(err)));
		if (!strcmp(k, prev))
			printf("  key unchanged by %s\n", change[i][0]);
		CHECK(strcmp(k, prev) != 0);
		memcpy(prev, k, sizeof(prev));
	}

	/* No boot id, no per-boot cache. */
	unlink(boot);
	CHECK(!rms_hwcache_key(&src, k, err, sizeof(err)));
	CHECK_HAS(err, "boot_id");
}

static void names_match_bytes(void)
{
	const char *key =
		"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
	const char *xml = "<topology version=\"2.0\"/>\n";
	char sha[65], name[200];
	rm_sha256_hex(xml, strlen(xml), sha);
	snprintf(name, sizeof(name), "%s-%s.xml", key, sha);
	CHECK(rms_hwcache_valid(name, key, xml, strlen(xml)));
	/* One byte less (a truncated write), another key, another name. */
	CHECK(!rms_hwcache_valid(name, key, xml, strlen(xml) - 1));
	char other[65];
	memcpy(other, key, sizeof(other));
	other[0] = 'f';
	CHECK(!rms_hwcache_valid(name, other, xml, strlen(xml)));
	name[strlen(name) - 1] = 'y';
	CHECK(!rms_hwcache_valid(name, key, xml, strlen(xml)));
	CHECK(!rms_hwcache_valid("x.xml", key, xml, strlen(xml)));
	CHECK(!rms_hwcache_valid("", key, xml, strlen(xml)));
}

static void conf_keys(void)
{
	rms_conf c;
	char errb[512];
	rms_conf_init(&c);
	char *a[] = { "runtime_dir=/run/rm" };
	CHECK(rms_conf_parse(&c, 1, a, errb, sizeof(errb)));
	char *d = rms_hwcache_dir(&c);
	CHECK_STR(d, "/run/rm/.hwcache");
	free(d);
	rms_conf_free(&c);
	char *b[] = { "hwcache=/var/cache/rm" };
	CHECK(rms_conf_parse(&c, 1, b, errb, sizeof(errb)));
	CHECK_STR(errb, "");
	d = rms_hwcache_dir(&c);
	CHECK_STR(d, "/var/cache/rm");
	free(d);
	rms_conf_free(&c);
	char *off[] = { "hwcache=off" };
	CHECK(rms_conf_parse(&c, 1, off, errb, sizeof(errb)));
	CHECK(rms_hwcache_dir(&c) == NULL);
	rms_conf_free(&c);
	char *bad[] = { "hwcache=rel" };
	CHECK(rms_conf_parse(&c, 1, bad, errb, sizeof(errb)));
	CHECK_HAS(errb, "'hwcache=rel': hwcache is off or an absolute path");
	rms_conf_free(&c);
}

/* The one cache file's name in dir (into name), and how many there are. */
static int entries(const char *dir, char name[256])
{
	int n = 0;
	DIR *d = opendir(dir);
	for (struct dirent *e; d && (e = readdir(d));)
		if (e->d_name[0] != '.') {
			snprintf(name, 256, "%s", e->d_name);
			n++;
		}
	if (d)
		closedir(d);
	return n;
}

/* Whether dir/name holds the bytes its name promises. */
static bool good(const char *path, const char *name)
{
	char *text = NULL;
	size_t len = 0;
	rm_error e;
	if (rm_file_read(path, &text, &len, &e) != RM_OK)
		return false;
	bool ok = rms_hwcache_valid(name, name, text, len);
	free(text);
	return ok;
}

/* The `rankmap node` report (JSON) of what was read, its source left out:
 * what the plugin derives the tasks' settings from. */
static char *report(const rm_node_hw *hw)
{
	char *out = NULL;
	size_t len = 0;
	rm_error e;
	if (!hw || rm_node_format(hw, NULL, RM_FMT_JSON, 0, &out, &len, &e))
		return NULL;
	char *p = strstr(out, "\"source\":\"");
	char *end = p ? strchr(p + 10, '"') : NULL;
	if (end)
		memmove(p, end + 1, strlen(end + 1) + 1);
	return out;
}

static char *live_report;

static rms_hw_how load(const char *dir, char *note, size_t len)
{
	rm_node_hw *hw = NULL;
	rm_error e;
	rms_hw_how how = RMS_HW_LIVE;
	CHECK_INT(rms_hwcache_load(dir, NULL, &hw, &how, note, len, &e), RM_OK);
	/* A cached read says what a live scan says. */
	char *r = report(hw);
	if (!live_report)
		live_report = r;
	else {
		CHECK_STR(r, live_report);
		free(r);
	}
	rm_node_free(hw);
	return how;
}

static void cache_on_this_machine(void)
{
	char dir[128], name[256], path[400], note[600];
	snprintf(dir, sizeof(dir), "%s/hwcache", tmp);
	CHECK_INT(load(NULL, note, sizeof(note)), RMS_HW_LIVE);
	CHECK(live_report != NULL);
	CHECK_INT(load(dir, note, sizeof(note)), RMS_HW_REBUILT);
	CHECK_STR(note, "");
	struct stat st;
	CHECK(stat(dir, &st) == 0 && st.st_uid == 0 &&
	      (st.st_mode & 0777) == 0700);
	CHECK_INT(entries(dir, name), 1);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == 0 &&
	      (st.st_mode & 0777) == 0600);
	ino_t ino = st.st_ino;
	CHECK_INT(load(dir, note, sizeof(note)), RMS_HW_CACHED);
	CHECK(lstat(path, &st) == 0 && st.st_ino == ino);
	CHECK(good(path, name));

	/* Corrupt: refused, replaced by a good one under the same name. */
	FILE *f = fopen(path, "r+");
	if (f) {
		fputs("<junk", f);
		fclose(f);
	}
	CHECK_INT(load(dir, note, sizeof(note)), RMS_HW_REBUILT);
	CHECK_INT(entries(dir, name), 1);
	CHECK(good(path, name));
	CHECK_INT(load(dir, note, sizeof(note)), RMS_HW_CACHED);

	/* Another boot's file goes; a link planted under the key's name is
	 * removed, not followed. */
	char stale[400], target[400];
	snprintf(stale, sizeof(stale), "%s/%064d-%064d.xml", dir, 0, 0);
	put("hwcache/x", "");
	snprintf(target, sizeof(target), "%s/x", dir);
	CHECK(rename(target, stale) == 0);
	snprintf(target, sizeof(target), "%s/secret", tmp);
	put("secret", "<topology/>");
	CHECK(unlink(path) == 0 && symlink(target, path) == 0);
	CHECK_INT(load(dir, note, sizeof(note)), RMS_HW_REBUILT);
	CHECK(access(stale, F_OK) != 0);
	CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode));
	CHECK(access(target, F_OK) == 0);
	CHECK_INT(entries(dir, name), 1);

	/* A file that is not root's alone is not read. */
	CHECK(chmod(path, 0644) == 0);
	CHECK_INT(load(dir, note, sizeof(note)), RMS_HW_REBUILT);
	CHECK(lstat(path, &st) == 0 && (st.st_mode & 0777) == 0600);

	/* A directory others may enter, or a link: scanned live, a note. */
	CHECK(chmod(dir, 0755) == 0);
	CHECK_INT(load(dir, note, sizeof(note)), RMS_HW_LIVE);
	CHECK_HAS(note, "not a directory of root's alone");
	CHECK(chmod(dir, 0700) == 0);
	char link[128];
	snprintf(link, sizeof(link), "%s/cachelink", tmp);
	CHECK(symlink(dir, link) == 0);
	CHECK_INT(load(link, note, sizeof(note)), RMS_HW_LIVE);
	CHECK_HAS(note, "not a directory of root's alone");
	/* In a directory others may write: not even created. */
	char open_dir[128], in_open[160];
	snprintf(open_dir, sizeof(open_dir), "%s/open", tmp);
	snprintf(in_open, sizeof(in_open), "%s/cache", open_dir);
	CHECK(mkdir(open_dir, 0777) == 0 && chmod(open_dir, 01777) == 0);
	CHECK_INT(load(in_open, note, sizeof(note)), RMS_HW_LIVE);
	CHECK_HAS(note, "is not a directory only root may write");
	CHECK(access(in_open, F_OK) != 0);
	/* Off: a scan, nothing written. */
	CHECK_INT(load(NULL, note, sizeof(note)), RMS_HW_LIVE);
	CHECK_STR(note, "");
	free(live_report);
}

int main(void)
{
	if (!t_tmpdir(tmp, sizeof(tmp), "/tmp/rms-hwc."))
		return 1;
	RUN("spank", key_follows_hardware);
	RUN("spank", names_match_bytes);
	RUN("spank", conf_keys);
	if (geteuid() == 0)
		RUN("spank", cache_on_this_machine);
	else
		printf("SKIP: spank/cache_on_this_machine: needs root, as "
		       "slurmstepd has\n");
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		return 1;
	return t_total_bad ? 1 : 0;
}
