/* `backplane optest` against the reference library (every case passes) and
 * against deliberately broken libraries (each is caught), and a library
 * without the op (NOIMPL, not a failure); its case directories (every file
 * read, however many; a list attribute past the reader's cap refused by
 * name) and their known-failures lists (XFAIL, and XPASS failing the run). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

/* Runs the tool; returns its exit code and the lines starting with `word`. */
static int run(const char *args, const char *word, int *lines) {
  char command[2048];
  snprintf(command, sizeof command, "%s optest --quick %s", BP_TOOL_PATH, args);
  FILE *out = popen(command, "r");
  assert_non_null(out);
  char line[4096];
  *lines = 0;
  while (fgets(line, sizeof line, out))
    *lines += !strncmp(line, word, strlen(word));
  int status = pclose(out);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void reference_passes_every_case(void **state) {
  (void)state;
  int fails, passes;
  assert_int_equal(run("", "FAIL", &fails), 0);
  assert_int_equal(fails, 0);
  assert_int_equal(run("", "PASS", &passes), 0);
  assert_true(passes >= 200);
}

static void off_by_one_add_is_caught(void **state) {
  (void)state;
  int fails;
  assert_int_equal(
      run("--ops " BROKEN_ADD " --filter add/f32/same", "FAIL", &fails), 1);
  assert_int_equal(fails, 1);
}

static void wrong_stride_copy_is_caught(void **state) {
  (void)state;
  int fails, passes;
  assert_int_equal(
      run("--ops " BROKEN_COPY " --filter copy/f32/strided", "FAIL", &fails),
      1);
  assert_int_equal(fails, 1);
  /* A contiguous copy is right even with strides ignored. */
  assert_int_equal(
      run("--ops " BROKEN_COPY " --filter copy/f32/large", "PASS", &passes), 0);
  assert_int_equal(passes, 1);
}

static void op_writing_its_input_is_caught(void **state) {
  (void)state;
  int fails;
  assert_int_equal(
      run("--ops " BROKEN_RELU " --filter relu/f32/large", "FAIL", &fails), 1);
  assert_int_equal(fails, 1);
}

/* Random ops are judged by rule: draws that keep to their range but not to
 * their distribution fail it (the reference library's pass: the test
 * above). */
static void random_draws_off_their_distribution_are_caught(void **state) {
  (void)state;
  static const char *const kCases[] = {
      "random/random/2/f32/RandomInp",          /* [3, 2^24]: all 3 */
      "multinomial/multinomial/11/f32/",        /* weights ignored */
      "normal/normal_tensor/9/f32/NormalTensor" /* std ignored */
  };
  for (size_t i = 0; i < sizeof kCases / sizeof kCases[0]; i++) {
    char args[512];
    int fails;
    snprintf(args, sizeof args,
             "--ops %s --data %s --exclude /large --filter %s", BROKEN_RANDOM,
             BP_DIOPI_CASES, kCases[i]);
    assert_int_equal(run(args, "FAIL", &fails), 1);
    assert_int_equal(fails, 1);
  }
}

static void missing_op_is_noimpl(void **state) {
  (void)state;
  int noimpl;
  assert_int_equal(
      run("--ops " BROKEN_RELU " --filter diopiMm", "NOIMPL", &noimpl), 0);
  assert_true(noimpl >= 1);
}

/* A scratch case directory under /tmp, removed with its files. */
typedef struct scratch {
  char dir[64];
  char names[320][32];
  int count;
} scratch_t;

static void scratch_make(scratch_t *s) {
  snprintf(s->dir, sizeof s->dir, "/tmp/bp_optest_XXXXXX");
  assert_non_null(mkdtemp(s->dir));
  s->count = 0;
}

static FILE *scratch_open(scratch_t *s, const char *name) {
  assert_true(s->count < 320);
  snprintf(s->names[s->count++], sizeof s->names[0], "%s", name);
  char path[128];
  snprintf(path, sizeof path, "%s/%s", s->dir, name);
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  return f;
}

/* Copies tests/data/ops/<from> into the directory as `name`. */
static void scratch_copy(scratch_t *s, const char *from, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", BP_OPS_DATA, from);
  FILE *in = fopen(path, "rb");
  assert_non_null(in);
  FILE *out = scratch_open(s, name);
  char buffer[1 << 16];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, in)) > 0)
    assert_int_equal(fwrite(buffer, 1, n, out), n);
  fclose(in);
  assert_int_equal(fclose(out), 0);
}

static void scratch_remove(scratch_t *s) {
  char path[128];
  for (int i = 0; i < s->count; i++) {
    snprintf(path, sizeof path, "%s/%s", s->dir, s->names[i]);
    unlink(path);
  }
  rmdir(s->dir);
}

/* Runs optest with `args` (stderr with stdout); returns its exit code, and
 * in *total the M of its "N of M cases pass" line (-1 without one) and in
 * `text` (size bytes) its output. */
