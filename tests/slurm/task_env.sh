#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Run by every task of a test step: one line with what the plugin exported.
sha=-
[ -n "${RANKMAP_MAP:-}" ] && [ -r "$RANKMAP_MAP" ] && sha=$(sha256sum <"$RANKMAP_MAP" | cut -c1-64)
mode=-
[ -n "${RANKMAP_MAP:-}" ] && mode=$(stat -c '%a:%u' "$RANKMAP_MAP" "$(dirname "$RANKMAP_MAP")" 2>/dev/null | tr '\n' ,)
echo "TASK node=${SLURMD_NODENAME:-} localid=${SLURM_LOCALID:-} procid=${SLURM_PROCID:-}" \
	"rank=${RANK:-} world=${WORLD_SIZE:-} lr=${LOCAL_RANK:-} lws=${LOCAL_WORLD_SIZE:-}" \
	"tp=${RANKMAP_TP_RANK:-} pp=${RANKMAP_PP_RANK:-} dp=${RANKMAP_DP_RANK:-}" \
	"tps=${RANKMAP_TP_SIZE:-} pps=${RANKMAP_PP_SIZE:-} dps=${RANKMAP_DP_SIZE:-}" \
	"maddr=${MASTER_ADDR:-} mport=${MASTER_PORT:-} jobid=${SLURM_JOB_ID:-} step=${SLURM_STEP_ID:-}" \
	"map=${RANKMAP_MAP:-} sha=${RANKMAP_MAP_SHA256:-} filesha=$sha mode=$mode" \
	"layout=${RANKMAP_LAYOUT:-} order=${RANKMAP_ORDER:-} stamp=${SLURM_RANKMAP_STEP_STAMP:-none}"
