# `cmake --install`: bin/dem, the public headers, the library, a CMake package (dem::dem) and dem.pc, and the schemes and examples under share/dem.
#
# The library is static. Its only public API is include/dem/ (dem_run and
# the status codes); everything else in it is internal and changes with
# each version, so a program that links a copy keeps working whatever dem
# is installed later, and bin/dem needs no rpath. The price: a program
# linking libdemcore.a also links what dem uses (OpenMP, HDF5, libyaml,
# libm), which demConfig.cmake finds (find_dependency) and dem.pc lists.
include(CMakePackageConfigHelpers)

set(DEM_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/dem)
set(DEM_DATA_DIR ${CMAKE_INSTALL_DATADIR}/dem)

# The executable is installed, not exported: dem::dem names the library.
install(TARGETS dem RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS demcore EXPORT demTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/dem DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
install(EXPORT demTargets NAMESPACE dem:: DESTINATION ${DEM_CMAKE_DIR})

configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/demConfig.cmake.in
  ${CMAKE_BINARY_DIR}/demConfig.cmake
  INSTALL_DESTINATION ${DEM_CMAKE_DIR}
  PATH_VARS DEM_DATA_DIR)
# Before 1.0 a minor version may change the API.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/demConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/demConfig.cmake ${CMAKE_BINARY_DIR}/demConfigVersion.cmake
        DESTINATION ${DEM_CMAKE_DIR})

# dem.pc finds its prefix from its own place (${pcfiledir}), because
# `cmake --install build --prefix P` chooses the prefix after configuring.
file(RELATIVE_PATH DEM_PC_TO_PREFIX /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
string(REGEX REPLACE "/$" "" DEM_PC_TO_PREFIX "${DEM_PC_TO_PREFIX}")
set(DEM_PC_PREFIX "\${pcfiledir}/${DEM_PC_TO_PREFIX}")
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(DEM_PC_PREFIX "${CMAKE_INSTALL_PREFIX}") # not relocatable then
endif()
# HDF5 through its own pkg-config module where there is one (Debian's
# libhdf5-dev has hdf5.pc), else the libraries CMake found.
pkg_check_modules(DEM_HDF5_PC QUIET hdf5)
set(DEM_PC_REQUIRES "yaml-0.1")
set(DEM_PC_LIBS "${OpenMP_C_FLAGS} -lm")
if(DEM_HDF5_PC_FOUND)
  string(APPEND DEM_PC_REQUIRES " hdf5")
else()
  list(JOIN HDF5_C_LIBRARIES " " hdf5_libs)
  string(PREPEND DEM_PC_LIBS "${hdf5_libs} ")
endif()
if(DEM_SANITIZE)
  string(APPEND DEM_PC_LIBS " -fsanitize=address,undefined")
endif()
configure_file(${CMAKE_SOURCE_DIR}/cmake/dem.pc.in ${CMAKE_BINARY_DIR}/dem.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/dem.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The named schemes (also compiled into dem) and the examples, to copy and
# edit; box_chess.yaml finds its sphere packs in examples/chess/.
install(DIRECTORY ${CMAKE_SOURCE_DIR}/configs/schemes/ DESTINATION ${DEM_DATA_DIR}/schemes)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/examples/ DESTINATION ${DEM_DATA_DIR}/examples)
