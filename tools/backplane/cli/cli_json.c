/* JSON output helpers. */
#include "cli_json.h"
#include "cli_output.h"

#include <stdio.h>

int cli_json_print(json_t *value) {
  int result = value ? json_dumpf(value, cli_out(),
                                  JSON_INDENT(2) | JSON_REAL_PRECISION(6))
                     : -1;
  json_decref(value);
  if (result != 0) {
    fprintf(stderr, "backplane: cannot print the JSON output\n");
    return -1;
  }
  fputc('\n', cli_out());
  return 0;
}

json_t *cli_json_string_array(const char *const *strings) {
  json_t *array = json_array();
  for (size_t i = 0; array && strings && strings[i]; i++) {
    if (json_array_append_new(array, json_string(strings[i]))) {
      json_decref(array);
      return NULL;
    }
  }
  return array;
}
