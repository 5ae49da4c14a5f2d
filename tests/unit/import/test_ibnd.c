/* SPDX-License-Identifier: Apache-2.0 */
/* test_ibnd.c - ibnetdiscover captures (the topology file, plain and
 * --full, and the ports report -p) into leaves, tiers and rail units; what
 * a partial capture is counted as; bad lines at line:col. */
#include "import_test.h"

/* One spine over two rail leaves, two hosts with one HCA per rail. */
#define SPINE "Switch\t64 \"S-0000000000001001\"\t\t# \"MF0;SPINE-1:MQM9700/U1\" enhanced port 0 lid 4097 lmc 0\n"
#define LEAF(g, d) "Switch\t5 \"S-000000000000100" g "\"\t\t# \"MF0;" d ":MQM9700/U1\" enhanced port 0 lid 4098 lmc 0\n"
/* a switch port; FULL: --full's local port guid after the port number */
#define PORT(p, remote, rp, guid, desc) \
	"[" p "]" FULL "\t\"" remote "\"[" rp "]" guid "\t\t# \"" desc "\" lid 4100 4xNDR\n"
#define CA(g, desc, leaf, lp) \
	"Ca\t1 \"H-000000000000100" g "\"\t\t# \"" desc "\"\n" \
	"[1](000000000000100" g ") \t\"S-000000000000100" leaf "\"[" lp "]\t\t# lid 4100 lmc 0 \"x\" lid 4098 4xNDR\n\n"

#define CAPTURE \
	SPINE \
	PORT("1", "S-0000000000001002", "3", "", "MF0;LEAF-1:MQM9700/U1") \
	PORT("2", "S-0000000000001003", "3", "", "MF0;LEAF-2:MQM9700/U1") "\n" \
	LEAF("2", "LEAF-1") \
	PORT("1", "H-0000000000001004", "1", "(0000000000001004)", "node1 mlx5_0") \
	PORT("2", "H-0000000000001006", "1", "(0000000000001006)", "node2 mlx5_0") \
	PORT("3", "S-0000000000001001", "1", "", "MF0;SPINE-1:MQM9700/U1") "\n" \
	LEAF("3", "LEAF-2") \
	PORT("1", "H-0000000000001005", "1", "(0000000000001005)", "node1 mlx5_1") \
	PORT("2", "H-0000000000001007", "1", "(0000000000001007)", "node2 mlx5_1") \
	PORT("3", "S-0000000000001001", "2", "", "MF0;SPINE-1:MQM9700/U1") "\n" \
	CA("4", "node1 mlx5_0", "2", "1") CA("5", "node1 mlx5_1", "3", "1") \
	CA("6", "node2 mlx5_0", "2", "2") CA("7", "node2 mlx5_1", "3", "2")

#define FULL ""
static const char plain[] = "# ibnetdiscover\nvendid=0x2c9\n" CAPTURE;
#undef FULL
#define FULL "(0000000000001002)"
static const char full[] = CAPTURE;
#undef FULL

static const char ports[] =
	"SW  4098  1 0x0000000000001002 4x NDR - CA  4100  1 0x0000000000001004 ( 'MF0;LEAF-1' - 'node1 mlx5_0' )\n"
	"SW  4099  1 0x0000000000001003 4x NDR - CA  4101  1 0x0000000000001005 ( 'MF0;LEAF-2' - 'node1 mlx5_1' )\n"
	"SW  4098  2 0x0000000000001002 4x NDR - CA  4102  1 0x0000000000001006 ( 'MF0;LEAF-1' - 'node2 mlx5_0' )\n"
	"SW  4099  2 0x0000000000001003 4x NDR - CA  4103  1 0x0000000000001007 ( 'MF0;LEAF-2' - 'node2 mlx5_1' )\n"
	"SW  4098  3 0x0000000000001002 4x NDR - SW  4097  1 0x0000000000001001 ( 'MF0;LEAF-1' - 'MF0;SPINE-1' )\n"
	"SW  4099  3 0x0000000000001003 4x NDR - SW  4097  2 0x0000000000001001 ( 'MF0;LEAF-2' - 'MF0;SPINE-1' )\n";

static rm_status ibnd(const char *text)
{
	return import_as(rm_import_ibnetdiscover, text);
}

/* Both hosts on both rail leaves: one unit of 2 rails, the leaves under
 * one spine, whichever form the capture has. */
