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

# The comment for a file, by its name (and a shebang's interpreter).
comment() {
	case "$1" in
	*.c | *.h | *.js | *.css) echo "/* $ID */" ;;
	*.lua) echo "-- $ID" ;;
	*.py | *.sh | *.bash | *.mk | Makefile | */Makefile) echo "# $ID" ;;
	*)
		case "$(head -c 64 "$1" | tr -d '\0' | head -1)" in
		'#!'*lua*) echo "-- $ID" ;;
		'#!'*sh* | '#!'*python* | '#!'*make* | '#!'*perl*) echo "# $ID" ;;
		esac ;;
	esac
}

missing=0
while IFS= read -r -d '' f; do
	[ -f "$f" ] && [ ! -L "$f" ] || continue
	c=$(comment "$f")
	[ -n "$c" ] || continue
	head -2 "$f" | grep -q "SPDX-License-Identifier:" && continue
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
