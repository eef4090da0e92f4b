/* BACKPLANE_OPS_ISA caps the instruction set of the reference library's hot
 * loops: each cap is the one in force (never above what the CPU runs), and
 * every conformance case passes under each cap, so the per-ISA builds agree
 * with PyTorch. */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

/* What the library reports under cap `cap` (NULL: unset), read in a child
 * process (the cap is read once per process) into `out`. */
static void isa_under(const char *cap, char *out, size_t size) {
  int fds[2];
  assert_int_equal(pipe(fds), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    close(fds[0]);
    if (cap)
      setenv("BACKPLANE_OPS_ISA", cap, 1);
    else
      unsetenv("BACKPLANE_OPS_ISA");
    void *lib = dlopen(BP_OPS_REF, RTLD_NOW | RTLD_LOCAL);
    const char *(*isa)(void) =
        lib ? (const char *(*)(void))dlsym(lib, "bpRefOpsInstructionSet")
            : NULL;
    const char *name = isa ? isa() : "none";
    ssize_t written = write(fds[1], name, strlen(name));
    _exit(written == (ssize_t)strlen(name) ? 0 : 1);
  }
  close(fds[1]);
  ssize_t got = read(fds[0], out, size - 1);
  out[got > 0 ? got : 0] = '\0';
  close(fds[0]);
  int status;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static const char *best_of_cpu(void) {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
    return "avx512";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return "avx2";
  return "sse2";
}

static void cap_is_the_isa_in_force(void **state) {
  (void)state;
  char got[32];
  const char *best = best_of_cpu();
  isa_under("sse2", got, sizeof got);
  assert_string_equal(got, "sse2");
  isa_under("avx2", got, sizeof got);
  assert_string_equal(got, strcmp(best, "sse2") ? "avx2" : "sse2");
  isa_under("native", got, sizeof got);
  assert_string_equal(got, best);
  isa_under(NULL, got, sizeof got);
  assert_string_equal(got, best);
}

/* Exit code of `backplane optest --quick` under cap `cap`; *fails gets
 * the FAIL lines. */
static int optest_under(const char *cap, int *fails, int *passes) {
  char command[2048];
  snprintf(command, sizeof command,
           "BACKPLANE_OPS_ISA=%s %s optest --quick --filter /f32", cap,
           BP_TOOL_PATH);
  FILE *out = popen(command, "r");
  assert_non_null(out);
  char line[4096];
  *fails = *passes = 0;
  while (fgets(line, sizeof line, out)) {
    *fails += !strncmp(line, "FAIL ", 5);
    *passes += !strncmp(line, "PASS ", 5);
  }
  int status = pclose(out);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void every_cap_passes_the_float32_cases(void **state) {
  (void)state;
  const char *caps[] = {"sse2", "avx2", "native"};
  for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
    int fails, passes;
    assert_int_equal(optest_under(caps[i], &fails, &passes), 0);
    assert_int_equal(fails, 0);
    assert_true(passes >= 100);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(cap_is_the_isa_in_force),
      cmocka_unit_test(every_cap_passes_the_float32_cases),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
