/* SPDX-License-Identifier: Apache-2.0 */
/* test_nvsmi.c - `nvidia-smi -q` Fabric sections, one node at a time:
 * nodes sharing ClusterUUID and CliqueId are one NVLink group; nodes not
 * Completed or split across domains are reported, not grouped. */
#include "import_test.h"

#define UUID "7f2f4d1e-1c0a-4b1e-9d55-0123456789ab"

/* One GPU's section as nvidia-smi -q prints it. */
#define GPU(n, state, clique, uuid)                                          \
	"GPU 0000000" n ":00:00.0\n"                                         \
	"    Product Name                          : NVIDIA GB200\n"         \
	"    Fabric\n"                                                       \
	"        State                             : " state "\n"            \
	"        Status                            : Success\n"              \
	"        CliqueId                          : " clique "\n"           \
	"        ClusterUUID                       : " uuid "\n"             \
	"    Processes                             : None\n\n"

#define NODE2(state, c1, c2, uuid) \
	"\n==============NVSMI LOG==============\n\n" \
	GPU("1", state, c1, uuid) GPU("2", state, c2, uuid)

static rm_status add(const char *host, const char *text)
{
	memset(&E, 0, sizeof(E));
	return rm_import_nvidia_smi(&IM, host, text, strlen(text), "in.txt",
				    NULL, &E);
}

static void domains(void)
{
	rm_import_free(IM);
	IM = NULL;
	CHECK_INT(add("n1", NODE2("Completed", "5", "5", UUID)), RM_OK);
	CHECK_INT(add("n2", NODE2("Completed", "5", "5", UUID)), RM_OK);
	CHECK_INT(add("n3", NODE2("Completed", "6", "6", UUID)), RM_OK);
	CHECK_INT(add("n4", NODE2("In Progress", "N/A", "N/A", "N/A")), RM_OK);
	CHECK_INT(add("n5", NODE2("Completed", "5", "7", UUID)), RM_OK);
	CHECK_INT(IM ? IM->nnvl : 0, 5);
	CHECK(!rm_import_has_topology(IM));
	CHECK_HAS(report_line("nvidia-smi -q"), "5 nodes, 2 NVLink domains of up to 2 nodes");
	CHECK_HAS(report_line("nodes whose fabric is not Completed"), "1");
	CHECK_HAS(report_line("nodes whose GPUs name two domains"), "1");
	const char *site = part(RM_IMPORT_SITE);
	CHECK_HAS(site, "groups: [\"n[1-2]\", \"n3\"]");
	CHECK_HAS(site, "gpus_per_node: 2");
}

/* A node's text on its own (a fresh import). */
static rm_status one(const char *text)
{
	rm_import_free(IM);
	IM = NULL;
	return add("n1", text);
}

static void bad(void)
{
	static const t_say rows[] = {
		{ GPU("1", "Completed", "5", "7f2f\"x"), { "in.txt:7:", "ClusterUUID" } },
		{ GPU("1", "Completed", "x5", UUID), { "in.txt:6:45:", "CliqueId" } },
		{ "GPU 0\n    Product Name : x\n", { "in.txt", "Fabric" } },
	};
	CHECK_SAYS(one, RM_EINPUT, E.msg, rows);
	rm_import_free(IM);
	IM = NULL;
	CHECK_INT(add("n'1", NODE2("Completed", "5", "5", UUID)), RM_EINPUT);
	CHECK_HAS(E.msg, "n\\x271");
	CHECK_HAS(E.msg, "host name");
}

int main(void)
{
	RUN("import/nvsmi", domains);
	RUN("import/nvsmi", bad);
	rm_import_free(IM);
	TEST_EXIT();
}
