/*
 * Backplane vendor face: the collectives extension.
 *
 * Paddle's xccl_* functions cannot abort a communicator, report a failure
 * that happens later on a stream, or explain why a call was refused. A plugin
 * that can do so exports this extension in its BackplanePluginExtensions()
 * chain (device_ext.h); Backplane's communicator API (comm.h) uses it when
 * present. Fields are only ever appended; the host reads a field only if
 * `base.struct_size` covers it.
 */
#ifndef BACKPLANE_COMM_EXT_H_
#define BACKPLANE_COMM_EXT_H_

#include <stddef.h>
#include <stdint.h>

#include "backplane/device_ext.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct BP_CommExtension {
  BP_ExtensionBase base; /* type = BP_EXTENSION_COMM */
  /* Makes every pending and later wait of the communicator's collectives (on
   * every rank the plugin can reach) end promptly with an error. Callable
   * from any thread while other threads use the communicator; never blocks.
   * The communicator must still be destroyed. */
  C_Status (*comm_abort)(C_CCLComm comm);
  /* *out_status = 0 while the communicator is healthy, else a bp_status_t
   * (status.h: BP_ERR_TIMEOUT, BP_ERR_ABORTED, BP_ERR_INVALID_ARGUMENT for
   * mismatched calls, ...) of its first failure, with a NUL-terminated
   * explanation in `message` (`capacity` bytes; may be NULL). Thread-safe. */
  C_Status (*comm_get_async_error)(C_CCLComm comm, int32_t *out_status,
                                   char *message, size_t capacity);
  /* Why the calling thread's last xccl_* call failed (never NULL; valid until
   * that thread's next xccl_* call). */
  const char *(*last_error)(void);
} BP_CommExtension;

#ifdef __cplusplus
}
#endif

#endif /* BACKPLANE_COMM_EXT_H_ */
