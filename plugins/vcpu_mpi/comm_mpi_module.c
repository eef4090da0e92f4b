/* The vcpu collectives over Open MPI (see plugins/vcpu/comm/mpi.h): the
 * module's entry points, worlds made and freed, and each call sent to the
 * file that runs it (all_reduce: mpi_all_reduce.h; the other collectives:
 * mpi_collectives.h). Every operation is a nonblocking MPI call polled to
 * completion (mpi_wait.h), so deadlines and the abort flag hold even when a
 * peer never shows up. */
#include <inttypes.h>
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm/mpi.h"
#include "mpi_all_reduce.h"
#include "mpi_collectives.h"
#include "mpi_mailbox.h"
#include "mpi_roll_call.h"
#include "mpi_wait.h"
#include "mpi_watchdog.h"
#include "mpi_world.h"

static pthread_once_t sigpipe_once = PTHREAD_ONCE_INIT;

/* Frees the world unless one of its requests was given up: its buffers may
 * still be written by MPI, which cannot cancel a collective, and its
 * communicator stays too, because Open MPI keeps progressing a given-up
 * nonblocking collective (once a cut link comes back, say) and crashes in
 * it if its communicator was freed. A world whose calls disagreed keeps its
 * communicator alone (mpi_world.h). */
static void world_free(mpi_world *world) {
  mpi_roll_call_close(world);
  if (world->abandoned) {
    mpi_give_up(world);
    return;
  }
  if (world->comm != MPI_COMM_NULL && !world->disagreed)
    MPI_Comm_free(&world->comm);
  mpi_mailbox_close(world);
  free(world->calls);
  free(world->small_out);
  free(world->small_in);
  free(world->scratch);
  free(world->near);
  free(world->host_of);
  free(world);
}

/* Whether every rank of `world` holds the same two words (a value and its
 * complement, so both the highest and the lowest are compared). */
static int all_hold(mpi_world *world, uint64_t value, uint64_t deadline_ns,
                    const atomic_bool *aborted, mpi_wait_name what,
                    bool *out_same, char *error, size_t capacity) {
  world->check_mine[0] = value;
  world->check_mine[1] = ~value;
  MPI_Request request;
  MPI_Iallreduce(world->check_mine, world->check_highest, 2, MPI_UINT64_T,
                 MPI_MAX, world->comm, &request);
  int status = mpi_wait_all(world, &request, 1, MPI_STATUSES_IGNORE,
                            deadline_ns, aborted, what, error, capacity);
  *out_same =
      world->check_highest[0] == value && world->check_highest[1] == ~value;
  return status;
}

/* At exit of a program that never called MPI itself (the module initialized
 * MPI for it): finalize, or mpirun reports the rank as ended abnormally and
 * fails the job. Not after a request was given up: its peer may never come,
 * and MPI_Finalize would wait for it. */
static void finalize_at_exit(void) {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && !mpi_any_request_given_up())
    MPI_Finalize();
}

/* The world's roll call (without it, timeouts name no rank). Opening it is
 * a blocking MPI collective: watched until `deadline_ns`. */
static void open_roll_call(mpi_world *world, uint64_t deadline_ns) {
  mpi_watchdog_enter(mpi_named("making the roll-call communicator"),
                     deadline_ns);
  mpi_roll_call_open(world);
  mpi_watchdog_leave();
}

/* A peer's death must come back from MPI as a failed call, never end this
 * process: Open MPI 4.1's TCP transport writes to its peers with writev,
 * and a write to a socket the dead peer's host already reset raises
 * SIGPIPE, whose default action ends the process without a word (a hybrid
 * host leader so died mid-call now and then when a host was killed, and its
 * host's ranks met a lost leader instead of the lost host). So once per
 * process SIGPIPE is ignored, and such a write fails with EPIPE, which the
 * transport reports, unless the program installed its own handler. */