static void one_unit(const char *text, const char *form)
{
	int before = t_bad;
	CHECK_INT(ibnd(text), RM_OK);
	CHECK_INT(IM ? IM->nunit : 0, 1);
	CHECK_INT(IM && IM->nunit ? IM->unit[0].nhost : 0, 2);
	CHECK_INT(IM && IM->nunit ? IM->unit[0].nrails : 0, 2);
	CHECK_INT(IM ? IM->rails : 0, 2);
	CHECK_HAS(report_line("leaves"), "2");
	CHECK_HAS(report_line("tiers"), "2");
	CHECK_HAS(part(RM_IMPORT_SITE), "rankmap-site/1");
	if (t_bad != before)
		printf("    (the %s form)\n", form);
}

static void forms(void)
{
	one_unit(plain, "plain");
	one_unit(full, "--full");
	one_unit(ports, "-p");
}

static void partial(void)
{
	/* the leaves' sections only: hosts seen as remote ends */
	static const char t[] = LEAF("2", "LEAF-1")
		"[1]\t\"H-0000000000001004\"[1](0000000000001004) \t\t# \"node1 mlx5_0\" lid 4100 4xNDR\n"
		"[2]\t\"H-0000000000001006\"[1](0000000000001006) \t\t# \"node2 mlx5_0\" lid 4102 4xNDR\n";
	CHECK_INT(ibnd(t), RM_OK);
	CHECK_HAS(report_line("nodes seen only as a remote end"), "2");
	CHECK_HAS(report_line("links seen at one end only"), "2");
}

#define SW1 "Switch\t3 \"S-0000000000000001\"\t\t# \"MF0;L1:X\" enhanced port 0 lid 1 lmc 0\n"
#define H1 "\"H-00000000000000a1\"[1](00000000000000a1) "

static void bad(void)
{
	static const t_say rows[] = {
		{ "hello world\n", { "in.txt:1:1:", "ibnetdiscover" } },
		{ "[1]\t" H1 "\t\t# \"h1 mlx5_0\" lid 2 4xNDR\n", { "in.txt:1:1:", "port" } },
		{ SW1 "[1]\t\"S-0000000000000001\"[2]\t\t# \"MF0;L1:X\" lid 1 4xNDR\n",
		  { "in.txt:2:1:", "loop" } },
		/* duplicate: one port cabled twice */
		{ SW1 "[1]\t" H1 "\t\t# \"h1 mlx5_0\" lid 2 4xNDR\n"
		  "[1]\t\"H-00000000000000a2\"[1](00000000000000a2) \t\t# \"h2 mlx5_0\" lid 3 4xNDR\n",
		  { "in.txt:3:1:", "port 1", "line 2" } },
		/* oversized: a description over IB's 64 bytes, a line over 4 KiB */
		{ "Switch\t3 \"S-0000000000000001\"\t\t# \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\" lid 1\n",
		  { "in.txt:1:", "64" } },
		{ "Switch\t3 \"S-0000000000000001\"\t\t# \"a\001b\" lid 1\n",
		  { "in.txt:1:", "0x01" } },
		/* truncated, wrong type of value */
		{ SW1 "[1\n", { "in.txt:2:", "port number" } },
		{ SW1 "[1]\t\"H-00000000000000a1zz\"[1]\t\t# \"h1 mlx5_0\" lid 2\n",
		  { "in.txt:2:", "16 hex digits" } },
		{ SW1 "SW 1 1 0x0000000000000001 4x NDR - CA 2 1 0x00000000000000a1 ( 'a' - 'h1 mlx5_0' )\n",
		  { "in.txt:2:1:" } },
		{ "Ca\t1 \"H-00000000000000a1\"\t\t# \"h1 HCA-1\"\n", { "in.txt", "no switch" } },
		{ "# only a comment\n", { "in.txt", "ibnetdiscover" } },
	};
	CHECK_SAYS(ibnd, RM_EINPUT, E.msg, rows);
	/* a line longer than any real one */
	static char huge[6000];
	memset(huge, 'x', sizeof(huge) - 2);
	huge[sizeof(huge) - 2] = '\n';
	CHECK_INT(ibnd(huge), RM_EINPUT);
	CHECK(at_line_col(E.msg));
}

int main(void)
{
	RUN("import/ibnd", forms);
	RUN("import/ibnd", partial);
	RUN("import/ibnd", bad);
	rm_import_free(IM);
	TEST_EXIT();
}
