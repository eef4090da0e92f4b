/* Backplane's version, the one place it is written: CMake's project()
 * version, the pkg-config and CMake packages, the Python package's
 * __version__ and `backplane --version` all read it from here. 0.x: a new
 * minor version may change the ABI. */
#ifndef BACKPLANE_VERSION_H_
#define BACKPLANE_VERSION_H_

#define BP_VERSION_MAJOR 0
#define BP_VERSION_MINOR 1
#define BP_VERSION_PATCH 0
#define BP_VERSION_STRING "0.1.0"

#endif /* BACKPLANE_VERSION_H_ */
