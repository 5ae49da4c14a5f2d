#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# make install / uninstall into a staging DESTDIR: everything lands where an
# admin (or dpkg) expects it, the soname links let a program linked with
# -lrankmap (flags from rankmap.pc) start, the man pages render cleanly and
# name every option `--help` names, bash completion offers them, and
# uninstall leaves nothing behind.
source "$(dirname "$0")/../lib.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
MA=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
LIB=/usr/lib/$MA
V=$(sed -n 's/^#define RM_VERSION_STRING "\(.*\)"/\1/p' "$RM_ROOT/mapper/include/rankmap.h")
ABI=$(sed -n 's/^#define RM_ABI_VERSION \([0-9]*\)/\1/p' "$RM_ROOT/mapper/include/rankmap.h")
mk() { make --no-print-directory -s -C "$RM_ROOT" BUILD="$RM_BUILD" "$@"; }
D=$T/root
run install 0 mk install DESTDIR="$D" PREFIX=/usr LIBDIR="$LIB"
for f in /usr/bin/rankmap "$LIB/librankmap.a" "$LIB/librankmap.so.$ABI.$V" \
	/usr/include/rankmap.h "$LIB/pkgconfig/rankmap.pc" \
	/usr/share/man/man1/rankmap.1 /usr/share/man/man5/rankmap-site.5 \
	/usr/share/man/man8/rankmap-spank.8 /usr/share/man/man8/rankmap.so.8 \
	/usr/share/bash-completion/completions/rankmap; do
	if [ -f "$D$f" ]; then pass "has$f"; else fail "has$f" "missing"; fi
done
# Templates and example sites for admins (issue 37): every template, and
# each example site valid as installed (its topology.conf beside it).
for f in $(cd "$RM_ROOT" && git ls-files templates); do
	if cmp -s "$RM_ROOT/$f" "$D/usr/share/rankmap/$f"; then pass "has/usr/share/rankmap/$f"; else
		fail "has/usr/share/rankmap/$f" "missing or not the tree's"; fi
done
for s in "$D"/usr/share/rankmap/examples/site/*/site.yaml; do
	n=$(basename "$(dirname "$s")")
	run "example-site-$n" 0 "$RM_BUILD/rankmap" site validate "$s"
done
[ -f "$D/usr/share/rankmap/examples/site/lab/site.yaml" ] && pass example-site-lab-installed ||
	fail example-site-lab-installed "no examples/site/lab"
[ "$(readlink "$D$LIB/librankmap.so.$ABI")" = "librankmap.so.$ABI.$V" ] &&
	[ "$(readlink "$D$LIB/librankmap.so")" = "librankmap.so.$ABI" ] &&
	pass soname-links || fail soname-links "$(ls -l "$D$LIB" | head -c 400)"
if readelf -d "$D$LIB/librankmap.so.$ABI.$V" | grep -q "SONAME.*\[librankmap.so.$ABI\]"; then
	pass soname; else fail soname "$(readelf -d "$D$LIB/librankmap.so.$ABI.$V" | grep SONAME)"; fi
[ ! -e "$D/usr/include/rankmap_priv.h" ] && pass no-private-header ||
	fail no-private-header "rankmap_priv.h installed"
has pc-libdir "$D$LIB/pkgconfig/rankmap.pc" "^libdir=$LIB\$"
has pc-version "$D$LIB/pkgconfig/rankmap.pc" "^Version: $V\$"

# The plugin into Slurm's plugin directory, with an inactive plugstack
# example naming it there.
if [ -f "$RM_BUILD/rankmap.so" ]; then
	PD=$(mk -f "$RM_ROOT/Makefile" --eval 'pd: ; @echo $(SLURM_PLUGIN_DIR)' pd)
	case $PD in /usr/lib/*/slurm-wlm|/usr/lib*/slurm|/usr/local/lib/slurm) pass plugin-dir ;;
	*) fail plugin-dir "$PD" ;; esac
	[ -f "$D$PD/rankmap.so" ] && pass plugin || fail plugin "no $D$PD/rankmap.so"
	has plugstack-example "$D/etc/slurm/plugstack.conf.d/rankmap.conf.example" \
		"^optional $PD/rankmap.so site=/etc/slurm/rankmap.yaml"
