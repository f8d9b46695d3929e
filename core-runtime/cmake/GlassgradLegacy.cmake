# Kernel images for the GPUs CUDA 13's nvcc no longer targets (Maxwell sm_50/52, Pascal
# sm_60/61, Volta sm_70), compiled from the same sources by CUDA 12's NVRTC (nvrtc_legacy.py
# over the generated all_kernels.cu): one cubin per architecture and PTX compute_50, embedded
# next to nvcc's fatbin. The loader (src/cuda/kernel_image.cpp) picks an image by the GPU's
# compute capability. Included from GlassgradFatbin.cmake.
#
# GLASSGRAD_CUDA_LEGACY: AUTO builds them when nvcc is CUDA 13 or newer and NVRTC 12 is found
# (the nvidia-cuda-nvrtc-cu12 wheel importable by the build's Python: tools/build_backend.py has
# pip install it into the build environment whenever the kernels are built), ON fails without
# it, OFF skips them. Also read from the environment, as are GLASSGRAD_NVRTC (a libnvrtc.so.12
# to use) and GLASSGRAD_NVRTC_JOBS (images compiled at once; default one per core). NVRTC is a
# build dependency only: nothing of it ships.
set(GLASSGRAD_CUDA_LEGACY "$ENV{GLASSGRAD_CUDA_LEGACY}" CACHE STRING
    "Maxwell/Pascal/Volta images built with NVRTC 12: AUTO (if found), ON (required), OFF")
if(GLASSGRAD_CUDA_LEGACY STREQUAL "")
  set_property(CACHE GLASSGRAD_CUDA_LEGACY PROPERTY VALUE AUTO)
endif()
set(GLASSGRAD_NVRTC "$ENV{GLASSGRAD_NVRTC}" CACHE FILEPATH "libnvrtc.so.12 for the legacy images (empty: find it)")
set(GLASSGRAD_NVRTC_JOBS "$ENV{GLASSGRAD_NVRTC_JOBS}" CACHE STRING
    "Legacy images NVRTC compiles at once (empty: one per core)")
set(GLASSGRAD_CUDA_LEGACY_SM 50 52 60 61 70)
set(GLASSGRAD_CUDA_LEGACY_PTX 50)
string(TOUPPER "${GLASSGRAD_CUDA_LEGACY}" _gg_legacy_mode)

set(_gg_legacy_images)
if(_gg_legacy_mode STREQUAL "AUTO" AND _gg_cuda_major LESS 13)
  # CUDA 12's nvcc still compiles sm_50-sm_70 into its own fatbin (GLASSGRAD_CUDA_ARCHS).
  message(STATUS "glassgrad: nvcc ${_gg_cuda_major}.${_gg_cuda_minor} targets Maxwell to Volta itself: "
                 "no NVRTC 12 images (GLASSGRAD_CUDA_LEGACY=AUTO)")
  set(_gg_legacy_mode OFF)
endif()
if(NOT _gg_legacy_mode STREQUAL "OFF")
  if(Python_EXECUTABLE)
    set(_gg_py ${Python_EXECUTABLE})
  else()
    find_package(Python3 COMPONENTS Interpreter QUIET)
    set(_gg_py ${Python3_EXECUTABLE})
  endif()
  set(_gg_nvrtc_tool ${CMAKE_CURRENT_LIST_DIR}/nvrtc_legacy.py)
  if(_gg_py AND (NOT GLASSGRAD_NVRTC OR NOT EXISTS "${GLASSGRAD_NVRTC}"))  # e.g. a build env gone
    execute_process(COMMAND ${_gg_py} ${_gg_nvrtc_tool} --find OUTPUT_VARIABLE _gg_found
                    OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _gg_rc ERROR_QUIET)
    if(_gg_rc EQUAL 0 AND EXISTS "${_gg_found}")
      set(GLASSGRAD_NVRTC ${_gg_found} CACHE FILEPATH "libnvrtc.so.12 for the legacy images" FORCE)
    endif()
  endif()
  if(NOT _gg_py OR NOT EXISTS "${GLASSGRAD_NVRTC}")
    if(_gg_legacy_mode STREQUAL "ON")
      message(FATAL_ERROR "GLASSGRAD_CUDA_LEGACY=ON but CUDA 12's NVRTC was not found: "
                          "pip install nvidia-cuda-nvrtc-cu12 into the Python that builds glassgrad, or set "
                          "GLASSGRAD_NVRTC to a libnvrtc.so.12 (or build with GLASSGRAD_CUDA_LEGACY=OFF)")
    endif()
    message(STATUS "glassgrad: NVRTC 12 not found, no Maxwell/Pascal/Volta images "
                   "(pip install nvidia-cuda-nvrtc-cu12 to build them)")
  else()
    foreach(a ${GLASSGRAD_CUDA_LEGACY_SM})
      list(APPEND _gg_legacy_images sm_${a})
    endforeach()
    foreach(a ${GLASSGRAD_CUDA_LEGACY_PTX})
      list(APPEND _gg_legacy_images compute_${a})
    endforeach()
  endif()
