/* Reading targets: JSON objects and the short form (`vcpu -num_cores=2`),
 * validated against the kind's schema, defaults filled. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/status.h"
#include "target/target_internal.h"

/* Nesting limit of `host` (a host of a host ...): bounds recursion. */
enum { MAX_HOST_DEPTH = 4 };

static bp_status_t parse_text(const char *text, const char *what, int depth,
                              bp_target_t **out_target);

static bp_status_t new_target(const target_kind_t *kind,
                              bp_target_t **out_target) {
  bp_target_t *target = calloc(1, sizeof(*target));
  if (target)
    target->values = calloc(kind->attr_count, sizeof(*target->values));
  if (!target || !target->values) {
    free(target);
    return bp_error(BP_ERR_OUT_OF_MEMORY, "target: out of memory");
  }
  target->kind = kind;
  *out_target = target;
  return BP_OK;
}

static bp_status_t out_of_memory(void) {
  return bp_error(BP_ERR_OUT_OF_MEMORY, "target: out of memory");
}

/* Sets attribute `index` from a JSON value, checking its type. */
static bp_status_t set_from_json(bp_target_t *target, size_t index,
                                 const json_t *json, const char *what) {
  const target_attr_def_t *def = &target->kind->attrs[index];
  target_value_t *value = &target->values[index];
  switch (def->type) {
  case BP_TARGET_ATTR_INT:
    if (!json_is_integer(json))
      return bp_error(BP_ERR_INVALID_ARGUMENT,
                      "%s: attribute '%s' of kind '%s' must be an integer",
                      what, def->name, target->kind->name);
    if (json_integer_value(json) < def->min_int)
      return bp_error(BP_ERR_INVALID_ARGUMENT,
                      "%s: attribute '%s' of kind '%s' is %lld, below its "
                      "minimum %lld",
                      what, def->name, target->kind->name,
                      (long long)json_integer_value(json),
                      (long long)def->min_int);
    value->i = json_integer_value(json);
    break;
  case BP_TARGET_ATTR_STRING:
    if (!json_is_string(json))
      return bp_error(BP_ERR_INVALID_ARGUMENT,
                      "%s: attribute '%s' of kind '%s' must be a string", what,
                      def->name, target->kind->name);
    free(value->s);
    value->s = strdup(json_string_value(json));
    if (!value->s)
      return out_of_memory();
    break;
  case BP_TARGET_ATTR_STRING_ARRAY: {
    if (!json_is_array(json))
      return bp_error(BP_ERR_INVALID_ARGUMENT,
                      "%s: attribute '%s' of kind '%s' must be an array of "
                      "strings",
                      what, def->name, target->kind->name);
    size_t count = json_array_size(json);
    char **strings = calloc(count + 1, sizeof(*strings));
    if (!strings)
      return out_of_memory();
    for (size_t i = 0; i < count; i++) {
      const json_t *item = json_array_get(json, i);
      if (!json_is_string(item)) {
        target_strings_free(strings);
        return bp_error(BP_ERR_INVALID_ARGUMENT,
                        "%s: attribute '%s' of kind '%s' must be an array of "
                        "strings (item %zu is not)",
                        what, def->name, target->kind->name, i);
      }
      strings[i] = strdup(json_string_value(item));
      if (!strings[i]) {
        target_strings_free(strings);
        return out_of_memory();
      }
    }
    target_strings_free(value->strings);
    value->strings = strings;
    break;
  }
  }
  value->present = 1;
  return BP_OK;
}

static bp_status_t fill_defaults(bp_target_t *target) {
  for (size_t i = 0; i < target->kind->attr_count; i++) {
    const target_attr_def_t *def = &target->kind->attrs[i];
    target_value_t *value = &target->values[i];
    if (value->present || !def->has_default)
      continue;
    if (def->type == BP_TARGET_ATTR_INT)
      value->i = def->default_int;
    else if (def->type == BP_TARGET_ATTR_STRING &&
             !(value->s =
                   strdup(def->default_string ? def->default_string : "")))
      return out_of_memory();
    else if (def->type == BP_TARGET_ATTR_STRING_ARRAY &&
             !(value->strings = target_strings_split(
                   def->default_string ? def->default_string : "")))
      return out_of_memory();
    value->present = 1;
  }
  return BP_OK;
}