else
	skip plugin "rankmap.so not built (no libslurm-dev)"
fi

# A program linked with -lrankmap through pkg-config starts (finds
# librankmap.so.1) and calls the library.
FLAGS=$(PKG_CONFIG_SYSROOT_DIR="$D" PKG_CONFIG_LIBDIR="$D$LIB/pkgconfig:/usr/lib/$MA/pkgconfig:/usr/share/pkgconfig" \
	pkg-config --cflags --libs rankmap)
run link-pc 0 gcc -o "$T/use" "$RM_ROOT/tests/pkg/use_rankmap.c" $FLAGS
run run-linked 0 env LD_LIBRARY_PATH="$D$LIB" "$T/use"
has run-linked-out "$OUT" '^16384 GPUs$'
has run-linked-plan "$OUT" '^planned 16384 ranks$'
has run-linked-abi "$OUT" "^librankmap $V, ABI $ABI\$"
if readelf -d "$T/use" | grep -q "NEEDED.*librankmap.so.$ABI"; then pass needs-so; else
	fail needs-so "$(readelf -d "$T/use" | grep NEEDED)"; fi

# Man pages: render without warnings; every option of `--help` is in them.
for m in "$D"/usr/share/man/man*/*; do
	n=${m##*/}
	[ "$n" = rankmap.so.8 ] && continue
	if LC_ALL=C MANWIDTH=80 man --warnings -l "$m" 2>"$T/warn" >"$T/page" &&
		[ ! -s "$T/warn" ] && [ -s "$T/page" ]; then pass "man-$n"; else
		fail "man-$n" "$(head -c 300 "$T/warn")"; fi
done
help_opts() { "$@" 2>&1 | grep -oE -- '--[a-z][a-z-]+' | sort -u; }
for c in plan check node explain suggest calibrate site; do
	miss=
	for o in $(help_opts "$RANKMAP" help "$c"); do
		[ "$o" = --help ] && continue
		grep -q -- "$o" "$RM_ROOT/pkg/man/rankmap.1.scd" || miss="$miss $o"
		[ "$c" = site ] || grep -q -- "$o" "$RM_ROOT/pkg/rankmap.bash" || miss="$miss $o(completion)"
	done
	[ -z "$miss" ] && pass "options-$c" || fail "options-$c" "not in rankmap.1 / completion:$miss"
done
if [ -x "$RM_BUILD/rankmap-nccl-check" ]; then
	miss=
	for o in $(help_opts "$RM_BUILD/rankmap-nccl-check" --help); do
		[ "$o" = --help ] && continue
		grep -q -- "$o" "$RM_ROOT/pkg/man/rankmap-nccl-check.1.scd" || miss="$miss $o"
	done
	[ -z "$miss" ] && pass options-nccl-check || fail options-nccl-check "not in rankmap-nccl-check.1:$miss"
	[ -f "$D/usr/share/man/man1/rankmap-nccl-check.1" ] && [ -f "$D/usr/bin/rankmap-nccl-check" ] &&
		[ -f "$D$LIB/pkgconfig/rankmap-nccl.pc" ] && pass nccl-installed || fail nccl-installed
fi

# Completion: commands, then a command's options.
comp() {
	(source "$D/usr/share/bash-completion/completions/rankmap"
	 COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _rankmap
	 printf '%s\n' "${COMPREPLY[@]}")
}
comp rankmap s >"$T/c1"
has complete-cmds "$T/c1" '^suggest$'
comp rankmap plan --la >"$T/c2"
has complete-opts "$T/c2" '^--layout$'

run uninstall 0 mk uninstall DESTDIR="$D" PREFIX=/usr LIBDIR="$LIB"
left=$(find "$D" ! -type d)
[ -z "$left" ] && pass uninstall-clean || fail uninstall-clean "left: $left"

# The default prefix: /usr/local, LIBDIR /usr/local/lib.
run install-local 0 mk install DESTDIR="$T/local"
[ -L "$T/local/usr/local/lib/librankmap.so.$ABI" ] && [ -x "$T/local/usr/local/bin/rankmap" ] &&
	pass local-layout || fail local-layout "$(cd "$T/local" && find . | head -20)"
finish
