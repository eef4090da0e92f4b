/* BP_STREAM_ACTIVE in every public function that takes a bp_stream_t *
 * (include/backplane/stream.h): each either resolves it to the thread's
 * active stream of the device it names (the device's default stream when
 * none is set) or refuses it with BP_ERR_INVALID_ARGUMENT naming the
 * sentinel; the accessors give NULL for it. Nothing reads the sentinel as a
 * stream.
 *
 * The table below is checked against the installed-to-be headers at run
 * time (BP_INCLUDE_DIR): a public function that takes a stream and is not in
 * the table fails the test, so a new entry point cannot forget the sentinel.
 */
#include <dirent.h>
#include <stdio.h>

#include "backplane/ops.h"
#include "backplane/vendor_access.h"
#include "conformance_kernels.h"
#include "kernel_fixture.h"

enum { COUNT = 16, BYTES = COUNT * sizeof(float) };

typedef struct context {
  kernel_fixture_t *f;
  bp_comm_t *comms[2];
  bp_stream_t *peer_stream; /* dev1's default: the other rank's stream */
  void *dev0_a, *dev0_b, *dev1_a, *dev1_b; /* 2 * BYTES each */
  float host[2 * COUNT];
} context_t;

typedef enum outcome {
  RESOLVES,   /* BP_OK, on the active (or default) stream */
  REFUSES,    /* BP_ERR_INVALID_ARGUMENT naming BP_STREAM_ACTIVE */
  GIVES_NULL, /* an accessor: NULL */
} outcome_t;

/* Calls the function with BP_STREAM_ACTIVE where it takes a stream;
 * `resolved` is the stream the sentinel stands for now. */
typedef bp_status_t (*call_fn)(context_t *c, bp_stream_t *resolved);

typedef struct entry {
  const char *function;
  outcome_t outcome;
  call_fn call;
} entry_t;

#define A BP_STREAM_ACTIVE

static bp_status_t malloc_async(context_t *c, bp_stream_t *resolved) {
  (void)resolved;
  void *p = NULL;
  bp_status_t s = bp_device_malloc_async(c->f->dev0, 64, A, &p);
  if (s == BP_OK)
    assert_int_equal(bp_device_free_async(c->f->dev0, p, A), BP_OK);
  return s;
}
static bp_status_t free_async(context_t *c, bp_stream_t *resolved) {
  void *p = NULL;
  assert_int_equal(bp_device_malloc_async(c->f->dev0, 64, resolved, &p), BP_OK);
  return bp_device_free_async(c->f->dev0, p, A);
}
static bp_status_t record_stream(context_t *c, bp_stream_t *resolved) {
  (void)resolved;
  void *p = NULL;
  assert_int_equal(bp_device_malloc(c->f->dev0, 64, &p), BP_OK);
  bp_status_t s = bp_device_record_stream(c->f->dev0, p, A);
  assert_int_equal(bp_device_free(c->f->dev0, p), BP_OK);
  return s;
}
static bp_status_t workspace_alloc(context_t *c, bp_stream_t *resolved) {
  void *p = NULL;
  bp_status_t s = bp_device_workspace_alloc(c->f->dev0, 64, A, &p);
  if (s == BP_OK) /* a workspace of the resolved stream */
    assert_int_equal(bp_device_workspace_free(c->f->dev0, resolved, p), BP_OK);
  return s;
}
static bp_status_t workspace_free(context_t *c, bp_stream_t *resolved) {
  void *p = NULL;
  assert_int_equal(bp_device_workspace_alloc(c->f->dev0, 64, resolved, &p),
                   BP_OK);
  return bp_device_workspace_free(c->f->dev0, A, p);
}

/* Collectives: rank 0 on BP_STREAM_ACTIVE, rank 1 on an explicit stream,
 * both in one group so one thread drives both ranks. */
#define COLLECTIVE(name, rank0_call, rank1_call)                               \
  static bp_status_t name(context_t *c, bp_stream_t *resolved) {               \
    (void)resolved;                                                            \
    assert_int_equal(bp_comm_group_start(c->f->runtime), BP_OK);               \
    bp_status_t s = rank0_call;                                                \
    assert_int_equal(rank1_call, BP_OK);                                       \
    assert_int_equal(bp_comm_group_end(c->f->runtime), BP_OK);                 \
    return s;                                                                  \
  }
