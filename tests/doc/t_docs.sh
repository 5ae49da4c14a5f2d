#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The docs are tested: every `$ rankmap ...` in README.md and docs/*.md runs
# and its shown output is compared with the real one (tests/doc/doctest.py
# says how; run only these with TESTS=doc make check).
exec python3 "$(dirname "$0")/doctest.py" "$@"