endif()

set(_gg_legacy_table "")
set(_gg_legacy_asm "")
set(_gg_legacy_outputs)
foreach(img ${_gg_legacy_images})
  string(REGEX MATCH "[0-9]+" _a "${img}")
  if(img MATCHES "^compute_")
    set(_ext ptx)
    set(_is_ptx true)
  else()
    set(_ext cubin)
    set(_is_ptx false)
  endif()
  set(_file ${_gg_gen}/legacy/${img}.${_ext})
  list(APPEND _gg_legacy_outputs ${_file})
  string(APPEND _gg_legacy_asm
    "    \".balign 64\\n\"\n"
    "    \".global gg_legacy_${img}_begin\\n.hidden gg_legacy_${img}_begin\\ngg_legacy_${img}_begin:\\n\"\n"
    "    \".incbin \\\"${_file}\\\"\\n\"\n"
    "    \".global gg_legacy_${img}_end\\n.hidden gg_legacy_${img}_end\\ngg_legacy_${img}_end:\\n\"\n"
    "    \".byte 0\\n\"\n")
  string(APPEND _gg_legacy_table
    "    {\"${img}\", ${_a}, ${_is_ptx}, gg_legacy_${img}_begin, gg_legacy_${img}_end},\n")
endforeach()

if(_gg_legacy_images)
  set(_gg_nvrtc_includes -I${_gg_kdir} -I${_gg_engine_inc})
  set(_gg_nvrtc_jobs)
  if(GLASSGRAD_NVRTC_JOBS)
    set(_gg_nvrtc_jobs --jobs ${GLASSGRAD_NVRTC_JOBS})
  endif()
  add_custom_command(
    OUTPUT ${_gg_legacy_outputs}
    COMMAND ${_gg_py} ${_gg_nvrtc_tool} --nvrtc ${GLASSGRAD_NVRTC} --source ${_gg_gen}/all_kernels.cu
            ${_gg_nvrtc_includes} --sm ${GLASSGRAD_CUDA_LEGACY_SM} --ptx ${GLASSGRAD_CUDA_LEGACY_PTX}
            --out-dir ${_gg_gen}/legacy --cache-dir "${GLASSGRAD_FATBIN_CACHE}" ${_gg_nvrtc_jobs}
    DEPENDS ${GLASSGRAD_CUDA_SOURCES} ${_gg_cuda_headers} ${_gg_engine_headers} ${_gg_gen}/all_kernels.cu
            ${_gg_nvrtc_tool}
    COMMENT "NVRTC 12: CUDA kernels -> ${_gg_legacy_images}"
    VERBATIM)
  message(STATUS "glassgrad: legacy kernel images ${_gg_legacy_images} with NVRTC ${GLASSGRAD_NVRTC}")
endif()

# The table the loader reads (empty without legacy images), and their bytes via .incbin.
list(LENGTH _gg_legacy_images _gg_legacy_count)
set(_gg_legacy_decls "")
foreach(img ${_gg_legacy_images})
  string(APPEND _gg_legacy_decls
    "extern \"C\" const unsigned char gg_legacy_${img}_begin[], gg_legacy_${img}_end[];\n")
endforeach()
file(CONFIGURE OUTPUT ${_gg_gen}/legacy_embed.cpp CONTENT [=[
// Generated by GlassgradLegacy.cmake: the NVRTC 12 kernel images (Maxwell to Volta), embedded
// verbatim; each is followed by a NUL so PTX text can be loaded as it is.
#include "glassgrad/runtime/cuda.h"

@_gg_legacy_decls@
#if @_gg_legacy_count@
__asm__(
    ".section .rodata\n"
@_gg_legacy_asm@    ".previous\n");
#endif

namespace glassgrad {
namespace cuda {
const std::vector<LegacyImage>& legacy_images() {
  static const std::vector<LegacyImage> images{
@_gg_legacy_table@  };
  return images;
}
}  // namespace cuda
}  // namespace glassgrad
]=] @ONLY)
set_source_files_properties(${_gg_gen}/legacy_embed.cpp PROPERTIES OBJECT_DEPENDS "${_gg_legacy_outputs}")
target_sources(glassgrad_runtime PRIVATE ${_gg_gen}/legacy_embed.cpp)
