#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# cluster.sh - a throw-away Slurm cluster on this machine, for tests and the demo.
#
#   tests/slurm/cluster.sh start DIR [NODES] [PLUGIN_SO [plugstack args...]]
#   tests/slurm/cluster.sh stop DIR
#
# or source it and call cluster_start / cluster_stop. Everything lives under
# DIR (a fresh mktemp directory is best): munge key and socket, slurm.conf,
# state, spool, logs, fake GPU device nodes. The system's Slurm and munge
# configuration is never read or touched. After start, DIR/env holds the
# exports clients need (SLURM_CONF), and DIR/etc/topology.conf the tree.
#
# Nodes are node1..nodeN, all slurmd on 127.0.0.1 with their own ports
# (Debian's Slurm is built with MULTIPLE_SLURMD). The daemons run in a private
# mount namespace in which /etc/hosts is replaced by DIR/etc/hosts, so that
# node names resolve (MASTER_ADDR=node3 must work for torch) without editing
# the real /etc/hosts. Jobs inherit that namespace through slurmstepd.
#
# CLUSTER_ODD=1: the last node's slurmd reads DIR/etc/slurm-odd.conf, the
# same file except PlugStackConfig=DIR/etc/plugstack-odd.conf: a node whose
# plugin configuration (and so its topology.conf) differs from the rest, as
# after a botched config roll-out. slurmctld logs that node's config hash
# mismatch; nothing else changes.
#
# CLUSTER_SLURMD_WRAP=CMD: each slurmd is started as "CMD slurmd ..."
# (bench/bench_stepd.sh runs them under bench/subreaper.py).
#
# CLUSTER_PROCTRACK=pgid|cgroup: that ProctrackType (default linuxproc,
# which needs nothing of the machine; cgroup writes a cgroup.conf for the
# cgroup v1 hierarchy mounted under /sys/fs/cgroup).
#
# CLUSTER_KILLWAIT=S: slurm.conf's KillWait (default 2, to keep the suites
# short; Slurm's own default is 30, which t_abort.sh uses).
#
# The tree has two leaves of different sizes (N/2+1 and the rest) under one
# spine, so placement has a real choice to make.
#
# CLUSTER_TOPOLOGY=FILE: copy FILE to DIR/etc/topology.conf instead; with
# BlockName= lines in it, slurmctld runs topology/block (Slurm 23.11+).
# CLUSTER_TOPOLOGY_PLUGIN=topology/NAME: that TopologyPlugin= whatever the
# file holds (a file that names no block for topology/block).
# CLUSTER_TOPOLOGY_YAML=FILE: copy FILE to DIR/etc/topology.yaml (Slurm
# 25.05+: several topologies, chosen per partition) and write no
# TopologyPlugin= line; topology.conf is then written only when
# CLUSTER_TOPOLOGY names one too (Slurm ignores it beside topology.yaml).
# CLUSTER_PARTITIONS=LINES: the PartitionName= lines, instead of the one
# partition "debug" of all nodes (e.g. with Topology=NAME for topology.yaml).
# CLUSTER_CONF_EXTRA=LINES: appended to slurm.conf (e.g. JobSubmitPlugins=lua;
# a job_submit.lua or cli_filter.lua is then read from DIR/etc, beside it).
#
# Exit codes of start: 0 up, 2 a required tool is missing (callers SKIP),
# 1 anything else (logs are in DIR/log).

# cluster_tmpdir NAME: a fresh private directory /tmp/NAME.<random>.
cluster_tmpdir() {
	mktemp -d "${TMPDIR:-/tmp}/$1.$(printf 'X%.0s' 1 2 3 4 5 6)"
}

# cluster_suite NAME: what every cluster suite starts with - its name in
# the PASS/FAIL lines, the checkout as working directory, and the plugin
# and CLI of this build as PLUGIN and CLI.
cluster_suite() {
	SUITE=$1
	cd "$RM_ROOT" || exit 1
	PLUGIN=$RM_BUILD/rankmap.so
	CLI=$RM_BUILD/rankmap
}

