# Installation: headers, libtessera (and libtessera_fortran with its module), the CMake package
# (TesseraConfig.cmake: find_package(Tessera) from C, C++ or Fortran projects) and two pkg-config
# files, tessera.pc for C++ and tessera-c.pc for C. See docs/c-api.md and docs/fortran.md.
install(DIRECTORY include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS tessera EXPORT TesseraTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT TesseraTargets NAMESPACE Tessera:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Tessera)
if(TESSERA_BUILD_FORTRAN)
  # A separate export set: only a project with Fortran enabled loads it (TesseraConfig.cmake).
  install(TARGETS tessera_fortran EXPORT TesseraFortranTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(DIRECTORY ${TESSERA_FORTRAN_MODULE_DIR}/ DESTINATION ${TESSERA_FORTRAN_MODULE_INSTALL_DIR})
  install(EXPORT TesseraFortranTargets NAMESPACE Tessera:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Tessera)
endif()

# What a project without C++ must add to link the static C++ library: the C++ compiler's runtime
# libraries that the C compiler does not link by itself (GCC: stdc++ and m).
set(TESSERA_CXX_RUNTIME ${CMAKE_CXX_IMPLICIT_LINK_LIBRARIES})
if(CMAKE_C_IMPLICIT_LINK_LIBRARIES)
  list(REMOVE_ITEM TESSERA_CXX_RUNTIME ${CMAKE_C_IMPLICIT_LINK_LIBRARIES})
endif()
list(REMOVE_DUPLICATES TESSERA_CXX_RUNTIME)
list(TRANSFORM TESSERA_CXX_RUNTIME PREPEND "-l" OUTPUT_VARIABLE tessera_cxx_runtime_flags)
list(JOIN tessera_cxx_runtime_flags " " TESSERA_PC_CXX_RUNTIME)

# The pkg-config names of the MPI and of the MPI build of HDF5 (Debian's names).
if(TESSERA_MPI_NAME MATCHES "^Open MPI")
  set(TESSERA_PC_MPI ompi-c)
  set(TESSERA_PC_HDF5 hdf5-openmpi)
  set(TESSERA_HDF5_DEBIAN_PACKAGE libhdf5-openmpi-dev)
elseif(TESSERA_MPI_NAME MATCHES "^MPICH")
  set(TESSERA_PC_MPI mpich)
  set(TESSERA_PC_HDF5 hdf5-mpich)
  set(TESSERA_HDF5_DEBIAN_PACKAGE libhdf5-mpich-dev)
else()  # an MPI tessera cannot name: pkg-config users add its flags themselves
  set(TESSERA_PC_MPI "")
  set(TESSERA_PC_HDF5 hdf5)
  set(TESSERA_HDF5_DEBIAN_PACKAGE "the MPI build of HDF5")
endif()

configure_package_config_file(cmake/TesseraConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/TesseraConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Tessera)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/TesseraConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/TesseraConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/TesseraConfigVersion.cmake
              cmake/TesseraMpiIdentity.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Tessera)
# The .pc files locate the prefix from their own folder, so an installation can be moved.
file(RELATIVE_PATH TESSERA_PC_TO_PREFIX /root/${CMAKE_INSTALL_LIBDIR}/pkgconfig /root)
configure_file(cmake/tessera.pc.in ${CMAKE_CURRENT_BINARY_DIR}/tessera.pc @ONLY)
configure_file(cmake/tessera-c.pc.in ${CMAKE_CURRENT_BINARY_DIR}/tessera-c.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tessera.pc ${CMAKE_CURRENT_BINARY_DIR}/tessera-c.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
