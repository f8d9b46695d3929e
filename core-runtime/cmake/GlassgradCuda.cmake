# CUDA kernels: compiled at build time into images embedded in the library (nvcc's fatbin,
# GlassgradFatbin.cmake; CUDA 12 NVRTC's images, GlassgradLegacy.cmake) and loaded at run time
# through the driver API (cuModuleLoadData on a dlopen'ed libcuda.so.1). Nothing here links the
# CUDA runtime, so a CPU-only machine imports the same build.
#
# Which images, decided by cuda_select.py (its docstring states the rule; docs/cuda.md):
#   GLASSGRAD_CUDA        AUTO: for the GPUs visible now, when nvcc is found (none without a
#                         GPU); ON: nvcc required, the visible GPUs' or else every architecture;
#                         OFF: none
#   GLASSGRAD_CUDA_ARCHS  "" (the visible GPUs), "all", or a list such as "75;86" / "7.5 8.6"
#   GLASSGRAD_CUDA_LEGACY AUTO / ON / OFF: CUDA 12's NVRTC images (GlassgradLegacy.cmake)
# The decision, one sentence, is GLASSGRAD_CUDA_BUILD_NOTE: printed here, compiled into the
# runtime (glassgrad.cuda.build_note(), and why_unavailable() when a GPU has no kernels).
string(TOUPPER "${GLASSGRAD_CUDA}" _gg_cuda_mode)
set(GLASSGRAD_HAVE_CUDA_KERNELS OFF)
file(GLOB GLASSGRAD_CUDA_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/kernels/cuda/*.cu)
set(GLASSGRAD_CUDA_LEGACY "$ENV{GLASSGRAD_CUDA_LEGACY}" CACHE STRING
    "CUDA 12 images built with NVRTC 12 (Maxwell to Volta; Turing to Hopper for drivers before 580): AUTO, ON, OFF")
if(GLASSGRAD_CUDA_LEGACY STREQUAL "")
  set_property(CACHE GLASSGRAD_CUDA_LEGACY PROPERTY VALUE AUTO)
endif()

set(_gg_cuda_note "no CUDA kernels: built with GLASSGRAD_CUDA=OFF")
set(_gg_nvcc_archs)
set(_gg_nvrtc_sm)
set(_gg_nvrtc_ptx)
set(_gg_nvrtc_required 0)
if(NOT _gg_cuda_mode STREQUAL "OFF")
  find_program(GLASSGRAD_NVCC nvcc HINTS ENV CUDA_HOME ENV CUDA_PATH PATH_SUFFIXES bin
               PATHS /usr/local/cuda/bin)
  set(_gg_nvcc_version "")
  if(GLASSGRAD_NVCC)
    execute_process(COMMAND ${GLASSGRAD_NVCC} --version OUTPUT_VARIABLE _gg_nvcc_out ERROR_QUIET)
    string(REGEX MATCH "release ([0-9]+)\\.([0-9]+)" _gg_m "${_gg_nvcc_out}")
    set(_gg_cuda_major "${CMAKE_MATCH_1}")
    set(_gg_cuda_minor "${CMAKE_MATCH_2}")
    if(NOT _gg_cuda_major)
      message(FATAL_ERROR "glassgrad: could not read the CUDA version from '${GLASSGRAD_NVCC} --version'")
    endif()
    if(_gg_cuda_major LESS 11)
      message(FATAL_ERROR "glassgrad: CUDA ${_gg_cuda_major}.${_gg_cuda_minor} is too old (need 11 or newer); "
                          "build with GLASSGRAD_CUDA=OFF or point CUDA_HOME at a newer toolkit")
    endif()
    set(_gg_nvcc_version "${_gg_cuda_major}.${_gg_cuda_minor}")
  elseif(_gg_cuda_mode STREQUAL "ON")
    message(FATAL_ERROR "GLASSGRAD_CUDA=ON but nvcc was not found. Put the CUDA toolkit's bin "
                        "directory on PATH (or set CUDA_HOME), or build with GLASSGRAD_CUDA=OFF.")
  endif()
  if(Python_EXECUTABLE)
    set(_gg_py ${Python_EXECUTABLE})
  else()
    find_package(Python3 COMPONENTS Interpreter QUIET)
    set(_gg_py ${Python3_EXECUTABLE})
  endif()
  if(NOT _gg_py)
    if(_gg_cuda_mode STREQUAL "ON" OR NOT GLASSGRAD_CUDA_ARCHS STREQUAL "")
      message(FATAL_ERROR "glassgrad: the CUDA build needs a Python 3 interpreter (cmake/cuda_select.py chooses "
                          "the kernel images); install python3 or pass -DPython_EXECUTABLE=...")
    endif()
    set(_gg_cuda_note "no CUDA kernels: no Python 3 interpreter was found to look for GPUs (GLASSGRAD_CUDA=AUTO)")
  else()
    execute_process(
      COMMAND ${_gg_py} ${CMAKE_CURRENT_LIST_DIR}/cuda_select.py --cuda "${_gg_cuda_mode}"
              --archs "${GLASSGRAD_CUDA_ARCHS}" --legacy "${GLASSGRAD_CUDA_LEGACY}" --nvcc "${_gg_nvcc_version}"
      OUTPUT_VARIABLE _gg_sel ERROR_VARIABLE _gg_sel_err RESULT_VARIABLE _gg_sel_rc)
    if(NOT _gg_sel_rc EQUAL 0)
      message(FATAL_ERROR "${_gg_sel_err}")
    endif()
    string(REPLACE ";" "," _gg_sel "${_gg_sel}")  # keep the lists whole while splitting lines
    string(REPLACE "\n" ";" _gg_sel "${_gg_sel}")
    foreach(line ${_gg_sel})
      if(line MATCHES "^([a-z_]+)=(.*)$")
        string(REPLACE "," ";" _gg_sel_${CMAKE_MATCH_1} "${CMAKE_MATCH_2}")
      endif()
    endforeach()
    set(_gg_nvcc_archs ${_gg_sel_nvcc_archs})
    set(_gg_nvrtc_sm ${_gg_sel_nvrtc_sm})
    set(_gg_nvrtc_ptx ${_gg_sel_nvrtc_ptx})
    set(_gg_nvrtc_required ${_gg_sel_nvrtc_required})
    string(REPLACE ";" "," _gg_cuda_note "${_gg_sel_note}")
  endif()
endif()

if((_gg_nvcc_archs OR _gg_nvrtc_sm OR _gg_nvrtc_ptx) AND NOT GLASSGRAD_CUDA_SOURCES)
  set(_gg_cuda_note "no CUDA kernels: there are no kernel sources (kernels/cuda/*.cu)")
  set(_gg_nvcc_archs)
  set(_gg_nvrtc_sm)
  set(_gg_nvrtc_ptx)
endif()
if(_gg_nvrtc_sm OR _gg_nvrtc_ptx)
  include(${CMAKE_CURRENT_LIST_DIR}/GlassgradNvrtcFind.cmake)  # may empty the NVRTC lists
endif()
if(_gg_nvcc_archs OR _gg_nvrtc_sm OR _gg_nvrtc_ptx)
  set(GLASSGRAD_HAVE_CUDA_KERNELS ON)
  set(_gg_gen ${CMAKE_CURRENT_BINARY_DIR}/glassgrad_cuda)
  include(${CMAKE_CURRENT_LIST_DIR}/GlassgradFatbin.cmake)
  include(${CMAKE_CURRENT_LIST_DIR}/GlassgradLegacy.cmake)
endif()
set(GLASSGRAD_CUDA_BUILD_NOTE "${_gg_cuda_note}")
message(STATUS "glassgrad: ${GLASSGRAD_CUDA_BUILD_NOTE}")

# The note reaches the one file that reports it (as a definition of that file alone, so every
# other object is the same in CPU and CUDA builds and a compiler cache serves both).
set(_gg_image_source ${CMAKE_CURRENT_SOURCE_DIR}/src/cuda/kernel_image.cpp)
if(NOT EXISTS ${_gg_image_source})
  message(FATAL_ERROR "glassgrad: ${_gg_image_source} moved; point GlassgradCuda.cmake at its new place")
endif()
string(REPLACE "\"" "'" _gg_note_c "${GLASSGRAD_CUDA_BUILD_NOTE}")
set_property(SOURCE ${_gg_image_source} APPEND PROPERTY COMPILE_DEFINITIONS
             "GLASSGRAD_CUDA_BUILD_NOTE=\"${_gg_note_c}\"")
