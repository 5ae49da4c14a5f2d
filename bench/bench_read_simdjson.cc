/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_read_simdjson.cc - the fast-parser baseline of bench_read: one
 * JSON map read with simdjson (Debian's libsimdjson-dev, optional; built
 * only where /usr/include/simdjson.h is), in a process of its own as
 * bench_read's other figures are. Prints the ms it took on stdout, as
 * `bench_read --child` does.
 *
 * The DOM parser, not On Demand: On Demand only parses what is asked for,
 * and a baseline that skips the values the reader has to decode would
 * not be a parse of the map at all. Every rank record is then walked and
 * its fields taken out (what rm_map_read keeps of a record), and the
 * count checked against world_size, so that nothing is left unread.
 *
 * The parser is warmed by one untimed parse of the same file first. Its
 * buffers are sized for the worst case (several bytes per input byte),
 * and in a fresh process touching them costs more than the parse itself
 * (28 of 30 ms at 2 MB here): cold, simdjson is no faster than
 * rm_map_read and so no floor. Warm, what is timed is read() of the
 * file into the parser's input buffer (its pages already touched), the
 * parse and the walk: a floor for any JSON reader with its memory in
 * hand, which rm_map_read, run cold, is not.
 */
#include <simdjson.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "bench_clock.h"

int main(int argc, char **argv)
{
	if (argc != 2) {
		std::fprintf(stderr, "usage: bench_read_simdjson FILE.json\n");
		return 2;
	}
	simdjson::dom::parser parser;
	simdjson::dom::element doc;
	simdjson::dom::array ranks;
	uint64_t world = 0;
	if (parser.load(argv[1]).get(doc)) {
		std::fprintf(stderr, "bench_read_simdjson: %s: not JSON\n",
			     argv[1]);
		return 1;
	}
	double t0 = now_ms();
	if (parser.load(argv[1]).get(doc) ||
	    doc["ranks"].get_array().get(ranks) ||
	    doc["world_size"].get_uint64().get(world)) {
		std::fprintf(stderr, "bench_read_simdjson: %s: not a map\n",
			     argv[1]);
		return 1;
	}
	static const char *const keys[] = { "rank", "node", "local_gpu",
					    "tp", "pp", "dp" };
	uint64_t n = 0, sum = 0;
	for (simdjson::dom::element r : ranks) {
		for (const char *k : keys) {
			uint64_t v = 0;
			if (r[k].get_uint64().get(v)) {
				std::fprintf(stderr, "bench_read_simdjson: "
					     "record %llu: no %s\n",
					     (unsigned long long)n, k);
				return 1;
			}
			sum += v;
		}
		std::string_view host, leaf;
		if (r["host"].get_string().get(host) ||
		    r["leaf"].get_string().get(leaf)) {
			std::fprintf(stderr, "bench_read_simdjson: record %llu: "
				     "no host or leaf\n", (unsigned long long)n);
			return 1;
		}
		sum += host.size() + leaf.size();
		n++;
	}
	double ms = now_ms() - t0;
	keep(&sum);
	if (n != world) {
		std::fprintf(stderr, "bench_read_simdjson: %llu records, "
			     "world_size %llu\n", (unsigned long long)n,
			     (unsigned long long)world);
		return 1;
	}
	std::printf("%.3f\n", ms);
	return 0;
}
