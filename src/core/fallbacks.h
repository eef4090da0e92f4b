/* Substitutes for the optional plugin functions, as PaddlePaddle's
 * custom-runtime interface defines them (docs/plugin-guide.md §5), all in
 * one place. They receive the core's C_Device (see bp_plugin_of) and call
 * the plugin back only through its dispatch table. */
#ifndef BACKPLANE_CORE_FALLBACKS_H_
#define BACKPLANE_CORE_FALLBACKS_H_

#include "backplane/device_ext.h"

/* Fills every missing optional slot of `dispatch` (a copy of the native
 * table) whose fallback can work with what the plugin has. */
void bp_fallbacks_install(C_DeviceInterface *dispatch);

/* Copies device memory to device memory through a host buffer, in chunks:
 * d2h on `src_device`, then h2d on `dst_device` (the two may belong to
 * different plugins; both need memory_copy_d2h/h2d). On failure returns the
 * plugin's status and names the failing step in *out_failed_function. */
C_Status bp_bounce_copy(const C_Device dst_device, const C_Device src_device,
                        void *dst, const void *src, size_t size,
                        const char **out_failed_function);

#endif /* BACKPLANE_CORE_FALLBACKS_H_ */
