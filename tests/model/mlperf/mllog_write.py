#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes mllog_llama3_8b.log with mlcommons/logging's own mllog
(https://github.com/mlcommons/logging, commit
7bbf792686936919201796120b970dd820331099, version 4.1.59; not a
dependency of the tests, which read the log it wrote):

    PYTHONPATH=/path/to/logging tests/model/mlperf/mllog_write.py

A llama3-8b run on tp=2,cp=1,dp=16,pp=2 (the Megatron run of
tests/cli/t_calibrate.sh), its settings under constants.py's names (the
parallelism keys among them), blocks of 10 steps (constants.STEP_NUM) at
9.0 s a step, the first 30 steps, and an evaluation after each block.
"""
import os
import sys

from mlperf_logging import mllog
from mlperf_logging.mllog import constants as c

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "mllog_llama3_8b.log")
if os.path.exists(out):
    os.remove(out)
mllog.config(filename=out, default_stack_offset=1,
             root_dir=os.path.dirname(os.path.dirname(os.path.dirname(here))))
log = mllog.get_mllogger()
t = 1759845350906
for key, value in ((c.SUBMISSION_BENCHMARK, c.LLAMA31_8B),
                   (c.SUBMISSION_ORG, "rankmap"), (c.SEED, 1234),
                   (c.GLOBAL_BATCH_SIZE, 512), (c.MAX_SEQUENCE_LENGTH, 8192),
                   (c.GRADIENT_ACCUMULATION_STEPS, 32),
                   (c.TENSOR_PARALLELISM, 2), (c.PIPELINE_PARALLELISM, 2),
                   (c.CONTEXT_PARALLELISM, 1), (c.EXPERT_PARALLELISM, 1),
                   (c.MICRO_BATCH_SIZE, 1), (c.OPT_BASE_LR, 3e-4)):
    log.event(key=key, value=value, time_ms=t)
log.end(key=c.INIT_STOP, time_ms=t)
log.start(key=c.RUN_START, time_ms=t)
for b in range(4):
    log.start(key=c.BLOCK_START, metadata={c.STEP_NUM: 10 * b}, time_ms=t)
    t += (30 if b == 0 else 10) * 9000
    log.end(key=c.BLOCK_STOP, metadata={c.STEP_NUM: 10 * b + 10}, time_ms=t)
    log.start(key=c.EVAL_START, metadata={c.STEP_NUM: 10 * b + 10}, time_ms=t)
    t += 5000
    log.event(key=c.EVAL_ACCURACY, value=round(3.0 - 0.1 * b, 2),
              metadata={c.STEP_NUM: 10 * b + 10}, time_ms=t)
    log.end(key=c.EVAL_STOP, metadata={c.STEP_NUM: 10 * b + 10}, time_ms=t)
log.end(key=c.RUN_STOP, metadata={c.STATUS: c.SUCCESS}, time_ms=t)
