/* What the kernel unit shares: the thread-local error of the extension's
 * calls, deadlines, and the plugin-wide shutdown. */
#include <stdarg.h>
#include <stdio.h>

#include "base/park.h"
#include "kernels.h"
#include "stream.h"

static _Thread_local char g_error[512] = "no error";

C_Status vk_fail(C_Status status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(g_error, sizeof g_error, format, args);
  va_end(args);
  return status;
}

const char *vk_last_error(void) {
  return g_error;
}

uint64_t vk_deadline_ms(uint32_t timeout_ms) {
  return vcpu_now_ns() + vk_timeout_ns((uint64_t)timeout_ms * 1000000u);
}

void vk_shutdown(void) {
  vcpu_streams_watchdog_stop();
  vk_pools_shutdown();
  vk_comm_shutdown();
  vk_stream_errors_clear();
}
