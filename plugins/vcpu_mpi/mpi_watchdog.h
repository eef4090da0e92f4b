/* Ending a process whose MPI wedged (internal to libbackplane_vcpu_mpi.so).
 *
 * Every wait of the module polls nonblocking MPI until its deadline, so no
 * missing peer holds it longer. But Open MPI 4.1 itself can stop inside the
 * poll and never return: under MPI_THREAD_MULTIPLE, when its TCP transport
 * fails to write to a peer that died ("writev failed: Connection reset by
 * peer"), it fails the fragments queued for that peer while holding the
 * peer's send lock, and a failed RDMA put answers by sending a FIN to that
 * same peer, which waits for the lock forever (btl/tcp endpoint_close ->
 * pml/ob1 put_frag_failed -> send_fin -> btl/tcp endpoint_send). Nothing in
 * the process can end that call, and the rank could neither finish its
 * collective nor report it.
 *
 * So each wait tells the watchdog, one thread per process started with the
 * first world, which call it waits in and until when. A wait leaves MPI at
 * its first return after its deadline; one still inside MPI
 * MPI_WATCHDOG_GRACE_MS after its deadline is wedged, and the watchdog ends
 * the process (exit status MPI_WATCHDOG_EXIT_STATUS) after printing to
 * stderr the MPI rank, the call and why, so that the job fails instead of
 * hanging. Thread-safe. */
#ifndef BACKPLANE_VCPU_MPI_MPI_WATCHDOG_H_
#define BACKPLANE_VCPU_MPI_MPI_WATCHDOG_H_

#include <stdint.h>

#include "mpi_world.h"

#define MPI_WATCHDOG_GRACE_MS 2000u
#define MPI_WATCHDOG_EXIT_STATUS 70 /* EX_SOFTWARE */

/* Starts the watchdog once per process; MPI must be initialized (it reads
 * the rank of MPI_COMM_WORLD for its message). */
void mpi_watchdog_start(void);

/* The calling thread waits inside MPI in `what` (named in the message;
 * nothing is formatted unless it is said) until `deadline_ns` (mpi_now_ns's
 * clock), until mpi_watchdog_leave. A thread waits in one call at a time.
 * Without a free slot (more than 64 threads waiting at once) the wait is
 * not watched. */
void mpi_watchdog_enter(mpi_wait_name what, uint64_t deadline_ns);
void mpi_watchdog_leave(void);

#endif /* BACKPLANE_VCPU_MPI_MPI_WATCHDOG_H_ */
