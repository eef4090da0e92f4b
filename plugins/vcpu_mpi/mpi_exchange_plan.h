/* Who exchanges with whom in the all-reduces over point to point
 * (mpi_all_reduce.h; internal to libbackplane_vcpu_mpi.so). With p the
 * largest power of two <= n and r = n - p, ranks below 2r pair up first,
 * the even one of each pair handing its input to the odd one (its helper)
 * and getting the result back at the end; the p others (helpers, and ranks
 * from 2r on), the survivors, exchange with the survivor whose index
 * differs in one bit, log2 p steps, survivor i standing for world ranks
 * [cover(i), cover(i + 1)). */
#ifndef BACKPLANE_VCPU_MPI_MPI_EXCHANGE_PLAN_H_
#define BACKPLANE_VCPU_MPI_MPI_EXCHANGE_PLAN_H_

#include <stdbool.h>
#include <stddef.h>

#include "mpi_world.h"

/* This rank's place in the plan: p survivors, r pairs. */
typedef struct mpi_plan {
  size_t p, r;
  size_t survivor;      /* this rank's survivor index, if it is one */
  bool handing, helper; /* the even / odd rank of a pair */
} mpi_plan;

static inline mpi_plan mpi_plan_of(const mpi_world *world) {
  mpi_plan plan = {.p = 1};
  while (plan.p * 2 <= world->nranks)
    plan.p *= 2;
  plan.r = world->nranks - plan.p;
  size_t me = world->rank;
  plan.handing = me < 2 * plan.r && me % 2 == 0;
  plan.helper = me < 2 * plan.r && me % 2 == 1;
  plan.survivor = me < 2 * plan.r ? me / 2 : me - plan.r;
  return plan;
}

/* The first world rank survivor i stands for (i = p: nranks). */
static inline size_t mpi_plan_cover(const mpi_plan *plan, size_t i) {
  return i < plan->r ? 2 * i : i + plan->r;
}

/* The world rank of survivor i. */
static inline size_t mpi_plan_rank(const mpi_plan *plan, size_t i) {
  return i < plan->r ? 2 * i + 1 : i + plan->r;
}

#endif /* BACKPLANE_VCPU_MPI_MPI_EXCHANGE_PLAN_H_ */
