# shardscope_add_core(TARGET [COMPILE_OPTIONS opt...]): the one recipe for the core library, used by the
# product build and by the fuzz build (which compiles core again with coverage and sanitizer flags).
# Core is plain C++20 + nlohmann/json (+ simdjson, private): no ImGui, GL, GLFW or Torch include.
function(shardscope_add_core target)
  cmake_parse_arguments(ARG "" "" "COMPILE_OPTIONS" ${ARGN})
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/core/*.cpp)
  add_library(${target} STATIC ${sources})
  target_include_directories(${target} PUBLIC ${CMAKE_SOURCE_DIR})
  target_link_libraries(${target} PUBLIC nlohmann_json::nlohmann_json Threads::Threads)
  target_link_libraries(${target} PRIVATE simdjson::simdjson)
  target_compile_definitions(${target} PUBLIC SHARDSCOPE_VERSION="${PROJECT_VERSION}"
    SHARDSCOPE_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
  if(ARG_COMPILE_OPTIONS)
    target_compile_options(${target} PRIVATE ${ARG_COMPILE_OPTIONS})
  endif()
endfunction()
