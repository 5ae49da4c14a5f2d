#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The two launch recipes of docs/cli.md, run as the page writes them: a
# stand-in srun starts the tasks on this machine, each task sources
# `rankmap plan --format env` and torch's init_process_group (gloo,
# env://) must meet every rank on the MASTER_PORT the plugin would use.
source "$(dirname "$0")/../lib.sh"
in_tmp
PY=/usr/bin/python3
if ! "$PY" -c 'import torch.distributed as d; assert d.is_gloo_available()' \
	>/dev/null 2>&1; then
	skip launch "$PY cannot import torch.distributed with gloo (apt-get install python3-torch)"
	finish
	exit
fi
# The recipes read the allocation and the step from Slurm's variables:
# only the ones set below may be seen, even when the suite runs in a job.
while read -r v; do unset "$v"; done < <(compgen -e | grep '^SLURM')

# The fenced block after the marker naming this suite, one recipe per
# paragraph.
awk '/tests\/cli\/t_launch\.sh runs it/ { f = 1; next }
     f && /^```/ { if (++n == 2) exit; next }
     f && n == 1' "$RM_ROOT/docs/cli.md" >recipes.sh
awk 'BEGIN { RS = "" } { print > ("recipe" NR ".sh") }' recipes.sh
if [ -s recipe1.sh ] && [ -s recipe2.sh ] && [ ! -e recipe3.sh ] &&
	grep -q 'exec python train.py' recipe1.sh; then
	pass recipes-found
else
	fail recipes-found "docs/cli.md: expected two recipes after the t_launch.sh marker"
	finish
	exit
fi

mkdir bin
ln -s "$RANKMAP" bin/rankmap
ln -s "$PY" bin/python
# srun as the recipes use it: --ntasks-per-node over SLURM_JOB_NODELIST
# (a comma list here), or -n tasks on the lines of SLURM_HOSTFILE with
# --distribution=arbitrary; each task gets the variables Slurm gives one.
cat >bin/srun <<'EOF'
#!/usr/bin/env bash
per_node=1 ntasks= dist=block
while [ $# -gt 0 ]; do
	case $1 in
	--ntasks-per-node=*) per_node=${1#*=} ;;
	--distribution=*) dist=${1#*=} ;;
	-n) ntasks=$2; shift ;;
	-*) echo "srun stand-in: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done
hosts=()
if [ "$dist" = arbitrary ]; then
	mapfile -t hosts <"$SLURM_HOSTFILE"
	hosts=("${hosts[@]:0:$ntasks}")
else
	IFS=, read -ra nodes <<<"$SLURM_JOB_NODELIST"
	for h in "${nodes[@]}"; do
		for ((l = 0; l < per_node; l++)); do hosts+=("$h"); done
	done
fi
export SLURM_STEP_ID=$SRUN_STEP_ID SLURM_NTASKS=${#hosts[@]}
export SLURM_STEP_NODELIST=$SLURM_JOB_NODELIST
[ -n "${SRUN_RESV_PORTS:-}" ] && export SLURM_STEP_RESV_PORTS=$SRUN_RESV_PORTS
declare -A next
pids=()
for i in "${!hosts[@]}"; do
	h=${hosts[$i]} l=${next[${hosts[$i]}]:-0}
	next[$h]=$((l + 1))
	SLURM_PROCID=$i SLURM_LOCALID=$l SLURMD_NODENAME=$h "$@" &
	pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
exit $rc
EOF
chmod +x bin/srun
cat >train.py <<'EOF'
import datetime, os
import torch
import torch.distributed as dist

rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
dist.init_process_group(backend="gloo", init_method="env://",
                        timeout=datetime.timedelta(seconds=60))
assert (dist.get_rank(), dist.get_world_size()) == (rank, world)
t = torch.ones(1)
dist.all_reduce(t)
e = os.environ
with open(os.path.join(e["LAUNCH_OUT"], str(rank)), "w") as f:
    print(rank, world, int(t.item()), e["MASTER_ADDR"], e["MASTER_PORT"],
          e["SLURM_PROCID"], e["SLURMD_NODENAME"], e["SLURM_LOCALID"],
          e["LOCAL_RANK"], file=f)
dist.destroy_process_group()
EOF

# A port nobody listens on now, in [lo, hi).
free_port() {
	"$PY" - "$RM_ROOT/tests/slurm" "$1" "$2" <<'EOF'
import random, sys
sys.path.insert(0, sys.argv[1])
import port_rule
lo, hi = int(sys.argv[2]), int(sys.argv[3])
for p in (random.randrange(lo, hi) for _ in range(500)):
    if port_rule.bindable(p):
        print(p)
        break
EOF
}

# One node of 8 GPUs named localhost, so MASTER_ADDR resolves here; the
# recipes' tp=4,pp=2,dp=auto makes a world of 8.
export SLURM_JOB_NODELIST=localhost OMP_NUM_THREADS=1
"$RANKMAP" plan --layout tp=4,pp=2,dp=auto --order megatron --nodes localhost \
	--format json -o map.json 2>/dev/null

# launch NAME PORT: run recipe NAME.sh, then every rank must have met the
# others on PORT with its place in the map.
launch() {
	local name=$1 port=$2
	mkdir "out.$name"
	run "$name" 0 env PATH="$T/bin:$PATH" LAUNCH_OUT="$T/out.$name" \
		timeout -k 5 150 bash "$name.sh"
	if "$PY" - "out.$name" "$port" "$name" <<'EOF'; then
import json, os, sys
out, port, name = sys.argv[1], sys.argv[2], sys.argv[3]
m = json.load(open("map.json"))
at = {(r["host"], r["local_gpu"]): r["rank"] for r in m["ranks"]}
rows = [open(os.path.join(out, f)).read().split() for f in os.listdir(out)]
assert sorted(int(r[0]) for r in rows) == list(range(8)), rows
for rank, world, total, addr, mport, procid, host, lid, lrank in rows:
    assert (world, total, addr, mport) == ("8", "8", "localhost", port), rows
    assert at[(host, int(lid))] == int(rank) and lrank == lid, rows
    if name == "recipe2":
        assert procid == rank, rows
EOF
		pass "$name-ranks"
	else
		fail "$name-ranks" "$(ls "out.$name" | wc -l) of 8 ranks met; $(tail -c 300 "$ERR")"
	fi
}

# 1: the port Slurm reserved for the step (MpiParams=ports).
# (below Linux's default ephemeral range: a reservation inside it is refused)
p1=$(free_port 20000 32700)
SRUN_STEP_ID=3 SRUN_RESV_PORTS="$p1-$((p1 + 3))" SLURM_JOB_ID=77 launch recipe1 "$p1"

# 2: no reserved ports: the plugin's rule of docs/plugin.md (outside this
# machine's ephemeral range), with a job id whose port nobody holds now.
read -r job p2 < <("$PY" - "$RM_ROOT/tests/slurm" <<'EOF'
import sys
sys.path.insert(0, sys.argv[1])
import port_rule
for job in range(400000, 400500):
    if port_rule.bindable(port_rule.master_port(job, 0)):
        print(job, port_rule.master_port(job, 0))
        break
EOF
)
if [ -n "${p2:-}" ]; then
	pass rule-job-id
else
	fail rule-job-id "no job id in 400000-400499 gives a free port"
fi
SRUN_STEP_ID=0 SLURM_JOB_ID=$job launch recipe2 "$p2"
finish
