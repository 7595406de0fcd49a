# Installing shardscope like a Linux desktop tool, and its Debian package (CPack DEB; scripts/package.sh).
# Included last by CMakeLists.txt, after every target exists.
#
# Section index: layout, version (--version's build info), generated docs (man page, bash completion), install
# rules, Debian package.
#
# Installed layout (GNUInstallDirs, under the prefix; the package's prefix is /usr):
#   bin/shardscope                                the app and CLI
#   libexec/shardscope/shardscope-runner          the LibTorch child (found from bin/ through the relative path
#                                                 below: app/run_client.cpp, RunClient::findRunner)
#   share/applications/shardscope.desktop         menu entry; opens *.plan.json, "Open with" for *.log
#   share/mime/packages/shardscope.xml            application/x-shardscope-plan+json (*.plan.json)
#   share/icons/hicolor/scalable/apps/shardscope.svg
#   share/man/man1/shardscope.1.gz, share/bash-completion/completions/shardscope   (generated from the verb table)
#   share/shardscope/samples/*.plan.json          the samples
#   share/doc/shardscope/README.md, docs/         the documentation
# Fonts are embedded in the binary at build time (views/CMakeLists.txt): no assets to install.
include(GNUInstallDirs)

# ---- layout ----
set(SHARDSCOPE_RUNNER_INSTALL_DIR ${CMAKE_INSTALL_LIBEXECDIR}/shardscope)
file(RELATIVE_PATH SHARDSCOPE_RUNNER_FROM_BIN ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBEXECDIR}/shardscope)
# Every target that compiles run_client.cpp (the app, and the runner tests, which link it directly) needs it.
set(_shardscope_run_client_dirs ${CMAKE_SOURCE_DIR}/app)
if(TARGET shardscope_runner_tests)
  list(APPEND _shardscope_run_client_dirs ${CMAKE_SOURCE_DIR}/tests/runner)
endif()
set_property(SOURCE ${CMAKE_SOURCE_DIR}/app/run_client.cpp DIRECTORY ${_shardscope_run_client_dirs} APPEND PROPERTY
             COMPILE_DEFINITIONS "SHARDSCOPE_RUNNER_FROM_BIN=\"${SHARDSCOPE_RUNNER_FROM_BIN}\"")

# ---- version: what `shardscope --version` names (app/build_info.h) ----
if(SHARDSCOPE_WITH_TORCH)
  get_directory_property(SHARDSCOPE_TORCH_VERSION DIRECTORY ${CMAKE_SOURCE_DIR}/runner DEFINITION Torch_VERSION)
  if(SHARDSCOPE_CUDA)
    set(SHARDSCOPE_TORCH_DESCRIPTION "${SHARDSCOPE_TORCH_VERSION} (CUDA)")
  else()
    set(SHARDSCOPE_TORCH_DESCRIPTION "${SHARDSCOPE_TORCH_VERSION} (CPU)")
  endif()
else()
  set(SHARDSCOPE_TORCH_DESCRIPTION "none (built without the runner)")
endif()
set(SHARDSCOPE_GIT_REVISION "" CACHE STRING
    "The revision --version names for a source tree outside git (empty: git describe at build time)")
set(SHARDSCOPE_BUILD_INFO_CPP ${CMAKE_BINARY_DIR}/generated/build_info.cpp)
# Runs on every build (the revision changes without CMake knowing); rewrites the file only when it changed.
add_custom_target(shardscope_build_info
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${CMAKE_SOURCE_DIR} -DOUT=${SHARDSCOPE_BUILD_INFO_CPP}
          -DVERSION=${PROJECT_VERSION} -DTORCH=${SHARDSCOPE_TORCH_DESCRIPTION} -DGIT_REVISION=${SHARDSCOPE_GIT_REVISION}
          -P ${CMAKE_SOURCE_DIR}/cmake/build_info.cmake
  BYPRODUCTS ${SHARDSCOPE_BUILD_INFO_CPP}
  VERBATIM)
target_sources(shardscope PRIVATE ${SHARDSCOPE_BUILD_INFO_CPP})
add_dependencies(shardscope shardscope_build_info)

# ---- generated docs: the man page and bash completion, from the built executable's verb table ----
set(SHARDSCOPE_GENERATED_DOCS ${CMAKE_BINARY_DIR}/packaging)
add_custom_command(
  OUTPUT ${SHARDSCOPE_GENERATED_DOCS}/shardscope.1 ${SHARDSCOPE_GENERATED_DOCS}/shardscope.1.gz
         ${SHARDSCOPE_GENERATED_DOCS}/shardscope.bash-completion
  COMMAND ${CMAKE_COMMAND} -DSHARDSCOPE=$<TARGET_FILE:shardscope> -DOUT_DIR=${SHARDSCOPE_GENERATED_DOCS}
          -P ${CMAKE_SOURCE_DIR}/cmake/write_docs.cmake
  DEPENDS shardscope ${CMAKE_SOURCE_DIR}/cmake/write_docs.cmake
  COMMENT "Writing the man page and bash completion from shardscope's verb table"
  VERBATIM)
