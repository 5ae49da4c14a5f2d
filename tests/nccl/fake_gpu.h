/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fake_gpu.h - host-memory stand-ins for the CUDA and NCCL calls that
 * librankmap-nccl and rankmap-nccl-check's GPU side make (fake_gpu.c), so
 * their logic runs in CI with one thread per rank. Test code only: what
 * it shows is the program's own logic, never NCCL's behaviour.
 */
#ifndef RM_FAKE_GPU_H
#define RM_FAKE_GPU_H

#include <stdbool.h>

#include <cuda_runtime.h>
#include <nccl.h>

/* What the ranks of one communicator share. */
typedef struct fshared fake_comm;

fake_comm *fake_comm_new(int nranks);
void fake_comm_free(fake_comm *c);
/* Rank `rank`'s handle; with `corrupt` what it receives (all-reduce
 * results, messages) comes back with element 3 flipped, if there is one. */
ncclComm_t fake_handle(fake_comm *c, int rank, bool corrupt);
void fake_handle_free(ncclComm_t h);

/* A rank that "dies" at a point: its call fails at once and it never
 * takes part, so the others wait for it (-1: nobody). */
extern int fake_die_at_init;         /* world rank, in ncclCommInitRankConfig */
extern int fake_die_at_split;        /* parent rank, in the first ncclCommSplit */
/* Every member of the world fails its set-up as NCCL 2.28 does when two
 * ranks share a GPU: ncclInvalidUsage once all have arrived. */
extern bool fake_duplicate_gpu;
/* A handle's size and rank, once its set-up has finished. */
int fake_comm_size(ncclComm_t h);
int fake_comm_rank(ncclComm_t h);
/* Free what ncclCommInitRankConfig and ncclCommSplit made. */
void fake_reset(void);

#endif
