/* The vcpu collectives across hosts: run by tests/comm/netns/mpirun_on_hosts.sh
 * on H network-namespace hosts x K ranks, so ranks on different hosts talk
 * over Open MPI's TCP transport and ranks on one host over shared memory.
 * Nothing here simulates hosts (no BACKPLANE_COMM_RANKS_PER_HOST): hosts are
 * told apart by their hostnames, as on real machines.
 *
 * Every collective, in place and out of place, at sizes from 1 byte up to
 * BP_MULTIHOST_MAX_BYTES (default 1 MiB; 67108864 for the full 64 MiB run),
 * checked against the host reference; send/recv
 * between ranks on different hosts; no segment left in /dev/shm. */
#include <mpi.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "comm/comm_mpi_fixture.h"
#include "plugins/vcpu/comm/comm_cases.h"
#include "plugins/vcpu/comm/comm_shm_check.h"
#include "plugins/vcpu/comm/hybrid.h"
#include "plugins/vcpu/comm/interface.h"
#include "plugins/vcpu/comm/mpi.h"

/* How many hosts the ranks are on, by MPI's processor names. */
static int count_hosts(void) {
  char names[64][MPI_MAX_PROCESSOR_NAME] = {{0}};
  char mine[MPI_MAX_PROCESSOR_NAME] = {0};
  int length = 0;
  MPI_Get_processor_name(mine, &length);
  assert_true(comm_mpi_nranks <= 64);
  MPI_Allgather(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names,
                MPI_MAX_PROCESSOR_NAME, MPI_CHAR, MPI_COMM_WORLD);
  int hosts = 0;
  for (int r = 0; r < comm_mpi_nranks; r++) {
    int seen = 0;
    for (int q = 0; q < r; q++)
      seen |= strcmp(names[q], names[r]) == 0;
    hosts += !seen;
  }
  return hosts;
}

/* The harness made separate hosts, and the world is hybrid across them when
 * a host holds several ranks (plain MPI with BACKPLANE_COMM_HYBRID=0). */
static void test_ranks_are_on_separate_hosts(void **state) {
  comm_mpi_world *w = *state;
  int hosts = count_hosts();
  assert_true(hosts >= 2);
  const char *hybrid = getenv("BACKPLANE_COMM_HYBRID");
  bool off = hybrid != NULL && strcmp(hybrid, "0") == 0;
  assert_int_equal(vcpu_comm_hybrid_in_use(w->comm->world),
                   !off && hosts < comm_mpi_nranks);
}

static size_t max_bytes(void) {
  const char *text = getenv("BP_MULTIHOST_MAX_BYTES");
  return text ? (size_t)strtoull(text, NULL, 10) : (size_t)1 << 20;
}

/* Every collective at 1 B, 3 B, 4 and 16 KiB (a small all-reduce's message
 * goes whole across hosts, cut at 4032 bytes inside one), odd sizes around
 * the transports' thresholds (16 KiB small all-reduce, 64 KiB staging) and
 * powers of four up to the maximum, in place and out of place: int8 and
 * float32 sums at every size, float64 max at the odd ones. */
static void test_every_collective_at_every_size(void **state) {
  comm_mpi_world *w = *state;
  static const struct {
    C_DataType type;
    C_CCLReduceOp op;
    size_t bytes; /* element size */
    bool every_size;
  } kinds[] = {
      {INT8, SUM, 1, true}, {FLOAT32, SUM, 4, true}, {FLOAT64, MAX, 8, false}};
  size_t sizes[32], n = 0;
  sizes[n++] = 1;
  sizes[n++] = 3;
  sizes[n++] = 4 * 1024;
  sizes[n++] = 16 * 1024;
  sizes[n++] = 16 * 1024 + 8;
  sizes[n++] = 64 * 1024 + 24;
  for (size_t s = 256 * 1024; s <= max_bytes(); s *= 4)
    sizes[n++] = s;
  if (sizes[n - 1] < max_bytes())
    sizes[n++] = max_bytes();
  int failures = 0;
  for (size_t i = 0; i < n; i++)
    for (int k = CASE_ALL_REDUCE; k <= CASE_REDUCE_SCATTER; k++)
      for (size_t t = 0; t < sizeof kinds / sizeof *kinds; t++) {
        bool odd = sizes[i] % 1024 != 0;
        if (!kinds[t].every_size && !odd)
          continue;
        size_t count = sizes[i] / kinds[t].bytes;
        /* all_gather and reduce_scatter move count per rank */
        if (k == CASE_ALL_GATHER || k == CASE_REDUCE_SCATTER)
          count /= (size_t)comm_mpi_nranks;
        if (count == 0)
          count = 1;
        for (int in_place = 0; in_place < 2; in_place++)
          failures += comm_case_run(&comm_mpi_xccl, w->comm, w->stream,
                                    (size_t)comm_mpi_rank,
                                    (size_t)comm_mpi_nranks, (comm_case_kind)k,
                                    kinds[t].type, kinds[t].op, count, in_place,
                                    (i + t) % (size_t)comm_mpi_nranks, NULL);
      }
  assert_int_equal(failures, 0);
}

/* A ring of send/recv: with hosts filled in rank order, the pair (K-1, K)
 * crosses hosts, and so does the wrap-around. */
static void test_send_recv_between_hosts(void **state) {
  comm_mpi_world *w = *state;
  size_t n = (size_t)comm_mpi_nranks, me = (size_t)comm_mpi_rank,
         count = 300007;
  int32_t *out = malloc(count * 4), *in = calloc(count, 4);
  for (size_t i = 0; i < count; i++)
    out[i] = (int32_t)(me * 1000003 + i);
  comm_mpi_post_ring(w, out, in, count, INT32);
  char message[512];
  if (settle(w->comm, w->stream, message) != 0)
    fail_msg("rank %zu: %s", me, message);
  size_t from = (me + n - 1) % n;
  for (size_t i = 0; i < count; i++)
    if (in[i] != (int32_t)(from * 1000003 + i))
      fail_msg("rank %zu: element %zu from rank %zu is %d", me, i, from, in[i]);
  free(out);
  free(in);
}

/* A small all-reduce of ranks on one host runs on its caller's thread
 * (plugins/vcpu/comm/caller.h). Across hosts each call waits for a round of
 * the link, longer than the caller's turn: handed on mid-call, with the next
 * call spinning beside the worker, it ran slower than either way alone. So
 * the MPI module accepts no call of a world over several hosts on the
 * caller's thread (`quick`; the hybrid's world has no `quick` at all). */
static void test_small_calls_across_hosts_go_to_the_worker(void **state) {
  comm_mpi_world *w = *state;
  const vcpu_comm_world_t *world = w->comm->world;
  vcpu_comm_desc_t one_kib = {
      .kind = VCPU_COMM_ALL_REDUCE, .count = 256, .dtype = FLOAT32, .op = SUM};
  assert_non_null(world->mpi);
  assert_false(world->mpi->quick != NULL &&
               world->mpi->quick(world->mpi_handle, &one_kib));
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ranks_are_on_separate_hosts),
      cmocka_unit_test(test_every_collective_at_every_size),
      cmocka_unit_test(test_send_recv_between_hosts),
      cmocka_unit_test(test_small_calls_across_hosts_go_to_the_worker),
  };
  return comm_mpi_fixture_main(argc, argv, tests, sizeof tests / sizeof *tests,
                               true);
}
