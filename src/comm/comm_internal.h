/* Communicators of the framework face (internal): a plugin communicator bound
 * to one device, with the plugin's collectives extension when it has one. */
#ifndef BACKPLANE_COMM_INTERNAL_H_
#define BACKPLANE_COMM_INTERNAL_H_

#include "backplane/comm.h"
#include "backplane/comm_ext.h"
#include "core/device_table.h"

struct bp_comm {
  bp_device_t *device;
  const C_DeviceInterface *dispatch; /* &device->plugin->dispatch */
  const BP_CommExtension *extension; /* NULL when the plugin has none */
  C_CCLComm native;
  size_t rank, nranks;
};

/* Sets bp_error for a failed xccl_* call and returns its status: the
 * communicator's own failure when it has one (timeout, abort, mismatch),
 * else the mapped C_Status with the plugin's explanation. `comm` may be NULL
 * (init calls); then `extension` is used for the explanation. */
bp_status_t bp_comm_call_failed(const bp_comm_t *comm,
                                const bp_device_t *device,
                                const BP_CommExtension *extension,
                                const char *function, C_Status result);

#endif /* BACKPLANE_COMM_INTERNAL_H_ */
