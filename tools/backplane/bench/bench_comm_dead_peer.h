/* `backplane bench comm --dead-peer`: how soon a rank whose peer process is
 * SIGKILLed mid all-reduce learns it (BP_ERR_PEER_LOST), over two processes
 * of this host: this one (rank 0) and a rank process it starts (rank 1,
 * `backplane bench comm --dead-peer` again, told its rank in the
 * environment), which joins, runs one all-reduce and waits to be killed. */
#ifndef BACKPLANE_CLI_BENCH_COMM_DEAD_PEER_H_
#define BACKPLANE_CLI_BENCH_COMM_DEAD_PEER_H_

#include "bench.h"

/* Records the median time from the kill to the end of rank 0's pending
 * all-reduce (budget: < 100 ms). In the rank process it never returns. A
 * run whose all-reduce ends otherwise than with BP_ERR_PEER_LOST fails the
 * bench. */
bp_status_t bench_comm_dead_peer(bench_ctx_t *ctx);

#endif /* BACKPLANE_CLI_BENCH_COMM_DEAD_PEER_H_ */
