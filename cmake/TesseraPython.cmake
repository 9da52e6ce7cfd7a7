# Decides whether the Python module (python/, docs/python.md) can be built, and sets the option
# TESSERA_BUILD_PYTHON. It needs, for one interpreter (TESSERA_PYTHON_EXECUTABLE, Debian's
# /usr/bin/python3 by default): pybind11's CMake package, NumPy and mpi4py, and an mpi4py built for
# the MPI of this build (asked of mpi4py). Debian's mpi4py is built for OpenMPI, so with MPICH the
# module is OFF.
# When something is missing the option defaults to OFF with one line saying why; forcing it ON
# then fails at configure time with the same reason.
set(TESSERA_PYTHON_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "Python interpreter the module is built for")

set(tessera_python_missing "")
if(NOT TESSERA_BUILD_TOOLS)
  set(tessera_python_missing "TESSERA_BUILD_TOOLS is OFF, and the module draws its pictures with the tool's code")
elseif(NOT EXISTS "${TESSERA_PYTHON_EXECUTABLE}")
  set(tessera_python_missing "no Python interpreter at ${TESSERA_PYTHON_EXECUTABLE}")
else()
  # One run of the interpreter: NumPy and mpi4py importable, mpi4py's include folder, and the MPI
  # library mpi4py is linked with (asked without initialising MPI).
  execute_process(
    COMMAND "${TESSERA_PYTHON_EXECUTABLE}" -c
            "import numpy, mpi4py; mpi4py.rc.initialize = False; from mpi4py import MPI; print(mpi4py.get_include()); print(MPI.Get_library_version().splitlines()[0])"
    OUTPUT_VARIABLE tessera_python_probe ERROR_VARIABLE tessera_python_probe_error
    RESULT_VARIABLE tessera_python_probe_status OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT tessera_python_probe_status EQUAL 0)
    string(REGEX MATCH "No module named '[^']*'" tessera_python_probe_error "${tessera_python_probe_error}")
    set(tessera_python_missing "${TESSERA_PYTHON_EXECUTABLE} cannot import NumPy and mpi4py (${tessera_python_probe_error})")
  else()
    string(REPLACE "\n" ";" tessera_python_probe "${tessera_python_probe}")
    list(GET tessera_python_probe 0 TESSERA_MPI4PY_INCLUDE_DIR)
    list(GET tessera_python_probe 1 tessera_mpi4py_library)
    tessera_mpi_flavour_of("${tessera_mpi4py_library}" tessera_mpi4py_flavour)
    if(NOT tessera_mpi4py_flavour)
      set(tessera_mpi4py_flavour "another MPI")
    endif()
    if(NOT tessera_mpi4py_flavour STREQUAL TESSERA_MPI_FLAVOUR)
      set(tessera_python_missing
          "the MPI is ${TESSERA_MPI_FLAVOUR}, and mpi4py is built for ${tessera_mpi4py_flavour} (${tessera_mpi4py_library})")
    else()
      # pybind11's classic Python lookup (FindPythonLibsNew), pointed at the chosen interpreter.
      set(PYBIND11_FINDPYTHON OFF)
      set(PYTHON_EXECUTABLE "${TESSERA_PYTHON_EXECUTABLE}")
      find_package(pybind11 CONFIG QUIET)
      if(NOT pybind11_FOUND)
        set(tessera_python_missing "pybind11's CMake package was not found (apt install pybind11-dev)")
      endif()
    endif()
  endif()
endif()

if(tessera_python_missing)
  set(tessera_python_default OFF)
else()
  set(tessera_python_default ${PROJECT_IS_TOP_LEVEL})
endif()
option(TESSERA_BUILD_PYTHON "Build the Python module 'import tessera' (docs/python.md)" ${tessera_python_default})
if(TESSERA_BUILD_PYTHON AND tessera_python_missing)
  message(FATAL_ERROR "TESSERA_BUILD_PYTHON is ON but ${tessera_python_missing}")
elseif(tessera_python_missing)
  message(STATUS "tessera: the Python module is OFF: ${tessera_python_missing}")
endif()
