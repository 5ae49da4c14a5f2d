/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_siteconf.c - rm_site_config_find reads plugstack.conf as slurmd
 * does: PlugStackConfig= or the file beside slurm.conf, include lines
 * (globs, relative to the including file), the first rankmap line.
 */
#include "internal.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

static char tmp[64];

static void put(const char *name, const char *text)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
}

static rm_status find(const char *conf, rm_site_config *c, rm_error *e)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", tmp, conf);
	return rm_site_config_find(path, c, e);
}

static void beside_and_included(void)
{
	rm_site_config c;
	rm_error e = { 0 };
	char d[128];
	put("slurm.conf", "ClusterName=t\n");
	snprintf(d, sizeof(d), "%s/plugstack.conf.d", tmp);
	CHECK(mkdir(d, 0755) == 0);
	/* Debian's plugstack.conf: an include of a directory's files; the
	 * first plugin is another, rankmap-nccl is not the plugin */
	put("plugstack.conf", "# comment\ninclude plugstack.conf.d/*.conf\n");
	put("plugstack.conf.d/10-pyxis.conf",
	    "required /usr/lib/slurm/spank_pyxis.so runtime_path=/run/x\n"
	    "optional /opt/lib/rankmap-nccl.so site=/wrong\n");
	put("plugstack.conf.d/20-rankmap.conf",
	    "\n  optional   /usr/lib/slurm-wlm/rankmap.so  site=/etc/s.yaml "
	    "enforce=strict order=llama3 # the site's\n");
	CHECK_INT(find("slurm.conf", &c, &e), RM_OK);
	CHECK(c.slurm_conf != NULL);
	CHECK(c.plugstack != NULL && strstr(c.plugstack, "20-rankmap.conf"));
	CHECK_INT(c.line, 2);
	CHECK_STR(c.site ? c.site : "", "/etc/s.yaml");
	CHECK_STR(c.order ? c.order : "", "llama3");
	CHECK(c.topology == NULL);
	/* pyxis is loaded before rankmap here: nothing to say */
	CHECK(c.pyxis_after == NULL);
	rm_site_config_clear(&c);
	/* pyxis after rankmap: its environment import would give every task
	 * the node's first task's RANKMAP_* (issue 37) */
	put("plugstack.conf.d/30-pyxis.conf",
	    "required /usr/lib/slurm/spank_pyxis.so\n");
	put("plugstack.conf.d/10-pyxis.conf", "# moved to 30\n");
	CHECK_INT(find("slurm.conf", &c, &e), RM_OK);
	CHECK(c.pyxis_after && strstr(c.pyxis_after, "30-pyxis.conf"));
	CHECK_INT(c.pyxis_line, 1);
	CHECK(c.plugstack && strstr(c.plugstack, "20-rankmap.conf"));
	rm_site_config_clear(&c);
	/* PlugStackConfig= wins over the file beside slurm.conf */
	put("slurm.conf", "ClusterName=t\nplugstackconfig=\"OTHER\"\n");
	char conf[300];
	snprintf(conf, sizeof(conf), "ClusterName=t\nPlugStackConfig=%s/other.conf\n", tmp);
	put("slurm.conf", conf);
	put("other.conf", "required rankmap-slurm24.11.so topology=/t.conf\n");
	CHECK_INT(find("slurm.conf", &c, &e), RM_OK);
	CHECK(c.plugstack && strstr(c.plugstack, "other.conf"));
	CHECK_STR(c.topology ? c.topology : "", "/t.conf");
	CHECK(c.site == NULL);
	rm_site_config_clear(&c);
	/* no rankmap line: slurm.conf found, no plugstack */
	put("other.conf", "required spank_pyxis.so\n");
	CHECK_INT(find("slurm.conf", &c, &e), RM_OK);
	CHECK(c.slurm_conf != NULL && c.plugstack == NULL);
	rm_site_config_clear(&c);
	/* no slurm.conf: nothing, and no error */
	CHECK_INT(find("none.conf", &c, &e), RM_OK);
	CHECK(c.slurm_conf == NULL);
	/* an include loop stops with a message naming the file */
	snprintf(conf, sizeof(conf), "PlugStackConfig=%s/loop.conf\n", tmp);
	put("slurm.conf", conf);
	put("loop.conf", "include loop.conf\n");
	CHECK_INT(find("slurm.conf", &c, &e), RM_EINPUT);
	CHECK(strstr(e.msg, "loop.conf") != NULL);
}

int main(void)
{
	if (!t_tmpdir(tmp, sizeof(tmp), "/tmp/rm-siteconf."))
		return 1;
	RUN("siteconf", beside_and_included);
	TEST_EXIT();
}
