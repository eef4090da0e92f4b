/* The vcpu collectives over Open MPI (see plugins/vcpu/comm/mpi.h). Every
 * operation is a nonblocking MPI call polled to completion, so deadlines and
 * the abort flag hold even when a peer never shows up. float16/bfloat16 travel
 * as 2-byte derived types reduced by user ops; AVG is a sum divided once. */
#include <inttypes.h>
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm/mpi.h"
#include "mpi_roll_call.h"
#include "mpi_watchdog.h"
#include "mpi_world.h"
#include "reduce/reduce.h"

static pthread_once_t types_once = PTHREAD_ONCE_INIT;
static pthread_once_t sigpipe_once = PTHREAD_ONCE_INIT;
/* Some world gave a request up: MPI_Finalize could wait for it forever. */
static atomic_bool gave_up;
static MPI_Datatype f16_type, bf16_type;
static MPI_Op user_ops[PRODUCT + 1]; /* for f16/bf16, by C_CCLReduceOp */

static int fail(int status, char *error, size_t capacity, const char *format,
                ...) __attribute__((format(printf, 4, 5)));
static int fail(int status, char *error, size_t capacity, const char *format,
                ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(error, capacity, format, args);
  va_end(args);
  return status;
}

static C_DataType half_type_of(MPI_Datatype *type) {
  return *type == bf16_type ? BFLOAT16 : FLOAT16;
}

#define DEFINE_USER_OP(name, op)                                               \
  static void name(void *in, void *inout, int *len, MPI_Datatype *type) {      \
    const void *srcs[2] = {in, inout};                                         \
    vcpu_comm_reduce(inout, srcs, 2, (size_t)*len, half_type_of(type), op, 1); \
  }
DEFINE_USER_OP(half_sum, SUM)
DEFINE_USER_OP(half_prod, PRODUCT)
DEFINE_USER_OP(half_max, MAX)
DEFINE_USER_OP(half_min, MIN)

static void create_types(void) {
  MPI_Type_contiguous(2, MPI_BYTE, &f16_type);
  MPI_Type_commit(&f16_type);
  MPI_Type_contiguous(2, MPI_BYTE, &bf16_type);
  MPI_Type_commit(&bf16_type);
  MPI_Op_create(half_sum, 1, &user_ops[SUM]);
  MPI_Op_create(half_sum, 1, &user_ops[AVG]);
  MPI_Op_create(half_prod, 1, &user_ops[PRODUCT]);
  MPI_Op_create(half_max, 1, &user_ops[MAX]);
  MPI_Op_create(half_min, 1, &user_ops[MIN]);
}

static MPI_Datatype mpi_type(C_DataType dtype) {
  switch (dtype) {
  case INT8:
    return MPI_INT8_T;
  case INT16:
    return MPI_INT16_T;
  case INT32:
    return MPI_INT32_T;
  case INT64:
    return MPI_INT64_T;
  case UINT8:
    return MPI_UINT8_T;
  case UINT16:
    return MPI_UINT16_T;
  case UINT32:
    return MPI_UINT32_T;
  case UINT64:
    return MPI_UINT64_T;
  case FLOAT16:
    return f16_type;
  case BFLOAT16:
    return bf16_type;
  case FLOAT32:
    return MPI_FLOAT;
  case FLOAT64:
    return MPI_DOUBLE;
  default:
    return MPI_DATATYPE_NULL;
  }
}

static MPI_Op mpi_op(C_DataType dtype, C_CCLReduceOp op) {
  if (dtype == FLOAT16 || dtype == BFLOAT16)
    return user_ops[op];
  switch (op) {
  case PRODUCT:
    return MPI_PROD;
  case MAX:
    return MPI_MAX;
  case MIN:
    return MPI_MIN;
  default: /* SUM, and AVG's sum */
    return MPI_SUM;
  }
}

/* How often a poll reads the clock (a test of a few requests takes tens of
 * nanoseconds, a clock read about as long), and answers roll calls and
 * yields the CPU (mpirun may oversubscribe). */
enum { POLLS_PER_CLOCK_READ = 16, POLLS_PER_YIELD = 64 };

/* Polls until the requests complete (BP_OK), the deadline passes or an
 * abort (world->abandoned then turns true), answering roll calls meanwhile;
 * or until `until_ns` passes first: BP_ERR_NOT_READY, the requests still
 * pending and the world's (poll again later). A timeout's message says only
 * "timed out": callers that can, name the missing ranks. */
static int poll_until(mpi_world *world, MPI_Request *requests, int n,
                      MPI_Status *statuses, uint64_t deadline_ns,
                      uint64_t until_ns, const atomic_bool *aborted,
                      mpi_wait_name what, char *error, size_t capacity) {
  char name[96];
  for (unsigned round = 1;; round++) {
    int done = 0;
    int rc = MPI_Testall(n, requests, &done, statuses);
    if (rc != MPI_SUCCESS) {
      char text[MPI_MAX_ERROR_STRING];
      int length = 0;
      MPI_Error_string(rc, text, &length);
      mpi_wait_name_format(what, name, sizeof name);
      return fail(BP_ERR_PLUGIN, error, capacity, "%s: MPI failed: %s", name,
                  text);
    }
    if (done)
      return BP_OK;
    if (round % POLLS_PER_YIELD == 0) {
      mpi_roll_call_answer(world);
      sched_yield();
    }
    if (round % POLLS_PER_CLOCK_READ != 0)
      continue;
    bool was_aborted = aborted && atomic_load(aborted);
    uint64_t now = mpi_now_ns();
    if (!was_aborted && now > until_ns && now <= deadline_ns)
      return BP_ERR_NOT_READY;
    if (!was_aborted && now <= deadline_ns)
      continue;
    world->abandoned = true;
    atomic_store(&gave_up, true);
    mpi_wait_name_format(what, name, sizeof name);
    if (was_aborted)
      return fail(BP_ERR_ABORTED, error, capacity, "%s aborted", name);
    return fail(BP_ERR_TIMEOUT, error, capacity, "%s timed out", name);
  }
}

/* poll_until, watched (mpi_watchdog.h): a poll that never returns ends the
 * process. */
static int wait_until(mpi_world *world, MPI_Request *requests, int n,
                      MPI_Status *statuses, uint64_t deadline_ns,
                      uint64_t until_ns, const atomic_bool *aborted,
                      mpi_wait_name what, char *error, size_t capacity) {
  mpi_watchdog_enter(what, deadline_ns);
  int status = poll_until(world, requests, n, statuses, deadline_ns, until_ns,
                          aborted, what, error, capacity);
  mpi_watchdog_leave();
  return status;
}

/* wait_until to the end: completion, the deadline or an abort. */
static int wait_all(mpi_world *world, MPI_Request *requests, int n,
                    MPI_Status *statuses, uint64_t deadline_ns,
                    const atomic_bool *aborted, mpi_wait_name what, char *error,
                    size_t capacity) {
  return wait_until(world, requests, n, statuses, deadline_ns, UINT64_MAX,
                    aborted, what, error, capacity);
}

