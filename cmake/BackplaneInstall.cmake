# `cmake --install`: the public headers (with Paddle's include path as a
# forwarder), libbackplane and libbackplane_check (the conformance suite) with
# their soname links, a pkg-config file for each and a CMake package. The `backplane` command (tools/) and the plugins (plugins/*) install
# themselves; plugins go to BP_INSTALL_PLUGINDIR, the built-in plugin directory
# libbackplane searches beside itself.
include(CMakePackageConfigHelpers)

set(BP_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/Backplane)
set(BP_INSTALL_PLUGINDIR ${CMAKE_INSTALL_LIBDIR}/${BP_PLUGIN_SUBDIR})

# The vendor face alone: include directories, no library. A plugin uses this
# rather than Backplane::backplane, because it must not link the host it is
# loaded into.
add_library(backplane_headers INTERFACE)
target_include_directories(backplane_headers INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
set_target_properties(backplane_headers PROPERTIES EXPORT_NAME headers)

# The same names in-tree as after find_package(Backplane), so examples/ build
# unchanged in both places.
add_library(Backplane::headers ALIAS backplane_headers)
add_library(Backplane::backplane ALIAS backplane)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        COMPONENT Development
        FILES_MATCHING PATTERN "*.h")

install(FILES ${PROJECT_SOURCE_DIR}/tools/backplane/check/include/backplane/check.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/backplane
        COMPONENT Development)

install(TARGETS backplane backplane_check backplane_headers
        EXPORT BackplaneTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
                COMPONENT Runtime NAMELINK_COMPONENT Development)
install(EXPORT BackplaneTargets NAMESPACE Backplane::
        DESTINATION ${BP_INSTALL_CMAKEDIR} COMPONENT Development)

configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/BackplaneConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/BackplaneConfig.cmake
  INSTALL_DESTINATION ${BP_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR BP_INSTALL_PLUGINDIR)
# 0.x: a new minor version may change the ABI, so only the same minor matches.
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/BackplaneConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/BackplaneConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/BackplaneConfigVersion.cmake
        DESTINATION ${BP_INSTALL_CMAKEDIR} COMPONENT Development)

# pkg-config: paths relative to the .pc file (${pcfiledir}) so the installed
# tree can be moved; absolute only if the install dirs were given absolute.
set(BP_PC_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(IS_ABSOLUTE ${CMAKE_INSTALL_LIBDIR} OR IS_ABSOLUTE ${CMAKE_INSTALL_INCLUDEDIR})
  set(BP_PC_PREFIX ${CMAKE_INSTALL_PREFIX})
else()
  file(RELATIVE_PATH _bp_pc_to_prefix /prefix/${BP_PC_DIR} /prefix)
  string(REGEX REPLACE "/$" "" _bp_pc_to_prefix "${_bp_pc_to_prefix}")
  set(BP_PC_PREFIX "\${pcfiledir}/${_bp_pc_to_prefix}")
endif()
if(IS_ABSOLUTE ${CMAKE_INSTALL_LIBDIR})
  set(BP_PC_LIBDIR ${CMAKE_INSTALL_LIBDIR})
else()
  set(BP_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE ${CMAKE_INSTALL_INCLUDEDIR})
  set(BP_PC_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR})
else()
  set(BP_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
# DLPack is header-only and ships no .pc file (Debian: libdlpack-dev), so it
# cannot be a Requires: its include directory goes into Cflags unless the
# compiler searches it anyway.
find_path(BP_DLPACK_INCLUDE_DIR dlpack/dlpack.h)
if(NOT BP_DLPACK_INCLUDE_DIR)
  message(FATAL_ERROR "<dlpack/dlpack.h> not found (Debian: libdlpack-dev)")
endif()
set(BP_PC_DLPACK_CFLAGS "")
if(NOT BP_DLPACK_INCLUDE_DIR IN_LIST CMAKE_C_IMPLICIT_INCLUDE_DIRECTORIES)
  set(BP_PC_DLPACK_CFLAGS " -I${BP_DLPACK_INCLUDE_DIR}")
endif()
# A library directory outside the linker's default ones goes into the
# program's RPATH (pkg-config --libs), as the loader would not find it.
set(BP_PC_RPATH " -Wl,-rpath,\${libdir}")
if(CMAKE_INSTALL_FULL_LIBDIR IN_LIST CMAKE_C_IMPLICIT_LINK_DIRECTORIES)
  set(BP_PC_RPATH "")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/backplane.pc.in
               ${PROJECT_BINARY_DIR}/cmake/backplane.pc @ONLY)
configure_file(${CMAKE_CURRENT_LIST_DIR}/backplane-check.pc.in
               ${PROJECT_BINARY_DIR}/cmake/backplane-check.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/cmake/backplane.pc
              ${PROJECT_BINARY_DIR}/cmake/backplane-check.pc
        DESTINATION ${BP_PC_DIR} COMPONENT Development)
