#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# rendezvous.sh DIR [SECONDS]: a stand-in for a framework's rendezvous
# (torch's env:// store, NCCL's bootstrap): every rank checks in under DIR
# and waits until WORLD_SIZE ranks have, SECONDS at most (60). While it
# waits it leaves a heartbeat (DIR/beat.RANK, the time as seconds since the
# epoch), so a test can tell when a killed rank last lived. A rank whose
# helpers are killed under it stops without a word.
d=$1
w=${WORLD_SIZE:-0}
r=${RANK:-x}
: >"$d/in.$r" || exit 1
end=$(($(date +%s) + ${2:-60}))
while :; do
	n=$(ls "$d" | grep -c '^in\.') || exit 1
	[ "$n" -ge "$w" ] && break
	now=$(date +%s) || exit 1
	if [ "$now" -ge "$end" ]; then
		echo "RDV rank=$r node=${SLURMD_NODENAME:-} timed out with $n/$w"
		exit 1
	fi
	date +%s.%N >"$d/beat.$r" || exit 1
	sleep 0.1 || exit 1
done
echo "RDV rank=$r node=${SLURMD_NODENAME:-} got $n/$w"