static bp_status_t find_kind(const json_t *kind_json, const char *what,
                             const target_kind_t **out_kind) {
  if (!json_is_string(kind_json))
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "%s: \"kind\" is missing or not a string", what);
  const char *name = json_string_value(kind_json);
  const target_kind_t *kind = target_kind_find(name);
  if (!kind)
    return bp_error(BP_ERR_NOT_FOUND, "%s: unknown target kind '%s'", what,
                    name);
  *out_kind = kind;
  return BP_OK;
}

static bp_status_t from_object(const json_t *object, const char *what,
                               int depth, bp_target_t **out_target) {
  if (!json_is_object(object))
    return bp_error(BP_ERR_INVALID_ARGUMENT, "%s: not a JSON object", what);
  const target_kind_t *kind;
  bp_status_t status = find_kind(json_object_get(object, "kind"), what, &kind);
  bp_target_t *target = NULL;
  if (status == BP_OK)
    status = new_target(kind, &target);
  const char *key;
  const json_t *value;
  json_object_foreach((json_t *)object, key, value) {
    if (status != BP_OK)
      break;
    if (!strcmp(key, "kind"))
      continue;
    if (!strcmp(key, "host")) {
      if (depth >= MAX_HOST_DEPTH)
        status =
            bp_error(BP_ERR_INVALID_ARGUMENT, "%s: hosts nested deeper than %d",
                     what, MAX_HOST_DEPTH);
      else if (json_is_string(value))
        status = parse_text(json_string_value(value), what, depth + 1,
                            &target->host);
      else if (json_is_object(value))
        status = from_object(value, what, depth + 1, &target->host);
      else
        status =
            bp_error(BP_ERR_INVALID_ARGUMENT,
                     "%s: \"host\" must be a target (object or string)", what);
      continue;
    }
    int index = target_kind_attr_index(kind, key);
    if (index < 0)
      status = bp_error(BP_ERR_INVALID_ARGUMENT,
                        "%s: unknown attribute '%s' for kind '%s'", what, key,
                        kind->name);
    else
      status = set_from_json(target, (size_t)index, value, what);
  }
  if (status == BP_OK)
    status = fill_defaults(target);
  if (status != BP_OK) {
    bp_target_destroy(target);
    return status;
  }
  *out_target = target;
  return BP_OK;
}

bp_status_t target_from_json_object(const json_t *object, const char *what,
                                    bp_target_t **out_target) {
  return from_object(object, what, 0, out_target);
}

/* `-name=value` of the short form as a JSON value of the attribute's type. */
static bp_status_t short_value(const target_kind_t *kind, const char *name,
                               const char *text, const char *what,
                               json_t **out_json) {
  int index = target_kind_attr_index(kind, name);
  if (index < 0)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "%s: unknown attribute '%s' for kind '%s'", what, name,
                    kind->name);
  json_t *json = NULL;
  switch (kind->attrs[index].type) {
  case BP_TARGET_ATTR_INT: {
    char *end;
    errno = 0;
    long long number = strtoll(text, &end, 10);
    if (!*text || *end || errno)
      return bp_error(BP_ERR_INVALID_ARGUMENT,
                      "%s: attribute '%s' of kind '%s' must be an integer, "
                      "not '%s'",
                      what, name, kind->name, text);
    json = json_integer(number);
    break;
  }
  case BP_TARGET_ATTR_STRING:
    json = json_string(text);
    break;
  case BP_TARGET_ATTR_STRING_ARRAY: {
    char **strings = target_strings_split(text);
    json = strings ? json_array() : NULL;
    for (size_t i = 0; json && strings[i]; i++)
      if (json_array_append_new(json, json_string(strings[i]))) {
        json_decref(json);
        json = NULL;
      }
    target_strings_free(strings);
    break;
  }
  }
  if (!json)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "%s: bad value '%s' for attribute '%s' (not UTF-8, or out "
                    "of memory)",
                    what, text, name);
  *out_json = json;
  return BP_OK;
}