/* A wait named by its label alone. */
static mpi_wait_name named(const char *label) {
  return (mpi_wait_name){label, 0};
}

/* A wait named after the call `d`: "all_reduce sequence 7". */
static mpi_wait_name call_name(const vcpu_comm_desc_t *d) {
  return (mpi_wait_name){vcpu_comm_kind_name(d->kind), d->seq};
}

/* Frees the world unless one of its requests was given up: its buffers may
 * still be written by MPI, which cannot cancel a collective, and its
 * communicator stays too, because Open MPI keeps progressing a given-up
 * nonblocking collective (once a cut link comes back, say) and crashes in
 * it if its communicator was freed. */
static void world_free(mpi_world *world) {
  mpi_roll_call_close(world);
  if (world->abandoned) {
    atomic_store(&gave_up, true);
    return;
  }
  if (world->comm != MPI_COMM_NULL)
    MPI_Comm_free(&world->comm);
  free(world->calls);
  free(world->small_out);
  free(world->small_in);
  free(world->scratch);
  free(world->near);
  free(world->host_of);
  free(world);
}

/* A timed-out call at `seq`: the message names the missing ranks. */
static int name_the_missing(mpi_world *world, int status, uint64_t seq,
                            char *error, size_t capacity) {
  if (status != BP_ERR_TIMEOUT)
    return status;
  char names[256];
  mpi_roll_call(world, seq, names, sizeof names);
  size_t used = strlen(error);
  if (used + 2 < capacity)
    snprintf(error + used, capacity - used, ": %s", names);
  return status;
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
  int status = wait_all(world, &request, 1, MPI_STATUSES_IGNORE, deadline_ns,
                        aborted, what, error, capacity);
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
  if (!finalized && !atomic_load(&gave_up))
    MPI_Finalize();
}

/* The world's roll call (without it, timeouts name no rank). Opening it is
 * a blocking MPI collective: watched until `deadline_ns`. */
static void open_roll_call(mpi_world *world, uint64_t deadline_ns) {
  mpi_watchdog_enter(named("making the roll-call communicator"), deadline_ns);
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
 * hybrid groups them): world->near, nranks entries. A small all-reduce cuts
 * its messages to those ranks at the shared-memory eager limit, and sends
 * them whole to the others. */
static int find_near(mpi_world *world, uint64_t deadline_ns, char *error,
                     size_t capacity) {
  size_t n = world->nranks, key_bytes = MPI_MAX_PROCESSOR_NAME;
  char *keys = calloc(n + 1, key_bytes);
  world->near = calloc(n, sizeof *world->near);
  if (keys == NULL || world->near == NULL) {
    free(keys);
    return fail(BP_ERR_OUT_OF_MEMORY, error, capacity, "out of memory");
  }
  char *mine = keys + n * key_bytes;
  int length = 0;
  MPI_Get_processor_name(mine, &length);
  MPI_Request request;
  MPI_Iallgather(mine, (int)key_bytes, MPI_CHAR, keys, (int)key_bytes, MPI_CHAR,
                 world->comm, &request);
  int status =
      wait_all(world, &request, 1, MPI_STATUSES_IGNORE, deadline_ns, NULL,
               named("finding the ranks of this host"), error, capacity);
  for (size_t r = 0; r < n && status == BP_OK; r++)
    world->near[r] = strncmp(keys + r * key_bytes, mine, key_bytes) == 0;
  if (!world->abandoned)
    free(keys); /* a request given up may still write into it */
  return status;
}

