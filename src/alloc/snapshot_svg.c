/* Renders an allocator snapshot (JSON) as SVG: a legend, then one row per
 * chunk, its blocks drawn to scale within the row and coloured by state. A
 * history snapshot is drawn by history_svg.c. */
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/history_svg.h"
#include "alloc/history_timeline.h"
#include "backplane/allocator.h"
#include "base/status.h"
#include "base/xml_text.h"

enum {
  SVG_WIDTH = 1200,
  LABEL_WIDTH = 300,
  BAR_WIDTH = SVG_WIDTH - LABEL_WIDTH - 20,
  ROW_HEIGHT = 22,
  ROW_GAP = 6,
  HEADER_HEIGHT = 70,
};

typedef struct state_style {
  const char *state;
  const char *colour;
} state_style_t;

static const state_style_t styles[] = {
    {"allocated", "#4e79a7"},    {"workspace", "#59a14f"},
    {"pending_free", "#f28e2b"}, {"cached", "#b07aa1"},
    {"free", "#d9d9d9"},
};

static const char *colour_of(const char *state) {
  for (size_t i = 0; i < sizeof styles / sizeof styles[0]; i++)
    if (!strcmp(styles[i].state, state))
      return styles[i].colour;
  return "#e15759"; /* unknown state: stands out */
}

/* "20.0 MiB" */
static void human_size(double bytes, char *out, size_t out_size) {
  static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  size_t u = 0;
  while (bytes >= 1024 && u + 1 < sizeof units / sizeof units[0]) {
    bytes /= 1024;
    u++;
  }
  snprintf(out, out_size, u ? "%.1f %s" : "%.0f %s", bytes, units[u]);
}

static void legend(FILE *out) {
  for (size_t i = 0; i < sizeof styles / sizeof styles[0]; i++) {
    int x = 10 + (int)i * 160;
    fprintf(out,
            "<rect x=\"%d\" y=\"34\" width=\"14\" height=\"14\" fill=\"%s\" "
            "stroke=\"#555\"/><text x=\"%d\" y=\"46\">%s</text>\n",
            x, styles[i].colour, x + 20, styles[i].state);
  }
}

static bool chunk_row(FILE *out, json_t *chunk, int y) {
  json_int_t size = json_integer_value(json_object_get(chunk, "size"));
  const char *address = json_string_value(json_object_get(chunk, "address"));
  const char *pool = json_string_value(json_object_get(chunk, "pool"));
  json_t *blocks = json_object_get(chunk, "blocks");
  if (size <= 0 || !address || !pool || !json_is_array(blocks))
    return false;
  char size_text[32];
  human_size((double)size, size_text, sizeof size_text);
  fprintf(out, "<text x=\"10\" y=\"%d\">", y + ROW_HEIGHT - 6);
  bp_xml_text(out, address);
  fprintf(out, " %s ", size_text);
  bp_xml_text(out, pool);
  fputs("</text>\n", out);
  fprintf(out,
          "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
          "stroke=\"#555\"/>\n",
          LABEL_WIDTH, y, BAR_WIDTH, ROW_HEIGHT);
  size_t i;
  json_t *block;
  json_array_foreach(blocks, i, block) {
    json_int_t offset = json_integer_value(json_object_get(block, "offset"));
    json_int_t bytes = json_integer_value(json_object_get(block, "size"));
    const char *state = json_string_value(json_object_get(block, "state"));
    if (!state || offset < 0 || bytes <= 0 || offset + bytes > size)
      return false;
    double x = LABEL_WIDTH + (double)offset / (double)size * BAR_WIDTH;
    double w = (double)bytes / (double)size * BAR_WIDTH;
    char block_text[32];
    human_size((double)bytes, block_text, sizeof block_text);
    fprintf(out,
            "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" "
            "fill=\"%s\" stroke=\"#fff\" stroke-width=\"0.5\"><title>",
            x, y, w < 1 ? 1 : w, ROW_HEIGHT, colour_of(state));
    bp_xml_text(out, state);
    fprintf(out, ": %s at +%lld, requested %lld</title></rect>\n", block_text,
            (long long)offset,
            (long long)json_integer_value(
                json_object_get(block, "requested_size")));
  }
  return true;
}

static bool render(FILE *out, json_t *root) {
  json_t *chunks = json_object_get(root, "chunks");
  const char *device = json_string_value(json_object_get(root, "device"));
  if (!json_is_array(chunks) || !device)
    return false;
  json_t *stats = json_object_get(root, "stats");
  json_int_t reserved = json_integer_value(
      json_object_get(json_object_get(stats, "reserved_bytes"), "current"));
  json_int_t allocated = json_integer_value(
      json_object_get(json_object_get(stats, "allocated_bytes"), "current"));
  char reserved_text[32], allocated_text[32];
  human_size((double)reserved, reserved_text, sizeof reserved_text);
  human_size((double)allocated, allocated_text, sizeof allocated_text);
  size_t rows = json_array_size(chunks);
  int height = HEADER_HEIGHT + (int)rows * (ROW_HEIGHT + ROW_GAP) + 10;
  fprintf(out,
          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
          "height=\"%d\" font-family=\"monospace\" font-size=\"12\">\n"
          "<text x=\"10\" y=\"20\" font-size=\"14\">",
          SVG_WIDTH, height);
  bp_xml_text(out, device);
  fprintf(out, ": %zu chunk(s), %s reserved, %s allocated</text>\n", rows,
          reserved_text, allocated_text);
  legend(out);
  size_t i;
  json_t *chunk;
  json_array_foreach(chunks, i, chunk) {
    if (!chunk_row(out, chunk, HEADER_HEIGHT + (int)i * (ROW_HEIGHT + ROW_GAP)))
      return false;
  }
  fputs("</svg>\n", out);
  return true;
}

BP_API bp_status_t bp_memory_snapshot_to_svg(const char *snapshot_json,
                                             char **out_svg) {
  if (!snapshot_json || !out_svg)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_memory_snapshot_to_svg: snapshot or out_svg is NULL");
  json_error_t error;
  json_t *root = json_loads(snapshot_json, 0, &error);
  if (!root)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_memory_snapshot_to_svg: not JSON (line %d: %s)",
                    error.line, error.text);
  if (bp_timeline_is_history(root)) {
    bp_status_t status =
        bp_history_svg(root, "bp_memory_snapshot_to_svg", out_svg);
    json_decref(root);
    return status;
  }
  char *svg = NULL;
  size_t length = 0;
  FILE *out = open_memstream(&svg, &length);
  bool ok = out && render(out, root);
  if (out)
    fclose(out);
  json_decref(root);
  if (!ok) {
    free(svg);
    return out ? bp_error(BP_ERR_INVALID_ARGUMENT,
                          "bp_memory_snapshot_to_svg: not an allocator "
                          "snapshot (needs device, chunks with address, "
                          "size, pool and blocks)")
               : bp_error(BP_ERR_OUT_OF_MEMORY,
                          "bp_memory_snapshot_to_svg: no host memory");
  }
  *out_svg = svg;
  return BP_OK;
}
