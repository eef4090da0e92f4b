/* JSON output on stdout (jansson). */
#ifndef BACKPLANE_CLI_JSON_H_
#define BACKPLANE_CLI_JSON_H_

#include <jansson.h>

/* Prints `value` as indented JSON and a newline on stdout, then drops the
 * reference (the caller's reference is stolen). Returns 0, or -1 if it could
 * not be printed (the message is on stderr). */
int cli_json_print(json_t *value);

/* A new array holding the strings of a NULL-terminated list; an empty array
 * for a NULL list. NULL only when out of memory. */
json_t *cli_json_string_array(const char *const *strings);

#endif /* BACKPLANE_CLI_JSON_H_ */
