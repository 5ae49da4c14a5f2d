#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Framework semantics: rankmap's groups against a test-side
# reimplementation of Megatron-Core's and DeviceMesh's rules.
. "$(dirname "$0")/../lib.sh"
PY=/usr/bin/python3
[ -x $PY ] || PY=python3
$PY "$RM_ROOT/tests/frameworks/test_groups.py"
