# Fails when a folder of src/ includes a folder it may not use. Run by the
# target gpuwatch_check_layers (src/CMakeLists.txt), which passes
#   SOURCE_DIR  the src/ folder
#   LAYERS      "core: backends:core render:core,backends,live,analysis ...":
#               each layer and the layers it may use, as gpuwatch_layer()
#               declared them
# The linker would catch a wrong include only when it calls something not yet
# linked; this catches every one, with the file and the rule it breaks.
cmake_minimum_required(VERSION 3.22)

string(REPLACE " " ";" layers "${LAYERS}")
set(violations "")
foreach(layer IN LISTS layers)
  string(REGEX REPLACE ":.*" "" name "${layer}")
  string(REGEX REPLACE "^[^:]*:" "" uses "${layer}")
  string(REPLACE "," ";" allowed "${uses}")
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
if(violations)
  message(FATAL_ERROR "Includes across layers that src/CMakeLists.txt does not allow:\n${violations}"
                      "Pass the data down from the layer that may read it, or move the code up.")
endif()
