#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Figures the docs and man pages state that are not command output, checked
# against the code that decides them (issue 37: the map file's mode and
# owner, the MASTER_PORT rule and its example).
. "$(dirname "$0")/../lib.sh"
cd "$RM_ROOT" || exit 1
mode() { sed -n "s/^#define $1 \(0[0-7]*\)$/\1/p" spank/files.c; }
dir=$(mode DIR_MODE) map=$(mode MAP_MODE)
[ -n "$dir" ] && [ -n "$map" ] && pass modes-read || fail modes-read "no DIR_MODE/MAP_MODE in spank/files.c"
for f in docs/plugin.md pkg/man/rankmap-spank.8.scd; do
	text=$(tr -s ' \n\t' ' ' <"$f")
	if grep -q "mode $map, in" <<<"$text" && grep -q "mode $dir" <<<"$text" &&
		! grep -Eq 'mode 0600|0700 (directories|owned)' <<<"$text"; then
		pass "$f/map-mode"
	else
		fail "$f/map-mode" "does not say map $map in $dir directories"
	fi
done
# The port example, computed by the rule written again from the docs.
want=$(python3 -c 'import sys; sys.path.insert(0, "tests/slurm"); import port_rule
print(port_rule.master_port(100, 0, (32768, 60999)))')
for f in docs/plugin.md pkg/man/rankmap.1.scd; do
	text=$(tr -s ' \n\t' ' ' <"$f")
	if grep -Eq "job 100 step ?0 gets $want" <<<"$text"; then pass "$f/port-example"; else
		fail "$f/port-example" "does not give job 100 step 0 port $want"; fi
	# the old rule may be named only as the earlier one
	if sed 's/The earlier rule[^.]*\.//' <<<"$text" | grep -Eq '101 ?\+ ?\*?(SLURM_STEP_ID|stepid)'; then
		fail "$f/old-rule" "still states the jobid * 101 rule"
	else
		pass "$f/old-rule"
	fi
done
# docs/explain.md's hardware table has a row for every preset the CLI
# knows (the list its refusal of an unknown name gives), and no other.
hw_known=$("$RANKMAP" explain --model llama3-8b --hw no-such-gpu --layout 8x1x1 2>&1 |
	sed -n 's/.*(known: \(.*\); or a .yaml file).*/\1/p' | tr -d ',')
hw_rows=$(awk '/^\| preset \| HBM \|/ {t=1; next} t && /^\|---/ {next}
	t && /^\|/ {split($0, c, "|"); gsub(/ /, "", c[2]); print c[2]; next}
	t {exit}' docs/explain.md | sort | tr '\n' ' ')
hw_want=$(echo $hw_known | tr ' ' '\n' | sort | tr '\n' ' ')
[ -n "$hw_known" ] && [ "$hw_rows" = "$hw_want" ] && pass explain-hw-table ||
	fail explain-hw-table "table rows: $hw_rows; presets: $hw_want"
# docs/explain.md works out GPU-hours per day by hand beside the output it
# shows: the formula must give the printed figure.
got=$(python3 - docs/explain.md <<'PY'
import re, sys
t = " ".join(open(sys.argv[1]).read().split())
f = re.search(r"24 h x ([0-9,]+) x ([0-9]+\.[0-9]+) / ([0-9]+\.[0-9]+)", t)
o = re.search(r"([0-9]+) of the [0-9]+ GPU-hours of each day", t)
if not f or not o:
    print("missing")
else:
    g, extra, step = int(f.group(1).replace(",", "")), float(f.group(2)), float(f.group(3))
    print("ok" if int(24 * g * extra / step) == int(o.group(1)) else
          "formula gives %d, output %s" % (int(24 * g * extra / step), o.group(1)))
PY
)
[ "$got" = ok ] && pass explain-gpu-hours || fail explain-gpu-hours "$got"
# docs/placement.md's three-tier figures (plan against the baselines on
# bench/bench_baselines.py's trees) are that script's output today: no
# baseline faster than the plan beyond 1 % (the plan is the fastest of its
# candidates as priced), the sums, and seed 20's plan being the sorted
# order at the documented step.
got=$(python3 bench/bench_baselines.py "$RANKMAP" 20 1 2>&1 | python3 -c '
import re, sys
text = open("docs/placement.md").read().replace("\n", " ")
out = sys.stdin.read()
rows = [l.split() for l in out.splitlines() if re.match(r" *[0-9]+ 8x", l)]
r20 = [r for r in rows if r[0] == "20"][0]
wins = sum(1 for r in rows for c in r[4:7] if float(c.rstrip("%")) < -1)
m = re.search(r"slurm ([+-][0-9.]+) %, sorted ([+-][0-9.]+) %", out)
want = ["against %s s. Now the plan is the sorted order" % r20[3],
        "(%d of 60 columns" % wins,
        "Slurm\x27s order is %s %% and a sorted hostfile %s %%" % m.groups()]
bad = [w for w in want if w not in text]
if wins or r20[5] != "+0.00%":
    bad.append("a baseline beats the plan: %d, seed 20 sorted %s" % (wins, r20[5]))
print("ok" if not bad and len(rows) == 20 else "docs lack %s (%d rows)" % (bad, len(rows)))')
[ "$got" = ok ] && pass placement-three-tier || fail placement-three-tier "$got"
# The CLI's own value agrees with the documented rule.
run port-cli 0 env -u SLURM_STEP_RESV_PORTS -u SLURM_STEP_ID SLURM_JOB_ID=100 \
	"$RANKMAP" plan --layout 1x1x1 --nodes n1 --gpus-per-node 1 --format env
got=$(sed -n 's/^MASTER_PORT=//p' "$OUT" | head -1)
if [ "$(tr -s ' ' <<<"$(cat /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null)" | tr '\t' ' ')" = "32768 60999" ]; then
	[ "$got" = "$want" ] && pass port-cli-value || fail port-cli-value "CLI gives $got, docs $want"
else
	skip port-cli-value "this machine's ephemeral range is not Linux's default"
fi
finish
