/* Backplane status codes and the thread-local error message. */
#ifndef BACKPLANE_STATUS_H_
#define BACKPLANE_STATUS_H_

#ifdef __cplusplus
extern "C" {
#endif

/* Marks the functions libbackplane exports; everything else is hidden. */
#if defined(__GNUC__)
#define BP_API __attribute__((visibility("default")))
#else
#define BP_API
#endif

/* Every fallible call returns a bp_status_t; BP_OK (0) is success. */
typedef enum bp_status {
  BP_OK = 0,
  BP_ERR_INVALID_ARGUMENT = 1, /* NULL, out of range, unknown pointer, ... */
  BP_ERR_NOT_FOUND = 2,        /* no such plugin, device or object */
  BP_ERR_OUT_OF_MEMORY = 3,    /* device or host memory exhausted */
  BP_ERR_UNSUPPORTED = 4,      /* the plugin does not provide this */
  BP_ERR_NOT_READY = 5,        /* query: work is still pending */
  BP_ERR_PLUGIN = 6,           /* the plugin reported a failure */
  BP_ERR_TIMEOUT = 7,          /* a deadline passed */
  BP_ERR_ABORTED = 8,          /* the operation was aborted */
  BP_ERR_INTERNAL = 9,         /* a bug in Backplane */
  BP_ERR_PEER_LOST = 10,       /* a communicator's peer process died */
} bp_status_t;

/* The message of the last failing call on this thread, naming the plugin, the
 * function and the device where they apply. Never NULL; valid until the next
 * failing Backplane call on this thread. Successful calls leave it alone. */
BP_API const char *bp_last_error(void);

/* A constant, human-readable name for a status code ("BP_ERR_NOT_READY"). */
BP_API const char *bp_status_name(bp_status_t status);

#ifdef __cplusplus
}
#endif

#endif /* BACKPLANE_STATUS_H_ */
