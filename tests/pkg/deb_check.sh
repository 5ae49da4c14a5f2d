#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/pkg/deb_check.sh (make deb-check, after make deb): the packages in
# $BUILD/deb pass lintian without errors, and `dpkg -i` of all of them
# works on this Debian with its Slurm - for real, with dpkg's own dependency
# checks and triggers, but inside a private copy-on-write overlay of / so the
# machine (shared with others) is not changed. In that root, first a real
# `make install` into /usr/local (a program linked with -lrankmap starts,
# so ldconfig ran) and `make uninstall`; then, after dpkg -i: the installed
# rankmap runs, `man rankmap` works, a program built with
# `pkg-config rankmap` starts without LD_LIBRARY_PATH, and a local Slurm
# cluster (tests/slurm/cluster.sh) loads the installed plugin from Slurm's
# plugin directory and gives an srun --parallel-layout step its ranks.
# Prints PASS:/FAIL:/SKIP: lines and ends like tests/run.sh.
set -u
cd "$(dirname "$0")/../.."
RM_ROOT=$PWD
BUILD=${BUILD:-$RM_ROOT/build}
SUITE=deb
source tests/lib.sh
debs=("$BUILD"/deb/*.deb)
[ -e "${debs[0]}" ] || { fail debs "no packages in $BUILD/deb: run make deb"; exit 1; }

if lintian --fail-on error "$BUILD"/deb/*.changes >"$BUILD/deb/lintian.log" 2>&1; then
	pass lintian
else
	fail lintian "$(grep '^E:' "$BUILD/deb/lintian.log" | head -5)"
fi
echo "    lintian: $(grep -c '^E:' "$BUILD/deb/lintian.log") errors, $(grep -c '^W:' "$BUILD/deb/lintian.log") warnings"

if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null; then
	skip dpkg-install "needs root and unshare for the private overlay root"
	finish
	exit $?
fi
T=$(mktemp -d /tmp/rankmap-deb.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/upper" "$T/work" "$T/root" "$T/debs" "$T/out"
cp "${debs[@]}" "$T/debs/"
cp -r tests "$T/tests"

# What runs inside the overlay root (as a script: one namespace, one go).
cat >"$T/out/inside.sh" <<'IN'
set -u
cd /debs
say() { echo "$1: deb/$2"; }
# What tests/pkg/use_rankmap.c prints through the installed rankmap.h.
H=$RM_SRC/mapper/include/rankmap.h
USE_OUT=$(printf '16384 GPUs\nplanned 16384 ranks\nlibrankmap %s, ABI %s' \
	"$(sed -n 's/^#define RM_VERSION_STRING "\(.*\)"/\1/p' "$H")" \
	"$(sed -n 's/^#define RM_ABI_VERSION \([0-9]*\)/\1/p' "$H")")
# First `make install` itself, as root into /usr/local: a program linked
# with -lrankmap must start with no LD_LIBRARY_PATH (make install runs
# ldconfig); `make uninstall` then takes it all away again.
if [ -x "$RM_BLD/rankmap" ] &&
	make --no-print-directory -s -C "$RM_SRC" BUILD="$RM_BLD" install >/out/install.log 2>&1 &&
	gcc -o /tmp/use-local /tests/pkg/use_rankmap.c \
		$(PKG_CONFIG_PATH=/usr/local/lib/pkgconfig pkg-config --cflags --libs rankmap) 2>>/out/install.log &&
	[ "$(/tmp/use-local)" = "$USE_OUT" ]; then
	say PASS "make-install-ldconfig (/usr/local/lib)"
else
	say FAIL "make-install-ldconfig: $(tail -3 /out/install.log | tr '\n' ' ')"
fi
make --no-print-directory -s -C "$RM_SRC" BUILD="$RM_BLD" uninstall >/dev/null 2>&1
[ ! -e /usr/local/bin/rankmap ] && [ ! -e /usr/local/lib/librankmap.so.1 ] &&
	say PASS make-uninstall || say FAIL "make-uninstall: files left"
if dpkg -i ./*.deb >/out/dpkg.log 2>&1; then say PASS dpkg-install; else
	say FAIL "dpkg-install: $(tail -5 /out/dpkg.log | tr '\n' ' ')"; exit 0; fi
dpkg -l 'rankmap*' 'librankmap*' | awk '/^ii/ {print "    " $2, $3}'
v=$(rankmap -V 2>&1)
[ "$(command -v rankmap)" = /usr/bin/rankmap ] && [[ $v == "rankmap "* ]] &&
	say PASS "installed-cli ($v)" || say FAIL "installed-cli: $(command -v rankmap) $v"
if rankmap site validate /tests/slurm-site.yaml >/out/validate.txt 2>&1 &&
	grep -q '^result: valid' /out/validate.txt; then say PASS installed-site-validate; else
	say FAIL "installed-site-validate: $(tail -3 /out/validate.txt)"; fi
# what the plugstack example tells the admin to copy is there, and the
# example sites are valid as installed
[ -f /usr/share/rankmap/templates/rankmap-site.yaml ] && [ -f /usr/share/rankmap/templates/lua/cli_filter.lua ] &&
	say PASS installed-templates || say FAIL "installed-templates: $(ls -R /usr/share/rankmap 2>&1 | head -5)"
if rankmap site validate /usr/share/rankmap/examples/site/lab/site.yaml >/out/example.txt 2>&1; then
	say PASS installed-example-site; else say FAIL "installed-example-site: $(tail -3 /out/example.txt)"; fi
if man -w rankmap >/dev/null 2>&1 && MANWIDTH=80 man rankmap 2>/dev/null | grep -q 'site validate'; then
	say PASS man-rankmap; else say FAIL "man-rankmap: $(man -w rankmap 2>&1)"; fi
for p in rankmap-spank rankmap.so rankmap-site; do
	man -w "$p" >/dev/null 2>&1 && say PASS "man-$p" || say FAIL "man-$p: not found"
done
if gcc -o /tmp/use /tests/pkg/use_rankmap.c $(pkg-config --cflags --libs rankmap) 2>/out/cc.log &&
	[ "$(env -u LD_LIBRARY_PATH /tmp/use)" = "$USE_OUT" ]; then say PASS pkg-config-link-run; else
	say FAIL "pkg-config-link-run: $(head -3 /out/cc.log)"; fi
PLUGIN=$(dpkg -L rankmap-spank | grep '/slurm-wlm/rankmap.so$')
[ -f "$PLUGIN" ] && say PASS "plugin-installed ($PLUGIN)" || { say FAIL "plugin-installed"; exit 0; }
# The installed plugin in a local Slurm cluster.
export RM_ROOT=/ RANKMAP=/usr/bin/rankmap
source /tests/slurm/cluster.sh
if ! why=$(cluster_tools); then say SKIP "cluster: $why"; exit 0; fi
D=$(cluster_tmpdir rankmap-deb)
trap 'cluster_stop "$D"' EXIT
# The plugin creates its runtime directory itself (root's, 0755).
mkdir -p "$D/etc"
cp /tests/slurm-site.yaml "$D/etc/site.yaml"
if ! cluster_start "$D" 2 "$PLUGIN" "site=$D/etc/site.yaml" "runtime_dir=$D/rt" >/out/start.log 2>&1; then
	say FAIL "cluster-start: $(tail -3 /out/start.log)"; exit 0; fi
say PASS cluster-start
export SLURM_CONF=$D/etc/slurm.conf
if srun -N2 --ntasks-per-node=4 --parallel-layout=4x1x2 --parallel-order=tp-dp-pp \
	bash -c 'echo "$SLURMD_NODENAME $SLURM_PROCID RANK=$RANK TP=$RANKMAP_TP_RANK DP=$RANKMAP_DP_RANK MAP=${RANKMAP_MAP:+yes}"' \
	>/out/srun.txt 2>/out/srun.err; then
	n=$(grep -c 'RANK=[0-7] TP=[0-3] DP=[01] MAP=yes' /out/srun.txt)
	ranks=$(grep -o 'RANK=[0-7]' /out/srun.txt | sort -u | wc -l)
	[ "$n" -eq 8 ] && [ "$ranks" -eq 8 ] && say PASS "srun-parallel-layout (8 tasks, ranks 0-7)" ||
		say FAIL "srun-parallel-layout: $(head -c 400 /out/srun.txt)"
else
	say FAIL "srun-parallel-layout: $(head -c 400 /out/srun.err)"
fi
# and the plugin refuses a bad layout at submission (it is really loaded)
srun -N1 --parallel-layout=8x2 true >/dev/null 2>/out/bad.err
grep -q 'rankmap: --parallel-layout' /out/bad.err && say PASS plugin-refuses-bad-layout ||
	say FAIL "plugin-refuses-bad-layout: $(head -c 300 /out/bad.err)"
IN
cat >"$T/tests/slurm-site.yaml" <<'YAML'
schema: rankmap-site/1
name: deb-check
gpus_per_node: 8
YAML

# The overlay: / read-only below, writes land in $T/upper and vanish; /dev
# is a private one (tests/privdev.sh), never a bind of the host's.
unshare -m --propagation private bash -c '
	set -e
	T=$1
	mount -t overlay overlay -o "lowerdir=/,upperdir=$T/upper,workdir=$T/work" "$T/root"
	for d in proc sys run; do mount --rbind "/$d" "$T/root/$d"; done
	# a private /dev, never the host one: dpkg and maintainer scripts run as root
	. "$2/tests/privdev.sh"
	private_dev "$T/root"
	mount -t tmpfs tmpfs "$T/root/tmp"
	# A checkout (or build dir) under /tmp, as CI clones may be, would be
	# hidden by that tmpfs: show it at its own path.
	for p in "$2" "$3"; do
		case $p in /tmp/*) mkdir -p "$T/root$p"; mount --bind "$p" "$T/root$p" ;; esac
	done
	mkdir -p "$T/root/debs" "$T/root/out" "$T/root/tests"
	mount --bind "$T/debs" "$T/root/debs"
	mount --bind "$T/out" "$T/root/out"
	mount --bind "$T/tests" "$T/root/tests"
	chroot "$T/root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root RM_SRC="$2" RM_BLD="$3" bash /out/inside.sh
' _ "$T" "$RM_ROOT" "$BUILD" >"$T/inside.log" 2>&1
grep -E '^(PASS|FAIL|SKIP): |^    ' "$T/inside.log"
if ! grep -q '^PASS: deb/dpkg-install' "$T/inside.log"; then
	fail overlay "$(tail -5 "$T/inside.log")"
fi
T_FAILS=$((T_FAILS + $(grep -c '^FAIL: ' "$T/inside.log")))
p=$(grep -c '^PASS: ' "$T/inside.log") f=$(grep -c '^FAIL: ' "$T/inside.log")
echo "deb-check: inside the overlay $p passed, $f failed"
finish