static void ignore_sigpipe(void) {
  struct sigaction current;
  if (sigaction(SIGPIPE, NULL, &current) == 0 &&
      !(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_DFL)
    signal(SIGPIPE, SIG_IGN);
}

/* Which ranks of `world` run on this rank's host, by processor name (as the
 * hybrid groups them): world->near, nranks entries. A small all-reduce's
 * messages to those ranks go through the host's mailbox (mpi_mailbox.h), or
 * without one are cut at the shared-memory eager limit; to the others they
 * go whole. */
static int find_near(mpi_world *world, uint64_t deadline_ns, char *error,
                     size_t capacity) {
  size_t n = world->nranks, key_bytes = MPI_MAX_PROCESSOR_NAME;
  char *keys = calloc(n + 1, key_bytes);
  world->near = calloc(n, sizeof *world->near);
  if (keys == NULL || world->near == NULL) {
    free(keys);
    return mpi_fail(BP_ERR_OUT_OF_MEMORY, error, capacity, "out of memory");
  }
  char *mine = keys + n * key_bytes;
  int length = 0;
  MPI_Get_processor_name(mine, &length);
  MPI_Request request;
  MPI_Iallgather(mine, (int)key_bytes, MPI_CHAR, keys, (int)key_bytes, MPI_CHAR,
                 world->comm, &request);
  int status = mpi_wait_all(
      world, &request, 1, MPI_STATUSES_IGNORE, deadline_ns, NULL,
      mpi_named("finding the ranks of this host"), error, capacity);
  for (size_t r = 0; r < n && status == BP_OK; r++) {
    world->near[r] = strncmp(keys + r * key_bytes, mine, key_bytes) == 0;
    world->spans_hosts = world->spans_hosts || !world->near[r];
  }
  if (!world->abandoned)
    free(keys); /* a request given up may still write into it */
  return status;
}

static int create(uint64_t secret, uint64_t token, size_t nranks, size_t rank,
                  uint64_t deadline_ns, void **out_handle, char *error,
                  size_t capacity) {
  int initialized = 0, provided = 0, size = 0, me = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided);
    atexit(finalize_at_exit);
  } else
    MPI_Query_thread(&provided);
  if (provided < MPI_THREAD_MULTIPLE)
    return mpi_fail(BP_ERR_UNSUPPORTED, error, capacity,
                    "MPI was initialized without MPI_THREAD_MULTIPLE");
  mpi_collectives_init();
  pthread_once(&sigpipe_once, ignore_sigpipe);
  mpi_watchdog_start();
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if ((size_t)size != nranks || (size_t)me != rank)
    return mpi_fail(BP_ERR_INVALID_ARGUMENT, error, capacity,
                    "rank %zu of %zu does not match MPI rank %d of %d", rank,
                    nranks, me, size);
  mpi_world *world = calloc(1, sizeof *world);
  if (world == NULL)
    return mpi_fail(BP_ERR_OUT_OF_MEMORY, error, capacity, "out of memory");
  world->comm = world->roll = MPI_COMM_NULL;
  /* Every rank arrives before any starts agreeing on the new communicator's
   * context id. After a failure the ranks hold different communicators (a
   * world that gave a request up keeps its own on the ranks that gave up,
   * and only there), so the agreement takes several rounds; with ranks
   * entering MPI_Comm_idup at different times, Open MPI 4.1 then stalled in
   * it now and then with no message in flight (comm.multihost_link_cut_*,
   * about 1 run in 5 on a loaded machine, until the deadline). */
  MPI_Request request;
  MPI_Ibarrier(MPI_COMM_WORLD, &request);
  int status =
      mpi_wait_all(world, &request, 1, MPI_STATUSES_IGNORE, deadline_ns, NULL,
                   mpi_named("waiting for every rank"), error, capacity);
  if (status == BP_OK) {
    MPI_Comm_idup(MPI_COMM_WORLD, &world->comm, &request);
    status = mpi_wait_all(world, &request, 1, MPI_STATUSES_IGNORE, deadline_ns,
                          NULL, mpi_named("MPI_Comm_idup"), error, capacity);
  }
  if (status != BP_OK) {
    world->comm = MPI_COMM_NULL; /* never made: nothing to free */
    world_free(world);
    return status;
  }
  MPI_Comm_set_errhandler(world->comm, MPI_ERRORS_RETURN);
  world->rank = rank;
  world->nranks = nranks;
  world->member = "rank";
  world->calls = calloc((nranks + 1) * CALL_WORDS, sizeof *world->calls);
  if (world->calls == NULL) {
    world_free(world);
    return mpi_fail(BP_ERR_OUT_OF_MEMORY, error, capacity, "out of memory");
  }
  /* Every rank must present rank 0's secret. */
  bool same = false;
  status = all_hold(world, secret, deadline_ns, NULL,
                    mpi_named("checking the secrets"), &same, error, capacity);
  if (status == BP_OK && !same)
    status = mpi_fail(BP_ERR_INVALID_ARGUMENT, error, capacity,
                      "the ranks presented different secrets: refused");
  if (status == BP_OK)
    status = find_near(world, deadline_ns, error, capacity);
  if (status == BP_OK)
    status = mpi_mailbox_open(world, token, deadline_ns, error, capacity);
  if (status != BP_OK) {
    world_free(world);
    return status;
  }
  open_roll_call(world, deadline_ns);
  *out_handle = world;
  return BP_OK;
}