/* The short form as the equivalent JSON object. */
static bp_status_t short_form_object(const char *text, const char *what,
                                     json_t **out_object) {
  while (isspace((unsigned char)*text))
    text++;
  size_t length = strcspn(text, " \t\n\r");
  char *kind_name = strndup(text, length);
  json_t *object = kind_name ? json_object() : NULL;
  if (!object) {
    free(kind_name);
    return out_of_memory();
  }
  bp_status_t status = BP_OK;
  json_t *kind_json = json_string(kind_name);
  const target_kind_t *kind = NULL;
  if (!kind_json || json_object_set_new(object, "kind", kind_json))
    status = bp_error(BP_ERR_INVALID_ARGUMENT,
                      "%s: kind '%s' is not valid text", what, kind_name);
  else
    status = find_kind(kind_json, what, &kind);
  free(kind_name);
  text += length;
  while (status == BP_OK) {
    while (isspace((unsigned char)*text))
      text++;
    if (!*text)
      break;
    length = strcspn(text, " \t\n\r");
    char *word = strndup(text, length);
    text += length;
    char *equals = word ? strchr(word, '=') : NULL;
    json_t *value = NULL;
    if (!word)
      status = out_of_memory();
    else if (word[0] != '-' || !equals || equals == word + 1)
      status = bp_error(BP_ERR_INVALID_ARGUMENT,
                        "%s: '%s' is not of the form -name=value", what, word);
    else if (*equals = '\0',
             !strcmp(word + 1, "host") || !strcmp(word + 1, "kind"))
      status = bp_error(BP_ERR_INVALID_ARGUMENT,
                        "%s: '%s' cannot be set in the short form (use JSON)",
                        what, word + 1);
    else if (json_object_get(object, word + 1))
      status = bp_error(BP_ERR_INVALID_ARGUMENT,
                        "%s: attribute '%s' given twice", what, word + 1);
    else if ((status = short_value(kind, word + 1, equals + 1, what, &value)) ==
                 BP_OK &&
             json_object_set_new(object, word + 1, value))
      status = out_of_memory();
    free(word);
  }
  if (status != BP_OK) {
    json_decref(object);
    return status;
  }
  *out_object = object;
  return BP_OK;
}

static bp_status_t parse_text(const char *text, const char *what, int depth,
                              bp_target_t **out_target) {
  const char *start = text;
  while (isspace((unsigned char)*start))
    start++;
  if (!*start)
    return bp_error(BP_ERR_INVALID_ARGUMENT, "%s: empty target", what);
  json_t *object;
  if (*start == '{') {
    json_error_t error;
    object = json_loads(start, JSON_REJECT_DUPLICATES, &error);
    if (!object)
      return bp_error(BP_ERR_INVALID_ARGUMENT,
                      "%s: malformed JSON at line %d column %d: %s", what,
                      error.line, error.column, error.text);
  } else {
    bp_status_t status = short_form_object(start, what, &object);
    if (status != BP_OK)
      return status;
  }
  bp_status_t status = from_object(object, what, depth, out_target);
  json_decref(object);
  return status;
}

bp_status_t bp_target_parse(const char *text, bp_target_t **out_target) {
  if (!text || !out_target)
    return bp_error(BP_ERR_INVALID_ARGUMENT, "bp_target_parse: %s is NULL",
                    text ? "out_target" : "text");
  return parse_text(text, "bp_target_parse", 0, out_target);
}
