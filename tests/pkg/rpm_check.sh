#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/pkg/rpm_check.sh: the RPMs in $BUILD/rpm/RPMS (make rpm), inspected
# - file lists, Requires/Provides, scriptlets, licence - and installed with
# `rpm --root --nodeps --noscripts` into a scratch root to check the paths
# and that the installed CLI runs; then erased, leaving no file behind.
source "$(dirname "$0")/../lib.sh"
D=$RM_BUILD/rpm/RPMS
rpmof() { ls "$D"/*/"$1"-[0-9]*.rpm 2>/dev/null | head -1; }
V=$(sed -n 's/^#define RM_VERSION_STRING "\(.*\)"/\1/p' "$RM_ROOT/mapper/include/rankmap.h")
# The Slurm the plugin was built against, as the spec reads it.
hdr=$(pkg-config --variable=prefix slurm 2>/dev/null || echo /usr)/include/slurm/slurm_version.h
n=$(sed -n 's/^#define SLURM_VERSION_NUMBER //p' "$hdr")
SV=$(printf '%d.%02d.%d' $((n >> 16)) $(((n >> 8) & 255)) $((n & 255)))

q() { rpm -qp "$@" 2>/dev/null; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PKGS="rankmap librankmap1 rankmap-devel rankmap-spank python3-rankmap"
[ -e /usr/local/cuda/include/nccl.h ] && PKGS="$PKGS rankmap-nccl"
for p in $PKGS; do
	f=$(rpmof "$p")
	if [ -z "$f" ]; then fail "$p-built" "no $p RPM in $D"; continue; fi
	pass "$p-built"
	q -l "$f" >"$T/$p.files"
	q --requires "$f" >"$T/$p.req"
	q --provides "$f" >"$T/$p.prov"
	q --scripts "$f" >"$T/$p.scripts"
	[ "$(q --qf '%{LICENSE}' "$f")" = Apache-2.0 ] && pass "$p-license-tag" ||
		fail "$p-license-tag" "License: $(q --qf '%{LICENSE}' "$f")"
	has "$p-license-file" "$T/$p.files" "^/usr/share/licenses/$p-[^/]*/LICENSE$"
done
has cli-bin "$T/rankmap.files" '^/usr/bin/rankmap$'
has cli-man "$T/rankmap.files" '^/usr/share/man/man1/rankmap\.1'
has cli-completion "$T/rankmap.files" '^/usr/share/bash-completion/completions/rankmap$'
has lib-soname "$T/librankmap1.files" "^/usr/lib64/librankmap\.so\.1\.$V$"
has lib-provides "$T/librankmap1.prov" '^librankmap\.so\.1\(\)\(64bit\)'
has lib-ldconfig "$T/librankmap1.scripts" '^postinstall program: /sbin/ldconfig'
has lib-ldconfig-un "$T/librankmap1.scripts" '^postuninstall program: /sbin/ldconfig'
hasnt lib-no-devel "$T/librankmap1.files" '\.(a|h)$|librankmap\.so$'
has devel-header "$T/rankmap-devel.files" '^/usr/include/rankmap\.h$'
has devel-pc "$T/rankmap-devel.prov" "^pkgconfig\(rankmap\) = $V"
has devel-needs-lib "$T/rankmap-devel.req" "^librankmap1\(x86-64\) = $V-"
# The plugin: Slurm's release in its version, exactly that Slurm required.
f=$(rpmof rankmap-spank)
[ "$(q --qf '%{VERSION}' "$f")" = "$V+slurm$SV" ] && pass spank-version ||
	fail spank-version "version $(q --qf '%{VERSION}' "$f"), want $V+slurm$SV"
has spank-exact-slurm "$T/rankmap-spank.req" "^slurm = $SV$"
has spank-plugin "$T/rankmap-spank.files" '^/usr/lib64/slurm/rankmap\.so$'
has spank-example "$T/rankmap-spank.files" '^/etc/slurm/plugstack\.conf\.d/rankmap\.conf\.example$'
[ "$(rpm -qp --configfiles "$f" 2>/dev/null)" = /etc/slurm/plugstack.conf.d/rankmap.conf.example ] &&
	pass spank-config || fail spank-config "config files: $(rpm -qp --configfiles "$f" 2>&1)"
[ "$(q --qf '%{ARCH}' "$(rpmof python3-rankmap)")" = noarch ] && pass python-noarch || fail python-noarch
has python-module "$T/python3-rankmap.files" '/site-packages/rankmap/__init__\.py$'
if [ -s "$T/rankmap-nccl.files" ] 2>/dev/null; then
	has nccl-check "$T/rankmap-nccl.files" '^/usr/bin/rankmap-nccl-check$'
	hasnt nccl-no-cuda-dep "$T/rankmap-nccl.req" '^lib(nccl|cudart)\.so'
fi

# Into a scratch root: every path where the lists say, the CLI runs.
R=$T/root
mkdir -p "$R"
if rpm --root "$R" --initdb && rpm --root "$R" -i --nodeps --noscripts "$D"/*/*.rpm >"$T/i.log" 2>&1; then
	pass install-root
else
	fail install-root "$(head -c 400 "$T/i.log")"
fi
for p in $PKGS; do
	rpm --root "$R" -q "$p" >/dev/null 2>&1 && pass "$p-installed" || fail "$p-installed"
	missing=$(while read -r path; do [ -e "$R$path" ] || [ -L "$R$path" ] || echo "$path"; done <"$T/$p.files")
	[ -z "$missing" ] && pass "$p-paths" || fail "$p-paths" "missing: $missing"
done
out=$("$R/usr/bin/rankmap" -V 2>&1)
[ "$out" = "rankmap $V" ] && pass installed-cli-runs || fail installed-cli-runs "$out"
rpm --root "$R" -V --nodeps rankmap-spank >"$T/v.log" 2>&1 && pass spank-verify || fail spank-verify "$(head -c 300 "$T/v.log")"
rpm --root "$R" -e --nodeps --noscripts $PKGS >"$T/e.log" 2>&1 && pass erase || fail erase "$(head -c 300 "$T/e.log")"
left=$(cd "$R" && find usr etc -type f 2>/dev/null | head -5)
[ -z "$left" ] && pass erase-leaves-nothing || fail erase-leaves-nothing "$left"
finish
