/* Unprefixed names that the vendor ABI (device_ext.h) declares as
 * enumerators and that other headers also claim: <jpeglib.h> has UINT8,
 * UINT16, INT16 and INT32 (included beside this), Windows headers BOOL,
 * many libraries MIN/MAX. As macros (VENDOR_NAMES_AS_MACROS) they break a
 * later header that uses the names; as enumerators they break any header
 * that declares them, before or after. The framework face must survive
 * both. */
#ifndef BACKPLANE_TESTS_VENDOR_NAMES_H_
#define BACKPLANE_TESTS_VENDOR_NAMES_H_

#ifdef VENDOR_NAMES_AS_MACROS
#define UNDEFINED 1000
#define BOOL 1001
#define UINT32 1002
#define UINT64 1003
#define INT8 1004
#define INT64 1005
#define FLOAT16 1006
#define FLOAT32 1007
#define FLOAT64 1008
#define BFLOAT16 1009
#define COMPLEX64 1010
#define COMPLEX128 1011
#define SUM 1012
#define AVG 1013
#define MAX 1014
#define MIN 1015
#define PRODUCT 1016
#define ANY 1017
#define NHWC 1018
#define NCHW 1019
#define STRIDED 1020
#define ALL_LAYOUT 1021
#else
enum vendor_names {
  UNDEFINED = 1000,
  BOOL,
  UINT32,
  UINT64,
  INT8,
  INT64,
  FLOAT16,
  FLOAT32,
  FLOAT64,
  BFLOAT16,
  COMPLEX64,
  COMPLEX128,
  SUM,
  AVG,
  MAX,
  MIN,
  PRODUCT,
  ANY,
  NHWC,
  NCHW,
  STRIDED,
  ALL_LAYOUT,
};
#endif

#endif /* BACKPLANE_TESTS_VENDOR_NAMES_H_ */