static int create(uint64_t secret, size_t nranks, size_t rank,
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
    return fail(BP_ERR_UNSUPPORTED, error, capacity,
                "MPI was initialized without MPI_THREAD_MULTIPLE");
  pthread_once(&types_once, create_types);
  pthread_once(&sigpipe_once, ignore_sigpipe);
  mpi_watchdog_start();
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if ((size_t)size != nranks || (size_t)me != rank)
    return fail(BP_ERR_INVALID_ARGUMENT, error, capacity,
                "rank %zu of %zu does not match MPI rank %d of %d", rank,
                nranks, me, size);
  mpi_world *world = calloc(1, sizeof *world);
  if (world == NULL)
    return fail(BP_ERR_OUT_OF_MEMORY, error, capacity, "out of memory");
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
  int status = wait_all(world, &request, 1, MPI_STATUSES_IGNORE, deadline_ns,
                        NULL, named("waiting for every rank"), error, capacity);
  if (status == BP_OK) {
    MPI_Comm_idup(MPI_COMM_WORLD, &world->comm, &request);
    status = wait_all(world, &request, 1, MPI_STATUSES_IGNORE, deadline_ns,
                      NULL, named("MPI_Comm_idup"), error, capacity);
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
    return fail(BP_ERR_OUT_OF_MEMORY, error, capacity, "out of memory");
  }
  /* Every rank must present rank 0's secret. */
  bool same = false;
  status = all_hold(world, secret, deadline_ns, NULL,
                    named("checking the secrets"), &same, error, capacity);
  if (status == BP_OK && !same)
    status = fail(BP_ERR_INVALID_ARGUMENT, error, capacity,
                  "the ranks presented different secrets: refused");
  if (status == BP_OK)
    status = find_near(world, deadline_ns, error, capacity);
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

static void call_to_words(const vcpu_comm_desc_t *d, uint64_t *words) {
  words[0] = (uint64_t)d->kind;
  words[1] = d->count;
  words[2] = (uint64_t)d->dtype;
  words[3] = (uint64_t)d->op;
  words[4] = d->peer;
  words[5] = d->stage_of;
}

static vcpu_comm_desc_t call_from_words(const uint64_t *words) {
  return (vcpu_comm_desc_t){.kind = (vcpu_comm_kind_t)words[0],
                            .count = (size_t)words[1],
                            .dtype = (C_DataType)words[2],
                            .op = (C_CCLReduceOp)words[3],
                            .peer = (size_t)words[4],
                            .stage_of = words[5]};
}

/* The call check: every rank's call at this sequence number, all-gathered
 * into world->calls. check_start posts it; check_finish waits for it and
 * names a rank that called something else, with what it called. */
static MPI_Request check_start(mpi_world *world, const vcpu_comm_desc_t *d) {
  world->at_seq = d->seq;
  uint64_t *mine = world->calls + world->nranks * CALL_WORDS;
  call_to_words(d, mine);
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Iallgather(mine, CALL_WORDS, MPI_UINT64_T, world->calls, CALL_WORDS,
                 MPI_UINT64_T, world->comm, &request);
  return request;
}

/* Names a rank whose gathered call differs from `d`; BP_OK if none. */
static int compare_calls(mpi_world *world, const vcpu_comm_desc_t *d,
                         char *error, size_t capacity) {
  for (size_t r = 0; r < world->nranks; r++) {
    vcpu_comm_desc_t theirs = call_from_words(world->calls + r * CALL_WORDS);
    if (vcpu_comm_same_call(d, &theirs))
      continue;
    char a[128], b[128];
    vcpu_comm_describe_call(d, a, sizeof a);
    vcpu_comm_describe_call(&theirs, b, sizeof b);
    return fail(BP_ERR_INVALID_ARGUMENT, error, capacity,
                "mismatched collectives at sequence %" PRIu64
                ": %s %zu called %s but %s %zu called %s",
                d->seq, world->member, world->rank, a, world->member, r, b);
  }
  return BP_OK;
}

static int check_finish(mpi_world *world, const vcpu_comm_desc_t *d,
                        MPI_Request *request, uint64_t deadline_ns,
                        const atomic_bool *aborted, char *error,
                        size_t capacity) {
  int status = wait_all(world, request, 1, MPI_STATUSES_IGNORE, deadline_ns,
                        aborted, call_name(d), error, capacity);
  status = name_the_missing(world, status, d->seq, error, capacity);
  return status == BP_OK ? compare_calls(world, d, error, capacity) : status;
}

/* reduce_scatter: in place (recv inside send) is not MPI's IN_PLACE layout,
 * so it reduces into a scratch buffer and copies, reading the input whole
 * first. */
static int reduce_scatter(mpi_world *world, const vcpu_comm_desc_t *d,
                          uint64_t deadline_ns, const atomic_bool *aborted,
                          char *error, size_t capacity) {
  size_t bytes = d->count * vcpu_comm_dtype_size(d->dtype);
  void *out = d->recv;
  if ((const char *)d->send + world->rank * bytes == d->recv && bytes)
    out = malloc(bytes);
  if (out == NULL)
    return fail(BP_ERR_OUT_OF_MEMORY, error, capacity, "out of memory");
  MPI_Request request;
  MPI_Ireduce_scatter_block(d->send, out, (int)d->count, mpi_type(d->dtype),
                            mpi_op(d->dtype, d->op), world->comm, &request);
  int status = wait_all(world, &request, 1, MPI_STATUSES_IGNORE, deadline_ns,
                        aborted, call_name(d), error, capacity);
  if (out != d->recv) {
    if (status == BP_OK)
      memcpy(d->recv, out, bytes);
    if (status == BP_OK || !world->abandoned)
      free(out); /* an abandoned request may still write into it */
  }
  return status;
}

/* The most bytes one nonblocking collective carries: Open MPI's libnbc
 * progresses a schedule's rounds by recursion, and a 64 MiB reduce between
 * two hosts (thousands of segments) overflowed the stream worker's 8 MiB
 * stack inside one MPI_Testall. Larger broadcasts and reduces go as
 * consecutive collectives of at most this size. */
enum { COLLECTIVE_CHUNK_BYTES = 4 << 20 };

/* Posts one broadcast or reduce of `count` elements from element `first`
 * and waits for it. */
static int rooted(mpi_world *world, const vcpu_comm_desc_t *d, size_t first,
                  int count, uint64_t deadline_ns, const atomic_bool *aborted,
                  char *error, size_t capacity) {
  size_t offset = first * vcpu_comm_dtype_size(d->dtype);
  MPI_Datatype type = mpi_type(d->dtype);
  MPI_Op op = mpi_op(d->dtype, d->op);
  const void *send =
      d->send == d->recv ? MPI_IN_PLACE : (const char *)d->send + offset;
  void *recv = (char *)d->recv + offset;
  int root = (int)d->peer;
  MPI_Request request = MPI_REQUEST_NULL;
  if (d->kind == VCPU_COMM_BROADCAST) {
    MPI_Ibcast(recv, count, type, root, world->comm, &request);
  } else {
    if (world->rank != d->peer) /* MPI_IN_PLACE is for the root only */
      send = (const char *)d->send + offset;
    MPI_Ireduce(send, recv, count, type, op, root, world->comm, &request);
  }
  return wait_all(world, &request, 1, MPI_STATUSES_IGNORE, deadline_ns, aborted,
                  call_name(d), error, capacity);
}

/* Small all-reduce: Open MPI's nonblocking collectives (libnbc) take 1.6-3.5x
 * the time of its blocking MPI_Allreduce at 1-4 KiB, and the call check was a
 * second one. Up to this size the ranks instead exchange messages point to
 * point, nonblocking (so deadlines and aborts hold), by recursive doubling:
 * with p the largest power of two <= n and r = n - p, ranks below 2r pair up
 * first, the even one of each pair handing its input to the odd one (its
 * helper) and getting the result back at the end; the p others (helpers,
 * and ranks from 2r on) exchange with the survivor whose index differs in
 * one bit, log2 p steps, survivor i standing for world ranks
 * [cover(i), cover(i + 1)). Each message is the sender's partial result
 * behind the call words of the ranks it stands for, so the check travels in
 * the data's own messages and every rank ends with every rank's call (the
 * helpers hand all of them back). Each step combines the lower ranks' part
 * first, and the ops commute, so every rank computes the same bits. Ranks
 * that disagree keep exchanging (without combining) so that all of them can
 * name the mismatch; a call that is small on one rank and not on another
 * meets nothing and ends at the deadline.
 *
 * The call lives in world->small, so that one thread can start it and
 * another finish it (small_start, small_progress). */
enum { SMALL_ALL_REDUCE_MAX_BYTES = 16 * 1024, SMALL_TAG_BASE = 1 };

static bool small_all_reduce_fits(const vcpu_comm_desc_t *d) {
  return d->kind == VCPU_COMM_ALL_REDUCE &&
         d->count * vcpu_comm_dtype_size(d->dtype) <=
             SMALL_ALL_REDUCE_MAX_BYTES;
}

/* This rank's place in the plan: p survivors, r pairs. */
typedef struct small_plan {
  size_t p, r;
  size_t survivor;      /* this rank's survivor index, if it is one */
  bool handing, helper; /* the even / odd rank of a pair */
} small_plan;

static small_plan plan_of(const mpi_world *world) {
  small_plan plan = {.p = 1};
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
static size_t cover(const small_plan *plan, size_t i) {
  return i < plan->r ? 2 * i : i + plan->r;
}

/* The world rank of survivor i. */
static size_t survivor_rank(const small_plan *plan, size_t i) {
  return i < plan->r ? 2 * i + 1 : i + plan->r;
}

/* Which exchange step `step` of this rank's plan is: the handing rank has
 * one (hand in, get back); a helper takes in first and hands back last;
 * between them, the doubling steps. */
typedef enum small_step_kind {
  STEP_HAND_IN_AND_BACK,
  STEP_TAKE_IN,
  STEP_DOUBLE,
  STEP_HAND_BACK,
} small_step_kind;

static small_step_kind step_kind(const small_plan *plan, unsigned step,
                                 unsigned steps) {
  if (plan->handing)
    return STEP_HAND_IN_AND_BACK;
  if (plan->helper && step == 0)
    return STEP_TAKE_IN;
  if (plan->helper && step + 1 == steps)
    return STEP_HAND_BACK;
  return STEP_DOUBLE;
}

static unsigned steps_of(const small_plan *plan) {
  unsigned doubling = 0;
  for (size_t group = 1; group < plan->p; group *= 2)
    doubling++;
  return plan->handing ? 1 : plan->helper ? doubling + 2 : doubling;
}

/* The doubling group size at `step` (1, 2, 4, ...). */
static size_t group_at(const small_plan *plan, unsigned step) {
  return (size_t)1 << (plan->helper ? step - 1 : step);
}

static size_t call_bytes(size_t ranks) {
  return ranks * CALL_WORDS * sizeof(uint64_t);
}

/* Copies the call words of world ranks [first, end) into small_out;
 * returns their bytes. */
static size_t pack(mpi_world *world, size_t first, size_t end) {
  size_t block = call_bytes(end - first);
  memcpy(world->small_out, world->calls + first * CALL_WORDS, block);
  return block;
}

/* Each step's message is the call words followed by the partial result.
 * To a rank on this host it goes as one message of at most
 * SMALL_FIRST_BYTES, the rest (if any) as a second: below Open MPI's
 * shared-memory eager limit (4 KiB with its header), every message but a
 * 16 KiB one's second goes without a rendezvous round trip (2 ranks, one
 * host: 1 KiB in one message 0.41-0.52 us against 0.53-0.77 as words and
 * data apart; 4 KiB as 4032 + 112 bytes 0.92-1.15 us against 1.4-1.6 as
 * 48 + 4096). To another host (TCP, whose eager limit is 64 KiB) it goes
 * whole: each message costs a round of the link. A first message of
 * exactly the limit says that a second one follows. */
enum { SMALL_FIRST_BYTES = 4096 - 64 };

/* The most bytes of a step's first message between this rank and `peer`. */
static size_t small_first_limit(const mpi_world *world, size_t peer) {
  if (world->near[peer])
    return SMALL_FIRST_BYTES;
  return call_bytes(world->nranks) + SMALL_ALL_REDUCE_MAX_BYTES;
}

/* Posts the messages of the call's current step. */
static void small_post(mpi_world *world, const small_plan *plan) {
  mpi_small_call *c = &world->small;
  const vcpu_comm_desc_t *d = &c->call;
  size_t n = world->nranks, me = world->rank;
  size_t bytes = d->count * vcpu_comm_dtype_size(d->dtype);
  int tag = SMALL_TAG_BASE + (int)(d->seq % 16000u);
  size_t from = 0, to = 0, words = 0;
  bool receives = true, sends = true;
  switch (step_kind(plan, c->step, c->steps)) {
  case STEP_HAND_IN_AND_BACK:
    from = to = me + 1;
    words = pack(world, me, me + 1);
    break;
  case STEP_TAKE_IN:
    from = me - 1;
    sends = false;
    break;
  case STEP_HAND_BACK:
    to = me - 1;
    receives = false;
    words = pack(world, 0, n);
    break;
  case STEP_DOUBLE: {
    size_t group = group_at(plan, c->step);
    size_t mine = plan->survivor & ~(group - 1);
    from = to = survivor_rank(plan, plan->survivor ^ group);
    words = pack(world, cover(plan, mine), cover(plan, mine + group));
    break;
  }
  }
  c->nrequests = 0;
  c->received = 0;
  c->second = false;
  MPI_Request *r = c->requests;
  if (receives)
    MPI_Irecv(world->small_in, (int)small_first_limit(world, from), MPI_BYTE,
              (int)from, tag, world->comm, &r[c->nrequests++]);
  if (!sends)
    return;
  size_t limit = small_first_limit(world, to);
  /* The words then the data, in small_out up to the first message's end
   * (all of it when the words alone fill the first message). */
  size_t total = words + bytes;
  size_t packed = total < limit || words > limit ? total : limit;
  memcpy(world->small_out + words, d->recv, packed - words);
  size_t first = total < limit ? total : limit;
  MPI_Isend(world->small_out, (int)first, MPI_BYTE, (int)to, tag, world->comm,
            &r[c->nrequests++]);
  if (total < limit)
    return;
  const unsigned char *rest =
      packed == total ? world->small_out + first
                      : (const unsigned char *)d->recv + (first - words);
  MPI_Isend(rest, (int)(total - first), MPI_BYTE, (int)to, tag, world->comm,
            &r[c->nrequests++]);
}

/* The rank the current step receives from (a step that receives). */
static size_t small_source(const mpi_world *world, const small_plan *plan) {
  const mpi_small_call *c = &world->small;
  switch (step_kind(plan, c->step, c->steps)) {
  case STEP_HAND_IN_AND_BACK:
    return world->rank + 1;
  case STEP_TAKE_IN:
    return world->rank - 1;
  default:
    return survivor_rank(plan, plan->survivor ^ group_at(plan, c->step));
  }
}

/* After the step's first message came full: posts the receive of its
 * second one. */
static void small_post_second(mpi_world *world, const small_plan *plan) {
  mpi_small_call *c = &world->small;
  size_t from = small_source(world, plan);
  size_t limit = small_first_limit(world, from);
  int tag = SMALL_TAG_BASE + (int)(c->call.seq % 16000u);
  size_t room = call_bytes(world->nranks) + SMALL_ALL_REDUCE_MAX_BYTES - limit;
  MPI_Irecv(world->small_in + limit, (int)room, MPI_BYTE, (int)from, tag,
            world->comm, &c->requests[c->nrequests++]);
  c->second = true;
}

/* Takes in the received call words of world ranks [first, end) (the first
 * bytes of small_in) and, when every call so far agrees and the data after
 * them came whole, returns the received data (else NULL). */
static const void *take_calls(mpi_world *world, size_t first, size_t end,
                              size_t partner, char *error, size_t capacity,
                              int *status) {
  mpi_small_call *c = &world->small;
  size_t block = call_bytes(end - first);
  size_t bytes = c->call.count * vcpu_comm_dtype_size(c->call.dtype);
  if ((size_t)c->received < block) {
    *status = fail(BP_ERR_INVALID_ARGUMENT, error, capacity,
                   "%s sequence %" PRIu64
                   ": rank %zu sent %d bytes, not a call of this size",
                   vcpu_comm_kind_name(c->call.kind), c->call.seq, partner,
                   c->received);
    return NULL;
  }
  memcpy(world->calls + first * CALL_WORDS, world->small_in, block);
  for (size_t r = first; r < end; r++) {
    vcpu_comm_desc_t theirs = call_from_words(world->calls + r * CALL_WORDS);
    c->agreed = c->agreed && vcpu_comm_same_call(&c->call, &theirs);
  }
  bool whole = (size_t)c->received - block == bytes && bytes != 0;
  return c->agreed && whole ? world->small_in + block : NULL;
}

/* Combines `in` from `partner` into the partial result, the lower ranks'
 * part first. */
static void combine(mpi_small_call *c, const void *in, size_t partner,
                    size_t me) {
  C_CCLReduceOp op = c->call.op == AVG ? SUM : c->call.op;
  const void *srcs[2] = {partner < me ? in : c->call.recv,
                         partner < me ? c->call.recv : in};
  vcpu_comm_reduce(c->call.recv, srcs, 2, c->call.count, c->call.dtype, op, 1);
}

/* Takes in what the current step received. */
static int small_receive(mpi_world *world, const small_plan *plan, char *error,
                         size_t capacity) {
  mpi_small_call *c = &world->small;
  size_t me = world->rank, n = world->nranks;
  int status = BP_OK;
  const void *in = NULL;
  switch (step_kind(plan, c->step, c->steps)) {
  case STEP_HAND_IN_AND_BACK:
    in = take_calls(world, 0, n, me + 1, error, capacity, &status);
    if (in != NULL)
      memcpy(c->call.recv, in,
             c->call.count * vcpu_comm_dtype_size(c->call.dtype));
    break;
  case STEP_TAKE_IN:
    in = take_calls(world, me - 1, me, me - 1, error, capacity, &status);
    if (in != NULL)
      combine(c, in, me - 1, me);
    break;
  case STEP_HAND_BACK:
    break;
  case STEP_DOUBLE: {
    size_t group = group_at(plan, c->step);
    size_t theirs = (plan->survivor ^ group) & ~(group - 1);
    size_t partner = survivor_rank(plan, plan->survivor ^ group);
    in = take_calls(world, cover(plan, theirs), cover(plan, theirs + group),
                    partner, error, capacity, &status);
    if (in != NULL)
      combine(c, in, partner, me);
    break;
  }
  }
  return status;
}

/* Goes on with the world's small all-reduce until it ends, or until
 * `until_ns` passes first (BP_ERR_NOT_READY: call again to go on). */
static int small_progress(mpi_world *world, uint64_t until_ns,
                          const atomic_bool *aborted, char *error,
                          size_t capacity) {
  mpi_small_call *c = &world->small;
  small_plan plan = plan_of(world);
  int status = BP_OK;
  while (status == BP_OK && c->step < c->steps) {
    if (!c->posted)
      small_post(world, &plan);
    c->posted = true;
    /* First the first message alone (the receive, if the step has one, is
     * the first request), which says whether a second one follows: its
     * receive must be posted before the sends are waited for, since a
     * second message over the eager limit is sent only once it is. */
    bool receives = step_kind(&plan, c->step, c->steps) != STEP_HAND_BACK;
    bool first = receives && !c->second && c->requests[0] != MPI_REQUEST_NULL;
    MPI_Status statuses[4];
    int waited = first ? 1 : c->nrequests;
    status =
        wait_until(world, c->requests, waited, statuses, c->deadline_ns,
                   until_ns, aborted, call_name(&c->call), error, capacity);
    if (status == BP_ERR_NOT_READY)
      return status;
    if (status == BP_OK && (first || c->second)) {
      int got = 0;
      MPI_Get_count(&statuses[first ? 0 : c->nrequests - 1], MPI_BYTE, &got);
      c->received += got;
      if (first &&
          (size_t)got == small_first_limit(world, small_source(world, &plan)))
        small_post_second(world, &plan);
      if (first)
        continue;
    }
    if (status == BP_OK)
      status = small_receive(world, &plan, error, capacity);
    c->step++;
    c->posted = false;
  }
  c->pending = false;
  if (status != BP_OK)
    return name_the_missing(world, status, c->call.seq, error, capacity);
  if (!c->agreed)
    return compare_calls(world, &c->call, error, capacity);
  if (c->call.op == AVG)
    vcpu_comm_reduce(c->call.recv, (const void *const[]){c->call.recv}, 1,
                     c->call.count, c->call.dtype, AVG, world->nranks);
  return BP_OK;
}

/* Allocates small_out and small_in (each the call words of every rank and
 * the largest small all-reduce) on first use; false if out of memory. */
static bool small_buffers(mpi_world *world) {
  size_t bytes = call_bytes(world->nranks) + SMALL_ALL_REDUCE_MAX_BYTES;
  if (world->small_out == NULL)
    world->small_out = malloc(bytes);
  if (world->small_in == NULL)
    world->small_in = malloc(bytes);
  return world->small_out != NULL && world->small_in != NULL;
}

/* Starts a small all-reduce on the world and goes on with it until it ends
 * or `until_ns` passes (BP_ERR_NOT_READY). */
static int small_start(mpi_world *world, const vcpu_comm_desc_t *d,
                       uint64_t deadline_ns, uint64_t until_ns,
                       const atomic_bool *aborted, char *error,
                       size_t capacity) {
  if (!small_buffers(world))
    return fail(BP_ERR_OUT_OF_MEMORY, error, capacity, "out of memory");
  world->at_seq = d->seq;
  small_plan plan = plan_of(world);
  world->small = (mpi_small_call){.call = *d,
                                  .deadline_ns = deadline_ns,
                                  .steps = steps_of(&plan),
                                  .agreed = true,
                                  .pending = true};
  call_to_words(d, world->calls + world->rank * CALL_WORDS);
  size_t bytes = d->count * vcpu_comm_dtype_size(d->dtype);
  if (d->send != d->recv && bytes)
    memcpy(d->recv, d->send, bytes);
  return small_progress(world, until_ns, aborted, error, capacity);
}

/* All-reduces over SMALL_ALL_REDUCE_MAX_BYTES: Rabenseifner's algorithm,
 * which Open MPI's tuned MPI_Allreduce picks for these sizes (with two
 * ranks its ring is the same exchange), over point-to-point messages polled
 * like the small one's. Open MPI's MPI_Iallreduce, which keeps deadlines and
 * aborts too, took about 1.5x the blocking call's time at 64 KiB - 1 MiB:
 * below four ranks, below 64 KiB and in place, libnbc reduces into one rank
 * and broadcasts back.
 *
 * In pieces of at most HALVING_PIECE_BYTES (the scratch buffer's size). The
 * ranks pair up as in the small plan (the handing rank sends its piece to
 * its helper and gets the result back at the end); the survivors
 * reduce-scatter by recursive halving (at step k survivor i keeps the half
 * of its span that bit k of i selects, sends the other half to survivor
 * i ^ 2^k and reduces what that one sent into its own), then all-gather by
 * recursive doubling in the reverse order. The first piece's messages up to
 * the end of the reduce-scatter carry the call words as the small one's do,
 * so then every survivor, and after the hand-back every rank, holds every
 * rank's call; ranks that disagree stop there and name the mismatch. Data
 * from a partner lands in the scratch buffer until the calls are known to
 * agree (a partner that called another count cannot overflow it), in place
 * afterwards. Each element is reduced by one rank and copied to the others,
 * so every rank ends with the same bits. Its messages use tags of their own:
 * a small all-reduce on one rank against a larger one on another meets no
 * message and ends at the deadline. */
enum { HALVING_PIECE_BYTES = 4 << 20, HALVING_TAG_BASE = 16001 };

/* One exchange of a large all-reduce: receives from `from` (call words into
 * small_in when words_in, then at most in_capacity data bytes into `in`)
 * and sends to `to` (words_out bytes of small_out, then out_bytes of `out`);
 * MPI_PROC_NULL on a side means nothing there. */
typedef struct halving_exchange {
  int from, to;
  bool words_in;
  size_t words_out;
  void *in;
  size_t in_capacity;
  const void *out;
  size_t out_bytes;
} halving_exchange;

/* A large all-reduce in progress: the call, its piece, and what this rank
 * learnt of the others' calls. */
typedef struct halving_call {
  mpi_world *world;
  const vcpu_comm_desc_t *call;
  uint64_t deadline_ns;
  const atomic_bool *aborted;
  small_plan plan;
  int tag;
  size_t piece;       /* element offset of the piece */
  size_t count;       /* elements in the piece */
  const char *source; /* this rank's input for the piece (send, then recv) */
  bool first;         /* the first piece: its messages carry the calls */
  bool agreed;
  char *error;
  size_t capacity;
} halving_call;

static size_t element_bytes(const halving_call *h) {
  return vcpu_comm_dtype_size(h->call->dtype);
}

static char *piece_at(const halving_call *h, size_t element) {
  return (char *)h->call->recv + (h->piece + element) * element_bytes(h);
}

/* Runs one exchange; *received: the data bytes that came. */
static int halving_run(halving_call *h, const halving_exchange *x,
                       int *received) {
  mpi_world *world = h->world;
  MPI_Request requests[4];
  MPI_Status statuses[4];
  int n = 0, data = -1;
  if (x->words_in)
    MPI_Irecv(world->small_in, (int)call_bytes(world->nranks), MPI_BYTE,
              x->from, h->tag, world->comm, &requests[n++]);
  data = n;
  MPI_Irecv(x->in, (int)x->in_capacity, MPI_BYTE, x->from, h->tag, world->comm,
            &requests[n++]);
  if (x->words_out != 0)
    MPI_Isend(world->small_out, (int)x->words_out, MPI_BYTE, x->to, h->tag,
              world->comm, &requests[n++]);
  MPI_Isend(x->out, (int)x->out_bytes, MPI_BYTE, x->to, h->tag, world->comm,
            &requests[n++]);
  int status = wait_all(world, requests, n, statuses, h->deadline_ns,
                        h->aborted, call_name(h->call), h->error, h->capacity);
  *received = 0;
  if (status == BP_OK)
    MPI_Get_count(&statuses[data], MPI_BYTE, received);
  return status;
}

/* Takes in the call words of world ranks [first, end) that the last
 * exchange received from `partner` (statuses are gone: their size is
 * checked by what they hold). */
static int halving_take_calls(halving_call *h, size_t first, size_t end) {
  mpi_world *world = h->world;
  memcpy(world->calls + first * CALL_WORDS, world->small_in,
         call_bytes(end - first));
  for (size_t r = first; r < end; r++) {
    vcpu_comm_desc_t theirs = call_from_words(world->calls + r * CALL_WORDS);
    h->agreed = h->agreed && vcpu_comm_same_call(h->call, &theirs);
  }
  return BP_OK;
}

/* Data that did not come whole from ranks that agree on the call. */
static int halving_short(halving_call *h, size_t partner, int received,
                         size_t expected) {
  return fail(BP_ERR_INTERNAL, h->error, h->capacity,
              "%s sequence %" PRIu64 ": %d bytes came from %s %zu, not %zu",
              vcpu_comm_kind_name(h->call->kind), h->call->seq, received,
              h->world->member, partner, expected);
}

/* Reduces `in` (from `partner`) and this rank's input over `count`
 * elements from `element` of the piece into the result, the lower rank's
 * part first. */
static void halving_combine(halving_call *h, const void *in, size_t partner,
                            size_t element, size_t count) {
  size_t me = h->world->rank;
  const char *mine = h->source + element * element_bytes(h);
  C_CCLReduceOp op = h->call->op == AVG ? SUM : h->call->op;
  const void *srcs[2] = {partner < me ? in : mine, partner < me ? mine : in};
  vcpu_comm_reduce(piece_at(h, element), srcs, 2, count, h->call->dtype, op, 1);
}

/* The survivors' part of a piece: reduce-scatter by recursive halving, then
 * (when the calls agree) all-gather by recursive doubling. */
static int halving_survive(halving_call *h) {
  mpi_world *world = h->world;
  const small_plan *plan = &h->plan;
  size_t es = element_bytes(h);
  size_t first[64], count[64]; /* this rank's span before step k */
  unsigned steps = 0;
  first[0] = 0;
  count[0] = h->count;
  for (size_t group = 1; group < plan->p; group *= 2, steps++) {
    size_t lower = count[steps] / 2;
    bool upper = (plan->survivor & group) != 0;
    size_t keep_first = first[steps] + (upper ? lower : 0);
    size_t keep = upper ? count[steps] - lower : lower;
    size_t give_first = first[steps] + (upper ? 0 : lower);
    size_t give = count[steps] - keep;
    size_t partner = survivor_rank(plan, plan->survivor ^ group);
    size_t mine = plan->survivor & ~(group - 1);
    size_t theirs = (plan->survivor ^ group) & ~(group - 1);
    halving_exchange x = {.from = (int)partner,
                          .to = (int)partner,
                          .words_in = h->first,
                          .words_out = h->first
                                           ? pack(world, cover(plan, mine),
                                                  cover(plan, mine + group))
                                           : 0,
                          .in = world->scratch,
                          .in_capacity = HALVING_PIECE_BYTES,
                          .out = h->source + give_first * es,
                          .out_bytes = give * es};
    int received = 0;
    int status = halving_run(h, &x, &received);
    if (status == BP_OK && h->first)
      status = halving_take_calls(h, cover(plan, theirs),
                                  cover(plan, theirs + group));
    if (status == BP_OK && h->agreed && (size_t)received != keep * es)
      status = halving_short(h, partner, received, keep * es);
    if (status != BP_OK)
      return status;
    if (h->agreed)
      halving_combine(h, world->scratch, partner, keep_first, keep);
    first[steps + 1] = keep_first;
    count[steps + 1] = keep;
    h->source = piece_at(h, 0); /* the result holds this rank's part now */
  }
  if (!h->agreed)
    return BP_OK;
  if (steps == 0 && h->source != piece_at(h, 0)) /* one survivor */
    memcpy(piece_at(h, 0), h->source, h->count * es);
  for (unsigned k = steps; k-- > 0;) {
    size_t group = (size_t)1 << k;
    size_t partner = survivor_rank(plan, plan->survivor ^ group);
    /* The partner holds the rest of the span of step k. */
    size_t theirs_first =
        first[k + 1] == first[k] ? first[k] + count[k + 1] : first[k];
    size_t theirs = count[k] - count[k + 1];
    halving_exchange x = {.from = (int)partner,
                          .to = (int)partner,
                          .in = piece_at(h, theirs_first),
                          .in_capacity = theirs * es,
                          .out = piece_at(h, first[k + 1]),
                          .out_bytes = count[k + 1] * es};
    int received = 0;
    int status = halving_run(h, &x, &received);
    if (status == BP_OK && (size_t)received != theirs * es)
      status = halving_short(h, partner, received, theirs * es);
    if (status != BP_OK)
      return status;
  }
  return BP_OK;
}

/* One piece: the pairs' hand-in, the survivors' part, the hand-back. */
static int halving_piece(halving_call *h) {
  mpi_world *world = h->world;
  const small_plan *plan = &h->plan;
  size_t es = element_bytes(h), me = world->rank, n = world->nranks;
  size_t bytes = h->count * es;
  int received = 0, status = BP_OK;
  if (plan->handing) {
    halving_exchange in = {.from = MPI_PROC_NULL,
                           .to = (int)me + 1,
                           .words_out = h->first ? pack(world, me, me + 1) : 0,
                           .out = h->source,
                           .out_bytes = bytes};
    status = halving_run(h, &in, &received);
    halving_exchange back = {.from = (int)me + 1,
                             .to = MPI_PROC_NULL,
                             .words_in = h->first,
                             .in = piece_at(h, 0),
                             .in_capacity = bytes};
    if (status == BP_OK)
      status = halving_run(h, &back, &received);
    if (status == BP_OK && h->first)
      status = halving_take_calls(h, 0, n);
    if (status == BP_OK && h->agreed && (size_t)received != bytes)
      status = halving_short(h, me + 1, received, bytes);
    return status;
  }
  if (plan->helper) {
    halving_exchange in = {.from = (int)me - 1,
                           .to = MPI_PROC_NULL,
                           .words_in = h->first,
                           .in = world->scratch,
                           .in_capacity = HALVING_PIECE_BYTES};
    status = halving_run(h, &in, &received);
    if (status == BP_OK && h->first)
      status = halving_take_calls(h, me - 1, me);
    if (status == BP_OK && h->agreed && (size_t)received != bytes)
      status = halving_short(h, me - 1, received, bytes);
    if (status == BP_OK && h->agreed) {
      halving_combine(h, world->scratch, me - 1, 0, h->count);
      h->source = piece_at(h, 0);
    }
  }
  if (status == BP_OK)
    status = halving_survive(h);
  if (status == BP_OK && plan->helper) {
    /* Ranks that disagree get the calls alone. */
    halving_exchange back = {.from = MPI_PROC_NULL,
                             .to = (int)me - 1,
                             .words_out = h->first ? pack(world, 0, n) : 0,
                             .out = piece_at(h, 0),
                             .out_bytes = h->agreed ? bytes : 0};
    status = halving_run(h, &back, &received);
  }
  return status;
}

static int halving_all_reduce(mpi_world *world, const vcpu_comm_desc_t *d,
                              uint64_t deadline_ns, const atomic_bool *aborted,
                              char *error, size_t capacity) {
  if (world->scratch == NULL)
    world->scratch = malloc(HALVING_PIECE_BYTES);
  if (!small_buffers(world) || world->scratch == NULL)
    return fail(BP_ERR_OUT_OF_MEMORY, error, capacity, "out of memory");
  world->at_seq = d->seq;
  call_to_words(d, world->calls + world->rank * CALL_WORDS);
  size_t es = vcpu_comm_dtype_size(d->dtype);
  size_t per_piece = HALVING_PIECE_BYTES / es;
  halving_call h = {.world = world,
                    .call = d,
                    .deadline_ns = deadline_ns,
                    .aborted = aborted,
                    .plan = plan_of(world),
                    .tag = HALVING_TAG_BASE + (int)(d->seq % 16000u),
                    .first = true,
                    .agreed = true,
                    .error = error,
                    .capacity = capacity};
  int status = BP_OK;
  for (size_t piece = 0; status == BP_OK && (piece == 0 || piece < d->count);
       piece += per_piece) {
    h.piece = piece;
    h.count = d->count - piece < per_piece ? d->count - piece : per_piece;
    h.source = (const char *)d->send + piece * es;
    status = halving_piece(&h);
    if (!h.agreed)
      break;
    h.first = false;
  }
  if (status != BP_OK)
    return name_the_missing(world, status, d->seq, error, capacity);
  if (!h.agreed)
    return compare_calls(world, d, error, capacity);
  if (d->op == AVG)
    vcpu_comm_reduce(d->recv, (const void *const[]){d->recv}, 1, d->count,
                     d->dtype, AVG, world->nranks);
  return BP_OK;
}

/* Every collective but all_reduce. */
static int run(void *handle, const vcpu_comm_desc_t *d, uint64_t deadline_ns,
               const atomic_bool *aborted, char *error, size_t capacity) {
  mpi_world *world = handle;
  world->at_seq = d->seq;
  if (d->count > (size_t)INT32_MAX)
    return fail(BP_ERR_INVALID_ARGUMENT, error, capacity,
                "%s sequence %" PRIu64 ": count %zu exceeds MPI's int counts",
                vcpu_comm_kind_name(d->kind), d->seq, d->count);
  int status = BP_OK;
  switch (d->kind) {
  case VCPU_COMM_BROADCAST:
  case VCPU_COMM_REDUCE: {
    size_t chunk = COLLECTIVE_CHUNK_BYTES / vcpu_comm_dtype_size(d->dtype);
    size_t first = 0;
    do {
      size_t count = d->count - first < chunk ? d->count - first : chunk;
      status = rooted(world, d, first, (int)count, deadline_ns, aborted, error,
                      capacity);
      first += count;
    } while (status == BP_OK && first < d->count);
    break;
  }
  case VCPU_COMM_ALL_GATHER: {
    size_t bytes = d->count * vcpu_comm_dtype_size(d->dtype);
    const void *send = (const char *)d->recv + world->rank * bytes == d->send
                           ? MPI_IN_PLACE
                           : d->send;
    MPI_Datatype type = mpi_type(d->dtype);
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Iallgather(send, (int)d->count, type, d->recv, (int)d->count, type,
                   world->comm, &request);
    status = wait_all(world, &request, 1, MPI_STATUSES_IGNORE, deadline_ns,
                      aborted, call_name(d), error, capacity);
    break;
  }
  default:
    status = reduce_scatter(world, d, deadline_ns, aborted, error, capacity);
    break;
  }
  status = name_the_missing(world, status, d->seq, error, capacity);
  bool has_result = d->kind == VCPU_COMM_REDUCE_SCATTER ||
                    (d->kind == VCPU_COMM_REDUCE && world->rank == d->peer);
  if (status == BP_OK && d->op == AVG && has_result)
    vcpu_comm_reduce(d->recv, (const void *const[]){d->recv}, 1, d->count,
                     d->dtype, AVG, world->nranks);
  return status;
}

/* The check travels beside the data instead of before it: both are posted
 * at once, so agreeing ranks pay no extra round of messages (the small
 * all-reduce carries it in its own messages). Ranks that disagree may run
 * mismatched MPI collectives; MPI never writes past a posted buffer (a
 * longer message is a truncation error), so the data call ends in garbage,
 * an MPI error or the deadline, and the check, which completes regardless,
 * then reports the mismatch in its place. */
static int collective(void *handle, const vcpu_comm_desc_t *d,
                      uint64_t deadline_ns, const atomic_bool *aborted,
                      char *error, size_t capacity) {
  mpi_world *world = handle;
  if (small_all_reduce_fits(d))
    return small_start(world, d, deadline_ns, UINT64_MAX, aborted, error,
                       capacity);
  if (d->kind == VCPU_COMM_ALL_REDUCE)
    return halving_all_reduce(world, d, deadline_ns, aborted, error, capacity);
  MPI_Request request = check_start(world, d);
  int status = run(handle, d, deadline_ns, aborted, error, capacity);
  if (status == BP_OK)
    return check_finish(world, d, &request, deadline_ns, aborted, error,
                        capacity);
  /* The data failed: past the deadline (or aborted) the check gets one
   * look, after an MPI error (a truncation, say) it gets the deadline. */
  char checked[512] = "";
  int done = 0;
  if (status == BP_ERR_PLUGIN)
    done = check_finish(world, d, &request, deadline_ns, aborted, checked,
                        sizeof checked) != BP_ERR_TIMEOUT;
  else if (MPI_Test(&request, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && done)
    compare_calls(world, d, checked, sizeof checked);
  if (!done)
    world->abandoned = true;
  if (done && strstr(checked, "mismatched collectives") != NULL) {
    snprintf(error, capacity, "%s", checked);
    return BP_ERR_INVALID_ARGUMENT;
  }
  return status;
}

static bool quick(void *handle, const vcpu_comm_desc_t *d) {
  (void)handle;
  return small_all_reduce_fits(d);
}

static int start(void *handle, const vcpu_comm_desc_t *d, uint64_t deadline_ns,
                 uint64_t until_ns, const atomic_bool *aborted, char *error,
                 size_t capacity) {
  return small_start(handle, d, deadline_ns, until_ns, aborted, error,
                     capacity);
}

static int resume(void *handle, const atomic_bool *aborted, char *error,
                  size_t capacity) {
  mpi_world *world = handle;
  if (!world->small.pending)
    return fail(BP_ERR_INTERNAL, error, capacity,
                "no call of this world to go on with");
  return small_progress(world, UINT64_MAX, aborted, error, capacity);
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
    return fail(BP_ERR_OUT_OF_MEMORY, error, capacity, "out of memory");
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
  int status = wait_all(world, requests, (int)n, statuses, deadline_ns, aborted,
                        named("send/recv"), error, capacity);
  if (status == BP_ERR_TIMEOUT)
    name_pending_peers(ops, requests, n, error, capacity);
  for (size_t i = 0; i < n && status == BP_OK; i++) {
    if (ops[i].kind != VCPU_COMM_RECV)
      continue;
    int received = 0;
    MPI_Get_count(&statuses[i], MPI_BYTE, &received);
    if ((size_t)received != ops[i].count * vcpu_comm_dtype_size(ops[i].dtype))
      status = fail(BP_ERR_INVALID_ARGUMENT, error, capacity,
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

/* The world of the host leaders `members` (ascending world ranks, this rank
 * among them; host_of: the host of each rank of `world`); blocks until every
 * member called it. */
static int sub_world(mpi_world *world, const int *members, size_t n,
                     const size_t *host_of, uint64_t deadline_ns,
                     void **out_handle, char *error, size_t capacity) {
  mpi_world *sub = calloc(1, sizeof *sub);
  size_t *hosts_copy = calloc(world->nranks, sizeof *hosts_copy);
  if (sub == NULL || hosts_copy == NULL) {
    free(sub);
    free(hosts_copy);
    return fail(BP_ERR_OUT_OF_MEMORY, error, capacity, "out of memory");
  }
  memcpy(hosts_copy, host_of, world->nranks * sizeof *hosts_copy);
  MPI_Group all, group;
  MPI_Comm_group(world->comm, &all);
  MPI_Group_incl(all, (int)n, members, &group);
  /* MPI has no nonblocking form of this: watched until the deadline. */
  mpi_watchdog_enter(named("making the host leaders' communicator"),
                     deadline_ns);
  int rc = MPI_Comm_create_group(world->comm, group, 1, &sub->comm);
  mpi_watchdog_leave();
  MPI_Group_free(&group);
  MPI_Group_free(&all);
  if (rc != MPI_SUCCESS) {
    free(sub);
    free(hosts_copy);
    return fail(BP_ERR_PLUGIN, error, capacity,
                "MPI_Comm_create_group failed for the host leaders");
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
  for (size_t i = 0; sub->near != NULL && i < n; i++)
    sub->near[i] = world->near[members[i]];
  if (sub->calls == NULL || sub->near == NULL) {
    world_free(sub);
    return fail(BP_ERR_OUT_OF_MEMORY, error, capacity, "out of memory");
  }
  open_roll_call(sub, deadline_ns);
  *out_handle = sub;
  return BP_OK;
}

static int hosts(void *handle, size_t ranks_per_host, uint64_t deadline_ns,
                 size_t *host_of, void **out_leaders, char *error,
                 size_t capacity) {
  mpi_world *world = handle;
  *out_leaders = NULL;
  size_t n = world->nranks, key_bytes = MPI_MAX_PROCESSOR_NAME;
  char *keys = calloc(n + 1, key_bytes);
  int *leaders = calloc(n, sizeof *leaders);
  if (keys == NULL || leaders == NULL) {
    free(keys);
    free(leaders);
    return fail(BP_ERR_OUT_OF_MEMORY, error, capacity, "out of memory");
  }
  char *mine = keys + n * key_bytes;
  host_key(world->rank, ranks_per_host, mine);
  MPI_Request request;
  MPI_Iallgather(mine, (int)key_bytes, MPI_CHAR, keys, (int)key_bytes, MPI_CHAR,
                 world->comm, &request);
  int status =
      wait_all(world, &request, 1, MPI_STATUSES_IGNORE, deadline_ns, NULL,
               named("grouping the ranks by host"), error, capacity);
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
  if (nhosts > 1 && leaders[host_of[world->rank]] == (int)world->rank)
    status = sub_world(world, leaders, nhosts, host_of, deadline_ns,
                       out_leaders, error, capacity);
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
