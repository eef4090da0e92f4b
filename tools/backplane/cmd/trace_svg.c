#include "trace_svg.h"

#include <float.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/xml_text.h"

enum {
  WIDTH = 1400,
  LABEL_WIDTH = 190,
  RIGHT_MARGIN = 20,
  TOP = 40,
  ROW_HEIGHT = 26,
  BOX_HEIGHT = 18,
  /* A slice inside another is inset by this much per level, so that both
   * stay visible; deeper levels are drawn as the deepest. */
  DEPTH_INSET = 4,
  MAX_DEPTH = 3,
  BOTTOM = 30,
  /* The legend: a swatch and a name per slice name, by time spent. */
  LEGEND_COLUMNS = 5,
  LEGEND_ROW = 16,
  LEGEND_MAX = 40,
  FLOW_PIXELS = 4,
  /* Up to this many slices in the window, every one is drawn (with its
   * tooltip); above, sub-pixel slices and arrows are merged. */
  MERGE_ABOVE = 4 * WIDTH,
};

/* One row of the picture: a track (pid, tid) or a counter (pid, name). */
typedef struct row {
  json_int_t pid;
  json_int_t tid;      /* -1 for a counter */
  const char *counter; /* the counter's name, NULL for a track */
  char label[160];
  double max; /* a counter's largest value */
  /* End times of the slices drawn so far that may still enclose the next
   * one (slices come sorted by start, enclosing ones first). */
  double open_ends[MAX_DEPTH];
  int open;
  /* Where the last box drawn at each depth ends (x): a slice narrower than
   * a pixel that starts within a pixel of it is not drawn again, so a long
   * run's picture stays bounded by its width. */
  double drawn_until[MAX_DEPTH];
} row_t;

/* A slice name of the legend and the time its slices take in the window. */
typedef struct legend_entry {
  const char *name;
  double us;
} legend_entry_t;

typedef struct picture {
  FILE *out;
  row_t *rows;
  size_t row_count;
  double t0, t1; /* microseconds: the window drawn */
  double origin; /* the trace's first event: the axis counts from there */
  size_t slices; /* in the window */
  bool merge;    /* more slices than MERGE_ABOVE: merge sub-pixel ones */
  size_t merged; /* of those, not drawn: under a pixel beside another */
  legend_entry_t *legend; /* every name in the window, longest first */
  size_t legend_count;    /* drawn: at most LEGEND_MAX */
} picture_t;

static const char *text(json_t *event, const char *key) {
  const char *s = json_string_value(json_object_get(event, key));
  return s ? s : "";
}

static json_int_t integer(json_t *event, const char *key) {
  return json_integer_value(json_object_get(event, key));
}

static double number(json_t *event, const char *key) {
  return json_number_value(json_object_get(event, key));
}

