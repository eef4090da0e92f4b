/* Seeded random-mutation fuzzing of the target and IR parsers, bounded so it
 * runs in every CTest pass (and under ASan+UBSan in `make test-asan`, which
 * is what catches memory errors). Inputs are seeds mutated by byte flips,
 * insertions, deletions, repeats and splices of grammar tokens. Every input
 * must either parse (targets then round-trip through canonical JSON
 * unchanged) or fail with a status and a message; nothing may crash or
 * leak. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backplane/build.h"

enum { MAX_INPUT = 4096 };

static uint64_t rng_state;
static uint32_t next_random(void) { /* xorshift64*: reproducible */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (uint32_t)((rng_state * 0x2545F4914F6CDD1Dull) >> 32);
}

static const char *const tokens[] = {"{",          "}",
                                     "[",          "]",
                                     ",",          ":",
                                     "\"",         "\\u0000",
                                     "-",          "=",
                                     " ",          "0",
                                     "-1",         "2147483648",
                                     "1e309",      "null",
                                     "true",       "\"kind\"",
                                     "\"vcpu\"",   "\"c\"",
                                     "\"host\"",   "\"num_cores\"",
                                     "\"keys\"",   "-num_cores=",
                                     "-keys=a,b",  "\"op\"",
                                     "\"args\"",   "\"load\"",
                                     "\"index\"",  "\"axis\"",
                                     "\"reduce\"", "\"axes\"",
                                     "\"arg\"",    "\"shape\"",
                                     "\"dtype\"",  "\"float16\"",
                                     "\"stages\"", "\"outputs\"",
                                     "\"inputs\"", "\"reduce_axes\"",
                                     "\"sum\"",    "\"select\"",
                                     "\"cast\"",   "\"x\"",
                                     "\"y\"",      "\"i\"",
                                     "\"k\""};

static size_t mutate(const char *seed, char *out) {
  size_t length = strlen(seed);
  memcpy(out, seed, length);
  int rounds = 1 + (int)(next_random() % 6);
  for (int r = 0; r < rounds; r++) {
    size_t at = length ? next_random() % (length + 1) : 0;
    switch (next_random() % 5) {
    case 0: /* flip a byte */
      if (at < length)
        out[at] = (char)(next_random() & 0xff);
      break;
    case 1: /* insert a byte */
      if (length + 1 < MAX_INPUT) {
        memmove(out + at + 1, out + at, length - at);
        out[at] = (char)(next_random() % 96 + 32);
        length++;
      }
      break;
    case 2: { /* delete a run */
      size_t run = next_random() % 8 + 1;
      if (at + run <= length) {
        memmove(out + at, out + at + run, length - at - run);
        length -= run;
      }
      break;
    }
    case 3: { /* repeat a chunk */
      size_t run = next_random() % 32 + 1;
      if (at + run <= length && length + run < MAX_INPUT) {
        memmove(out + at + run, out + at, length - at);
        length += run;
      }
      break;
    }
    default: { /* splice a token */
      const char *token =
          tokens[next_random() % (sizeof(tokens) / sizeof(tokens[0]))];
      size_t size = strlen(token);
      if (length + size < MAX_INPUT) {
        memmove(out + at + size, out + at, length - at);
        memcpy(out + at, token, size);
        length += size;
      }
    }
    }
  }
  out[length] = '\0'; /* an embedded NUL just shortens the input */
  return length;
}

static const char *const target_seeds[] = {
    "vcpu -num_cores=2 -keys=cpu",
    "c -mcpu=native -vector_width=4 -libs=m,dl",
    "{\"kind\": \"vcpu\", \"num_cores\": 2, \"keys\": [\"cpu\"]}",
    "{\"kind\": \"c\", \"host\": {\"kind\": \"vcpu\", \"tag\": \"t\"}}",
    "{\"kind\": \"vcpu\", \"host\": \"c -num_cores=4\"}",
};

static void test_target_parser(void **state) {
  (void)state;
  rng_state = 0x5eed0001;
  char input[MAX_INPUT + 1];
  size_t parsed = 0;
  for (int i = 0; i < 30000; i++) {
    mutate(target_seeds[i % 5], input);
    bp_target_t *target = NULL;
    bp_status_t status = bp_target_parse(input, &target);
    if (status != BP_OK) {
      assert_null(target);
      assert_true(strlen(bp_last_error()) > 0);
      continue;
    }
    parsed++;
    char *json = NULL, *again_json = NULL;
    bp_target_t *again = NULL;
    assert_int_equal(bp_target_to_json(target, &json), BP_OK);
    if (bp_target_parse(json, &again) != BP_OK)
      fail_msg("canonical JSON of '%s' does not parse: %s", input,
               bp_last_error());
    assert_int_equal(bp_target_to_json(again, &again_json), BP_OK);
    assert_string_equal(json, again_json);
    assert_true(bp_target_equal(target, again));
    free(json);
    free(again_json);
    bp_target_destroy(again);
    bp_target_destroy(target);
  }
  /* The mutations must keep some inputs valid, or they test nothing. */
  assert_true(parsed > 100);
}

static const char *const ir_seeds[] = {
    "{\"functions\":[{\"name\":\"f\",\"inputs\":[{\"name\":\"x\",\"shape\":"
    "[4,8],\"dtype\":\"float32\"},{\"name\":\"b\",\"shape\":[8],\"dtype\":"
    "\"float16\"}],\"stages\":[{\"name\":\"y\",\"shape\":[4,8],\"dtype\":"
    "\"float32\",\"axes\":[\"i\",\"j\"],\"expr\":{\"op\":\"select\",\"args\":"
    "[{\"op\":\"gt\",\"args\":[\"x\",0]},\"b\",{\"op\":\"cast\",\"dtype\":"
    "\"int32\",\"args\":[\"x\"]}]}}],\"outputs\":[\"y\"]}]}",
    "{\"functions\":[{\"name\":\"s\",\"inputs\":[{\"name\":\"x\",\"shape\":"
    "[4,8],\"dtype\":\"float32\"}],\"stages\":[{\"name\":\"m\",\"shape\":[4],"
    "\"dtype\":\"float32\",\"axes\":[\"i\"],\"reduce_axes\":{\"k\":8},"
    "\"expr\":{\"reduce\":\"max\",\"axes\":[\"k\"],\"arg\":{\"load\":\"x\","
    "\"index\":[\"i\",\"k\"]}}},{\"name\":\"y\",\"shape\":[4,8],\"dtype\":"
    "\"float32\",\"axes\":[\"i\",\"j\"],\"expr\":{\"op\":\"exp\",\"args\":["
    "{\"op\":\"sub\",\"args\":[\"x\",{\"load\":\"m\",\"index\":[\"i\"]}]}]}}],"
    "\"outputs\":[\"y\"]}]}",
};

static void test_ir_parser(void **state) {
  (void)state;
  rng_state = 0x5eed0002;
  char input[MAX_INPUT + 1];
  size_t parsed = 0;
  for (int i = 0; i < 20000; i++) {
    mutate(ir_seeds[i % 2], input);
    bp_ir_module_t *module = NULL;
    bp_status_t status = bp_ir_module_parse(input, &module);
    if (status != BP_OK) {
      assert_null(module);
      assert_true(strlen(bp_last_error()) > 0);
      continue;
    }
    parsed++;
    assert_true(bp_ir_module_function_count(module) >= 1);
    assert_non_null(bp_ir_module_function_name(module, 0));
    bp_ir_module_destroy(module);
  }
  assert_true(parsed > 100);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_target_parser),
      cmocka_unit_test(test_ir_parser),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
