/* The Paddle bridge's shared state: one Backplane runtime per process, whose
 * devices (chosen and ordered by BACKPLANE_VISIBLE_DEVICES) are Paddle's
 * backplane:0.., and the DIOPI op library.
 *
 * The bridge is C++ because Paddle's headers are: device_ext.h includes
 * <array> and uses bool/std::array, and the kernel C API headers include
 * <vector> and phi's float16 classes. The runtime half is C in all but
 * name; the kernels use the C API's templates, for the reason
 * kernel_call.h gives. */
#ifndef BACKPLANE_PADDLE_BRIDGE_H_
#define BACKPLANE_PADDLE_BRIDGE_H_

#include <stddef.h>

#include "backplane/backplane.h"
#include "backplane/ops.h"

/* Paddle's device type for every Backplane device: paddle.set_device
 * ("backplane:0"). */
#define BRIDGE_DEVICE_TYPE "backplane"

/* Creates the runtime and resolves the visible devices (once; later calls
 * return the first result). Plugins come from BACKPLANE_PLUGIN_PATH and
 * the directory beside libbackplane.so, never from CUSTOM_DEVICE_ROOT (the
 * bridge itself lives there). On failure prints why to stderr and returns
 * nonzero. Thread-safe. The runtime lives until the process exits: Paddle
 * frees tensors after its finalize. */
int bridge_open(void);

bp_runtime_t *bridge_runtime(void);

/* How many devices Paddle sees, and Paddle's device `id` as a Backplane
 * device (NULL when out of range). */
size_t bridge_device_count(void);
bp_device_t *bridge_device(size_t id);

/* The calling thread's current device (Paddle's set_device; 0 until set).
 * Collectives are created on it: Paddle's xccl slots name no device.
 * bridge_set_current makes `id` (< bridge_device_count()) current and, when
 * it is not already this thread's, Backplane's active device
 * (bp_device_set_active). Paddle sets the device before every op, two or
 * three times, and every Backplane call binds its thread to its own device
 * anyway: only a change needs Backplane. */
bp_status_t bridge_set_current(int id);
int bridge_current_id(void);
bp_device_t *bridge_current_device(void);

/* The DIOPI op function `name` ("diopiAdd") of the op library
 * (BACKPLANE_OPS_LIBRARY, else lib/backplane/ops/libbackplane_ops_ref.so
 * beside libbackplane.so), or NULL when the library lacks it. */
void *bridge_op(const char *name);
/* The op library's message for this thread's last failing op. */
const char *bridge_ops_last_error(void);

/* Reports a failed Backplane call on stderr under BACKPLANE_PADDLE_DEBUG=1
 * (Paddle itself only shows the C_Status number) and keeps the text for the
 * next kernel error. Returns `status`. */
bp_status_t bridge_note(const char *call, bp_status_t status);

/* Under BACKPLANE_PADDLE_FALLBACKS=1, counts and prints on stderr each
 * phi kernel Paddle runs on its CPU for want of a backplane kernel
 * (bridge_fallbacks.cc says how); report prints the summary and stops.
 * Called from the runtime's initialize and finalize (Paddle's thread). */
void bridge_fallbacks_watch(void);
void bridge_fallbacks_report(void);

#endif /* BACKPLANE_PADDLE_BRIDGE_H_ */