#define F32 BP_DTYPE_FLOAT32
COLLECTIVE(all_reduce,
           bp_comm_all_reduce(c->dev0_a, c->dev0_b, COUNT, F32, BP_REDUCE_SUM,
                              c->comms[0], A),
           bp_comm_all_reduce(c->dev1_a, c->dev1_b, COUNT, F32, BP_REDUCE_SUM,
                              c->comms[1], c->peer_stream))
COLLECTIVE(broadcast,
           bp_comm_broadcast(c->dev0_a, COUNT, F32, 0, c->comms[0], A),
           bp_comm_broadcast(c->dev1_a, COUNT, F32, 0, c->comms[1],
                             c->peer_stream))
COLLECTIVE(reduce,
           bp_comm_reduce(c->dev0_a, c->dev0_b, COUNT, F32, BP_REDUCE_SUM, 0,
                          c->comms[0], A),
           bp_comm_reduce(c->dev1_a, NULL, COUNT, F32, BP_REDUCE_SUM, 0,
                          c->comms[1], c->peer_stream))
COLLECTIVE(all_gather,
           bp_comm_all_gather(c->dev0_a, c->dev0_b, COUNT, F32, c->comms[0], A),
           bp_comm_all_gather(c->dev1_a, c->dev1_b, COUNT, F32, c->comms[1],
                              c->peer_stream))
COLLECTIVE(reduce_scatter,
           bp_comm_reduce_scatter(c->dev0_a, c->dev0_b, COUNT, F32,
                                  BP_REDUCE_SUM, c->comms[0], A),
           bp_comm_reduce_scatter(c->dev1_a, c->dev1_b, COUNT, F32,
                                  BP_REDUCE_SUM, c->comms[1], c->peer_stream))
COLLECTIVE(send, bp_comm_send(c->dev0_a, COUNT, F32, 1, c->comms[0], A),
           bp_comm_recv(c->dev1_a, COUNT, F32, 0, c->comms[1], c->peer_stream))
COLLECTIVE(recv, bp_comm_recv(c->dev0_a, COUNT, F32, 1, c->comms[0], A),
           bp_comm_send(c->dev1_a, COUNT, F32, 0, c->comms[1], c->peer_stream))

static bp_status_t all_to_all(context_t *c, bp_stream_t *resolved) {
  (void)resolved;
  const size_t counts[2] = {COUNT / 2, COUNT / 2};
  char *a0 = c->dev0_a, *b0 = c->dev0_b, *a1 = c->dev1_a, *b1 = c->dev1_b;
  const void *send0[2] = {a0, a0 + BYTES / 2};
  void *recv0[2] = {b0, b0 + BYTES / 2};
  const void *send1[2] = {a1, a1 + BYTES / 2};
  void *recv1[2] = {b1, b1 + BYTES / 2};
  assert_int_equal(bp_comm_group_start(c->f->runtime), BP_OK);
  bp_status_t s =
      bp_comm_all_to_all(send0, counts, recv0, counts, F32, c->comms[0], A);
  assert_int_equal(bp_comm_all_to_all(send1, counts, recv1, counts, F32,
                                      c->comms[1], c->peer_stream),
                   BP_OK);
  assert_int_equal(bp_comm_group_end(c->f->runtime), BP_OK);
  return s;
}

static bp_status_t launch(context_t *c, bp_stream_t *resolved) {
  int log[1] = {0}, position = 0;
  append_param p = {log, &position, 7};
  bp_status_t s = bp_launch(kernel_fixture_function(c->f, "append_kernel"), 1,
                            &p, sizeof p, NULL, A);
  assert_int_equal(bp_stream_synchronize(resolved), BP_OK);
  if (s == BP_OK) /* it ran, on the stream just synchronized */
    assert_int_equal(log[0], 7);
  return s;
}
static bp_status_t notify_record(context_t *c, bp_stream_t *resolved) {
  bp_notify_t *n = NULL;
  assert_int_equal(bp_notify_create(c->f->dev0, &n), BP_OK);
  bp_status_t s = bp_notify_record(n, A);
  assert_int_equal(bp_stream_synchronize(resolved), BP_OK);
  assert_int_equal(bp_notify_destroy(n), BP_OK);
  return s;
}
static bp_status_t notify_wait(context_t *c, bp_stream_t *resolved) {
  bp_notify_t *n = NULL;
  assert_int_equal(bp_notify_create(c->f->dev0, &n), BP_OK);
  assert_int_equal(bp_notify_record(n, resolved), BP_OK);
  bp_status_t s = bp_notify_wait(n, A, 5000);
  assert_int_equal(bp_stream_synchronize(resolved), BP_OK);
  assert_int_equal(bp_notify_destroy(n), BP_OK);
  return s;
}

