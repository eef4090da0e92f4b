/* `backplane bench comm --hosts H`: all_reduce across H hosts made on this
 * machine as network namespaces by the project's harness
 * (tests/comm/netns/mpirun_on_hosts.sh of the source tree the command was
 * built from: a veth pair per host to a bridge, Open MPI's TCP between
 * hosts, shared memory inside one), ranks / H per host. In one run: the
 * hybrid transport, every rank over MPI (BACKPLANE_COMM_HYBRID=0), Open
 * MPI's own MPI_Allreduce on the same hosts, and the link's latency and
 * bandwidth (an MPI ping-pong between hosts 0 and 1).
 *
 * The command runs itself inside host 0 through the harness (as a launcher:
 * the mpirun it starts there finds the hosts), with BACKPLANE_BENCH_COMM_
 * HOSTS_OUT naming a file; that inner run measures and writes the file
 * ("link <latency us> <bandwidth GB/s>", then per size "<bytes> <hybrid us>
 * <hybrid in-place us> <flat us> <flat in-place us> <MPI us> <MPI in-place
 * us> <wrong elements>"); the command reads it back, prints the table and
 * records the results. Not thread-safe (the bench's thread only). */
#ifndef BACKPLANE_CLI_BENCH_COMM_HOSTS_H_
#define BACKPLANE_CLI_BENCH_COMM_HOSTS_H_

#include <stdio.h>

#include "bench.h"

/* Whether this process is the inner run; if so, its results file, opened
 * for writing (NULL, errno set, if it cannot be), in *out. */
int bench_comm_hosts_is_inner(FILE **out);

/* The command: makes the hosts, runs the inner run and reports. BP_OK also
 * when it skips, saying why on stderr (not root, no network namespaces, no
 * harness); BP_ERR_PLUGIN when the run failed (its output on stderr),
 * BP_ERR_INTERNAL when a wrong element came back. */
bp_status_t bench_comm_hosts(bench_ctx_t *ctx);

#endif /* BACKPLANE_CLI_BENCH_COMM_HOSTS_H_ */
