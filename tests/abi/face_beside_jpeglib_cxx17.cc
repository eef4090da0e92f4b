// C++17: the vendor names as macros, defined before the framework face.
#define VENDOR_NAMES_AS_MACROS
#define FACE_NAMES_FN face_names_cxx17_macros_first
#include "abi/face_beside_jpeglib.inc"
