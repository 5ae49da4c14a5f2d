#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t_wipe.sh - no release object keeps a secret un-wiped (issue 34.6).
#
# A memset of a buffer that is freed or goes out of scope next is a dead
# store: at -O2 the compiler drops it, and the step's secret, the keys
# derived from it or the NCCL id stay in freed heap or an old stack frame.
# So where one of them dies, nccl/ calls sodium_memzero (it links
# libsodium) and the plugin explicit_bzero (it does not), which are never
# dropped. A source can say so and its object still lack the call (a
# wrapper that inlines to memset, a macro), so this suite reads the release
# objects ($RM_BUILD/obj, the normal CFLAGS) with their line tables: every
# wipe of the functions below must be a call in the object, however the
# compiler inlined them, and none of them may hold a plain memset.
source "$(dirname "$0")/../lib.sh"
SUITE=secrets
cd "$RM_ROOT" || exit 1

# Where a secret dies: source, function, how many wipes (distinct source
# lines) it has at least, and a symbol the object must use for the entry
# to apply (MUNGE's code is built only with libmunge-dev).
WIPES='
nccl/auth.c          munge_open        1 munge_decode
nccl/auth.c          rmni_seal_answer  1 munge_encode
nccl/auth.c          rmni_open_answer  1 munge_decode
nccl/exchange.c      rmni_answer_send  1
nccl/exchange.c      rmn_exchange      1
nccl/exchange_peer.c read_answer       2
nccl/comm.c          share_id          1
nccl/comm.c          init_world        1
spank/secret.c       rms_local_secret  2
'
# The calls that wipe; explicit_bzero is __explicit_bzero_chk under
# _FORTIFY_SOURCE.
WIPE_RE='sodium_memzero|explicit_bzero|__explicit_bzero_chk|OPENSSL_cleanse'

# body_lines SRC FUNC: "first last" line of FUNC's definition in SRC (the
# project's style: the name at column 0 or after its type, the body's
# braces at column 0).
body_lines() {
	awk -v f="$2" '
	!start && $0 ~ "^[A-Za-z].*[ *]" f "\\(" { cand = NR }
	cand && !start && /\);[ \t]*$/ { cand = 0 }
	cand && !start && /^\{/ { start = cand }
	start && /^\}/ { print start, NR; exit }' "$1"
}

# calls_at OBJ SRC WHAT: "line" per call of WHAT (a regex of names) in OBJ
# that the line table puts in SRC, directly or as the place a function
# was inlined at (a fortified explicit_bzero, a static helper). objdump
# prints the direct location when it changes and the inlining chain
# before every instruction.
calls_at() {
	objdump -dlr --inlines --no-show-raw-insn "$1" | awk -v src="$2" -v what="$3" '
	function line_in_src(loc,    n, p, file) {
		n = split(loc, p, ":")
		file = substr(loc, 1, length(loc) - length(p[n]) - 1)
		if (file == src || substr(file, length(file) - length(src)) == "/" src)
			return p[n] + 0
		return 0
	}
	/^inlined by / {
		if (insn)
			chain = ""
		insn = 0
		chain = chain " " line_in_src($3)
		next
	}
	/^[^ \t].*\.[ch]:[0-9]+/ { direct = line_in_src($1); chain = ""; insn = 0; next }
	/^ +[0-9a-f]+:\t/ { if (insn) chain = ""; insn = 1; next }
	/^\t+[0-9a-f]+: R_[A-Z0-9_]+\t/ {
		sym = $NF
		sub(/[-+]0x[0-9a-f]+$/, "", sym)
		if (sym !~ "^(" what ")$")
			next
		n = split(direct chain, l, " ")
		for (i = 1; i <= n; i++)
			if (l[i] > 0)
				print l[i]
	}' | sort -un
}

# An object without optimisation keeps every memset and proves nothing;
# without a line table the calls cannot be put back in their functions.
optimised() {
	local prod opt
	prod=$(readelf --debug-dump=info "$1" 2>/dev/null |
		grep -m1 'DW_AT_producer' || true)
	if [ -z "$prod" ]; then
		echo "no debug info (build with -g, as the default CFLAGS do)"
		return 1
	fi
	opt=$(grep -oE -- ' -O[0-9a-z]*' <<<"$prod" | tail -1)
	if [ -z "$opt" ] || [ "$opt" = " -O0" ]; then
		echo "not an optimised build (${opt:- no -O})"
		return 1
	fi
}

# in_body: the lines of stdin that fall in first..last.
in_body() { awk -v a="$first" -v b="$last" '$1 >= a && $1 <= b'; }

checked=0
while read -r src func want needs; do
	[ -n "$src" ] || continue
	obj=$RM_BUILD/obj/${src%.c}.o
	name="$src:$func"
	if [ ! -f "$obj" ]; then
		skip "$name" "no $obj (not built on this machine)"
		continue
	fi
	if [ "$src" -nt "$obj" ]; then
		fail "$name" "$obj is older than $src: rebuild before this test"
		continue
	fi
	if ! why=$(optimised "$obj"); then
		skip "$name" "$obj: $why"
		continue
	fi
	if [ -n "$needs" ] && ! nm -u "$obj" | grep -qw "$needs"; then
		skip "$name" "$obj is built without $needs"
		continue
	fi
	read -r first last < <(body_lines "$src" "$func")
	if [ -z "${first:-}" ]; then
		fail "$name" "no function $func in $src (renamed? update WIPES here)"
		continue
	fi
	checked=$((checked + 1))
	want_lines=$(grep -nE "\\<($WIPE_RE)\\(" "$src" | cut -d: -f1 | in_body)
	have_lines=$(calls_at "$obj" "$src" "$WIPE_RE" | in_body)
	kept_memset=$(calls_at "$obj" "$src" 'memset|__memset_chk' | in_body)
	problems=()
	nsrc=$(grep -c . <<<"$want_lines")
	if [ "$nsrc" -lt "$want" ]; then
		problems+=("$nsrc of its $want wipes in the source")
	fi
	for l in $want_lines; do
		grep -qx "$l" <<<"$have_lines" ||
			problems+=("the wipe at $src:$l is not a call in $obj")
	done
	for l in $(grep -nE '\<memset\(' "$src" | cut -d: -f1 | in_body); do
		if grep -qx "$l" <<<"$kept_memset"; then
			problems+=("plain memset at $src:$l (kept this time, the next compiler may drop it)")
		else
			problems+=("plain memset at $src:$l, absent from $obj: dropped as a dead store")
		fi
	done
	if [ "${#problems[@]}" -eq 0 ]; then
		pass "$name"
	else
		fail "$name" "$(printf '%s; ' "${problems[@]}")use sodium_memzero (nccl/) or explicit_bzero (spank/)"
	fi
done <<<"$WIPES"

# Anywhere else in these folders: a memset whose buffer is freed on the
# next line is the dead store this suite is about.
pairs=$(awk '
	FNR == 1 { prev = 0 }
	{
		line = $0
		gsub(/[ \t]/, "", line)
	}
	prev && line == "free(" buf ");" { print FILENAME ":" FNR - 1 }
	{ prev = 0 }
	line ~ /^memset\(/ && index(line, ",") {
		buf = substr(line, 8, index(line, ",") - 8)
		prev = 1
	}' nccl/*.c spank/*.c)
if [ -z "$pairs" ]; then
	pass no-memset-before-free
else
	fail no-memset-before-free "$(tr '\n' ' ' <<<"$pairs")(a dead store at -O2: use sodium_memzero or explicit_bzero)"
fi

[ "$checked" -gt 0 ] || skip objects "no release object of nccl/ or spank/ to read"
finish
