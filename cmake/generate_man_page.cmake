# Writes gpuwatch.1 with help2man: the NAME, SYNOPSIS and OPTIONS from
# `gpuwatch --help`, then a COMMANDS section with every subcommand's own
# --help, so that the page can never disagree with the binary.
#   cmake -DGPUWATCH=<binary> -DHELP2MAN=<help2man> -DEXTRA=<man-extra.h2m> -DOUTPUT=<gpuwatch.1>
#         -P generate_man_page.cmake
foreach(var GPUWATCH HELP2MAN EXTRA OUTPUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "generate_man_page.cmake: -D${var}=... is required")
  endif()
endforeach()

# Run by name from PATH, so that the usage lines say "gpuwatch", not the build path.
get_filename_component(bin_dir "${GPUWATCH}" DIRECTORY)
set(run_by_name ${CMAKE_COMMAND} -E env "PATH=${bin_dir}:$ENV{PATH}")

function(help_of out_var)
  execute_process(COMMAND ${run_by_name} gpuwatch ${ARGN} --help RESULT_VARIABLE rc OUTPUT_VARIABLE text ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    list(JOIN ARGN " " words)
    message(FATAL_ERROR "gpuwatch ${words} --help failed (${rc}): ${err}")
  endif()
  set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

# The names in the "Subcommands:" block of a help text (CLI11 indents each
# name by two spaces; wrapped descriptions are indented further).
function(subcommands_of help out_var)
  # Only names are wanted: the descriptions' semicolons must not split lines.
  string(REPLACE ";" "," lines "${help}")
  string(REPLACE "\n" ";" lines "${lines}")
  set(names "")
  set(inside OFF)
  foreach(line IN LISTS lines)
    if(line MATCHES "^Subcommands:")
      set(inside ON)
    elseif(inside AND line MATCHES "^  ([a-z][a-z0-9-]*)( |$)")
      list(APPEND names "${CMAKE_MATCH_1}")
    elseif(inside AND NOT line MATCHES "^   ")
      set(inside OFF)
    endif()
  endforeach()
  set(${out_var} "${names}" PARENT_SCOPE)
endfunction()

# Help text as roff that is printed as it is: no filling, backslashes
# escaped, no line read as a request.
function(as_roff text out_var)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out_var} ".nf\n${text}.fi\n" PARENT_SCOPE)
endfunction()

help_of(top)
subcommands_of("${top}" commands)
if(NOT commands)
  message(FATAL_ERROR "no subcommands found in `gpuwatch --help`")
endif()
set(section "[COMMANDS]\nEach command's options, as its \\fB\\-\\-help\\fR prints them.\n")
foreach(cmd IN LISTS commands)
  help_of(help ${cmd})
  as_roff("${help}" roff)
  string(APPEND section ".SS \"gpuwatch ${cmd}\"\n${roff}")
  subcommands_of("${help}" nested)
  foreach(sub IN LISTS nested)
    help_of(help ${cmd} ${sub})
    as_roff("${help}" roff)
    string(APPEND section ".SS \"gpuwatch ${cmd} ${sub}\"\n${roff}")
  endforeach()
endforeach()

file(READ "${EXTRA}" extra)
set(include "${OUTPUT}.h2m")
file(WRITE "${include}" "${section}\n${extra}")
execute_process(
  COMMAND ${run_by_name} ${HELP2MAN} --no-info --no-discard-stderr --section=1
          "--name=record GPU and host metrics while a command runs, and explain them"
          "--include=${include}" "--output=${OUTPUT}" ${GPUWATCH}
  RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "help2man failed (${rc}): ${err}")
endif()
