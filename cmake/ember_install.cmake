# Install rules for the library alone (headers, libember.a, CMake package config) and the
# Debian package that carries the same files: `cpack -G DEB` in a build tree.
include(CMakePackageConfigHelpers)
install(TARGETS ember EXPORT emberTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY include/ember DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT emberTargets NAMESPACE ember:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ember)
configure_package_config_file(cmake/emberConfig.cmake.in
  ${PROJECT_BINARY_DIR}/emberConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ember)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/emberConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/emberConfig.cmake
              ${PROJECT_BINARY_DIR}/emberConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ember)

# ---- Debian package: libember-dev, the same files under /usr.
set(CPACK_PACKAGE_NAME libember-dev)
set(CPACK_PACKAGE_VENDOR ember)
set(CPACK_PACKAGE_CONTACT "ember maintainers <ember@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "ember: a C++20 dataframe engine for batch inference (static library, headers, CMake package)")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libdevel)
# A consumer links libember.a against simdjson (found through its CMake package), the Parquet
# page codecs and the expression libraries (RE2, utf8proc, xxHash; linked by name) and, with the MPI runner built in, Open MPI.
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "libsimdjson-dev, libsnappy-dev, libzstd-dev, zlib1g-dev, liblz4-dev, libre2-dev, libutf8proc-dev, libxxhash-dev, libcurl4-openssl-dev, libpugixml-dev")
if(EMBER_MPI)
  string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS ", libopenmpi-dev")
endif()
set(CPACK_GENERATOR DEB)
# cpack installs the whole build tree; only the library's rules exist, so the package holds
# nothing else even when tests, examples and benchmarks are built.
include(CPack)
