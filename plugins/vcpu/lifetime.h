/* The plugin's lifetime: initialize, finalize, init_device, deinit_device.
 *
 * `initialize`/`finalize` are reference-counted: the same loaded plugin may be
 * initialised by several runtimes of one process; the devices are created on
 * the first initialize (reading the environment, config.h) and torn down on the
 * last finalize. `init_device`/`deinit_device` are reference-counted per
 * device the same way. A teardown that finds live streams, events or
 * allocations reports them on stderr (counts, bytes), drains and frees them.
 * Every entry point is thread-safe, but finalize must not race other calls
 * into the plugin.
 */
#ifndef BACKPLANE_VCPU_LIFETIME_H_
#define BACKPLANE_VCPU_LIFETIME_H_

#include "backplane/device_ext.h"
#include "device.h"

/* `runners` (copied; NULL is C_ERROR) is what the devices' streams run for
 * the floors above them; only the first initialize of a lifetime uses it. */
C_Status vcpu_initialize(const vcpu_runners_t *runners);
C_Status vcpu_finalize(void);
C_Status vcpu_init_device(const C_Device device);
C_Status vcpu_deinit_device(const C_Device device);

#endif /* BACKPLANE_VCPU_LIFETIME_H_ */
