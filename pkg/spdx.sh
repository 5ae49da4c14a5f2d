#!/usr/bin/env bash
# pkg/spdx.sh [--check]: puts "SPDX-License-Identifier: Apache-2.0" at the
# top of every tracked source file (.c .h .py .sh .mk Makefile .lua .js
# .css, and scripts with a shebang): on line 1, or line 2 after a "#!".
# Idempotent: a file that has the line in its first two lines is left as
# it is. --check changes nothing and lists the files without it (exit 1).
set -eu
cd "$(dirname "$0")/.."
ID="SPDX-License-Identifier: Apache-2.0"
check=false
[ "${1:-}" = --check ] && check=true

# The comment for file $1 into c, by its name (and a shebang's
# interpreter, from its first line $2; only its first 64 bytes count).
comment() {
	case "$1" in
	*.c | *.h | *.js | *.css) c="/* $ID */" ;;
	*.lua) c="-- $ID" ;;
	*.py | *.sh | *.bash | *.mk | Makefile | */Makefile) c="# $ID" ;;
	*)
		case "${2:0:64}" in
		'#!'*lua*) c="-- $ID" ;;
		'#!'*sh* | '#!'*python* | '#!'*make* | '#!'*perl*) c="# $ID" ;;
		*) c= ;;
		esac ;;
	esac
}

missing=0
while IFS= read -r -d '' f; do
	[ -f "$f" ] && [ ! -L "$f" ] || continue
	# the first two lines read by the shell itself, and no subshell: a
	# few processes for each of the ~1,000 tracked files took over a
	# minute of a loaded make check (t_license)
	l1='' l2=''
	{ IFS= read -r l1 && IFS= read -r l2; } <"$f" 2>/dev/null || true
	case "$l1
$l2" in *"SPDX-License-Identifier:"*) continue ;; esac
	comment "$f" "$l1"
	[ -n "$c" ] || continue
	if $check; then
		echo "$f"
		missing=$((missing + 1))
		continue
	fi
	tmp=$(mktemp "$f.spdx.XXXXXX")
	if head -1 "$f" | grep -q '^#!'; then
		{ head -1 "$f"; echo "$c"; tail -n +2 "$f"; } >"$tmp"
	else
		{ echo "$c"; cat "$f"; } >"$tmp"
	fi
	chmod --reference="$f" "$tmp"
	mv "$tmp" "$f"
done < <(git ls-files -z --cached --others --exclude-standard)
if $check && [ "$missing" -gt 0 ]; then
	echo "spdx: $missing files without \"$ID\" (run pkg/spdx.sh)" >&2
	exit 1
fi
exit 0
