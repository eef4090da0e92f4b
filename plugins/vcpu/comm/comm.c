#include "comm/comm.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

static _Thread_local char reject_message[512] = "no error";

const char *vcpu_comm_last_error(void) {
  return reject_message;
}

bp_status_t vcpu_comm_reject(bp_status_t status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(reject_message, sizeof reject_message, format, args);
  va_end(args);
  return status;
}

bool vcpu_comm_peer_is_local(const vcpu_comm_world_t *world, size_t peer) {
  return atomic_load(&world->slots[peer].pid) == (int32_t)getpid();
}

bool vcpu_comm_world_is_local(vcpu_comm_world_t *world) {
  int locality = atomic_load(&world->locality);
  if (locality == 0) {
    locality = 1;
    for (size_t r = 0; r < world->nranks; r++)
      if (!vcpu_comm_peer_is_local(world, r))
        locality = 2;
    atomic_store(&world->locality, locality);
  }
  return locality == 1;
}
