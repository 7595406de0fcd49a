# shardscope_add_core(TARGET [COMPILE_OPTIONS opt...]): the one recipe for the core library, used by the
# product build and by the fuzz build (which compiles core again with coverage and sanitizer flags).
# Core is plain C++20 + nlohmann/json (+ simdjson and libmd, private): no ImGui, GL, GLFW or Torch include.
# libmd (Debian libmd-dev): MD5 of TORCH_TRACE payloads (core/io/trace/md5.h).
find_library(SHARDSCOPE_LIBMD md REQUIRED)
find_path(SHARDSCOPE_LIBMD_INCLUDE_DIR md5.h REQUIRED)

function(shardscope_add_core target)
  cmake_parse_arguments(ARG "" "" "COMPILE_OPTIONS" ${ARGN})
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/core/*.cpp)
  add_library(${target} STATIC ${sources})
  target_include_directories(${target} PUBLIC ${CMAKE_SOURCE_DIR})
  target_link_libraries(${target} PUBLIC nlohmann_json::nlohmann_json Threads::Threads)
  target_link_libraries(${target} PRIVATE simdjson::simdjson ${SHARDSCOPE_LIBMD})
  target_compile_definitions(${target} PUBLIC SHARDSCOPE_VERSION="${PROJECT_VERSION}"
    SHARDSCOPE_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
  if(NOT SHARDSCOPE_LIBMD_INCLUDE_DIR STREQUAL "/usr/include")  # e.g. the GPU machine's .gpu_deps
    target_include_directories(${target} SYSTEM PUBLIC ${SHARDSCOPE_LIBMD_INCLUDE_DIR})
  endif()
  if(ARG_COMPILE_OPTIONS)
    target_compile_options(${target} PRIVATE ${ARG_COMPILE_OPTIONS})
  endif()
endfunction()
