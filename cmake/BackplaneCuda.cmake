# The CUDA toolkit for the cuda plugin, its tests and its benches.
# BP_WITH_CUDA (default ON) builds them whenever CMake's CUDAToolkit finds a
# toolkit (cudart, NVRTC and the NCCL header; a GPU is not needed to build).
# Sets BP_CUDA_ENABLED and the interface target bp_cuda_headers, which puts
# the toolkit's headers on the include path as system headers (no warnings
# from them under -Werror). Included from every folder that needs the
# CUDA:: targets (imported targets are local to a folder).
option(BP_WITH_CUDA "Build the cuda plugin when a CUDA toolkit is found" ON)
set(BP_CUDA_ENABLED OFF)
if(BP_WITH_CUDA)
  find_package(CUDAToolkit QUIET)
  if(CUDAToolkit_FOUND)
    find_path(BP_NCCL_INCLUDE_DIR nccl.h
              HINTS ${CUDAToolkit_INCLUDE_DIRS} ENV NCCL_HOME
              PATH_SUFFIXES include)
  endif()
  if(CUDAToolkit_FOUND AND TARGET CUDA::nvrtc AND TARGET CUDA::cudart_static
     AND BP_NCCL_INCLUDE_DIR)
    set(BP_CUDA_ENABLED ON)
    if(NOT TARGET bp_cuda_headers)
      add_library(bp_cuda_headers INTERFACE)
      target_include_directories(bp_cuda_headers SYSTEM INTERFACE
        ${CUDAToolkit_INCLUDE_DIRS} ${BP_NCCL_INCLUDE_DIR})
      message(STATUS "cuda plugin: CUDA ${CUDAToolkit_VERSION} at "
                     "${CUDAToolkit_LIBRARY_ROOT}")
    endif()
  elseif(NOT TARGET bp_cuda_headers)
    message(STATUS "cuda plugin: no CUDA toolkit (cudart, NVRTC, nccl.h) "
                   "found, not built")
  endif()
endif()