add_custom_target(shardscope_docs ALL DEPENDS ${SHARDSCOPE_GENERATED_DOCS}/shardscope.1.gz
                                              ${SHARDSCOPE_GENERATED_DOCS}/shardscope.bash-completion)

# ---- install rules ----
install(TARGETS shardscope RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET shardscope-runner)
  install(TARGETS shardscope-runner RUNTIME DESTINATION ${SHARDSCOPE_RUNNER_INSTALL_DIR})
  if(SHARDSCOPE_CUDA)
    # A CUDA LibTorch comes from a PyTorch wheel, not from the system's library path: keep its folder in the
    # installed runner's RUNPATH (the build tree's folders are dropped as usual).
    set_target_properties(shardscope-runner PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
  endif()
endif()
install(FILES ${SHARDSCOPE_GENERATED_DOCS}/shardscope.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${SHARDSCOPE_GENERATED_DOCS}/shardscope.bash-completion
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME shardscope)
if(SHARDSCOPE_WITH_GUI)
  install(FILES ${CMAKE_SOURCE_DIR}/packaging/shardscope.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
  install(FILES ${CMAKE_SOURCE_DIR}/packaging/shardscope.svg
          DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
endif()
install(FILES ${CMAKE_SOURCE_DIR}/packaging/shardscope-mime.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/mime/packages
        RENAME shardscope.xml)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/samples/ DESTINATION ${CMAKE_INSTALL_DATADIR}/shardscope/samples
        FILES_MATCHING PATTERN "*.plan.json" PATTERN "gen" EXCLUDE)
install(FILES ${CMAKE_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)

# ---- Debian package (scripts/package.sh: cpack -G DEB) ----
# Depends are computed by dpkg-shlibdeps from the installed binaries' NEEDED libraries (LibTorch, GLFW, simdjson,
# seccomp, ...; Gloo comes with LibTorch's own package), never listed by hand; scripts/package_check.sh compares
# them with `readelf -d` and installs the package into a fresh Debian 12 root.
if(SHARDSCOPE_CUDA)
  # The GPU build: its own name, in place of the CPU package (same files).
  set(CPACK_PACKAGE_NAME shardscope-cuda)
  set(CPACK_DEBIAN_PACKAGE_CONFLICTS shardscope)
  set(CPACK_DEBIAN_PACKAGE_REPLACES shardscope)
  set(CPACK_DEBIAN_PACKAGE_PROVIDES shardscope)
  # The wheel's LibTorch is no Debian package: dpkg-shlibdeps finds its libraries here (untested: no CUDA
  # LibTorch on the build machines).
  get_directory_property(SHARDSCOPE_TORCH_PREFIX DIRECTORY ${CMAKE_SOURCE_DIR}/runner DEFINITION TORCH_INSTALL_PREFIX)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${SHARDSCOPE_TORCH_PREFIX}/lib)
else()
  set(CPACK_PACKAGE_NAME shardscope)
endif()
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "shardscope developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "inspector for tensor sharding plans (DTensor, autoparallel, AutoSP)")
# OpenBLAS is recommended, not required: Debian's LibTorch does its float32 matrix products through whatever
# libblas.so.3 the alternatives system selects, which on a fresh machine is netlib's reference BLAS (~8 GFLOP/s
# on 2 cores, against ~265 with libopenblas0-pthread: shared/design/DEPENDENCIES.md "BLAS"). Runs work either
# way; apt installs recommends by default. zenity gives the app a native file dialog.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "${CPACK_PACKAGE_DESCRIPTION_SUMMARY}
 shardscope loads an aten compute graph (torch FX text, an autoparallel solution
 export, a TORCH_TRACE log, or its own *.plan.json) with its placement solution,
 shows each tensor's layout on the device mesh, flags incompatible placements and
 missing redistributes with the collective that fixes them, and re-runs the plan
 on local ranks with LibTorch against a single-device reference.
 .
 libopenblas0-pthread (recommended) makes those runs' float32 matrix products
 about 30 times faster than the reference BLAS a fresh system selects.")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libopenblas0-pthread")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "zenity")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # <name>_<version>_<arch>.deb
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
include(CPack)
