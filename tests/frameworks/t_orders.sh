#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Rank orders judged by content against Megatron-Core's assertions, and the
# Python package's groups against Megatron's and librankmap's.
. "$(dirname "$0")/../lib.sh"
PY=/usr/bin/python3
[ -x $PY ] || PY=python3
$PY "$RM_ROOT/tests/frameworks/test_orders.py"