static void destroy(void *handle) {
  world_free(handle);
}
/* all_reduce over point to point (mpi_all_reduce.h), the others over
 * Open MPI's collectives (mpi_collectives.h). */
static int collective(void *handle, const vcpu_comm_desc_t *d,
                      uint64_t deadline_ns, const atomic_bool *aborted,
                      char *error, size_t capacity) {
  mpi_world *world = handle;
  if (mpi_small_all_reduce_fits(d))
    return mpi_small_all_reduce_start(world, d, deadline_ns, UINT64_MAX,
                                      aborted, error, capacity);
  if (d->kind == VCPU_COMM_ALL_REDUCE)
    return mpi_large_all_reduce(world, d, deadline_ns, aborted, error,
                                capacity);
  return mpi_rooted_or_gathering(world, d, deadline_ns, aborted, error,
                                 capacity);
}

/* A small all-reduce of ranks on one host (about a microsecond) runs on its
 * caller's thread. Across hosts each call waits for a round of the link
 * (10 us and more) and outlasted the caller's turn: it was handed to the
 * stream worker mid-call, and the next call's wait for it kept a second
 * thread per rank busy (0.76-0.91x MPI_Allreduce at 1 KiB over 2 hosts,
 * against 1.02-1.13 with every call on the worker: docs/performance.md).
 * Such worlds enqueue every call. */
static bool quick(void *handle, const vcpu_comm_desc_t *d) {
  const mpi_world *world = handle;
  return !world->spans_hosts && mpi_small_all_reduce_fits(d);
}

static int start(void *handle, const vcpu_comm_desc_t *d, uint64_t deadline_ns,
                 uint64_t until_ns, const atomic_bool *aborted, char *error,
                 size_t capacity) {
  return mpi_small_all_reduce_start(handle, d, deadline_ns, until_ns, aborted,
                                    error, capacity);
}

static int resume(void *handle, const atomic_bool *aborted, char *error,
                  size_t capacity) {
  return mpi_small_all_reduce_resume(handle, UINT64_MAX, aborted, error,
                                     capacity);
}

/* After a send/recv group timed out: the peers it still waits for. */
static void name_pending_peers(const vcpu_comm_desc_t *ops,
                               MPI_Request *requests, size_t n, char *error,
                               size_t capacity) {
  size_t used = strlen(error);
  const char *separator = ": waiting for ";
  for (size_t i = 0; i < n && used + 1 < capacity; i++) {
    int done = 0;
    MPI_Test(&requests[i], &done, MPI_STATUS_IGNORE);
    if (done)
      continue;
    int written = snprintf(
        error + used, capacity - used, "%s%s rank %zu", separator,
        ops[i].kind == VCPU_COMM_SEND ? "the send to" : "the recv from",
        ops[i].peer);
    if (written > 0)
      used += (size_t)written;
    separator = ", ";
  }
}

