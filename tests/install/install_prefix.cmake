# Fixture of the install.* consumer tests: installs the freshly built tessera into PREFIX.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
file(REMOVE_RECURSE ${PREFIX})
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX})
message("installed into ${PREFIX}")