static int compare_rows(const void *a, const void *b) {
  const row_t *x = a, *y = b;
  if (x->pid != y->pid)
    return x->pid < y->pid ? -1 : 1;
  if ((x->counter != NULL) != (y->counter != NULL))
    return x->counter ? 1 : -1;
  if (x->counter)
    return strcmp(x->counter, y->counter);
  return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static row_t *find_row(const picture_t *p, json_int_t pid, json_int_t tid,
                       const char *counter) {
  for (size_t i = 0; i < p->row_count; ++i) {
    row_t *r = &p->rows[i];
    if (r->pid == pid && r->tid == tid &&
        (counter ? r->counter && strcmp(r->counter, counter) == 0
                 : !r->counter))
      return r;
  }
  return NULL;
}

/* The rows (named tracks and counters) and the time range. */
static int lay_out(picture_t *p, json_t *events) {
  json_t *processes = json_object();
  size_t i;
  json_t *e;
  char key[32];
  json_array_foreach(events, i, e) {
    if (strcmp(text(e, "ph"), "M") == 0 &&
        strcmp(text(e, "name"), "process_name") == 0) {
      snprintf(key, sizeof key, "%lld", (long long)integer(e, "pid"));
      json_object_set(processes, key,
                      json_object_get(json_object_get(e, "args"), "name"));
    }
  }
  p->rows = calloc(json_array_size(events) + 1, sizeof *p->rows);
  if (!p->rows) {
    json_decref(processes);
    return -1;
  }
  p->t0 = DBL_MAX;
  p->t1 = -DBL_MAX;
  json_array_foreach(events, i, e) {
    const char *ph = text(e, "ph");
    int is_track = ph[0] == 'M' && strcmp(text(e, "name"), "thread_name") == 0;
    int is_counter = ph[0] == 'C';
    if (ph[0] == 'X' || is_counter) {
      double ts = number(e, "ts");
      if (ts < p->t0)
        p->t0 = ts;
      if (ts + number(e, "dur") > p->t1)
        p->t1 = ts + number(e, "dur");
    }
    json_int_t pid = integer(e, "pid"),
               tid = is_counter ? -1 : integer(e, "tid");
    const char *counter = is_counter ? text(e, "name") : NULL;
    if (!(is_track || is_counter) || find_row(p, pid, tid, counter))
      continue;
    row_t *r = &p->rows[p->row_count++];
    *r = (row_t){.pid = pid, .tid = tid, .counter = counter};
    snprintf(key, sizeof key, "%lld", (long long)pid);
    const char *process = json_string_value(json_object_get(processes, key));
    snprintf(r->label, sizeof r->label, "%s %s", process ? process : key,
             is_counter ? counter : text(json_object_get(e, "args"), "name"));
  }
  json_decref(processes);
  qsort(p->rows, p->row_count, sizeof *p->rows, compare_rows);
  if (!(p->t1 > p->t0))
    p->t1 = p->t0 + 1;
  return 0;
}

/* The x of time ts, clamped to the window. */
static double x_of(const picture_t *p, double ts) {
  ts = ts < p->t0 ? p->t0 : ts > p->t1 ? p->t1 : ts;
  return LABEL_WIDTH +
         (ts - p->t0) / (p->t1 - p->t0) * (WIDTH - LABEL_WIDTH - RIGHT_MARGIN);
}

static double y_of(const picture_t *p, const row_t *r) {
  return TOP + (double)(r - p->rows) * ROW_HEIGHT;
}

static const char *const palette[] = {"#4e79a7", "#f28e2b", "#59a14f",
                                      "#e15759", "#76b7b2", "#edc948",
                                      "#b07aa1", "#ff9da7", "#9c755f"};

static const char *colour_of(const char *name) {
  unsigned h = 2166136261u;
  for (; *name; ++name)
    h = (h ^ (unsigned char)*name) * 16777619u;
  return palette[h % (sizeof palette / sizeof *palette)];
}

/* "1 MiB", "4 KiB", "12 B". */
static void format_bytes(json_int_t bytes, char *out, size_t size) {
  if (bytes >= 1 << 20 && bytes % (1 << 20) == 0)
    snprintf(out, size, "%lld MiB", (long long)(bytes >> 20));
  else if (bytes >= 1 << 10 && bytes % (1 << 10) == 0)
    snprintf(out, size, "%lld KiB", (long long)(bytes >> 10));
  else
    snprintf(out, size, "%lld B", (long long)bytes);
}

static void draw_axis(const picture_t *p) {
  double span = p->t1 - p->t0;
  /* 1, 2, 5 times a power of ten, for 5 to 12 ticks. */
  double step = 0.001;
  for (int k = 0; span / step > 12; ++k)
    step *= k % 3 == 1 ? 2.5 : 2;
  double bottom = TOP + (double)p->row_count * ROW_HEIGHT;
  for (double t = 0; t <= span + step * 1e-9; t += step) {
    double x = x_of(p, p->t0 + t);
    fprintf(p->out,
            "<line class=\"tick\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
            "y2=\"%.1f\" stroke=\"#ddd\"/>\n"
            "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" "
            "text-anchor=\"middle\">%g ms</text>\n",
            x, TOP - 14, x, bottom, x, TOP - 18,
            (p->t0 - p->origin + t) / 1000.0);
  }
}

static void draw_rows(const picture_t *p) {
  for (size_t i = 0; i < p->row_count; ++i) {
    const row_t *r = &p->rows[i];
    double y = y_of(p, r);
    fprintf(p->out,
            "<rect class=\"row\" x=\"0\" y=\"%.1f\" width=\"%d\" "
            "height=\"%d\" fill=\"%s\"/>\n<text x=\"6\" y=\"%.1f\" "
            "font-size=\"12\">",
            y, WIDTH, ROW_HEIGHT, i % 2 ? "#ffffff" : "#f4f4f4", y + 17.0);
    bp_xml_text(p->out, r->label);
    fputs("</text>\n", p->out);
  }
}

/* How many slices drawn on `r` enclose the one from `start` to `end`. */
static int nesting_depth(row_t *r, double start, double end) {
  while (r->open > 0 && r->open_ends[r->open - 1] <= start)
    r->open--;
  int depth = r->open;
  if (r->open < MAX_DEPTH)
    r->open_ends[r->open++] = end;
  return depth < MAX_DEPTH ? depth : MAX_DEPTH - 1;
}

static void draw_slice(picture_t *p, json_t *e) {
  row_t *r = find_row(p, integer(e, "pid"), integer(e, "tid"), NULL);
  if (!r)
    return;
  double start = number(e, "ts"), end = start + number(e, "dur");
  if (end < p->t0 || start > p->t1)
    return;
  p->slices++;
  double x = x_of(p, start);
  double w = x_of(p, end) - x;
  int depth = nesting_depth(r, start, end);
  if (p->merge && w < 1 && x < r->drawn_until[depth] + 1) {
    p->merged++;
    return;
  }
  if (w < 1)
    w = 1;
  r->drawn_until[depth] = x + w;
  int inset = DEPTH_INSET * depth;
  double y = y_of(p, r) + (ROW_HEIGHT - BOX_HEIGHT) / 2.0 + inset;
  char label[128];
  json_t *args = json_object_get(e, "args");
  json_t *bytes = json_object_get(args, "bytes");
  if (json_is_integer(bytes)) {
    char size[32];
    format_bytes(json_integer_value(bytes), size, sizeof size);
    snprintf(label, sizeof label, "%s %s", text(e, "name"), size);
  } else {
    snprintf(label, sizeof label, "%s", text(e, "name"));
  }
  fprintf(p->out,
          "<g class=\"slice\"><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" "
          "height=\"%d\" fill=\"%s\" stroke=\"#333\" stroke-width=\"0.3\"/>",
          x, y, w, BOX_HEIGHT - inset, colour_of(text(e, "name")));
  fputs("<title>", p->out);
  bp_xml_text(p->out, label);
  char *details = json_dumps(args, JSON_COMPACT);
  if (details) {
    fprintf(p->out, " (%.3f us) ", number(e, "dur"));
    bp_xml_text(p->out, details);
    free(details);
  }
  fputs("</title>", p->out);
  size_t fits = (size_t)(w / 6.5);
  if (fits >= 3) {
    if (strlen(label) > fits)
      label[fits] = '\0';
    fprintf(p->out,
            "<text x=\"%.2f\" y=\"%.1f\" font-size=\"10\" fill=\"#fff\">",
            x + 2, y + 13 - inset);
    bp_xml_text(p->out, label);
    fputs("</text>", p->out);
  }
  fputs("</g>\n", p->out);
}

/* Each counter row: one step line per series, scaled to the row's max. */
static void draw_counters(picture_t *p, json_t *events) {
  size_t i;
  json_t *e;
  json_array_foreach(events, i, e) {
    if (strcmp(text(e, "ph"), "C") != 0)
      continue;
    row_t *r = find_row(p, integer(e, "pid"), -1, text(e, "name"));
    const char *series;
    json_t *value;
    json_object_foreach(json_object_get(e, "args"), series, value) {
      if (json_number_value(value) > r->max)
        r->max = json_number_value(value);
    }
  }
  for (size_t k = 0; k < p->row_count; ++k) {
    row_t *r = &p->rows[k];
    if (!r->counter || r->max <= 0)
      continue;
    json_t *seen = json_object();
    json_array_foreach(events, i, e) {
      if (strcmp(text(e, "ph"), "C") != 0 || integer(e, "pid") != r->pid ||
          strcmp(text(e, "name"), r->counter) != 0)
        continue;
      const char *series;
      json_t *value;
      json_object_foreach(json_object_get(e, "args"), series, value) {
        if (json_object_get(seen, series))
          continue;
        json_object_set_new(seen, series, json_true());
        /* The whole series, in file order (the trace layer writes each
         * counter's samples in time order). */
        fprintf(p->out,
                "<polyline class=\"counter\" fill=\"none\" stroke=\"%s\" "
                "stroke-width=\"1.5\" points=\"",
                colour_of(series));
        double last_y = y_of(p, r) + ROW_HEIGHT - 2, last = 0;
        size_t j;
        json_t *c;
        json_array_foreach(events, j, c) {
          json_t *v = json_object_get(json_object_get(c, "args"), series);
          if (strcmp(text(c, "ph"), "C") != 0 || integer(c, "pid") != r->pid ||
              strcmp(text(c, "name"), r->counter) != 0 || !v)
            continue;
          double x = x_of(p, number(c, "ts"));
          last = json_number_value(v);
          double y =
              y_of(p, r) + ROW_HEIGHT - 2 - last / r->max * (ROW_HEIGHT - 4);
          fprintf(p->out, "%.2f,%.1f %.2f,%.1f ", x, last_y, x, y);
          last_y = y;
        }
        fprintf(p->out, "%.2f,%.1f\"/>\n", x_of(p, p->t1), last_y);
        char size[32];
        format_bytes((json_int_t)last, size, sizeof size);
        fprintf(p->out,
                "<text x=\"%d\" y=\"%.1f\" font-size=\"9\" fill=\"%s\" "
                "text-anchor=\"end\">%s %s</text>\n",
                WIDTH - RIGHT_MARGIN,
                y_of(p, r) + 1.0 + 9.0 * (double)json_object_size(seen),
                colour_of(series), series, size);
      }
    }
    json_decref(seen);
  }
}

static void draw_flows(const picture_t *p, json_t *events) {
  json_t *starts = json_object(), *drawn = json_object();
  size_t i;
  json_t *e;
  char id[32];
  json_array_foreach(events, i, e) {
    if (strcmp(text(e, "ph"), "s") != 0)
      continue;
    snprintf(id, sizeof id, "%lld", (long long)integer(e, "id"));
    json_object_set(starts, id, e);
  }
  json_array_foreach(events, i, e) {
    if (strcmp(text(e, "ph"), "f") != 0)
      continue;
    snprintf(id, sizeof id, "%lld", (long long)integer(e, "id"));
    json_t *s = json_object_get(starts, id);
    const row_t *from =
        s ? find_row(p, integer(s, "pid"), integer(s, "tid"), NULL) : NULL;
    const row_t *to = find_row(p, integer(e, "pid"), integer(e, "tid"), NULL);
    if (!from || !to || number(s, "ts") < p->t0 || number(e, "ts") > p->t1)
      continue;
    /* One arrow per FLOW_PIXELS of either end between the same rows: a
     * long run's arrows stay bounded by the width. */
    double x1 = x_of(p, number(s, "ts")), x2 = x_of(p, number(e, "ts"));
    char pixels[96];
    snprintf(pixels, sizeof pixels, "%d %td %d %td", (int)x1 / FLOW_PIXELS,
             from - p->rows, (int)x2 / FLOW_PIXELS, to - p->rows);
    if (p->merge && json_object_get(drawn, pixels))
      continue;
    json_object_set_new(drawn, pixels, json_true());
    fprintf(p->out,
            "<line class=\"flow\" x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" "
            "y2=\"%.1f\" stroke=\"#c00\" stroke-width=\"0.8\" "
            "marker-end=\"url(#arrow)\"/>\n",
            x1, y_of(p, from) + ROW_HEIGHT / 2.0, x2,
            y_of(p, to) + ROW_HEIGHT / 2.0);
  }
  json_decref(drawn);
  json_decref(starts);
}

static int by_time(const void *a, const void *b) {
  double x = ((const legend_entry_t *)a)->us,
         y = ((const legend_entry_t *)b)->us;
  return x > y ? -1 : x < y;
}

/* The names of the slices in the window, longest total time first (the
 * legend draws the first LEGEND_MAX); whether there are so many slices that
 * sub-pixel ones are merged. -1 when out of memory. */
static int collect_legend(picture_t *p, json_t *events) {
  size_t i, in_window = 0, names = 0, capacity = 0;
  json_t *e;
  json_array_foreach(events, i, e) {
    if (strcmp(text(e, "ph"), "X") != 0)
      continue;
    double start = number(e, "ts"), end = start + number(e, "dur");
    if (end < p->t0 || start > p->t1)
      continue;
    p->merge = ++in_window > MERGE_ABOVE;
    double us = (end > p->t1 ? p->t1 : end) - (start < p->t0 ? p->t0 : start);
    const char *name = text(e, "name");
    size_t k = 0;
    while (k < names && strcmp(p->legend[k].name, name) != 0)
      k++;
    if (k == names) {
      if (names == capacity) {
        capacity = capacity ? 2 * capacity : LEGEND_MAX;
        legend_entry_t *grown =
            realloc(p->legend, capacity * sizeof *p->legend);
        if (!grown)
          return -1;
        p->legend = grown;
      }
      p->legend[names++] = (legend_entry_t){name, 0};
    }
    p->legend[k].us += us;
  }
  if (names)
    qsort(p->legend, names, sizeof *p->legend, by_time);
  p->legend_count = names < LEGEND_MAX ? names : LEGEND_MAX;
  return 0;
}

static double legend_height(const picture_t *p) {
  size_t lines = (p->legend_count + LEGEND_COLUMNS - 1) / LEGEND_COLUMNS;
  return (double)lines * LEGEND_ROW + (lines ? 10 : 0);
}

static void draw_legend(const picture_t *p) {
  double top = TOP + (double)p->row_count * ROW_HEIGHT + BOTTOM;
  double column = (double)(WIDTH - 20) / LEGEND_COLUMNS;
  for (size_t k = 0; k < p->legend_count; k++) {
    double x = 10 + column * (double)(k % LEGEND_COLUMNS);
    double y = top + (double)(k / LEGEND_COLUMNS) * LEGEND_ROW;
    fprintf(p->out,
            "<g class=\"legend\"><rect x=\"%.1f\" y=\"%.1f\" width=\"12\" "
            "height=\"10\" fill=\"%s\"/><text x=\"%.1f\" y=\"%.1f\" "
            "font-size=\"10\">",
            x, y, colour_of(p->legend[k].name), x + 16, y + 9);
    bp_xml_text(p->out, p->legend[k].name);
    fprintf(p->out, " %.2f ms</text></g>\n", p->legend[k].us / 1000);
  }
}

int trace_svg_write(json_t *root, FILE *out, char *error, size_t error_size) {
  return trace_svg_write_window(root, out, 0, -1, error, error_size);
}

/* to_ms < 0: to the end. */
int trace_svg_write_window(json_t *root, FILE *out, double from_ms,
                           double to_ms, char *error, size_t error_size) {
  json_t *events = json_object_get(root, "traceEvents");
  if (!json_is_array(events) || json_array_size(events) == 0) {
    snprintf(error, error_size, "the trace has no traceEvents");
    return -1;
  }
  picture_t p = {.out = out};
  if (lay_out(&p, events) != 0) {
    snprintf(error, error_size, "out of memory");
    return -1;
  }
  double first = p.t0;
  p.origin = first;
  if (to_ms >= 0 && first + to_ms * 1000 < p.t1)
    p.t1 = first + to_ms * 1000;
  p.t0 = first + from_ms * 1000;
  if (!(p.t1 > p.t0)) {
    snprintf(error, error_size, "the window %g to %g ms is empty", from_ms,
             to_ms);
    free(p.rows);
    return -1;
  }
  if (collect_legend(&p, events) != 0) {
    snprintf(error, error_size, "out of memory");
    free(p.legend);
    free(p.rows);
    return -1;
  }
  double height =
      TOP + (double)p.row_count * ROW_HEIGHT + BOTTOM + legend_height(&p);
  fprintf(out,
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
          "height=\"%.0f\" viewBox=\"0 0 %d %.0f\" "
          "font-family=\"sans-serif\">\n"
          "<defs><marker id=\"arrow\" markerWidth=\"6\" markerHeight=\"6\" "
          "refX=\"5\" refY=\"3\" orient=\"auto\"><path d=\"M0,0 L6,3 L0,6 "
          "z\" fill=\"#c00\"/></marker></defs>\n"
          "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%.0f\" "
          "fill=\"#fff\"/>\n",
          WIDTH, height, WIDTH, height, WIDTH, height);
  draw_rows(&p);
  draw_axis(&p);
  size_t i;
  json_t *e;
  json_array_foreach(events, i, e) {
    if (strcmp(text(e, "ph"), "X") == 0)
      draw_slice(&p, e);
  }
  draw_counters(&p, events);
  draw_flows(&p, events);
  draw_legend(&p);
  fputs("</svg>\n", out);
  free(p.legend);
  free(p.rows);
  if ((from_ms > 0 || to_ms >= 0) && p.slices == 0) {
    snprintf(error, error_size, "no slice in the window %g to %g ms", from_ms,
             to_ms);
    return -1;
  }
  if (ferror(out)) {
    snprintf(error, error_size, "write failed");
    return -1;
  }
  return 0;
}
