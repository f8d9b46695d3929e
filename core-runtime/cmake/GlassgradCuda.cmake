# CUDA kernels: compiled by nvcc at build time into one fatbin, embedded in the library and
# loaded at run time through the driver API (cuModuleLoadData on a dlopen'ed libcuda.so.1).
# Nothing here links the CUDA runtime, so a CPU-only machine imports the same build.
#
# GLASSGRAD_CUDA: AUTO builds the kernels when nvcc is found, ON fails without it, OFF skips.
string(TOUPPER "${GLASSGRAD_CUDA}" _gg_cuda_mode)
set(GLASSGRAD_HAVE_CUDA_KERNELS OFF)
file(GLOB GLASSGRAD_CUDA_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/kernels/cuda/*.cu)
if(NOT _gg_cuda_mode STREQUAL "OFF")
  find_program(GLASSGRAD_NVCC nvcc HINTS ENV CUDA_HOME ENV CUDA_PATH PATH_SUFFIXES bin
               PATHS /usr/local/cuda/bin)
  if(NOT GLASSGRAD_NVCC)
    if(_gg_cuda_mode STREQUAL "ON")
      message(FATAL_ERROR "GLASSGRAD_CUDA=ON but nvcc was not found. Put the CUDA toolkit's bin "
                          "directory on PATH (or set CUDA_HOME), or build with GLASSGRAD_CUDA=OFF.")
    endif()
    message(STATUS "glassgrad: nvcc not found, building CPU-only (GLASSGRAD_CUDA=${GLASSGRAD_CUDA})")
  elseif(NOT GLASSGRAD_CUDA_SOURCES)
    message(STATUS "glassgrad: no CUDA kernel sources yet, building CPU-only")
  else()
    set(GLASSGRAD_HAVE_CUDA_KERNELS ON)
  endif()
endif()
if(GLASSGRAD_HAVE_CUDA_KERNELS)
  include(${CMAKE_CURRENT_LIST_DIR}/GlassgradFatbin.cmake)
endif()
