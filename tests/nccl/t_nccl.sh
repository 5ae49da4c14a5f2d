#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t_nccl.sh - librankmap-nccl and rankmap-nccl-check as users meet them:
# the build (skipped cleanly without NCCL), the shared library's exported
# names and self-containment, the check's options, its one-line answer
# without a GPU, and - where a GPU is present - a real one-rank run.
source "$(dirname "$0")/../lib.sh"
SUITE=nccl
CHECKER=$RM_BUILD/rankmap-nccl-check
SO=$RM_BUILD/librankmap-nccl.so
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Without NCCL the build says so in one line and builds nothing of ours.
out=$(cd "$RM_ROOT" && make -n BUILD="$tmp/nobuild" CUDA_HOME="$tmp/nocuda" build-all 2>&1)
if grep -q "rankmap: no NCCL under $tmp/nocuda (nccl.h, libnccl.so): librankmap-nccl and rankmap-nccl-check skipped" <<<"$out" &&
	! grep -q 'rankmap-nccl-check' <<<"$(grep -v skipped <<<"$out")"; then
	pass build-skips-without-nccl
else
	fail build-skips-without-nccl "$(head -c 300 <<<"$out")"
fi

if [ ! -x "$CHECKER" ] || [ ! -f "$SO" ]; then
	skip check-binary "no $CHECKER (NCCL not found at build time)"
	finish
	exit $?
fi

run help 0 "$CHECKER" --help
has help-text "$OUT" '^usage: rankmap-nccl-check'
has help-exit "$OUT" '2 usage, 3 no GPU'
has help-groups "$OUT" 'mp, tp-cp, dp-cp, tp-dp-cp, embedding, etp,'
run bad-option 2 "$CHECKER" --no-such-option
has bad-option-says "$ERR" "^rankmap-nccl-check: unknown option '--no-such-option' \\(see --help\\)$"
run bad-value 2 "$CHECKER" -n 0
has bad-value-says "$ERR" "-n: bad value '0'"
run version 0 "$CHECKER" --version
has version-says "$OUT" '^rankmap-nccl-check [0-9]+\.[0-9]+\.[0-9]+$'
run version-short 0 "$CHECKER" -V
has version-short-says "$OUT" '^rankmap-nccl-check [0-9]'
run bad-format 2 "$CHECKER" --format xml
has bad-format-says "$ERR" "^rankmap-nccl-check: --format: bad value 'xml' \\(see --help\\)$"
run bad-group 2 "$CHECKER" --axes tp,mp,expert
has bad-group-says "$ERR" "--axes: bad value 'tp,mp,expert'"

# Only rmn_ names leave the shared library; librankmap's stay inside.
syms=$(nm -D --defined-only "$SO" | awk '{print $3}')
if [ -n "$syms" ] && ! grep -qv '^rmn_' <<<"$syms"; then
	pass so-exports-only-rmn
else
	fail so-exports-only-rmn "$(grep -v '^rmn_' <<<"$syms" | head -5 | tr '\n' ' ')"
fi

# A C program needs only the header and the library (no librankmap.so).
cat >"$tmp/use.c" <<'EOF'
#include <stdio.h>
#include "rankmap_nccl.h"
int main(void)
{
	/* 1 GB all-reduced over 8 ranks in 10 ms: 175 GB/s of busBw */
	printf("%.1f %s\n", rmn_busbw(RMN_OP_ALLREDUCE, 8, 1000000000ull, 0.01),
	       rmn_status_name(RMN_ETIMEOUT));
	return 0;
}
EOF
if cc -std=c11 -Wall -Werror -I"$RM_ROOT/nccl" -I"$RM_ROOT/mapper/include" \
	-I"$CUDA_HOME/include" "$tmp/use.c" -o "$tmp/use" \
	-L"$RM_BUILD" -Wl,-rpath,"$RM_BUILD" -lrankmap-nccl 2>"$tmp/cc.err"; then
	run so-links-alone 0 "$tmp/use"
	has so-computes "$OUT" '^175\.0 timed out$'
else
	fail so-links-alone "$(head -c 400 "$tmp/cc.err")"
fi
if command -v g++ >/dev/null; then
	if printf '#include "rankmap_nccl.h"\nint main() { rmn_opts o; rmn_opts_init(&o); return o.rank == -1 ? 0 : 1; }\n' |
		g++ -x c++ -fsyntax-only -Wall -Werror -I"$RM_ROOT/nccl" \
			-I"$RM_ROOT/mapper/include" -I"$CUDA_HOME/include" - 2>"$tmp/cxx.err"; then
		pass header-is-cxx-clean
	else
		fail header-is-cxx-clean "$(head -c 400 "$tmp/cxx.err")"
	fi
else
	skip header-is-cxx-clean "no g++"
fi

# A map as the plugin would hand it over: one rank on this host.
host=$(hostname -s)
if ! "$RANKMAP" plan --layout 1x1x1 --nodes "$host" --gpus-per-node 1 \
	--format json -o "$tmp/map.json" >"$tmp/plan.out" 2>&1; then
	fail map-for-check "$(head -c 300 "$tmp/plan.out")"
fi
digest=$(sha256sum "$tmp/map.json" | cut -d' ' -f1)
port=$((20000 + RANDOM % 20000))
job_env=(RANKMAP_MAP="$tmp/map.json" RANKMAP_MAP_SHA256="$digest" RANK=0
	WORLD_SIZE=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port
	RANKMAP_NCCL_TIMEOUT=20)

# No GPU: one line that says so, a non-zero exit, never a crash - with or
# without a job environment around it.
env -u RANKMAP_MAP -u RANK "$CHECKER" >"$tmp/nogpu.out" 2>&1
rc=$?
if grep -q '^rankmap-nccl-check: no CUDA device (' "$tmp/nogpu.out"; then
	if [ "$rc" -eq 3 ] && [ "$(wc -l <"$tmp/nogpu.out")" -eq 1 ]; then
		pass no-gpu-one-line
	else
		fail no-gpu-one-line "exit $rc: $(head -c 300 "$tmp/nogpu.out")"
	fi
	env "${job_env[@]}" "$CHECKER" --format json --axes all >"$tmp/nogpu2.out" 2>&1
	rc=$?
	if [ "$rc" -eq 3 ] && [ "$(wc -l <"$tmp/nogpu2.out")" -eq 1 ] &&
		grep -q '^rankmap-nccl-check: no CUDA device (' "$tmp/nogpu2.out"; then
		pass no-gpu-in-a-job
	else
		fail no-gpu-in-a-job "exit $rc: $(head -c 300 "$tmp/nogpu2.out")"
	fi
	skip gpu-run "no CUDA device here: $(head -c 120 "$tmp/nogpu.out")"
	finish
	exit $?
fi

# A GPU is here: the whole path, for real, on one rank.
run gpu-run 0 env "${job_env[@]}" "$CHECKER" -e 64M
has gpu-run-exact "$OUT" '^result: all results exact, no slow group$'
has gpu-run-axes "$OUT" '^dp  allreduce over 1 groups of 1'
run gpu-run-json 0 env "${job_env[@]}" "$CHECKER" -e 1M --json
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["ok"] and d["wrong"]==0 and len(d["axes"])==3 else 1)' "$OUT"; then
	pass gpu-run-json-valid
else
	fail gpu-run-json-valid "$(head -c 300 "$OUT")"
fi
finish
