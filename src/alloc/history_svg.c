/* Drawing a history snapshot's timelines (history_svg.h). */
#include "alloc/history_svg.h"

#include <stdio.h>
#include <stdlib.h>

#include "alloc/history_timeline.h"
#include "base/status.h"
#include "base/xml_text.h"

enum {
  SVG_WIDTH = 1200,
  PLOT_LEFT = 90,
  PLOT_WIDTH = SVG_WIDTH - PLOT_LEFT - 30,
  PANEL_HEIGHT = 300,
  PLOT_TOP = 50, /* within a panel */
  PLOT_HEIGHT = 200,
  HEADER_HEIGHT = 40,
};

static const char *const palette[] = {"#4e79a7", "#f28e2b", "#59a14f",
                                      "#e15759", "#76b7b2", "#edc948",
                                      "#b07aa1", "#ff9da7", "#9c755f"};

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

typedef struct plot {
  int top;           /* of the plot area */
  uint64_t duration; /* ns across the width (at least 1) */
  uint64_t ceiling;  /* bytes at the top (at least 1) */
} plot_t;

static double x_of(const plot_t *p, uint64_t time_ns) {
  return PLOT_LEFT + (double)time_ns / (double)p->duration * PLOT_WIDTH;
}
static double y_of(const plot_t *p, uint64_t bytes) {
  return p->top + PLOT_HEIGHT -
         (double)bytes / (double)p->ceiling * PLOT_HEIGHT;
}

/* A step line: each value holds until the next point, the last to the
 * end. */
static void step_line(FILE *out, const plot_t *p, const bp_timeline_series_t *s,
                      const char *colour, const char *dash, double width) {
  if (!s->count)
    return;
  fprintf(out,
          "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\"%s "
          "points=\"%.2f,%.2f",
          colour, width, dash, x_of(p, 0), y_of(p, 0));
  uint64_t previous = 0;
  for (size_t i = 0; i < s->count; i++) {
    const bp_timeline_point_t *pt = &s->points[i];
    fprintf(out, " %.2f,%.2f %.2f,%.2f", x_of(p, pt->time_ns),
            y_of(p, previous), x_of(p, pt->time_ns), y_of(p, pt->bytes));
    previous = pt->bytes;
  }
  fprintf(out, " %.2f,%.2f\"><title>", x_of(p, p->duration), y_of(p, previous));
  bp_xml_text(out, s->name);
  fputs("</title></polyline>\n", out);
}

static void legend_entry(FILE *out, int x, int y, const char *colour,
                         const char *dash, const char *name) {
  fprintf(out,
          "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
          "stroke-width=\"2\"%s/><text x=\"%d\" y=\"%d\">",
          x, y - 4, x + 20, y - 4, colour, dash, x + 25, y);
  bp_xml_text(out, name);
  fputs("</text>\n", out);
}

static void axes(FILE *out, const plot_t *p) {
  char top[32];
  human_size((double)p->ceiling, top, sizeof top);
  fprintf(out,
          "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
          "stroke=\"#999\"/>\n"
          "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n"
          "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">0</text>\n"
          "<text x=\"%d\" y=\"%d\">0 ms</text>\n"
          "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.3f ms</text>\n",
          PLOT_LEFT, p->top, PLOT_WIDTH, PLOT_HEIGHT, PLOT_LEFT - 5,
          p->top + 10, top, PLOT_LEFT - 5, p->top + PLOT_HEIGHT, PLOT_LEFT,
          p->top + PLOT_HEIGHT + 15, PLOT_LEFT + PLOT_WIDTH,
          p->top + PLOT_HEIGHT + 15, (double)p->duration / 1e6);
}

static void panel(FILE *out, const bp_timeline_device_t *d, uint64_t duration,
                  int top) {
  plot_t p = {top + PLOT_TOP, duration ? duration : 1,
              d->reserved.peak > d->live.peak ? d->reserved.peak
                                              : d->live.peak};
  if (!p.ceiling)
    p.ceiling = 1;
  char peak[32], live[32];
  human_size((double)d->live.peak, peak, sizeof peak);
  human_size((double)d->live.value, live, sizeof live);
  fprintf(out, "<text x=\"10\" y=\"%d\" font-size=\"14\">", top + 20);
  bp_xml_text(out, d->name);
  fprintf(out,
          ": %zu alloc(s), %zu free(s), %zu oom(s); peak %s live at %.3f ms "
          "(event %zu); %s live at the end</text>\n",
          d->actions[BP_HISTORY_ALLOC], d->actions[BP_HISTORY_FREE],
          d->actions[BP_HISTORY_OOM], peak, (double)d->live.peak_time_ns / 1e6,
          d->live.peak_event, live);
  axes(out, &p);
  static const char dashed[] = " stroke-dasharray=\"6,3\"";
  step_line(out, &p, &d->reserved, "#999", dashed, 1.5);
  legend_entry(out, PLOT_LEFT, top + 40, "#999", dashed, "reserved");
  step_line(out, &p, &d->live, "#222", "", 2);
  legend_entry(out, PLOT_LEFT + 110, top + 40, "#222", "", "live");
  for (size_t i = 0; i < d->stream_count; i++) {
    const char *colour = palette[i % (sizeof palette / sizeof *palette)];
    step_line(out, &p, &d->streams[i], colour, "", 1.2);
    char name[64];
    snprintf(name, sizeof name, "stream %s", d->streams[i].name);
    legend_entry(out, PLOT_LEFT + 220 + (int)i * 200, top + 40, colour, "",
                 name);
  }
  if (d->live.peak) {
    double x = x_of(&p, d->live.peak_time_ns), y = y_of(&p, d->live.peak);
    fprintf(out,
            "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"5\" fill=\"#e15759\"/>"
            "<text x=\"%.2f\" y=\"%.2f\" fill=\"#e15759\">peak %s</text>\n",
            x, y, x + 8, y + 14, peak);
  }
}

static void render(FILE *out, const bp_timeline_t *t) {
  int height = HEADER_HEIGHT + (int)t->device_count * PANEL_HEIGHT + 10;
  fprintf(out,
          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
          "height=\"%d\" font-family=\"monospace\" font-size=\"12\">\n"
          "<text x=\"10\" y=\"20\" font-size=\"14\">memory history: %zu "
          "event(s) over %.3f ms, %llu dropped (ring of %llu)</text>\n",
          SVG_WIDTH, height, t->events, (double)t->duration_ns / 1e6,
          (unsigned long long)t->dropped, (unsigned long long)t->max_events);
  for (size_t i = 0; i < t->device_count; i++)
    panel(out, &t->devices[i], t->duration_ns,
          HEADER_HEIGHT + (int)i * PANEL_HEIGHT);
  fputs("</svg>\n", out);
}

bp_status_t bp_history_svg(json_t *root, const char *function, char **out_svg) {
  bp_timeline_t t;
  bp_status_t status = bp_timeline_build(root, function, &t);
  if (status != BP_OK)
    return status;
  char *svg = NULL;
  size_t length = 0;
  FILE *out = open_memstream(&svg, &length);
  if (out) {
    render(out, &t);
    fclose(out);
  }
  bp_timeline_release(&t);
  if (!out)
    return bp_error(BP_ERR_OUT_OF_MEMORY, "%s: no host memory", function);
  *out_svg = svg;
  return BP_OK;
}