static bp_status_t memset_(context_t *c, bp_stream_t *resolved) {
  (void)resolved;
  return bp_memset(c->f->dev0, c->dev0_a, 0, BYTES, A);
}
static bp_status_t copy(context_t *c, bp_stream_t *resolved) {
  (void)resolved;
  return bp_copy(c->f->dev0, c->dev0_a, NULL, c->host, BYTES, A);
}
static bp_status_t copy_async_unsafe(context_t *c, bp_stream_t *resolved) {
  bp_status_t s =
      bp_copy_async_unsafe(NULL, c->host, c->f->dev0, c->dev0_a, BYTES, A);
  assert_int_equal(bp_stream_synchronize(resolved), BP_OK);
  return s;
}
static bp_status_t copy_tensor(context_t *c, bp_stream_t *resolved) {
  (void)resolved;
  int64_t shape[1] = {COUNT};
  DLTensor from = {.data = c->host,
                   .device = {kDLCPU, 0},
                   .ndim = 1,
                   .dtype = {kDLFloat, 32, 1},
                   .shape = shape};
  DLTensor to = from;
  to.data = c->dev0_a;
  to.device = bp_device_to_dl(c->f->dev0);
  return bp_copy_tensor(c->f->runtime, &from, &to, A);
}

static bp_status_t ops_context_create(context_t *c, bp_stream_t *resolved) {
  diopiContextHandle_t ctx = NULL;
  bp_status_t s = bp_ops_context_create(c->f->dev0, A, &ctx);
  if (s == BP_OK) /* the stream resolved at creation */
    assert_ptr_equal(bp_ops_context_stream(ctx), resolved);
  bp_ops_context_destroy(ctx);
  return s;
}
static bp_status_t ops_tensor_create(context_t *c, bp_stream_t *resolved) {
  diopiTensorHandle_t t = NULL;
  int64_t shape[1] = {COUNT};
  bp_status_t s =
      bp_ops_tensor_create(c->f->dev0, A, diopi_dtype_float32, 1, shape, &t);
  bp_ops_tensor_destroy(t);
  assert_int_equal(bp_stream_synchronize(resolved), BP_OK);
  return s;
}

