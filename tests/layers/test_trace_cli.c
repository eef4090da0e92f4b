/* `backplane trace` end to end: it runs the trace demo (two devices, three
 * streams) under the trace layer, the JSON it leaves passes the structural
 * checks, and the --svg picture is well-formed XML with one box per slice,
 * one row per track and one arrow per flow. Bad usage and commands that
 * leave no trace are reported with the documented exit codes. */
#include <jansson.h>
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

#include "trace_checks.h"

/* Runs `backplane trace ARGS` with stdout and stderr silenced; returns the
 * exit code. */
static int run_cli(const char *args) {
  char command[1024];
  snprintf(command, sizeof command, "'%s' trace %s >/dev/null 2>&1", BP_CLI,
           args);
  int status = system(command);
  assert_true(WIFEXITED(status));
  return WEXITSTATUS(status);
}

static char *read_all(const char *path) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = malloc((size_t)size + 1);
  assert_non_null(text);
  assert_int_equal(fread(text, 1, (size_t)size, f), (size_t)size);
  text[size] = '\0';
  fclose(f);
  return text;
}

/* Well-formed XML basics: one root element, every tag closed in order,
 * attributes quoted, '&' only in the five predefined entities. Returns the
 * name of the root element's tag (static). */
static const char *check_xml(const char *xml) {
  static char root[32];
  char stack[64][32];
  int depth = 0, roots = 0;
  const char *p = xml;
  while (*p) {
    if (*p == '&') {
      const char *entities[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
      int known = 0;
      for (int i = 0; i < 5; ++i)
        known |= strncmp(p, entities[i], strlen(entities[i])) == 0;
      assert_true(known);
    }
    if (*p != '<') {
      ++p;
      continue;
    }
    if (p[1] == '?') {
      p = strstr(p, "?>");
      assert_non_null(p);
      p += 2;
      continue;
    }
    const char *end = strchr(p, '>');
    assert_non_null(end);
    int closing = p[1] == '/';
    const char *name = p + 1 + closing;
    size_t length = strcspn(name, " \t\n/>");
    assert_true(length > 0 && length < 32);
    int quotes = 0;
    for (const char *q = p; q < end; ++q)
      quotes += *q == '"';
    assert_int_equal(quotes % 2, 0);
    if (closing) {
      assert_true(depth > 0);
      --depth;
      assert_int_equal(strlen(stack[depth]), length);
      assert_memory_equal(stack[depth], name, length);
    } else if (end[-1] != '/') {
      assert_true(depth < 64);
      memcpy(stack[depth], name, length);
      stack[depth][length] = '\0';
      if (depth++ == 0) {
        ++roots;
        strcpy(root, stack[0]);
      }
    } else if (depth == 0) {
      ++roots;
    }
    p = end + 1;
  }
  assert_int_equal(depth, 0);
  assert_int_equal(roots, 1);
  return root;
}

static size_t occurrences(const char *text, const char *needle) {
  size_t n = 0;
  for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
    ++n;
  return n;
}

static void test_trace_and_svg_of_demo(void **state) {
  (void)state;
  const char *json_path = "/tmp/bp-trace-cli.json";
  const char *svg_path = "/tmp/bp-trace-cli.svg";
  unlink(json_path);
  unlink(svg_path);
  char args[512];
  snprintf(args, sizeof args, "-o %s --svg %s -- '%s'", json_path, svg_path,
           BP_TRACE_DEMO);
  assert_int_equal(run_cli(args), 0);
  json_t *root = trace_check_file(json_path);
  assert_int_equal(trace_tracks_of(root, "vcpu:0"), 2);
  assert_int_equal(trace_tracks_of(root, "vcpu:1"), 1);
  char *svg = read_all(svg_path);
  assert_string_equal(check_xml(svg), "svg");
  assert_int_equal(occurrences(svg, "class=\"slice\""),
                   trace_count(root, "X", NULL, NULL, 0));
  assert_int_equal(occurrences(svg, "class=\"flow\""),
                   trace_count(root, "f", NULL, NULL, 0));
  /* A row per track, named as in the trace; copies labelled by size. */
  assert_non_null(strstr(svg, ">vcpu:0 stream 1<"));
  assert_non_null(strstr(svg, ">vcpu:0 stream 2<"));
  assert_non_null(strstr(svg, ">vcpu:1 stream 1<"));
  assert_non_null(strstr(svg, ">vcpu:0 memory<"));
  assert_non_null(strstr(svg, "p2p 1 MiB"));
  assert_true(occurrences(svg, "class=\"tick\"") >= 2);
  free(svg);
  json_decref(root);
  unlink(json_path);
  unlink(svg_path);
}

static void test_usage_and_missing_trace(void **state) {
  (void)state;
  assert_int_equal(run_cli(""), 2);
  assert_int_equal(run_cli("--"), 2);
  assert_int_equal(run_cli("--bogus -- true"), 2);
  const char *json_path = "/tmp/bp-trace-cli-none.json";
  char args[256];
  /* A command that makes no runtime leaves no trace: exit 1. */
  snprintf(args, sizeof args, "-o %s -- true", json_path);
  assert_int_equal(run_cli(args), 1);
  assert_int_not_equal(access(json_path, F_OK), 0);
  /* A failing command's exit code is passed on. */
  snprintf(args, sizeof args, "-o %s -- sh -c 'exit 3'", json_path);
  assert_int_equal(run_cli(args), 3);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_trace_and_svg_of_demo),
      cmocka_unit_test(test_usage_and_missing_trace),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
