# The layer rules as build errors (docs/ARCHITECTURE.md). Each library is
# linked alone into a do-nothing program that takes every one of its objects
# (whole archive), with nothing else on the link line than what the library
# itself declares. A call into a part it does not link (the room into
# libwebsockets, probe/ into the store) is then an undefined reference and
# the build fails. --no-as-needed keeps every shared library of the link
# line in the program's NEEDED entries, which tests/layers/test_layers.sh
# reads: the room's line must not carry libwebsockets even unused.
set(FRAGVOTE_LINK_ALONE_MAIN ${CMAKE_BINARY_DIR}/layers/link_alone_main.c)
file(WRITE ${FRAGVOTE_LINK_ALONE_MAIN} "int main(void) { return 0; }\n")
function(fragvote_link_alone lib)
  add_executable(link_alone_${lib} ${FRAGVOTE_LINK_ALONE_MAIN})
  target_link_libraries(link_alone_${lib} PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,${lib}>")
  target_link_options(link_alone_${lib} PRIVATE -Wl,--no-as-needed)
  set_target_properties(link_alone_${lib} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/layers)
endfunction()
foreach(lib fragclock fragmsg fragscore fragqkind fragprobewire fragprobe fragdb fragcommon fragmeasure fragdeck fragproberapi fragroom fragprobeworker fragprivsep fraghub
            fragconsole fragexport fragreplay fragcli fraglaptop fragcheck fragcommands)
  fragvote_link_alone(${lib})
endforeach()