static bp_status_t set_active(context_t *c, bp_stream_t *resolved) {
  bp_status_t s = bp_stream_set_active(c->f->dev0, A);
  bp_stream_t *now = NULL;
  assert_int_equal(bp_stream_get_active(c->f->dev0, &now), BP_OK);
  assert_ptr_equal(now, resolved); /* unchanged */
  return s;
}
static bp_status_t stream_destroy(context_t *c, bp_stream_t *resolved) {
  (void)c, (void)resolved;
  return bp_stream_destroy(A);
}
static bp_status_t stream_query(context_t *c, bp_stream_t *resolved) {
  (void)c, (void)resolved;
  return bp_stream_query(A);
}
static bp_status_t stream_synchronize(context_t *c, bp_stream_t *resolved) {
  (void)c, (void)resolved;
  return bp_stream_synchronize(A);
}
static bp_status_t stream_fail(context_t *c, bp_stream_t *resolved) {
  (void)c, (void)resolved;
  return bp_stream_fail(A, BP_ERR_INVALID_ARGUMENT, "refused work");
}
static bp_status_t stream_reset(context_t *c, bp_stream_t *resolved) {
  (void)c, (void)resolved;
  return bp_stream_reset(A);
}
static bp_status_t stream_wait_event(context_t *c, bp_stream_t *resolved) {
  bp_event_t *e = NULL;
  assert_int_equal(bp_event_create(c->f->dev0, &e), BP_OK);
  assert_int_equal(bp_event_record(e, resolved), BP_OK);
  bp_status_t s = bp_stream_wait_event(A, e);
  assert_int_equal(bp_event_destroy(e), BP_OK);
  return s;
}
static bp_status_t sync_from_active(context_t *c, bp_stream_t *resolved) {
  (void)c;
  return bp_stream_sync_from_to(A, resolved);
}
static bp_status_t sync_to_active(context_t *c, bp_stream_t *resolved) {
  (void)c;
  return bp_stream_sync_from_to(resolved, A);
}
static void never_runs(void *user_data) {
  (void)user_data;
  fail_msg("a callback on BP_STREAM_ACTIVE ran");
}
static bp_status_t add_callback(context_t *c, bp_stream_t *resolved) {
  (void)c, (void)resolved;
  return bp_stream_add_callback(A, never_runs, NULL);
}
static bp_status_t add_labeled_callback(context_t *c, bp_stream_t *resolved) {
  (void)c, (void)resolved;
  return bp_stream_add_labeled_callback(A, never_runs, NULL, "label");
}
static bp_status_t add_inline_callback(context_t *c, bp_stream_t *resolved) {
  (void)c, (void)resolved;
  return bp_stream_add_inline_callback(A, never_runs, NULL, "label");
}
static bp_status_t ops_native_stream(context_t *c, bp_stream_t *resolved) {
  (void)c, (void)resolved;
  void *native = NULL;
  return bp_ops_native_stream(A, &native);
}
static bp_status_t stream_device(context_t *c, bp_stream_t *resolved) {
  (void)c, (void)resolved;
  return bp_stream_device(A) == NULL ? BP_OK : BP_ERR_PLUGIN;
}
static bp_status_t stream_c_handle(context_t *c, bp_stream_t *resolved) {
  (void)c, (void)resolved;
  return bp_stream_c_handle(A) == NULL ? BP_OK : BP_ERR_PLUGIN;
}
static bp_status_t event_record(context_t *c, bp_stream_t *resolved) {
  bp_event_t *e = NULL;
  assert_int_equal(bp_event_create(c->f->dev0, &e), BP_OK);
  bp_status_t s = bp_event_record(e, A);
  assert_int_equal(bp_stream_synchronize(resolved), BP_OK);
  if (s == BP_OK) /* recorded on the stream just synchronized */
    assert_int_equal(bp_event_query(e), BP_OK);
  assert_int_equal(bp_event_destroy(e), BP_OK);
  return s;
}

static const entry_t table[] = {
    {"bp_device_malloc_async", RESOLVES, malloc_async},
    {"bp_device_free_async", RESOLVES, free_async},
    {"bp_device_record_stream", RESOLVES, record_stream},
    {"bp_device_workspace_alloc", RESOLVES, workspace_alloc},
    {"bp_device_workspace_free", RESOLVES, workspace_free},
    {"bp_comm_all_reduce", RESOLVES, all_reduce},
    {"bp_comm_broadcast", RESOLVES, broadcast},
    {"bp_comm_reduce", RESOLVES, reduce},
    {"bp_comm_all_gather", RESOLVES, all_gather},
    {"bp_comm_reduce_scatter", RESOLVES, reduce_scatter},
    {"bp_comm_send", RESOLVES, send},
    {"bp_comm_recv", RESOLVES, recv},
    {"bp_comm_all_to_all", RESOLVES, all_to_all},
    {"bp_launch", RESOLVES, launch},
    {"bp_notify_record", RESOLVES, notify_record},
    {"bp_notify_wait", RESOLVES, notify_wait},
    {"bp_memset", RESOLVES, memset_},
    {"bp_copy", RESOLVES, copy},
    {"bp_copy_async_unsafe", RESOLVES, copy_async_unsafe},
    {"bp_copy_tensor", RESOLVES, copy_tensor},
    {"bp_ops_context_create", RESOLVES, ops_context_create},
    {"bp_ops_tensor_create", RESOLVES, ops_tensor_create},
    {"bp_ops_native_stream", REFUSES, ops_native_stream},
    {"bp_stream_set_active", RESOLVES, set_active},
    {"bp_stream_destroy", REFUSES, stream_destroy},
    {"bp_stream_query", REFUSES, stream_query},
    {"bp_stream_synchronize", REFUSES, stream_synchronize},
    {"bp_stream_fail", REFUSES, stream_fail},
    {"bp_stream_reset", REFUSES, stream_reset},
    {"bp_stream_wait_event", REFUSES, stream_wait_event},
    {"bp_stream_sync_from_to", REFUSES, sync_from_active},
    {"bp_stream_sync_from_to", REFUSES, sync_to_active},
    {"bp_stream_add_callback", REFUSES, add_callback},
    {"bp_stream_add_labeled_callback", REFUSES, add_labeled_callback},
    {"bp_stream_add_inline_callback", REFUSES, add_inline_callback},
    {"bp_stream_device", GIVES_NULL, stream_device},
    {"bp_stream_c_handle", GIVES_NULL, stream_c_handle},
    {"bp_event_record", RESOLVES, event_record},
};
#define TABLE_SIZE (sizeof table / sizeof table[0])

