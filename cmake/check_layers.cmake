# Fails when a folder of src/ includes a folder it may not use, when a
# command folder includes another command's, or when code below cli/ reads
# the environment. Run by the target gpuwatch_check_layers
# (src/CMakeLists.txt), which passes
#   SOURCE_DIR  the src/ folder
#   LAYERS      "core: base:core backends:core,base ...": each layer and the
#               layers it may use, as gpuwatch_layer() declared them
#   COMMANDS    "record,matrix,...": the folders of commands, which may never
#               use one another (what two share moves down to a layer)
# The linker would catch a wrong include only when it calls something not yet
# linked; this catches every one, with the file and the rule it breaks. The
# rules have no exceptions: docs/architecture.md says where code goes instead.
cmake_minimum_required(VERSION 3.22)

string(REPLACE " " ";" layers "${LAYERS}")
string(REPLACE "," ";" COMMANDS "${COMMANDS}")
set(violations "")
foreach(layer IN LISTS layers)
  string(REGEX REPLACE ":.*" "" name "${layer}")
  string(REGEX REPLACE "^[^:]*:" "" uses "${layer}")
  string(REPLACE "," ";" allowed "${uses}")
  if(name IN_LIST COMMANDS)
    foreach(used IN LISTS allowed)
      if(used IN_LIST COMMANDS)
        string(APPEND violations "  src/CMakeLists.txt: the command ${name} uses the command ${used}: commands never use one another\n")
      endif()
    endforeach()
  endif()
  if(allowed)
    string(REPLACE "," ", " allowed_text "${uses}")
    set(rule "${name} may use only ${allowed_text}")
  else()
    set(rule "${name} may use no other folder")
  endif()
  file(GLOB_RECURSE sources RELATIVE "${SOURCE_DIR}" "${SOURCE_DIR}/${name}/*.h" "${SOURCE_DIR}/${name}/*.cpp")
  foreach(source IN LISTS sources)
    file(STRINGS "${SOURCE_DIR}/${source}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"[^\"/]+/")
    foreach(line IN LISTS includes)
      string(REGEX REPLACE "^[^\"]*\"([^\"]*)\".*" "\\1" header "${line}")
      string(REGEX REPLACE "/.*" "" folder "${header}")
      if(NOT folder STREQUAL name AND NOT folder IN_LIST allowed)
        string(APPEND violations "  src/${source} includes ${header}: ${rule}\n")
      endif()
    endforeach()
  endforeach()
endforeach()

# Only cli/ reads the environment (through base/environment.cpp, the one
# reader, whose header only cli/ includes) and passes the values down: a
# library that read a variable itself would hide what it depends on from its
# callers and its tests.
file(GLOB_RECURSE all_sources RELATIVE "${SOURCE_DIR}" "${SOURCE_DIR}/*.h" "${SOURCE_DIR}/*.cpp")
foreach(source IN LISTS all_sources)
  if(source MATCHES "^cli/" OR source STREQUAL "base/environment.cpp")
    continue()
  endif()
  file(STRINGS "${SOURCE_DIR}/${source}" reads
       REGEX "(^|[^A-Za-z0-9_])(getenv|secure_getenv|environ)[ \t]*[(;]|#[ \t]*include[ \t]*\"base/environment\\.h\"")
  foreach(line IN LISTS reads)
    string(STRIP "${line}" line)
    if(line MATCHES "^//")  # a comment that names one
      continue()
    endif()
    string(APPEND violations "  src/${source} reads the environment (${line}): only cli/ may; pass the value down\n")
  endforeach()
endforeach()

if(violations)
  message(FATAL_ERROR "Includes across layers that src/CMakeLists.txt does not allow:\n${violations}"
                      "Pass the data down from the layer that may read it, or move the code down.")
endif()
