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

/* A communicator's health as comm_get_async_error reports it. The values are
 * fixed by this extension's ABI; the host maps an unknown one to a plugin
 * failure. */
typedef enum BP_CommExtStatus {
  BP_COMM_EXT_OK = 0,
  BP_COMM_EXT_INVALID_USAGE = 1, /* mismatched calls across ranks, bad args */
  BP_COMM_EXT_OUT_OF_MEMORY = 3, /* buffers or staging could not be had */
  BP_COMM_EXT_UNSUPPORTED = 4,   /* the transport cannot do the call */
  BP_COMM_EXT_SYSTEM_ERROR = 6,  /* the transport or the OS failed */
  BP_COMM_EXT_TIMEOUT = 7,       /* a peer did not arrive in time */
  BP_COMM_EXT_ABORTED = 8,       /* comm_abort ended the communicator */
  BP_COMM_EXT_INTERNAL = 9,      /* a bug in the plugin */
  BP_COMM_EXT_PEER_LOST = 10,    /* a peer's process died (or its host) */
} BP_CommExtStatus;

typedef struct BP_CommExtension {
  BP_ExtensionBase base; /* type = BP_EXTENSION_COMM */
  /* Makes every pending and later wait of the communicator's collectives (on
   * every rank the plugin can reach) end promptly with an error. Callable
   * from any thread while other threads use the communicator; never blocks.
   * The communicator must still be destroyed. */
  C_Status (*comm_abort)(C_CCLComm comm);
  /* *out_status = BP_COMM_EXT_OK while the communicator is healthy, else
   * the BP_CommExtStatus of its first failure, with a NUL-terminated
   * explanation in `message` (`capacity` bytes; may be NULL). Thread-safe. */
  C_Status (*comm_get_async_error)(C_CCLComm comm, int32_t *out_status,
                                   char *message, size_t capacity);
  /* Why the calling thread's last xccl_* call failed (never NULL; valid until
   * that thread's next xccl_* call). */
  const char *(*last_error)(void);
  /* How the collectives move data, one line for `backplane info` (e.g.
   * "host-staged: ..."); static storage, may be NULL. */
  const char *description;
} BP_CommExtension;

#ifdef __cplusplus
}
#endif

#endif /* BACKPLANE_COMM_EXT_H_ */
