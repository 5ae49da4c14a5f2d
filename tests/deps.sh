#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/deps.sh [install]: checks the Debian 12 packages rankmap builds and
# tests with; installs the missing ones with apt-get when run as root and
# asked to, otherwise names exactly what is missing.
set -u
# tests/deps.sh install demo: only what `make demo` needs
DEMO_PKGS="gcc make libc6-dev pkg-config libyaml-dev libhwloc-dev libssl-dev hwloc slurmctld slurmd slurm-client munge libslurm-dev python3 util-linux procps"
PKGS="gcc make debootstrap pkg-config scdoc dpkg-dev debhelper lintian libyaml-dev libhwloc-dev libssl-dev hwloc slurm-wlm slurmctld slurmd slurm-client munge libmunge-dev libsodium-dev libslurm-dev python3 python3-yaml python3-torch python3-pip python3-setuptools python3-wheel libxml2-utils chromium rpm"
[ "${2:-}" = demo ] && PKGS=$DEMO_PKGS
missing=()
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	if [ "${1:-}" = install ] && [ "$(id -u)" = 0 ]; then
		echo "deps: installing ${missing[*]}"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/tmp/rankmap-apt.log 2>&1 || {
			echo "deps: apt-get install failed; see /tmp/rankmap-apt.log" >&2
			exit 1
		}
	else
		echo "deps: missing Debian packages: ${missing[*]}" >&2
		echo "deps: run 'sudo make ${2:+deps-}${2:-deps}' (apt-get install ${missing[*]})" >&2
		exit 1
	fi
fi
for d in /usr/local/cuda/include/nccl.h; do
	[ -e "$d" ] || echo "deps: note: $d not found: the NCCL parts will be skipped" >&2
done
exit 0
