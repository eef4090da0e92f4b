/* Counting the lines of a text file (a validation log) that hold a
 * fragment; fails the calling cmocka test when the file cannot be read. */
#ifndef BACKPLANE_TESTS_SUPPORT_FILE_LINES_H_
#define BACKPLANE_TESTS_SUPPORT_FILE_LINES_H_

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

/* Lines of `path` holding `fragment` (lines up to 2047 bytes). */
static inline size_t file_lines_with(const char *path, const char *fragment) {
  FILE *file = fopen(path, "r");
  assert_non_null(file);
  char line[2048];
  size_t n = 0;
  while (fgets(line, sizeof line, file))
    n += strstr(line, fragment) != NULL;
  fclose(file);
  return n;
}

#endif /* BACKPLANE_TESTS_SUPPORT_FILE_LINES_H_ */
