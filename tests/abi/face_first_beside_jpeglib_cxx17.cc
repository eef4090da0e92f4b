// C++17: the framework face first, then jpeglib and the vendor names as
// enumerators.
#define FACE_FIRST
#define FACE_NAMES_FN face_names_cxx17_face_first
#include "abi/face_beside_jpeglib.inc"
