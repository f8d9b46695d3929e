# Unity builds: with CMAKE_UNITY_BUILD=ON (the package build, pyproject.toml; tools/run_tests.sh;
# CI) each target's sources compile as one translation unit, so the headers every file includes
# (the standard library, the engine's and the runtime's) are parsed once per target instead of
# once per file: docs/architecture.md, "Build time". Files with flags of their own (the *_avx2 /
# *_avx512 kernels, kernel_image.cpp) and the generated kernel images stay units of their own.
# Development builds (tools/dev_build.sh) leave it off, so a change recompiles one file. In a
# unity build, names local to a file (anonymous namespace, static) share one unit with every other
# file of the target: they must not repeat; a helper two files need goes into a shared header.
# Included by each package's CMakeLists; CMAKE_UNITY_BUILD_BATCH_SIZE given on the command line wins.
if(NOT DEFINED CMAKE_UNITY_BUILD_BATCH_SIZE)
  set(CMAKE_UNITY_BUILD_BATCH_SIZE 0)
endif()