static int p2p(void *handle, const vcpu_comm_desc_t *ops, size_t n,
               uint64_t deadline_ns, const atomic_bool *aborted, char *error,
               size_t capacity) {
  mpi_world *world = handle;
  MPI_Request *requests = malloc((n ? n : 1) * sizeof *requests);
  MPI_Status *statuses = malloc((n ? n : 1) * sizeof *statuses);
  if (requests == NULL || statuses == NULL) {
    free(requests);
    free(statuses);
    return mpi_fail(BP_ERR_OUT_OF_MEMORY, error, capacity, "out of memory");
  }
  /* Bytes with a margin on receives, so a longer send shows as a mismatch
   * instead of an MPI truncation error. */
  for (size_t i = 0; i < n; i++) {
    size_t bytes = ops[i].count * vcpu_comm_dtype_size(ops[i].dtype);
    if (ops[i].kind == VCPU_COMM_SEND)
      MPI_Isend(ops[i].send, (int)bytes, MPI_BYTE, (int)ops[i].peer, 0,
                world->comm, &requests[i]);
    else
      MPI_Irecv(ops[i].recv, (int)bytes, MPI_BYTE, (int)ops[i].peer, 0,
                world->comm, &requests[i]);
  }
  int status = mpi_wait_all(world, requests, (int)n, statuses, deadline_ns,
                            aborted, mpi_named("send/recv"), error, capacity);
  if (status == BP_ERR_TIMEOUT)
    name_pending_peers(ops, requests, n, error, capacity);
  for (size_t i = 0; i < n && status == BP_OK; i++) {
    if (ops[i].kind != VCPU_COMM_RECV)
      continue;
    int received = 0;
    MPI_Get_count(&statuses[i], MPI_BYTE, &received);
    if ((size_t)received != ops[i].count * vcpu_comm_dtype_size(ops[i].dtype))
      status = mpi_fail(BP_ERR_INVALID_ARGUMENT, error, capacity,
                        "mismatched recv #%" PRIu64
                        " from rank %zu: %d bytes arrived, %zu expected",
                        ops[i].seq, ops[i].peer, received,
                        ops[i].count * vcpu_comm_dtype_size(ops[i].dtype));
  }
  free(requests);
  free(statuses);
  return status;
}

/* This rank's host key: its processor name, or "simulated host r/K". */
static void host_key(size_t rank, size_t ranks_per_host, char *out) {
  int length = 0;
  memset(out, 0, MPI_MAX_PROCESSOR_NAME);
  if (ranks_per_host != 0)
    snprintf(out, MPI_MAX_PROCESSOR_NAME, "simulated host %zu",
             rank / ranks_per_host);
  else
    MPI_Get_processor_name(out, &length);
}

/* The world of `members` (world ranks, one per host in host order, this
 * rank among them; host_of: the host of each rank of `world`), made with
 * `tag` (one per place on a host); blocks until every member called it. */
static int sub_world(mpi_world *world, const int *members, size_t n,
                     const size_t *host_of, int tag, uint64_t deadline_ns,
                     void **out_handle, char *error, size_t capacity) {
  mpi_world *sub = calloc(1, sizeof *sub);
  size_t *hosts_copy = calloc(world->nranks, sizeof *hosts_copy);
  if (sub == NULL || hosts_copy == NULL) {
    free(sub);
    free(hosts_copy);
    return mpi_fail(BP_ERR_OUT_OF_MEMORY, error, capacity, "out of memory");
  }
  memcpy(hosts_copy, host_of, world->nranks * sizeof *hosts_copy);
  MPI_Group all, group;
  MPI_Comm_group(world->comm, &all);
  MPI_Group_incl(all, (int)n, members, &group);
  /* MPI has no nonblocking form of this: watched until the deadline. */
  mpi_watchdog_enter(mpi_named("making the communicator between hosts"),
                     deadline_ns);
  int rc = MPI_Comm_create_group(world->comm, group, tag, &sub->comm);
  mpi_watchdog_leave();
  MPI_Group_free(&group);
  MPI_Group_free(&all);
  if (rc != MPI_SUCCESS) {
    free(sub);
    free(hosts_copy);
    return mpi_fail(BP_ERR_PLUGIN, error, capacity,
                    "MPI_Comm_create_group failed between hosts");
  }
  MPI_Comm_set_errhandler(sub->comm, MPI_ERRORS_RETURN);
  int me = 0;
  MPI_Comm_rank(sub->comm, &me);
  sub->rank = (size_t)me;
  sub->nranks = n;
  sub->roll = MPI_COMM_NULL;
  sub->member = "host";
  sub->host_of = hosts_copy;
  sub->world_nranks = world->nranks;
  sub->calls = calloc((n + 1) * CALL_WORDS, sizeof *sub->calls);
  sub->near = calloc(n, sizeof *sub->near);
  for (size_t i = 0; sub->near != NULL && i < n; i++) {
    sub->near[i] = world->near[members[i]];
    sub->spans_hosts = sub->spans_hosts || !sub->near[i];
  }
  if (sub->calls == NULL || sub->near == NULL) {
    world_free(sub);
    return mpi_fail(BP_ERR_OUT_OF_MEMORY, error, capacity, "out of memory");
  }
  open_roll_call(sub, deadline_ns);
  *out_handle = sub;
  return BP_OK;
}

