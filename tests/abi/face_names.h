/* What a translation unit that includes <backplane/backplane.h> beside
 * <jpeglib.h> and abi/vendor_names.h sees of both sides. Each
 * face_beside_jpeglib_* unit fills one. */
#ifndef BACKPLANE_TESTS_FACE_NAMES_H_
#define BACKPLANE_TESTS_FACE_NAMES_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct face_names {
  size_t jpeg_uint8_size; /* sizeof(UINT8), jpeglib's typedef */
  size_t jpeg_int16_size; /* sizeof(INT16) */
  int vendor_bool, vendor_sum, vendor_max, vendor_any;  /* vendor_names.h */
  int face_float32, face_sum, face_max, face_warp_size; /* backplane.h */
  size_t face_float32_size; /* bp_dtype_size, called from the unit */
} face_names_t;

void face_names_c11_macros_first(face_names_t *out);
void face_names_c11_face_first(face_names_t *out);
void face_names_cxx17_macros_first(face_names_t *out);
void face_names_cxx17_face_first(face_names_t *out);

#ifdef __cplusplus
}
#endif

#endif /* BACKPLANE_TESTS_FACE_NAMES_H_ */
