# Public header mpi.h: copied into the build tree's include/ at configure time
# (so the mpicc wrapper and tests in the build tree find it next to lib/), and
# installed into <prefix>/include.  Include this file from src/api/CMakeLists.txt.
#
# Also provides the INTERFACE target railmpi_mpi_h, which carries the include
# directory (build tree or install tree) for targets that include <mpi.h>.
include_guard(GLOBAL)
include(GNUInstallDirs)

set(RAILMPI_PUBLIC_INCLUDE_DIR "${CMAKE_BINARY_DIR}/include"
    CACHE INTERNAL "Directory of the public mpi.h in the build tree")

configure_file("${CMAKE_CURRENT_LIST_DIR}/mpi.h" "${RAILMPI_PUBLIC_INCLUDE_DIR}/mpi.h" COPYONLY)

install(FILES "${CMAKE_CURRENT_LIST_DIR}/mpi.h" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")

if(NOT TARGET railmpi_mpi_h)
  add_library(railmpi_mpi_h INTERFACE)
  target_include_directories(railmpi_mpi_h INTERFACE
    "$<BUILD_INTERFACE:${RAILMPI_PUBLIC_INCLUDE_DIR}>"
    "$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>")
endif()