static int hosts(void *handle, size_t ranks_per_host, uint64_t deadline_ns,
                 size_t *host_of, void **out_rail, char *error,
                 size_t capacity) {
  mpi_world *world = handle;
  *out_rail = NULL;
  size_t n = world->nranks, key_bytes = MPI_MAX_PROCESSOR_NAME;
  char *keys = calloc(n + 1, key_bytes);
  int *leaders = calloc(n, sizeof *leaders);
  if (keys == NULL || leaders == NULL) {
    free(keys);
    free(leaders);
    return mpi_fail(BP_ERR_OUT_OF_MEMORY, error, capacity, "out of memory");
  }
  char *mine = keys + n * key_bytes;
  host_key(world->rank, ranks_per_host, mine);
  MPI_Request request;
  MPI_Iallgather(mine, (int)key_bytes, MPI_CHAR, keys, (int)key_bytes, MPI_CHAR,
                 world->comm, &request);
  int status =
      mpi_wait_all(world, &request, 1, MPI_STATUSES_IGNORE, deadline_ns, NULL,
                   mpi_named("grouping the ranks by host"), error, capacity);
  if (status != BP_OK) {
    if (!world->abandoned)
      free(keys);
    free(leaders);
    return status;
  }
  /* Hosts are numbered by their lowest rank, which leads them. */
  size_t nhosts = 0;
  for (size_t r = 0; r < n; r++) {
    size_t h = 0;
    while (h < nhosts && strncmp(keys + (size_t)leaders[h] * key_bytes,
                                 keys + r * key_bytes, key_bytes) != 0)
      h++;
    if (h == nhosts)
      leaders[nhosts++] = (int)r;
    host_of[r] = h;
  }
  /* This rank's place on its host, and whether every host holds as many
   * ranks as its own (then every place has a rail). */
  size_t place = 0, on_mine = 0;
  size_t *on_host = calloc(nhosts ? nhosts : 1, sizeof *on_host);
  int *rail = calloc(nhosts ? nhosts : 1, sizeof *rail);
  if (on_host == NULL || rail == NULL)
    status = mpi_fail(BP_ERR_OUT_OF_MEMORY, error, capacity, "out of memory");
  for (size_t r = 0; status == BP_OK && r < n; r++) {
    if (r == world->rank)
      place = on_host[host_of[r]];
    on_host[host_of[r]]++;
  }
  on_mine = status == BP_OK ? on_host[host_of[world->rank]] : 0;
  bool even = true;
  for (size_t h = 0; status == BP_OK && h < nhosts; h++)
    even = even && on_host[h] == on_mine;
  if (status == BP_OK && nhosts > 1 && (place == 0 || even)) {
    memset(on_host, 0, nhosts * sizeof *on_host);
    for (size_t r = 0; r < n; r++)
      if (on_host[host_of[r]]++ == place)
        rail[host_of[r]] = (int)r;
    status = sub_world(world, rail, nhosts, host_of, 1 + (int)place,
                       deadline_ns, out_rail, error, capacity);
  }
  free(on_host);
  free(rail);
  free(keys);
  free(leaders);
  return status;
}

static const vcpu_comm_mpi_module_t module = {
    .create = create,
    .destroy = destroy,
    .collective = collective,
    .p2p = p2p,
    .hosts = hosts,
    .quick = quick,
    .start = start,
    .resume = resume,
};

__attribute__((visibility("default"))) const vcpu_comm_mpi_module_t *
BackplaneVcpuCommMpi(void) {
  return &module;
}
