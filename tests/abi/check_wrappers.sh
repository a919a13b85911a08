#!/bin/sh
# Check the build-tree mpicc/mpicxx wrappers without needing libmpi:
# compile-only builds, -show / -compile-info / -link-info output, overrides.
#
#   check_wrappers.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -u
build=$1 src=$2 work=$3
mpicc=$build/bin/mpicc mpicxx=$build/bin/mpicxx
mkdir -p "$work" || exit 1
fail=0
check() {  # check DESCRIPTION EXPECTED ACTUAL
    if [ "$2" = "$3" ]; then
        echo "ok: $1"
    else
        echo "FAIL: $1" >&2
        echo "  expected: $2" >&2
        echo "  actual:   $3" >&2
        fail=1
    fi
}

for w in "$mpicc" "$mpicxx"; do
    [ -x "$w" ] || { echo "FAIL: $w missing or not executable" >&2; exit 1; }
done

inc=$build/include lib=$build/lib
[ -f "$inc/mpi.h" ] || { echo "FAIL: $inc/mpi.h missing" >&2; exit 1; }

# Real compile-only runs (mpi.h found through the wrapper's -I).
"$mpicc" -std=c99 -Wall -Werror -c "$src/compile_c.c" -o "$work/c.o" && echo "ok: mpicc -c" \
    || { echo "FAIL: mpicc -c" >&2; fail=1; }
"$mpicxx" -std=c++20 -Wall -Werror -c "$src/compile_cxx.cpp" -o "$work/cxx.o" \
    && echo "ok: mpicxx -c" || { echo "FAIL: mpicxx -c" >&2; fail=1; }

unset RAILMPI_CC RAILMPI_CXX
check "mpicc -show (link)" \
    "cc -I$inc a.c -o a -L$lib -Wl,-rpath,$lib -lmpi" \
    "$("$mpicc" -show a.c -o a)"
check "mpicc -show (no arguments)" \
    "cc -I$inc -L$lib -Wl,-rpath,$lib -lmpi" \
    "$("$mpicc" -show)"
check "mpicc -show -c (no link flags)" \
    "cc -I$inc -c a.c" \
    "$("$mpicc" -show -c a.c)"
check "mpicc -show -E" "cc -I$inc -E a.c" "$("$mpicc" -show -E a.c)"
check "mpicc -show -S" "cc -I$inc -S a.c" "$("$mpicc" -show -S a.c)"
check "mpicc -show -M" "cc -I$inc -M a.c" "$("$mpicc" -show -M a.c)"
check "mpicc -compile-info" "cc -I$inc" "$("$mpicc" -compile-info)"
check "mpicc -link-info" "cc -L$lib -Wl,-rpath,$lib -lmpi" "$("$mpicc" -link-info)"
check "mpicxx -show" \
    "c++ -I$inc x.cpp -L$lib -Wl,-rpath,$lib -lmpi" \
    "$("$mpicxx" -show x.cpp)"
check "RAILMPI_CC override" "gcc-12 -I$inc -c a.c" "$(RAILMPI_CC=gcc-12 "$mpicc" -show -c a.c)"
check "RAILMPI_CXX override" "g++ -I$inc -c a.cpp" "$(RAILMPI_CXX=g++ "$mpicxx" -show -c a.cpp)"
check "-cc= option" "clang -I$inc -c a.c" "$("$mpicc" -cc=clang -show -c a.c)"
check "arguments with spaces are quoted" \
    "cc -I$inc -c 'my file.c' '-DX=a b'" \
    "$("$mpicc" -show -c 'my file.c' '-DX=a b')"

# Arguments with spaces survive the real run too.
mkdir -p "$work/dir with space"
printf '#include <mpi.h>\nint x = MPI_ANY_TAG;\n' > "$work/dir with space/t.c"
"$mpicc" -c "$work/dir with space/t.c" -o "$work/dir with space/t.o" \
    && echo "ok: paths with spaces" || { echo "FAIL: paths with spaces" >&2; fail=1; }

[ $fail -eq 0 ] && echo "PASS: wrappers"
exit $fail
