# What `cmake --install` puts where (docs/install.md): gpuwatch and its bench
# workers side by side in bin/ (gpuwatch looks for the workers next to
# itself), the man page when help2man is there, and bash and zsh completions.
# Included from the top-level CMakeLists.txt after the targets exist; the
# workers' own CMakeLists install them, since they also build stand-alone.

install(TARGETS gpuwatch RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

install(FILES ${PROJECT_SOURCE_DIR}/contrib/completions/gpuwatch.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME gpuwatch)
install(FILES ${PROJECT_SOURCE_DIR}/contrib/completions/_gpuwatch
        DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/site-functions)

# The man page runs the freshly built binary, which a cross build cannot do,
# and a sanitizer build is never installed.
find_program(HELP2MAN_EXECUTABLE help2man)
if(HELP2MAN_EXECUTABLE AND NOT CMAKE_CROSSCOMPILING AND NOT GPUWATCH_SANITIZE)
  set(gpuwatch_man_default ON)
else()
  set(gpuwatch_man_default OFF)
endif()
option(GPUWATCH_MAN "Generate and install the man page gpuwatch.1 from --help (needs help2man)" ${gpuwatch_man_default})
if(GPUWATCH_MAN)
  if(NOT HELP2MAN_EXECUTABLE)
    message(FATAL_ERROR "GPUWATCH_MAN is ON but help2man was not found (Debian: help2man)")
  endif()
  set(gpuwatch_man ${CMAKE_BINARY_DIR}/gpuwatch.1)
  add_custom_command(OUTPUT ${gpuwatch_man}
    COMMAND ${CMAKE_COMMAND} -DGPUWATCH=$<TARGET_FILE:gpuwatch> -DHELP2MAN=${HELP2MAN_EXECUTABLE}
            -DEXTRA=${PROJECT_SOURCE_DIR}/contrib/man-extra.h2m -DOUTPUT=${gpuwatch_man}
            -P ${PROJECT_SOURCE_DIR}/cmake/generate_man_page.cmake
    DEPENDS gpuwatch ${PROJECT_SOURCE_DIR}/cmake/generate_man_page.cmake ${PROJECT_SOURCE_DIR}/contrib/man-extra.h2m
    COMMENT "Generating the man page gpuwatch.1 from --help"
    VERBATIM)
  add_custom_target(gpuwatch_man ALL DEPENDS ${gpuwatch_man})
  install(FILES ${gpuwatch_man} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
elseif(NOT HELP2MAN_EXECUTABLE)
  message(STATUS "help2man not found (Debian: help2man): the man page is not generated or installed")
endif()

# Say where gpuwatch went, and how to reach it by name when that directory is
# not on PATH (e.g. ~/.local/bin before the next login on Debian and Ubuntu).
install(CODE "set(gpuwatch_bindir [[${CMAKE_INSTALL_BINDIR}]])")
install(SCRIPT ${PROJECT_SOURCE_DIR}/cmake/install_path_hint.cmake)

if(GPUWATCH_TESTS)
  # Installs this build into a scratch prefix and checks what landed there.
  set(gpuwatch_workers "")
  foreach(worker gpuwatch-bench-torch gpuwatch-bench-cuda)
    if(TARGET ${worker})
      list(APPEND gpuwatch_workers ${worker})
    endif()
  endforeach()
  list(JOIN gpuwatch_workers "," gpuwatch_workers)
  add_test(NAME install_tree
    COMMAND ${PROJECT_SOURCE_DIR}/tests/install/check_install.sh ${CMAKE_BINARY_DIR}
            ${GPUWATCH_MAN} "${gpuwatch_workers}")
  # 77: the shell that a check needs (zsh) is not installed here.
  set_tests_properties(install_tree PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77 LABELS plain)
  # The README's first command installs only the build and run group.
  add_test(NAME install_deps_groups COMMAND ${PROJECT_SOURCE_DIR}/tests/install/check_deps_groups.sh)
endif()
