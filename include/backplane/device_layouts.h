/*
 * Backplane vendor face: moving a C_DeviceInterface between the known layouts
 * of Paddle's custom-runtime table (the table:
 * backplane/device_layout_table.h).
 *
 * Two uses, both through BP_DeviceLayoutTranslate:
 * - a plugin built against device_ext.h (layout B) fills whatever layout its
 *   host asks for with BP_CustomRuntimeExport (Backplane's plugins do; any
 *   plugin can);
 * - Backplane's loader reads a plugin built against another layout's header
 *   and translates its table to layout B.
 * Header-only, C11 and C++17, LP64.
 */
#ifndef BACKPLANE_DEVICE_LAYOUTS_H_
#define BACKPLANE_DEVICE_LAYOUTS_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "backplane/device_ext.h"
#include "backplane/device_layout_table.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The layout's letter ("A".."E"), or "?" for an id out of range. */
static inline const char *BP_DeviceLayoutName(int layout) {
  static const char *const names[] = {
#define BP_LAYOUT_NAME_(name, interface_bytes, params_bytes) #name,
      BP_DEVICE_LAYOUTS(BP_LAYOUT_NAME_)
#undef BP_LAYOUT_NAME_
  };
  return layout >= 0 && layout < BP_DEVICE_LAYOUT_COUNT ? names[layout] : "?";
}

/* sizeof(C_DeviceInterface) in the layout; 0 for an id out of range. */
static inline size_t BP_DeviceLayoutInterfaceSize(int layout) {
  static const size_t sizes[] = {
#define BP_LAYOUT_SIZE_(name, interface_bytes, params_bytes) interface_bytes,
      BP_DEVICE_LAYOUTS(BP_LAYOUT_SIZE_)
#undef BP_LAYOUT_SIZE_
  };
  return layout >= 0 && layout < BP_DEVICE_LAYOUT_COUNT ? sizes[layout] : 0;
}

/* sizeof(CustomRuntimeParams) in the layout; 0 for an id out of range. */
static inline size_t BP_DeviceLayoutParamsSize(int layout) {
  static const size_t sizes[] = {
#define BP_LAYOUT_PARAMS_(name, interface_bytes, params_bytes) params_bytes,
      BP_DEVICE_LAYOUTS(BP_LAYOUT_PARAMS_)
#undef BP_LAYOUT_PARAMS_
  };
  return layout >= 0 && layout < BP_DEVICE_LAYOUT_COUNT ? sizes[layout] : 0;
}

/* The layout whose C_DeviceInterface is `interface_bytes` long, or -1. The
 * interface sizes are all different; the params sizes are not. */
static inline int BP_DeviceLayoutOfSize(size_t interface_bytes) {
  for (int layout = 0; layout < BP_DEVICE_LAYOUT_COUNT; ++layout)
    if (BP_DeviceLayoutInterfaceSize(layout) == interface_bytes)
      return layout;
  return -1;
}

/* Writes `src` (a table in layout `src_layout`) into `dst` (layout
 * `dst_layout`): every function both layouts have moves to its slot in
 * `dst`; every other word of `dst` after the size word (reserved words, the
 * functions `src` has no slot for) becomes zero. Writes exactly
 * BP_DeviceLayoutInterfaceSize(dst_layout) - 8 bytes from dst + 8; `size`
 * is left alone. Returns 0, or -1 (writing nothing) for an unknown layout. */
static inline int BP_DeviceLayoutTranslate(void *dst, int dst_layout,
                                           const void *src, int src_layout) {
  static const int16_t slots[][BP_DEVICE_LAYOUT_COUNT] = {
#define BP_LAYOUT_ROW_(row, field, a, b, c, d, e) {a, b, c, d, e},
      BP_DEVICE_LAYOUT_SLOTS(BP_LAYOUT_ROW_)
#undef BP_LAYOUT_ROW_
  };
  const size_t word = sizeof(void (*)(void));
  size_t dst_bytes = BP_DeviceLayoutInterfaceSize(dst_layout);
  if (dst_bytes == 0 || BP_DeviceLayoutInterfaceSize(src_layout) == 0)
    return -1;
  memset((char *)dst + word, 0, dst_bytes - word);
  for (size_t row = 0; row < sizeof slots / sizeof slots[0]; ++row) {
    int from = slots[row][src_layout], to = slots[row][dst_layout];
    if (from >= 0 && to >= 0)
      memcpy((char *)dst + (size_t)to * word,
             (const char *)src + (size_t)from * word, word);
  }
  return 0;
}

/* InitPlugin's work for a plugin built against device_ext.h that serves any
 * known host: if params->interface->size names a known layout, writes `ours`
 * (a complete layout-B table) into the host's table in that layout, stamps
 * the ABI version and sets the two type names, and returns 1. Otherwise
 * (no params, no interface, an unknown layout) writes nothing, so the host
 * sees device_type NULL, and returns 0. Only the interface size decides: the
 * params fields a plugin writes sit at the same offsets in every layout. */
static inline int BP_CustomRuntimeExport(CustomRuntimeParams *params,
                                         const C_DeviceInterface *ours,
                                         const char *device_type,
                                         const char *sub_device_type) {
  if (!params || !params->interface)
    return 0;
  int host = BP_DeviceLayoutOfSize(params->interface->size);
  if (host < 0)
    return 0;
  BP_DeviceLayoutTranslate(params->interface, host, ours,
                           BP_DEVICE_LAYOUT_NATIVE);
  params->version.major = PADDLE_CUSTOM_RUNTIME_MAJOR_VERSION;
  params->version.minor = PADDLE_CUSTOM_RUNTIME_MINOR_VERSION;
  params->version.patch = PADDLE_CUSTOM_RUNTIME_PATCH_VERSION;
  /* Paddle's params declare char*; the host only reads them. */
  params->device_type = (char *)(uintptr_t)device_type;
  params->sub_device_type = (char *)(uintptr_t)sub_device_type;
  return 1;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* BACKPLANE_DEVICE_LAYOUTS_H_ */
