/* The trace picture's legend (tools/backplane/cmd/trace_svg.c): it names
 * the slice names that take the most time in the window, whatever order
 * the trace lists them in. */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cmd/trace_svg.h"

enum { SHORT_NAMES = 60 };

static json_t *slice(const char *name, double ts, double dur) {
  return json_pack("{s:s, s:s, s:i, s:i, s:f, s:f}", "name", name, "ph", "X",
                   "pid", 0, "tid", 1, "ts", ts, "dur", dur);
}

/* Draws `root`; the picture as a string (free it). */
static char *draw(json_t *root) {
  char error[128] = "";
  FILE *out = tmpfile();
  assert_non_null(out);
  assert_int_equal(trace_svg_write(root, out, error, sizeof error), 0);
  long size = ftell(out);
  assert_true(size > 0);
  char *svg = malloc((size_t)size + 1);
  assert_non_null(svg);
  rewind(out);
  assert_int_equal(fread(svg, 1, (size_t)size, out), (size_t)size);
  svg[size] = '\0';
  fclose(out);
  return svg;
}

static size_t count(const char *text, const char *what) {
  size_t n = 0;
  for (const char *at = strstr(text, what); at; at = strstr(at + 1, what))
    n++;
  return n;
}

/* More short slice names than the legend holds come first in the trace;
 * the one long slice comes last and is named in the legend, before them. */
static void test_legend_keeps_the_longest_names(void **state) {
  (void)state;
  json_t *events = json_array();
  char name[32];
  for (int i = 0; i < SHORT_NAMES; i++) {
    snprintf(name, sizeof name, "short_%02d", i);
    json_array_append_new(events, slice(name, 10.0 * i, 1.0));
  }
  json_array_append_new(events, slice("the_long_one", 5.0, 500.0));
  json_t *root = json_pack("{s:o}", "traceEvents", events);
  char *svg = draw(root);
  size_t entries = count(svg, "class=\"legend\"");
  assert_true(entries > 0 && entries < SHORT_NAMES + 1); /* bounded */
  const char *long_entry = strstr(svg, ">the_long_one ");
  assert_non_null(long_entry);
  /* Longest first: it is the first entry. */
  const char *first = strstr(svg, "<g class=\"legend\"");
  const char *second = strstr(first + 1, "<g class=\"legend\"");
  assert_true(long_entry > first && (!second || long_entry < second));
  free(svg);
  json_decref(root);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_legend_keeps_the_longest_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