static int in_table(const char *function) {
  for (size_t i = 0; i < TABLE_SIZE; ++i)
    if (strcmp(table[i].function, function) == 0)
      return 1;
  return 0;
}

/* ---- The public functions that take a stream, from the headers ---------- */

typedef struct name_list {
  char names[256][64];
  size_t count;
} name_list_t;

static char *read_text(const char *path) {
  FILE *file = fopen(path, "rb");
  assert_non_null(file);
  assert_int_equal(fseek(file, 0, SEEK_END), 0);
  long size = ftell(file);
  assert_true(size >= 0);
  rewind(file);
  char *text = malloc((size_t)size + 1);
  assert_non_null(text);
  assert_int_equal(fread(text, 1, (size_t)size, file), (size_t)size);
  text[size] = '\0';
  fclose(file);
  return text;
}

/* Blanks out comments, so declarations in them do not count. */
static void blank_comments(char *text) {
  for (char *p = text; *p; ++p) {
    if (p[0] == '/' && p[1] == '*') {
      char *end = strstr(p + 2, "*/");
      char *stop = end ? end + 2 : p + strlen(p);
      memset(p, ' ', (size_t)(stop - p));
      p = stop - 1;
    } else if (p[0] == '/' && p[1] == '/') {
      while (*p && *p != '\n')
        *p++ = ' ';
      --p;
    }
  }
}

/* Whether a parameter list holds a `bp_stream_t *` (not `**`). */
static int takes_stream(const char *params, const char *end) {
  for (const char *p = params; (p = strstr(p, "bp_stream_t")) && p < end;) {
    p += strlen("bp_stream_t");
    while (*p == ' ' || *p == '\n' || *p == '\t')
      ++p;
    if (*p != '*')
      continue;
    ++p;
    while (*p == ' ' || *p == '\n' || *p == '\t')
      ++p;
    if (*p != '*')
      return 1;
  }
  return 0;
}

/* Adds the BP_API functions of `text` that take a stream to `out`. */
static void scan_declarations(char *text, name_list_t *out) {
  blank_comments(text);
  for (char *p = text; (p = strstr(p, "BP_API ")) != NULL;) {
    p += strlen("BP_API ");
    char *open = strchr(p, '(');
    char *semicolon = strchr(p, ';');
    if (!open || !semicolon || semicolon < open)
      continue;
    char *name_end = open;
    while (name_end > p && name_end[-1] == ' ')
      --name_end;
    char *name = name_end;
    while (name > p &&
           (name[-1] == '_' || (name[-1] >= 'a' && name[-1] <= 'z') ||
            (name[-1] >= 'A' && name[-1] <= 'Z') ||
            (name[-1] >= '0' && name[-1] <= '9')))
      --name;
    if (takes_stream(open, semicolon) && name_end > name) {
      assert_true(out->count < 256 && name_end - name < 64);
      memcpy(out->names[out->count], name, (size_t)(name_end - name));
      out->names[out->count++][name_end - name] = '\0';
    }
    p = semicolon;
  }
}

static void table_covers_every_stream_taking_function(void **state) {
  (void)state;
  static name_list_t found;
  found.count = 0;
  DIR *dir = opendir(BP_INCLUDE_DIR "/backplane");
  assert_non_null(dir);
  size_t headers = 0;
  for (struct dirent *e; (e = readdir(dir)) != NULL;) {
    size_t n = strlen(e->d_name);
    if (n < 3 || strcmp(e->d_name + n - 2, ".h") != 0)
      continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/backplane/%s", BP_INCLUDE_DIR, e->d_name);
    char *text = read_text(path);
    scan_declarations(text, &found);
    free(text);
    ++headers;
  }
  closedir(dir);
  assert_true(headers > 10);
  /* The scan itself works: it sees functions known to take a stream. */
  assert_true(found.count >= 30);
  for (size_t i = 0; i < found.count; ++i)
    if (!in_table(found.names[i]))
      fail_msg("%s takes a bp_stream_t * but is not in this test's table: "
               "add it, with what BP_STREAM_ACTIVE does there",
               found.names[i]);
  for (size_t i = 0; i < TABLE_SIZE; ++i) {
    int declared = 0;
    for (size_t k = 0; k < found.count && !declared; ++k)
      declared = strcmp(found.names[k], table[i].function) == 0;
    if (!declared)
      fail_msg("%s is in the table but no header declares it taking a "
               "stream",
               table[i].function);
  }
}

