# CUDA 12's NVRTC for the images cuda_select.py asked for (_gg_nvrtc_sm, _gg_nvrtc_ptx): the
# nvidia-cuda-nvrtc-cu12 wheel importable by the build's Python ($_gg_py; tools/build_backend.py
# has pip install it into the build environment when the images are wanted), or
# GLASSGRAD_NVRTC (a libnvrtc.so.12; also read from the environment). Not found: a fatal error
# when they are required (GLASSGRAD_CUDA_LEGACY=ON), else the build goes on without them and
# the build note says so. Sets GLASSGRAD_NVRTC and _gg_nvrtc_version ("12.9").
# Included from GlassgradCuda.cmake.
set(GLASSGRAD_NVRTC "$ENV{GLASSGRAD_NVRTC}" CACHE FILEPATH "libnvrtc.so.12 for the CUDA 12 images (empty: find it)")
set(_gg_nvrtc_tool ${CMAKE_CURRENT_LIST_DIR}/nvrtc_legacy.py)
if(NOT GLASSGRAD_NVRTC OR NOT EXISTS "${GLASSGRAD_NVRTC}")  # e.g. a build environment gone
  execute_process(COMMAND ${_gg_py} ${_gg_nvrtc_tool} --find OUTPUT_VARIABLE _gg_found
                  OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _gg_rc ERROR_QUIET)
  if(_gg_rc EQUAL 0 AND EXISTS "${_gg_found}")
    set(GLASSGRAD_NVRTC ${_gg_found} CACHE FILEPATH "libnvrtc.so.12 for the CUDA 12 images" FORCE)
  endif()
endif()
set(_gg_nvrtc_version "")
if(EXISTS "${GLASSGRAD_NVRTC}")
  execute_process(COMMAND ${_gg_py} ${_gg_nvrtc_tool} --nvrtc ${GLASSGRAD_NVRTC} --print-version
                  OUTPUT_VARIABLE _gg_nvrtc_version OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _gg_rc)
  if(NOT _gg_rc EQUAL 0)
    message(FATAL_ERROR "glassgrad: ${GLASSGRAD_NVRTC} is not CUDA 12's NVRTC (see above); unset GLASSGRAD_NVRTC")
  endif()
endif()
if(NOT _gg_nvrtc_version)
  if(_gg_nvrtc_required)
    message(FATAL_ERROR "GLASSGRAD_CUDA_LEGACY=ON but CUDA 12's NVRTC was not found: pip install "
                        "nvidia-cuda-nvrtc-cu12 into the Python that builds glassgrad (${_gg_py}), or set "
                        "GLASSGRAD_NVRTC to a libnvrtc.so.12 (or build with GLASSGRAD_CUDA_LEGACY=OFF)")
  endif()
  set(_gg_missing sm_${_gg_nvrtc_sm})
  string(REPLACE ";" ", sm_" _gg_missing "${_gg_missing}")
  message(WARNING "glassgrad: CUDA 12's NVRTC was not found, so the CUDA 12 images (${_gg_missing}) are not "
                  "built; pip install nvidia-cuda-nvrtc-cu12 into ${_gg_py} to build them")
  string(APPEND _gg_cuda_note ", without the CUDA 12 images it asked for (${_gg_missing}: NVRTC 12 not found)")
  set(_gg_nvrtc_sm)
  set(_gg_nvrtc_ptx)
endif()