# cluster_preflight: SKIP the whole suite (and exit 0) where there is no
# plugin to build or no local cluster can start, saying which.
cluster_preflight() {
	local why
	if [ ! -f /usr/include/slurm/spank.h ]; then
		skip plugin "Slurm's spank.h is not installed: no plugin to test"
		exit 0
	fi
	if ! why=$(cluster_tools); then
		skip cluster "$why"
		exit 0
	fi
}

cluster_tools() {
	local t
	for t in munged mungekey slurmctld slurmd srun sbatch salloc scontrol \
		sinfo squeue scancel unshare mount; do
		command -v "$t" >/dev/null 2>&1 || { echo "missing tool: $t"; return 2; }
	done
	[ "$(id -u)" -eq 0 ] || { echo "needs root (slurmd, mknod, mount namespace)"; return 2; }
}

# cluster_wait SECONDS CMD...: runs CMD until it succeeds (0) or SECONDS of
# wall-clock time have passed (1). Slurm does much asynchronously (step end,
# epilog, registration, restart); on a loaded machine a fixed number of tries
# is too short, and a fixed sleep is slow on an idle one: wait for the state,
# return as soon as it is there.
cluster_wait() {
	local end=$((SECONDS + $1))
	shift
	while :; do
		"$@" && return 0
		[ "$SECONDS" -ge "$end" ] && return 1
		sleep 0.1
	done
}

# A port range nobody listens on: PORT..PORT+N.
_cluster_ports() {
	local n=$1 try base used p ok
	# mawk (Debian's awk) has no strtonum: hex by hand
	used=$(awk 'function hex(s, i, v) { v = 0; s = toupper(s)
			for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789ABCDEF", substr(s, i, 1)) - 1
			return v }
		FNR > 1 { split($2, a, ":"); print hex(a[2]) }' \
		/proc/net/tcp /proc/net/tcp6 2>/dev/null | sort -u)
	for try in $(seq 1 50); do
		base=$((40000 + RANDOM % 19000))
		ok=1
		for p in $(seq "$base" $((base + n))); do
			if grep -qx "$p" <<<"$used"; then ok=0; break; fi
		done
		[ "$ok" -eq 1 ] && { echo "$base"; return 0; }
	done
	return 1
}

