# The layers of the program, each a static library whose link dependencies point one way.
#
#   verity_layer(<target> SOURCES <file>... [DEPENDS <layer>...] [LIBS <library>...])
#
# A layer may depend only on layers declared before it, so no cycle can be written down.
# At build time every quoted include of a source that names a folder ("finance/x.h") is
# checked against the folders of the layer and of the layers below it: an include that reaches
# up or sideways fails the build and says which file and which include.

function(verity_layer name)
    set(check "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/CheckLayer.cmake")
    cmake_parse_arguments(ARG "" "" "SOURCES;DEPENDS;LIBS" ${ARGN})
    set(allowed "")
    foreach(dep IN LISTS ARG_DEPENDS)
        get_property(known GLOBAL PROPERTY VERITY_LAYER_FOLDERS_${dep} SET)
        if(NOT known)
            message(FATAL_ERROR "layer ${name} depends on ${dep}, which is not a layer declared before it: "
                                "dependencies point down, so a layer may use only the layers below it")
        endif()
        get_property(below GLOBAL PROPERTY VERITY_LAYER_FOLDERS_${dep})
        list(APPEND allowed ${below})
    endforeach()

    set(absolute "")
    set(own "")
    foreach(source IN LISTS ARG_SOURCES)
        get_filename_component(path "${source}" ABSOLUTE)
        list(APPEND absolute "${path}")
        # A layer's folder is the first folder under models/ (or ui, app) its files live in.
        file(RELATIVE_PATH relative "${PROJECT_SOURCE_DIR}" "${path}")
        string(REGEX REPLACE "^models/" "" relative "${relative}")
        string(REGEX MATCH "^[^/]+" folder "${relative}")
        list(APPEND own "${folder}")
    endforeach()
    list(REMOVE_DUPLICATES own)
    list(APPEND allowed ${own})
    list(REMOVE_DUPLICATES allowed)
    set_property(GLOBAL PROPERTY VERITY_LAYER_FOLDERS_${name} ${allowed})

    add_library(${name} STATIC ${ARG_SOURCES})
    target_link_libraries(${name} PUBLIC verity_common ${ARG_DEPENDS} ${ARG_LIBS})
    # The first layer precompiles the common headers; every later one reuses them.
    if(VERITY_PCH)
        get_property(first GLOBAL PROPERTY VERITY_PCH_LAYER)
        if(first)
            target_precompile_headers(${name} REUSE_FROM ${first})
        else()
            target_precompile_headers(${name} PRIVATE ${VERITY_PCH_HEADERS})
            set_property(GLOBAL PROPERTY VERITY_PCH_LAYER ${name})
        endif()
    endif()

    set(config "${CMAKE_CURRENT_BINARY_DIR}/${name}-layer.cmake")
    set(stamp "${CMAKE_CURRENT_BINARY_DIR}/${name}-layer.stamp")
    file(GENERATE OUTPUT "${config}" CONTENT
         "set(LAYER ${name})\nset(ALLOWED \"${allowed}\")\nset(SOURCES \"${absolute}\")\n")
    add_custom_command(OUTPUT "${stamp}"
        COMMAND ${CMAKE_COMMAND} -DCONFIG=${config} -DSTAMP=${stamp} -P ${check}
        DEPENDS ${absolute} ${check} "${config}"
        COMMENT "Checking that ${name} includes only the layers below it"
        VERBATIM)
    add_custom_target(${name}_layers DEPENDS "${stamp}")
    add_dependencies(${name} ${name}_layers)
endfunction()
