# Run at build time (cmake -P) by the shardscope_docs target (cmake/install.cmake): asks the built `shardscope`
# for its man page and bash completion (both made from its verb table, app/cli/manual.cpp) and writes them into
# OUT_DIR, the man page also gzipped (-n: no name or time stamp, so the package is reproducible).
# In: SHARDSCOPE (the executable), OUT_DIR.
file(MAKE_DIRECTORY "${OUT_DIR}")
foreach(pair "--man-page;shardscope.1" "--bash-completion;shardscope.bash-completion")
  list(GET pair 0 flag)
  list(GET pair 1 name)
  execute_process(COMMAND "${SHARDSCOPE}" ${flag} OUTPUT_FILE "${OUT_DIR}/${name}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "shardscope ${flag} failed (${rc})")
  endif()
endforeach()
find_program(GZIP_EXECUTABLE gzip REQUIRED)
execute_process(COMMAND "${GZIP_EXECUTABLE}" -9nc INPUT_FILE "${OUT_DIR}/shardscope.1"
                OUTPUT_FILE "${OUT_DIR}/shardscope.1.gz" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gzip of the man page failed (${rc})")
endif()