# cluster_start DIR NODES [PLUGIN [ARGS...]]
cluster_start() {
	local dir=$1 n=${2:-4} plugin=${3:-}
	shift 3 2>/dev/null || shift $#
	cluster_tools || return 2
	# The fake GPUs below are made in DIR/dev, never in this machine's /dev
	# (inside the slurm24 root, DIR is in the root's own /tmp).
	case $(realpath -m -- "$dir")/ in
	//|/dev/*) echo "cluster_start: $dir: device nodes would land in /dev"; return 1 ;;
	esac
	[ -d "$dir" ] || mkdir -p "$dir" || return 1
	dir=$(cd "$dir" && pwd)
	local i port host
	host=$(hostname -s)
	mkdir -p "$dir"/{etc,state,run,log,dev,munge} || return 1
	chmod 755 "$dir" "$dir/munge"
	for i in $(seq 1 "$n"); do mkdir -p "$dir/spool/node$i"; done

	# munge: own key, own socket
	mungekey -c -k "$dir/munge/key" -b 1024 >/dev/null 2>&1 || return 1
	chmod 600 "$dir/munge/key"
	munged -f --key-file="$dir/munge/key" --socket="$dir/munge/sock" \
		--pid-file="$dir/munge/pid" --log-file="$dir/log/munged.log" \
		--seed-file="$dir/munge/seed" || return 1

	# Eight fake GPUs in DIR/dev; one set of device files serves every node.
	for i in 0 1 2 3 4 5 6 7; do
		mknod "$dir/dev/nvidia$i" c 195 "$i" || return 1
	done

	port=$(_cluster_ports "$n") || return 1
	# Job ids start at a random point so that MASTER_PORT (derived from the
	# job id) differs between clusters others run at the same time.
	local first=$((1000 + RANDOM % 18000))
	{
		echo "# generated by tests/slurm/cluster.sh"
		echo "ClusterName=rmtest"
		echo "SlurmctldHost=$host(127.0.0.1)"
		echo "SlurmctldPort=$port"
		echo "SlurmdPort=$((port + 1))"
		echo "FirstJobId=$first"
		echo "AuthType=auth/munge"
		echo "CredType=cred/munge"
		echo "AuthInfo=socket=$dir/munge/sock"
		echo "SlurmUser=root"
		echo "SlurmdUser=root"
		echo "StateSaveLocation=$dir/state"
		echo "SlurmdSpoolDir=$dir/spool/%n"
		echo "SlurmctldPidFile=$dir/run/slurmctld.pid"
		echo "SlurmdPidFile=$dir/run/slurmd-%n.pid"
		echo "SlurmctldLogFile=$dir/log/slurmctld.log"
		echo "SlurmdLogFile=$dir/log/slurmd-%n.log"
		echo "SlurmdDebug=info"
		echo "SlurmctldDebug=info"
		echo "ProctrackType=proctrack/${CLUSTER_PROCTRACK:-linuxproc}"
		echo "TaskPlugin=task/none"
		echo "JobAcctGatherType=jobacct_gather/none"
		echo "AccountingStorageType=accounting_storage/none"
		echo "MpiDefault=none"
		echo "SelectType=select/cons_tres"
		echo "SelectTypeParameters=CR_Core"
		echo "ReturnToService=2"
		echo "GresTypes=gpu"
		if [ -n "${CLUSTER_TOPOLOGY_PLUGIN:-}" ]; then
			echo "TopologyPlugin=$CLUSTER_TOPOLOGY_PLUGIN"
		elif [ -n "${CLUSTER_TOPOLOGY_YAML:-}" ]; then
			: # slurmctld picks each topology's plugin from topology.yaml
		elif [ -n "${CLUSTER_TOPOLOGY:-}" ] && grep -q '^[[:space:]]*BlockName=' "$CLUSTER_TOPOLOGY"; then
			echo "TopologyPlugin=topology/block"
		else
			echo "TopologyPlugin=topology/tree"
		fi
		echo "PlugStackConfig=$dir/etc/plugstack.conf"
		echo "SlurmdParameters=config_overrides"
		[ "${CLUSTER_CONFIGLESS:-0}" = 1 ] && echo "SlurmctldParameters=enable_configless"
		echo "MailProg=/bin/true"
		echo "KillWait=${CLUSTER_KILLWAIT:-2}"
		echo "MinJobAge=30"
		for i in $(seq 1 "$n"); do
			echo "NodeName=node$i NodeHostname=node$i NodeAddr=127.0.0.1 Port=$((port + i)) CPUs=8 Boards=1 SocketsPerBoard=2 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=4096 Gres=gpu:8 State=UNKNOWN"
		done
		if [ -n "${CLUSTER_PARTITIONS:-}" ]; then
			echo "$CLUSTER_PARTITIONS"
		else
			echo "PartitionName=debug Nodes=node[1-$n] Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO"
		fi
		[ -n "${CLUSTER_CONF_EXTRA:-}" ] && echo "$CLUSTER_CONF_EXTRA"
	} >"$dir/etc/slurm.conf"
	echo "NodeName=node[1-$n] Name=gpu File=$dir/dev/nvidia[0-7]" >"$dir/etc/gres.conf"
	if [ "${CLUSTER_PROCTRACK:-}" = cgroup ]; then
		printf 'CgroupPlugin=cgroup/v1\nCgroupMountpoint=/sys/fs/cgroup\nIgnoreSystemd=yes\n' >"$dir/etc/cgroup.conf"
	fi

	local l1=$((n / 2 + 1))
	[ "$l1" -ge "$n" ] && l1=$n
	{
		echo "# two leaves of different sizes under one spine"
		echo "SwitchName=leaf1 Nodes=node[1-$l1]"
		[ "$l1" -lt "$n" ] && echo "SwitchName=leaf2 Nodes=node[$((l1 + 1))-$n]"
		if [ "$l1" -lt "$n" ]; then
			echo "SwitchName=spine1 Switches=leaf[1-2]"
		fi
	} >"$dir/etc/topology.conf"
	if [ -n "${CLUSTER_TOPOLOGY:-}" ]; then
		cp "$CLUSTER_TOPOLOGY" "$dir/etc/topology.conf" || return 1
	elif [ -n "${CLUSTER_TOPOLOGY_YAML:-}" ]; then
		rm -f "$dir/etc/topology.conf"
	fi
	if [ -n "${CLUSTER_TOPOLOGY_YAML:-}" ]; then
		cp "$CLUSTER_TOPOLOGY_YAML" "$dir/etc/topology.yaml" || return 1
	fi

	if [ -n "$plugin" ]; then
		echo "required $plugin $*" >"$dir/etc/plugstack.conf"
	else
		: >"$dir/etc/plugstack.conf"
	fi
	cp "$dir/etc/plugstack.conf" "$dir/etc/plugstack-odd.conf"
	sed "s|^PlugStackConfig=.*|PlugStackConfig=$dir/etc/plugstack-odd.conf|" \
		"$dir/etc/slurm.conf" >"$dir/etc/slurm-odd.conf"

	{
		echo "127.0.0.1 localhost $host"
		for i in $(seq 1 "$n"); do echo "127.0.0.1 node$i"; done
	} >"$dir/etc/hosts"

	# The marker in the daemons' environment lets cluster_stop find this
	# cluster's slurmstepd processes (and no one else's) by pid.
	local daemons="mount --bind '$dir/etc/hosts' /etc/hosts || exit 1"
	# Configless slurmd must reach munge before it has AuthInfo: give it
	# a private /run with this cluster's munge socket at the default path.
	[ "${CLUSTER_CONFIGLESS:-0}" = 1 ] && daemons="$daemons
		mount -t tmpfs -o mode=755 rmtest /run && mkdir /run/munge &&
		touch /run/munge/munge.socket.2 &&
		mount --bind '$dir/munge/sock' /run/munge/munge.socket.2 || exit 1"
	daemons="$daemons
		export RANKMAP_TEST_CLUSTER='$dir'
		slurmctld -i -f '$dir/etc/slurm.conf' || exit 1"
	# A configless slurmd gives up (and exits) when slurmctld does not
	# answer its config request soon enough, as on a loaded machine: start
	# the slurmds once slurmctld answers (60 s at most).
	[ "${CLUSTER_CONFIGLESS:-0}" = 1 ] && daemons="$daemons
		end=\$((\$(date +%s) + 60))
		until SLURM_CONF='$dir/etc/slurm.conf' scontrol ping 2>/dev/null | grep -q 'is UP'; do
			[ \$(date +%s) -ge \$end ] && { echo 'slurmctld does not answer' >&2; exit 1; }
			sleep 0.1
		done"
	local conf
	for i in $(seq 1 "$n"); do
		conf=$dir/etc/slurm.conf
		[ "${CLUSTER_ODD:-0}" = 1 ] && [ "$i" -eq "$n" ] && conf=$dir/etc/slurm-odd.conf
		if [ "${CLUSTER_CONFIGLESS:-0}" = 1 ]; then
			# No slurm.conf on the node: slurmd fetches and caches it
			# (and topology.conf, plugstack.conf) from slurmctld.
			daemons="$daemons
		env -u SLURM_CONF slurmd -N node$i --conf-server 127.0.0.1:$port || exit 1"
		else
			daemons="$daemons
		${CLUSTER_SLURMD_WRAP:-} slurmd -N node$i -f '$conf' || exit 1"
		fi
	done
	SLURM_CONF="$dir/etc/slurm.conf" unshare -m --propagation private \
		sh -c "$daemons" >"$dir/log/start.log" 2>&1 || return 1

	echo "export SLURM_CONF='$dir/etc/slurm.conf'" >"$dir/env"
	# Wait until every node is idle.
	_cluster_idle() {
		[ "$(SLURM_CONF="$1/etc/slurm.conf" sinfo -h -N -o '%t' 2>/dev/null | grep -c '^idle$')" -eq "$2" ]
	}
	cluster_wait 60 _cluster_idle "$dir" "$n" && return 0
	echo "cluster did not come up; see $dir/log" >&2
	SLURM_CONF="$dir/etc/slurm.conf" sinfo -N >&2 2>&1
	return 1
}