static int run_text(const char *args, int *total, char *text, size_t size) {
  char command[4096];
  snprintf(command, sizeof command, "%s optest --quick %s 2>&1", BP_TOOL_PATH,
           args);
  FILE *out = popen(command, "r");
  assert_non_null(out);
  char line[4096];
  int pass;
  size_t used = 0;
  *total = -1;
  text[0] = '\0';
  while (fgets(line, sizeof line, out)) {
    sscanf(line, "%d of %d cases pass", &pass, total);
    used += (size_t)snprintf(text + used, used < size ? size - used : 0, "%s",
                             line);
    used = used < size ? used : size;
  }
  int status = pclose(out);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void put_u16(FILE *f, uint16_t v) {
  fwrite(&v, sizeof v, 1, f);
}
static void put_u32(FILE *f, uint32_t v) {
  fwrite(&v, sizeof v, 1, f);
}
static void put_text(FILE *f, const char *text) {
  put_u16(f, (uint16_t)strlen(text));
  fwrite(text, 1, strlen(text), f);
}

/* A file `file` of one case `name` of op `op` with no tensors and, for
 * pad_values > 0, a list attribute `pad` of that many values. */
static void write_case(scratch_t *s, const char *file, const char *name,
                       const char *op, uint32_t pad_values) {
  FILE *f = scratch_open(s, file);
  double tolerance = 0;
  uint64_t zero = 0;
  fwrite("BPOPS001", 1, 8, f);
  put_u32(f, 1);
  put_text(f, name);
  put_text(f, op);
  fwrite(&tolerance, sizeof tolerance, 1, f);
  fwrite(&tolerance, sizeof tolerance, 1, f);
  fwrite(&zero, sizeof zero, 1, f);
  fwrite(&zero, sizeof zero, 1, f);
  put_u32(f, 0);                  /* tensors */
  put_u32(f, pad_values ? 1 : 0); /* attributes */
  if (pad_values) {
    put_text(f, "pad");
    fputc(2, f); /* an int list */
    put_u32(f, pad_values);
    for (int64_t v = 0; v < (int64_t)pad_values; v++)
      fwrite(&v, sizeof v, 1, f);
  }
  assert_int_equal(fclose(f), 0);
}

/* A directory of more case files than the reader once listed (256: the
 * rest were dropped without a word, and a whole op ran 0 of 0): all read
 * (cases of an op no library has: NOIMPL, nothing staged). */
static void every_case_file_of_a_directory_is_read(void **state) {
  (void)state;
  scratch_t s;
  scratch_make(&s);
  char file[32], name[32], args[256], text[1 << 16];
  for (int i = 0; i < 300; i++) {
    snprintf(file, sizeof file, "f%03d.bin", i);
    snprintf(name, sizeof name, "many/%03d", i);
    write_case(&s, file, name, "diopiNoSuchOp", 0);
  }
  int total = -1;
  snprintf(args, sizeof args, "--data %s", s.dir);
  assert_int_equal(run_text(args, &total, text, sizeof text), 0);
  assert_int_equal(total, 300);
  scratch_remove(&s);
}

/* DIOPI's pad lists hold up to 10 values (two per dim of a 5-d input):
 * read; past two per dim of the deepest tensor the reader is refused,
 * naming the file, case, attribute and limit (it once said only "not a
 * case file" for any list past 8). */
static void list_attribute_past_the_cap_is_refused_by_name(void **state) {
  (void)state;
  scratch_t s;
  char args[256], text[2048];
  int total;
  scratch_make(&s);
  write_case(&s, "pad.bin", "pad/long_list", "diopiPad", 10);
  /* Read, then none left to run by the filter (a usage error). */
  snprintf(args, sizeof args, "--data %s --filter NO_SUCH_CASE", s.dir);
  assert_int_equal(run_text(args, &total, text, sizeof text), 2);
  assert_non_null(strstr(text, "none of the 1 cases in"));
  scratch_remove(&s);
  scratch_make(&s);
  write_case(&s, "pad.bin", "pad/long_list", "diopiPad", 17);
  snprintf(args, sizeof args, "--data %s --filter NO_SUCH_CASE", s.dir);
  assert_int_equal(run_text(args, &total, text, sizeof text), 1);
  assert_non_null(strstr(text, "pad.bin: case pad/long_list: attribute 'pad' "
                               "lists 17 values, at most 16 are read"));
  scratch_remove(&s);
}

/* Case `name` with one float32 input [2] "x": its two values, or (ref_case
 * >= 0) a reference to case ref_case's tensor 0 storage. */
static void put_ref_case(FILE *f, const char *name, int ref_case) {
  double tolerance = 0;
  uint64_t zero = 0, bytes = 8;
  int64_t shape = 2, stride = 1, offset = 0;
  put_text(f, name);
  put_text(f, "diopiNoSuchOp");
  fwrite(&tolerance, sizeof tolerance, 1, f);
  fwrite(&tolerance, sizeof tolerance, 1, f);
  fwrite(&zero, sizeof zero, 1, f);
  fwrite(&zero, sizeof zero, 1, f);
  put_u32(f, 1);
  put_text(f, "x");
  fputc(ref_case >= 0 ? 0x40 : 0, f); /* an input, its storage shared */
  fputc(9, f);                        /* float32 */
  fputc(1, f);
  fwrite(&shape, sizeof shape, 1, f);
  fwrite(&stride, sizeof stride, 1, f);
  fwrite(&offset, sizeof offset, 1, f);
  fwrite(&bytes, sizeof bytes, 1, f);
  if (ref_case >= 0) {
    put_u32(f, (uint32_t)ref_case);
    put_u16(f, 0); /* tensor */
    put_u16(f, 0); /* its storage */
  } else {
    float values[2] = {1.5f, -2.0f};
    fwrite(values, sizeof values, 1, f);
  }
  put_u32(f, 0); /* attributes */
}

/* A data field stored as a reference to an earlier case's (an in-place
 * case repeating its out-of-place case's input) is read; one naming a case
 * not read before is refused, saying what it names. */
static void data_reference_is_read_and_a_dangling_one_refused(void **state) {
  (void)state;
  scratch_t s;
  char args[256], text[4096];
  int total;
  for (int dangling = 0; dangling < 2; dangling++) {
    scratch_make(&s);
    FILE *f = scratch_open(&s, "refs.bin");
    fwrite("BPOPS001", 1, 8, f);
    put_u32(f, 2);
    put_ref_case(f, "refs/first", -1);
    put_ref_case(f, "refs/second", dangling ? 2 : 0);
    assert_int_equal(fclose(f), 0);
    snprintf(args, sizeof args, "--data %s", s.dir);
    int code = run_text(args, &total, text, sizeof text);
    if (dangling) {
      assert_int_not_equal(code, 0);
      assert_non_null(strstr(text, "case refs/second: a data reference to "
                                   "case 2 tensor 0 field 0, which holds no "
                                   "stored data"));
    } else {
      assert_int_equal(code, 0);
      assert_int_equal(total, 2);
    }
    scratch_remove(&s);
  }
}

/* A case the directory's KNOWN_FAILURES.txt lists: XFAIL (with the reason)
 * when it fails, the run passing; XPASS when it passes, the run failing. */
static void listed_known_failure_is_xfail_and_a_pass_of_it_xpass(void **state) {
  (void)state;
  scratch_t s;
  char args[512], text[1 << 16];
  int total;
  scratch_make(&s);
  scratch_copy(&s, "add.bin", "add.bin");
  FILE *f = scratch_open(&s, "KNOWN_FAILURES.txt");
  fputs("# case, then why it fails\n"
        "add/f32/same   reads one element off (tests/ops/broken_ops.c)\n",
        f);
  assert_int_equal(fclose(f), 0);
  snprintf(args, sizeof args, "--ops %s --data %s --filter add/f32/same",
           BROKEN_ADD, s.dir);
  assert_int_equal(run_text(args, &total, text, sizeof text), 0);
  assert_non_null(strstr(text, "XFAIL  add/f32/same"));
  assert_non_null(strstr(text, "known: reads one element off"));
  assert_non_null(strstr(text, "1 known failures"));
  snprintf(args, sizeof args, "--data %s --filter add/f32/same", s.dir);
  assert_int_equal(run_text(args, &total, text, sizeof text), 1);
  assert_non_null(strstr(text, "XPASS  add/f32/same"));
  /* The other cases of the file are judged as ever. */
  snprintf(args, sizeof args, "--data %s --filter add/f32/", s.dir);
  assert_int_equal(run_text(args, &total, text, sizeof text), 1);
  assert_true(total > 1);
  scratch_remove(&s);
}

/* A known-failures line with a name and no reason is refused. */
static void known_failure_without_a_reason_is_refused(void **state) {
  (void)state;
  scratch_t s;
  char args[512], text[4096];
  int total;
  scratch_make(&s);
  scratch_copy(&s, "logical_or.bin", "logical_or.bin");
  FILE *f = scratch_open(&s, "KNOWN_FAILURES.txt");
  fputs("logical_or/f32\n", f);
  assert_int_equal(fclose(f), 0);
  snprintf(args, sizeof args, "--data %s", s.dir);
  assert_int_not_equal(run_text(args, &total, text, sizeof text), 0);
  assert_non_null(strstr(text, "KNOWN_FAILURES.txt:1: 'logical_or/f32' has "
                               "no reason"));
  scratch_remove(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(reference_passes_every_case),
      cmocka_unit_test(off_by_one_add_is_caught),
      cmocka_unit_test(wrong_stride_copy_is_caught),
      cmocka_unit_test(op_writing_its_input_is_caught),
      cmocka_unit_test(random_draws_off_their_distribution_are_caught),
      cmocka_unit_test(missing_op_is_noimpl),
      cmocka_unit_test(every_case_file_of_a_directory_is_read),
      cmocka_unit_test(list_attribute_past_the_cap_is_refused_by_name),
      cmocka_unit_test(data_reference_is_read_and_a_dangling_one_refused),
      cmocka_unit_test(listed_known_failure_is_xfail_and_a_pass_of_it_xpass),
      cmocka_unit_test(known_failure_without_a_reason_is_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
