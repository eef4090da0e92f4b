#include "mpi_mailbox.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mpi_all_reduce.h"
#include "mpi_call_words.h"
#include "mpi_wait.h"

/* Maps `bytes` of the segment `name`: created (empty, this process its only
 * user until the others open it) when `create`, else opened and checked to
 * be that large. NULL on any failure (a segment created here is removed). */
static unsigned char *map_segment(const char *name, bool create, size_t bytes) {
  int fd = shm_open(name, create ? O_CREAT | O_EXCL | O_RDWR : O_RDWR, 0600);
  if (fd < 0)
    return NULL;
  struct stat st;
  bool sized = create ? ftruncate(fd, (off_t)bytes) == 0
                      : fstat(fd, &st) == 0 && (size_t)st.st_size == bytes;
  void *base =
      sized ? mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
            : MAP_FAILED;
  close(fd);
  if (base == MAP_FAILED && create)
    shm_unlink(name);
  return base == MAP_FAILED ? NULL : base;
}

/* Whether every rank of the world holds `value` != 0 (the lowest of all),
 * waited for until the deadline. Uses world->check_mine / check_highest,
 * which outlive a request given up. */
static int all_say_yes(mpi_world *world, bool value, uint64_t deadline_ns,
                       bool *out_all, char *error, size_t capacity) {
  world->check_mine[0] = value;
  MPI_Request request;
  MPI_Iallreduce(world->check_mine, world->check_highest, 1, MPI_UINT64_T,
                 MPI_MIN, world->comm, &request);
  int status =
      mpi_wait_all(world, &request, 1, MPI_STATUSES_IGNORE, deadline_ns, NULL,
                   mpi_named("mapping the ranks' mailboxes"), error, capacity);
  *out_all = status == BP_OK && world->check_highest[0] != 0;
  return status;
}

/* BACKPLANE_COMM_MPI_MAILBOX=0 keeps every message on MPI (to compare, or
 * to test MPI's path between ranks of one host). */
static bool turned_off(void) {
  const char *setting = getenv("BACKPLANE_COMM_MPI_MAILBOX");
  return setting != NULL && strcmp(setting, "0") == 0;
}

int mpi_mailbox_open(mpi_world *world, uint64_t token, uint64_t deadline_ns,
                     char *error, size_t capacity) {
  size_t n = world->nranks, leader = n, nlocal = 0;
  for (size_t r = 0; r < n; r++) {
    if (!world->near[r])
      continue;
    if (leader == n)
      leader = r;
    nlocal++;
  }
  bool wanted = nlocal >= 2 && nlocal <= MPI_MAILBOX_MAX_RANKS && !turned_off();
  bool leads = wanted && world->rank == leader;
  char name[64];
  snprintf(name, sizeof name, "/bpvcpu-%016" PRIx64 "-mpi%zu", token, leader);
  size_t slot_bytes = (sizeof(mpi_mailbox_slot) + mpi_call_bytes(n) +
                       MPI_SMALL_ALL_REDUCE_MAX_BYTES + 63) &
                      ~(size_t)63;
  size_t bytes = nlocal * nlocal * 2 * slot_bytes;
  /* The host's lowest rank makes the segment; once every leader has
   * (or failed), the others map it; once every rank has, the name goes. */
  unsigned char *base = leads ? map_segment(name, true, bytes) : NULL;
  bool all = false;
  int status = all_say_yes(world, !leads || base != NULL, deadline_ns, &all,
                           error, capacity);
  if (status == BP_OK && all && wanted && !leads)
    base = map_segment(name, false, bytes);
  if (status == BP_OK)
    status = all_say_yes(world, !wanted || base != NULL, deadline_ns, &all,
                         error, capacity);
  if (wanted)
    shm_unlink(name); /* every rank of the host: whichever is left */
  mpi_mailbox *mailbox = NULL;
  size_t *local = NULL;
  if (status == BP_OK && all && wanted) {
    mailbox = malloc(sizeof *mailbox);
    local = malloc(n * sizeof *local);
  }
  if (mailbox == NULL || local == NULL) {
    if (base != NULL)
      munmap(base, bytes);
    free(mailbox);
    free(local);
    /* Out of memory here leaves the others using a mailbox this rank never
     * reads: the world is refused. */
    if (status == BP_OK && all && wanted)
      return mpi_fail(BP_ERR_OUT_OF_MEMORY, error, capacity, "out of memory");
    return status;
  }
  for (size_t r = 0, i = 0; r < n; r++)
    local[r] = world->near[r] ? i++ : (size_t)SIZE_MAX;
  *mailbox = (mpi_mailbox){.base = base,
                           .mapped_bytes = bytes,
                           .slot_bytes = slot_bytes,
                           .nlocal = nlocal,
                           .local = local};
  world->mailbox = mailbox;
  return BP_OK;
}

void mpi_mailbox_close(mpi_world *world) {
  mpi_mailbox *mailbox = world->mailbox;
  if (mailbox == NULL)
    return;
  munmap(mailbox->base, mailbox->mapped_bytes);
  free(mailbox->local);
  free(mailbox);
  world->mailbox = NULL;
}