# cluster_up DIR NODES [PLUGIN [ARGS...]]: cluster_start for a suite: a
# PASS cluster-start line, or a FAIL with the logs' tails and exit 1.
cluster_up() {
	if ! cluster_start "$@" >"$1/start.out" 2>&1; then
		fail cluster-start "$(tail -5 "$1/start.out"; tail -5 "$1/log/slurmctld.log" 2>/dev/null)"
		exit 1
	fi
	pass cluster-start
}

# cluster_restart_slurmd DIR I: stop nodeI's slurmd and start it again in
# the cluster's mount namespace, so that it loads plugstack.conf (and the
# plugin) afresh; returns when the node is idle again.
cluster_restart_slurmd() {
	local dir=$1 i=$2 t pid ns conf
	dir=$(cd "$dir" && pwd)
	conf=$dir/etc/slurm.conf
	# CLUSTER_ODD: the last node reads its own slurm.conf.
	[ "${CLUSTER_ODD:-0}" = 1 ] && [ "$(grep -c '^NodeName=' "$conf")" -eq "$i" ] &&
		conf=$dir/etc/slurm-odd.conf
	ns=$(cat "$dir/run/slurmctld.pid") || return 1
	pid=$(cat "$dir/run/slurmd-node$i.pid") || return 1
	# slurmctld still says idle for a while after the old slurmd is gone:
	# wait for the new slurmd's "started" line, then for idle.
	local log=$dir/log/slurmd-node$i.log started
	started=$(grep -c 'slurmd started on' "$log" 2>/dev/null)
	kill -TERM "$pid" 2>/dev/null
	cluster_wait 30 eval '! kill -0 "$pid" 2>/dev/null' || return 1
	# -r -w: slurmctld's root too, should the cluster run in a chroot
	# (tests/slurm24: setns alone would land in the host's /)
	RANKMAP_TEST_CLUSTER=$dir nsenter -m -r -w -t "$ns" slurmd -N "node$i" -f "$conf" || return 1
	_cluster_restarted() {
		[ "$(grep -c 'slurmd started on' "$log" 2>/dev/null)" -gt "${started:-0}" ] &&
			SLURM_CONF=$dir/etc/slurm.conf sinfo -h -n "node$i" -o '%t' 2>/dev/null | grep -qx idle
	}
	cluster_wait 30 _cluster_restarted
}