/* ---- Every entry, with and without an active stream ---------------------- */

static int setup(void **state) {
  context_t *c = calloc(1, sizeof *c);
  assert_non_null(c);
  kernel_fixture_open((void **)&c->f);
  bp_device_t *devices[2] = {c->f->dev0, c->f->dev1};
  assert_int_equal(bp_comm_init_all(devices, 2, c->comms), BP_OK);
  assert_int_equal(bp_stream_get_default(c->f->dev1, &c->peer_stream), BP_OK);
  assert_int_equal(bp_device_malloc(c->f->dev0, 2 * BYTES, &c->dev0_a), BP_OK);
  assert_int_equal(bp_device_malloc(c->f->dev0, 2 * BYTES, &c->dev0_b), BP_OK);
  assert_int_equal(bp_device_malloc(c->f->dev1, 2 * BYTES, &c->dev1_a), BP_OK);
  assert_int_equal(bp_device_malloc(c->f->dev1, 2 * BYTES, &c->dev1_b), BP_OK);
  *state = c;
  return 0;
}

static int teardown(void **state) {
  context_t *c = *state;
  assert_int_equal(bp_device_synchronize(c->f->dev0), BP_OK);
  assert_int_equal(bp_device_synchronize(c->f->dev1), BP_OK);
  assert_int_equal(bp_comm_destroy(c->comms[0]), BP_OK);
  assert_int_equal(bp_comm_destroy(c->comms[1]), BP_OK);
  assert_int_equal(bp_device_free(c->f->dev0, c->dev0_a), BP_OK);
  assert_int_equal(bp_device_free(c->f->dev0, c->dev0_b), BP_OK);
  assert_int_equal(bp_device_free(c->f->dev1, c->dev1_a), BP_OK);
  assert_int_equal(bp_device_free(c->f->dev1, c->dev1_b), BP_OK);
  kernel_fixture_close((void **)&c->f);
  free(c);
  return 0;
}

static void run_table(context_t *c, bp_stream_t *resolved) {
  for (size_t i = 0; i < TABLE_SIZE; ++i) {
    const entry_t *e = &table[i];
    bp_status_t s = e->call(c, resolved);
    switch (e->outcome) {
    case RESOLVES:
    case GIVES_NULL:
      if (s != BP_OK)
        fail_msg("%s(BP_STREAM_ACTIVE): status %d (%s)", e->function, (int)s,
                 bp_last_error());
      break;
    case REFUSES:
      if (s != BP_ERR_INVALID_ARGUMENT)
        fail_msg("%s(BP_STREAM_ACTIVE): status %d, expected a refusal",
                 e->function, (int)s);
      assert_error_mentions(e->function);
      assert_error_mentions("BP_STREAM_ACTIVE");
      break;
    }
    assert_int_equal(bp_stream_synchronize(resolved), BP_OK);
    assert_int_equal(bp_stream_synchronize(c->peer_stream), BP_OK);
  }
}

static void every_entry_point_takes_the_default_stream(void **state) {
  context_t *c = *state;
  bp_stream_t *def = NULL;
  assert_int_equal(bp_stream_set_active(c->f->dev0, NULL), BP_OK);
  assert_int_equal(bp_stream_get_default(c->f->dev0, &def), BP_OK);
  run_table(c, def);
}

static void every_entry_point_takes_the_active_stream(void **state) {
  context_t *c = *state;
  assert_int_equal(bp_stream_set_active(c->f->dev0, c->f->stream), BP_OK);
  run_table(c, c->f->stream);
  assert_int_equal(bp_stream_set_active(c->f->dev0, NULL), BP_OK);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(table_covers_every_stream_taking_function),
      cmocka_unit_test_setup_teardown(
          every_entry_point_takes_the_default_stream, setup, teardown),
      cmocka_unit_test_setup_teardown(every_entry_point_takes_the_active_stream,
                                      setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
