/* ABI checks: the interface layout and version the plugin was loaded with,
 * and the functions Paddle's loader requires (plus synchronize_device, which
 * Paddle calls without a null check): the REQUIRED rows of the core's slot
 * table, core/plugin_slots.h. */
#include <stdint.h>
#include <string.h>

#include "backplane/device_layouts.h"
#include "check.h"
#include "check_report.h"
#include "core/plugin_slots.h"

/* The required slots, from the core's one table of slots. The conformance
 * library is built in this tree and compiles against that same header
 * (self-contained, never installed), so the check and the loader cannot
 * disagree on what a plugin must provide. */
typedef struct required_function {
  const char *name;
  size_t offset;
} required_function_t;

static const required_function_t required_functions[] = {
#define REQUIRED(name, need, layers, params, args)                             \
  BP_SLOT_IF_REQUIRED(need)({#name, offsetof(C_DeviceInterface, name)}, )
    BP_PLUGIN_SLOTS(REQUIRED)
#undef REQUIRED
};

static int listed(const char *const *names, const char *name) {
  for (size_t i = 0; names && names[i]; i++)
    if (!strcmp(names[i], name))
      return 1;
  return 0;
}

static size_t count_names(const char *const *names) {
  size_t count = 0;
  while (names && names[count])
    count++;
  return count;
}

/* Which of Paddle's table layouts the plugin answered the loader's probe in
 * (backplane/device_layouts.h): any known one passes; the loader translated
 * it to Backplane's layout B. */
static void check_layout(check_ctx_t *ctx) {
  int layout = BP_DeviceLayoutOfSize(ctx->info.interface_size);
  if (layout < 0)
    check_fail(ctx, "abi.layout",
               "interface is %zu bytes, no layout backplane/device_layouts.h "
               "knows",
               ctx->info.interface_size);
  else if (layout == BP_DEVICE_LAYOUT_NATIVE)
    check_pass(ctx, "abi.layout",
               "layout %s: %zu-byte C_DeviceInterface, Backplane's own",
               BP_DeviceLayoutName(layout), ctx->info.interface_size);
  else
    check_pass(ctx, "abi.layout",
               "layout %s: %zu-byte C_DeviceInterface, translated to "
               "Backplane's layout %s (%zu bytes)",
               BP_DeviceLayoutName(layout), ctx->info.interface_size,
               BP_DeviceLayoutName(BP_DEVICE_LAYOUT_NATIVE),
               sizeof(C_DeviceInterface));
}

static void check_version(check_ctx_t *ctx) {
  size_t major = ctx->info.abi_major, minor = ctx->info.abi_minor,
         patch = ctx->info.abi_patch;
  int too_old = major == 0 && (minor < 1 || (minor == 1 && patch < 1));
  if (major != PADDLE_CUSTOM_RUNTIME_MAJOR_VERSION || too_old)
    check_fail(ctx, "abi.version",
               "plugin reports ABI %zu.%zu.%zu; expected 0.x, at least "
               "0.1.1",
               major, minor, patch);
  else
    check_pass(ctx, "abi.version", "ABI %zu.%zu.%zu", major, minor, patch);
}

static void check_required(check_ctx_t *ctx) {
  char missing[512] = "";
  size_t missing_count = 0;
  for (size_t i = 0;
       i < sizeof(required_functions) / sizeof(required_functions[0]); i++) {
    const required_function_t *fn = &required_functions[i];
    void *slot = NULL;
    if (ctx->dispatch)
      memcpy(&slot, (const char *)ctx->dispatch + fn->offset, sizeof(slot));
    if (slot && listed(ctx->info.native_functions, fn->name))
      continue;
    size_t used = strlen(missing);
    snprintf(missing + used, sizeof(missing) - used, "%s%s",
             missing_count ? ", " : "", fn->name);
    missing_count++;
  }
  if (missing_count)
    check_fail(ctx, "abi.required_functions", "the plugin does not provide: %s",
               missing);
  else
    check_pass(ctx, "abi.required_functions",
               "all %zu present; %zu native, %zu fallback, %zu missing in all",
               sizeof(required_functions) / sizeof(required_functions[0]),
               count_names(ctx->info.native_functions),
               count_names(ctx->info.fallback_functions),
               count_names(ctx->info.missing_functions));
}

void check_abi(check_ctx_t *ctx) {
  check_layout(ctx);
  check_version(ctx);
  check_required(ctx);
}
