/* `backplane optest --ops` on DIOPI-IMPL libraries that bring their own
 * device runtime (tests/ops/diopi_impl, built out of tree): with no --device
 * they run on the adapter device; implemented ops pass, the others are
 * NOIMPL; a library whose device runtime is incomplete is refused, naming
 * what is missing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

typedef struct run_result {
  int code;
  int pass, fail, noimpl;
  char text[16384]; /* stdout and stderr */
} run_result_t;

static run_result_t *run(const char *args) {
  static run_result_t r;
  memset(&r, 0, sizeof r);
  char command[2048];
  snprintf(command, sizeof command, "%s optest --quick %s 2>&1", BP_TOOL_PATH,
           args);
  FILE *out = popen(command, "r");
  assert_non_null(out);
  char line[4096];
  size_t used = 0;
  while (fgets(line, sizeof line, out)) {
    r.pass += !strncmp(line, "PASS ", 5);
    r.fail += !strncmp(line, "FAIL ", 5);
    r.noimpl += !strncmp(line, "NOIMPL ", 7);
    size_t n = strlen(line);
    if (used + n < sizeof r.text) {
      memcpy(r.text + used, line, n + 1);
      used += n;
    }
  }
  int status = pclose(out);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return &r;
}

static void old_style_add_passes_on_the_adapter(void **state) {
  (void)state;
  run_result_t *r = run("--ops " TOY_OLD " --filter add/f32");
  assert_int_equal(r->code, 0);
  assert_non_null(strstr(r->text, "device: diopi-impl adapter (old style)"));
  assert_non_null(strstr(r->text, " on diopi-impl:0"));
  /* same, bcast, 0size, 0d, large, noncontig */
  assert_int_equal(r->pass, 6);
  assert_int_equal(r->fail, 0);
}

static void old_style_mm_passes_and_missing_ops_are_noimpl(void **state) {
  (void)state;
  run_result_t *r = run("--ops " TOY_OLD " --filter mm/f32");
  assert_int_equal(r->code, 0);
  assert_int_equal(r->pass, 5);   /* the five mm/f32 cases */
  assert_int_equal(r->noimpl, 2); /* addmm/f32, bmm/f32 */
  assert_non_null(strstr(r->text, "NOIMPL addmm/f32"));
}

static void new_style_fill_passes_on_the_adapter(void **state) {
  (void)state;
  run_result_t *r = run("--ops " TOY_NEW " --filter fill/");
  assert_int_equal(r->code, 0);
  assert_non_null(strstr(r->text, "device: diopi-impl adapter (new style)"));
  assert_int_equal(r->pass, 3); /* f32, i64, i64/max */
  r = run("--ops " TOY_NEW " --filter relu/f32");
  assert_int_equal(r->code, 0);
  assert_int_equal(r->pass, 0);
  assert_true(r->noimpl >= 2);
}

static void new_style_json_names_the_adapter_device(void **state) {
  (void)state;
  run_result_t *r = run("--json --ops " TOY_NEW " --filter add/f32/same");
  assert_int_equal(r->code, 0);
  assert_non_null(strstr(r->text, "\"device\": \"diopi-impl:0\""));
  assert_non_null(strstr(r->text, "\"library_style\": \"new style\""));
  assert_non_null(strstr(r->text, "\"result\": \"PASS\""));
}

/* On another device the library is handed a bp_stream_t, not its own
 * stream, and says so: the stream rule is what makes the adapter work. */
static void on_vcpu_the_library_gets_no_native_stream(void **state) {
  (void)state;
  run_result_t *r = run("--ops " TOY_NEW " --device vcpu:0 --filter fill/f32");
  assert_int_equal(r->code, 1);
  assert_int_equal(r->fail, 1);
  assert_non_null(strstr(r->text, "is not a toy stream"));
}

static void library_registering_nothing_is_refused(void **state) {
  (void)state;
  run_result_t *r = run("--ops " TOY_OLD_EMPTY " --filter fill");
  assert_int_not_equal(r->code, 0);
  assert_non_null(strstr(r->text, "initLibrary did not call "
                                  "diopiRegisterDeviceMallocFunc"));
  assert_non_null(strstr(r->text, "diopiRegisterMemcpyD2DAsyncFunc"));
}

static void library_without_device_malloc_is_refused(void **state) {
  (void)state;
  run_result_t *r = run("--ops " TOY_NEW_NO_MALLOC " --filter fill");
  assert_int_not_equal(r->code, 0);
  assert_non_null(strstr(r->text, "does not define device_malloc"));
  assert_null(strstr(r->text, "device_free")); /* only what is missing */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(old_style_add_passes_on_the_adapter),
      cmocka_unit_test(old_style_mm_passes_and_missing_ops_are_noimpl),
      cmocka_unit_test(new_style_fill_passes_on_the_adapter),
      cmocka_unit_test(new_style_json_names_the_adapter_device),
      cmocka_unit_test(on_vcpu_the_library_gets_no_native_stream),
      cmocka_unit_test(library_registering_nothing_is_refused),
      cmocka_unit_test(library_without_device_malloc_is_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
