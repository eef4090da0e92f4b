/* Counting Paddle's CPU fallbacks for the backplane place.
 *
 * When Paddle finds no backplane kernel for a phi kernel it runs its CPU
 * kernel instead, copying the inputs to the host and the results back: in
 * dygraph when FLAGS_enable_api_kernel_fallback is on (the default), and
 * in a static graph run by the legacy-IR executor always, whatever that
 * flag says. Paddle tells no plugin; its only trace is one verbose-log
 * line, of kernel_factory.cc in dygraph ("missing backplane kernel: NAME,
 * expected_kernel_key:(backplane, LAYOUT, DTYPE), fallbacking to CPU one!")
 * and of phi_utils.cc in a static graph (the same words after "phi ",
 * once per operator when the executor picks its kernel). Under
 * BACKPLANE_PADDLE_FALLBACKS=1 the bridge turns those lines on (verbosity
 * 3 for those two files alone) and receives them through a glog log sink:
 * it prints each fallback with its running count, and at finalize a
 * summary per kernel.
 *
 * Paddle 3.3.1 bundles glog 0.4 without its headers but exports its
 * symbols (libphi_core.so); the declarations below are glog 0.4's LogSink
 * interface, whose virtual table (destructor, send, WaitTillSent) the
 * bridge's sink must match. glog hands a sink only the messages at or above
 * its minimum level, so the count needs GLOG_minloglevel=0 (Paddle's
 * default); the bridge says so when it is higher. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bridge.h"
#include "paddle/phi/common/logging_utils.h"

namespace google {
class LogSink {
public:
  virtual ~LogSink();
  virtual void send(int severity, const char *full_filename,
                    const char *base_filename, int line,
                    const struct ::tm *tm_time, const char *message,
                    size_t message_len) = 0;
  virtual void WaitTillSent();
};
void AddLogSink(LogSink *sink);
void RemoveLogSink(LogSink *sink);
} // namespace google

enum { FALLBACK_KINDS = 128, FALLBACK_NAME = 96 };

/* One phi kernel (and dtype) that fell back, and how often. */
typedef struct fallback_kind {
  char name[FALLBACK_NAME];
  char dtype[32];
  unsigned long count;
} fallback_kind_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static fallback_kind_t kinds[FALLBACK_KINDS];
static size_t nkinds;
static unsigned long total;

static const char MISSING[] = "missing " BRIDGE_DEVICE_TYPE " kernel: ";
/* The files whose log lines say a kernel fell back, and what comes before
 * MISSING in each. */
static const struct {
  const char *file, *module, *prefix;
} SOURCES[] = {{"kernel_factory.cc", "kernel_factory", ""},
               {"phi_utils.cc", "phi_utils", "phi "}};

/* Copies the text of `from` up to the first of `stops` (or `n` - 1 bytes)
 * into `to`. */
static void copy_until(char *to, size_t n, const char *from, size_t len,
                       const char *stops) {
  size_t i = 0;
  for (; i < len && i + 1 < n && strchr(stops, from[i]) == NULL; i++)
    to[i] = from[i];
  to[i] = '\0';
}

/* Counts `message` if it is MISSING after `prefix`. */
static void count(const char *prefix, const char *message, size_t len) {
  size_t lead = strlen(prefix);
  if (len <= lead || strncmp(message, prefix, lead) != 0)
    return;
  message += lead;
  len -= lead;
  size_t skip = sizeof MISSING - 1;
  if (len <= skip || strncmp(message, MISSING, skip) != 0)
    return;
  char name[FALLBACK_NAME], dtype[32] = "";
  copy_until(name, sizeof name, message + skip, len - skip, ",");
  /* The key's last field is the dtype: "(backplane, LAYOUT, DTYPE)", the
   * message's last parenthesis. */
  const char *key_end = message + len;
  while (key_end > message && key_end[-1] != ')')
    key_end--;
  if (key_end-- > message) {
    const char *p = key_end;
    while (p > message && p[-1] != ' ')
      p--;
    copy_until(dtype, sizeof dtype, p, (size_t)(key_end - p), ")");
  }
  pthread_mutex_lock(&lock);
  fallback_kind_t *kind = NULL;
  for (size_t i = 0; i < nkinds && kind == NULL; i++)
    if (strcmp(kinds[i].name, name) == 0 && strcmp(kinds[i].dtype, dtype) == 0)
      kind = &kinds[i];
  if (kind == NULL && nkinds < FALLBACK_KINDS) {
    kind = &kinds[nkinds++];
    snprintf(kind->name, sizeof kind->name, "%s", name);
    snprintf(kind->dtype, sizeof kind->dtype, "%s", dtype);
  }
  unsigned long n = kind ? ++kind->count : 0;
  ++total;
  fprintf(stderr,
          "backplane paddle bridge: fallback %lu: %s (%s) ran on Paddle's "
          "CPU (%lu time%s)\n",
          total, name, dtype, n, n == 1 ? "" : "s");
  pthread_mutex_unlock(&lock);
}

class FallbackSink : public google::LogSink {
public:
  void send(int, const char *, const char *base_filename, int,
            const struct ::tm *, const char *message,
            size_t message_len) override {
    for (size_t i = 0; base_filename && i < sizeof SOURCES / sizeof *SOURCES;
         i++)
      if (strcmp(base_filename, SOURCES[i].file) == 0)
        count(SOURCES[i].prefix, message, message_len);
  }
};

static FallbackSink sink;
static bool watching;

void bridge_fallbacks_watch(void) {
  const char *v = getenv("BACKPLANE_PADDLE_FALLBACKS");
  if (watching || v == NULL || *v == '\0' || strcmp(v, "0") == 0)
    return;
  const char *level = getenv("GLOG_minloglevel");
  if (level && atoi(level) > 0)
    fprintf(stderr,
            "backplane paddle bridge: BACKPLANE_PADDLE_FALLBACKS needs "
            "GLOG_minloglevel=0 (it is %s): fallbacks are not counted\n",
            level);
  for (size_t i = 0; i < sizeof SOURCES / sizeof *SOURCES; i++)
    phi::set_phi_vlog_level(SOURCES[i].module, 3);
  google::AddLogSink(&sink);
  watching = true;
}

void bridge_fallbacks_report(void) {
  if (!watching)
    return;
  google::RemoveLogSink(&sink);
  watching = false;
  pthread_mutex_lock(&lock);
  fprintf(stderr, "backplane paddle bridge: %lu fallback%s to Paddle's CPU%s",
          total, total == 1 ? "" : "s", nkinds ? ":" : "\n");
  for (size_t i = 0; i < nkinds; i++)
    fprintf(stderr, " %s (%s) %lu%s", kinds[i].name, kinds[i].dtype,
            kinds[i].count, i + 1 < nkinds ? "," : "\n");
  pthread_mutex_unlock(&lock);
}
