# GLASSGRAD_SANITIZE: build with the compiler's sanitizers, e.g.
#   cmake -S . -B build/san -DGLASSGRAD_SANITIZE="address;undefined"
# Every target of the build (libraries, tests, the Python extension) is compiled and linked with
# -fsanitize=<list>; undefined behaviour aborts instead of printing and going on, so a ctest or
# pytest run fails on the first finding. GCC or Clang. Included by each package's CMakeLists
# (the runtime and the superbuild take it from this directory); applied once per build.
# Running the Python extension needs the sanitizer runtime preloaded, as tools/run_tests.sh's
# sanitizer stage does: LD_PRELOAD=$(c++ -print-file-name=libasan.so).
set(GLASSGRAD_SANITIZE "" CACHE STRING "Sanitizers to build with, e.g. address;undefined (GCC/Clang; empty: none)")
get_property(_gg_sanitize_applied GLOBAL PROPERTY GLASSGRAD_SANITIZE_APPLIED)
if(GLASSGRAD_SANITIZE AND NOT _gg_sanitize_applied)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    message(FATAL_ERROR "GLASSGRAD_SANITIZE needs GCC or Clang, not ${CMAKE_CXX_COMPILER_ID}")
  endif()
  list(JOIN GLASSGRAD_SANITIZE "," _gg_sanitizers)
  add_compile_options(-fsanitize=${_gg_sanitizers} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${_gg_sanitizers})
  set_property(GLOBAL PROPERTY GLASSGRAD_SANITIZE_APPLIED ON)
  message(STATUS "glassgrad: building with -fsanitize=${_gg_sanitizers}")
endif()
