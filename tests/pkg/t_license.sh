#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The licence, everywhere a user or a packager looks: LICENSE is the
# Apache License 2.0, debian/copyright, the RPM spec, the Python package's
# metadata and the README say Apache-2.0, and every tracked source file
# has its SPDX line at the top (line 1, or 2 after a shebang).
source "$(dirname "$0")/../lib.sh"
cd "$RM_ROOT" || exit 1
has license-file LICENSE '^ *Apache License$'
has license-version LICENSE '^ *Version 2\.0, January 2004$'
has license-terms LICENSE 'TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION'
has debian-copyright debian/copyright '^License: Apache-2\.0$'
hasnt debian-no-unlicensed debian/copyright 'unlicensed|all rights reserved'
has rpm-spec pkg/rpm/rankmap.spec '^License: +Apache-2\.0$'
has rpm-spec-file pkg/rpm/rankmap.spec '^%license LICENSE$'
out=$(cd python && python3 setup.py --license 2>/dev/null | tail -1)
[ "$out" = Apache-2.0 ] && pass python-metadata || fail python-metadata "setup.py --license: $out"
has readme README.md '^Apache-2\.0: see `LICENSE`'
if ! git rev-parse --git-dir >/dev/null 2>&1; then
	skip spdx "not a git checkout"
	finish
	exit
fi
# Counted here by extension, independently of pkg/spdx.sh's own rules.
# One process reads every file's first two lines: a head and a grep for
# each took some 20 s of a loaded make check.
T=$(mktemp)
git ls-files -z --cached --others --exclude-standard | python3 -c '
import os, re, sys
kind = re.compile(r"\.(c|h|py|sh|bash|mk|lua|js|css)$|(^|/)Makefile$")
for f in sys.stdin.buffer.read().decode().split("\0"):
    if not f or not kind.search(f) or not os.path.isfile(f):
        continue
    with open(f, "rb") as fh:
        top = fh.readline() + fh.readline()
    if b"SPDX-License-Identifier: Apache-2.0" not in top:
        print(f)
' >"$T"
n=$(git ls-files | grep -cE '\.(c|h|py|sh|bash|mk|lua|js|css)$|(^|/)Makefile$')
if [ ! -s "$T" ]; then pass "spdx-sources ($n files)"; else
	fail spdx-sources "$(wc -l <"$T") files without the SPDX line, e.g. $(head -3 "$T" | tr '\n' ' ')(run pkg/spdx.sh)"
fi
rm -f "$T"
# Scripts without an extension (shebang), by the script's own rules.
if out=$(pkg/spdx.sh --check 2>&1); then pass spdx-scripts; else
	fail spdx-scripts "$(echo "$out" | tail -1)"
fi
finish