_cluster_pids_marked() {
	grep -lzxF "RANKMAP_TEST_CLUSTER=$1" /proc/[0-9]*/environ 2>/dev/null |
		sed -n 's|^/proc/\([0-9]*\)/environ$|\1|p'
}

# cluster_stop DIR [keep]: stop everything and remove DIR (unless "keep").
cluster_stop() {
	local dir=$1 keep=${2:-}
	[ -d "$dir" ] || return 0
	dir=$(cd "$dir" && pwd)
	if [ -f "$dir/etc/slurm.conf" ]; then
		local conf="$dir/etc/slurm.conf" t f pids
		if [ -f "$dir/run/slurmctld.pid" ]; then
			SLURM_CONF=$conf scancel --quiet --full -u "$(id -un)" 2>/dev/null
			cluster_wait 10 eval '[ -z "$(SLURM_CONF=$conf squeue -h -o %i 2>/dev/null)" ]'
		fi
		for f in "$dir"/run/*.pid; do
			[ -f "$f" ] && kill -TERM "$(cat "$f")" 2>/dev/null
		done
		for t in $(seq 1 50); do
			pids=$(_cluster_pids_marked "$dir")
			[ -z "$pids" ] && break
			[ "$t" -eq 25 ] && kill -KILL $pids 2>/dev/null
			sleep 0.2
		done
	fi
	[ -f "$dir/munge/pid" ] && kill -TERM "$(cat "$dir/munge/pid")" 2>/dev/null
	sleep 0.1
	[ "$keep" = keep ] || rm -rf "$dir"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	case "${1:-}" in
	start) shift; d=$1; shift; cluster_start "$d" "$@" ;;
	stop) cluster_stop "$2" "${3:-}" ;;
	*) echo "usage: $0 start DIR [NODES] [PLUGIN [ARGS...]] | stop DIR [keep]" >&2; exit 2 ;;
	esac
fi
