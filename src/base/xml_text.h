/* XML character data for the SVG writers: header-only, so the library
 * (allocator snapshots) and the backplane command (trace pictures) share it
 * without exporting it. */
#ifndef BACKPLANE_BASE_XML_TEXT_H_
#define BACKPLANE_BASE_XML_TEXT_H_

#include <stdio.h>

/* Writes `text` with XML's special characters escaped. */
static inline void bp_xml_text(FILE *out, const char *text) {
  for (; *text; text++) {
    switch (*text) {
    case '<':
      fputs("&lt;", out);
      break;
    case '>':
      fputs("&gt;", out);
      break;
    case '&':
      fputs("&amp;", out);
      break;
    case '"':
      fputs("&quot;", out);
      break;
    default:
      fputc(*text, out);
    }
  }
}

#endif /* BACKPLANE_BASE_XML_TEXT_H_ */
