#!/usr/bin/env bash
# scripts/setup.sh's checks: what it would install (WARPLAB_SETUP_DRY_RUN)
# agrees with what the machine has, so that `make` does not rerun apt-get
# for a package that is there (the OpenCL loader lives in /usr/lib/<triplet>
# on Debian, not in /usr/lib).
#   setup_check.sh SOURCE_DIR
out=$(WARPLAB_SETUP_DRY_RUN=1 bash "$1/scripts/setup.sh" 2>&1) || { echo "FAIL: setup.sh failed"; exit 1; }
echo "setup.sh says: $out"
failures=0
has() { for path in "$@"; do [ -e "$path" ] && return 0; done; return 1; }
check() { # check PACKAGE PRESENT(0/1)
    if [ "$2" = 1 ] && [[ " $out " == *" $1 "* ]]; then
        echo "FAIL: $1 is installed but reported missing"; failures=$((failures + 1))
    elif [ "$2" = 0 ] && [[ " $out " != *" $1 "* ]]; then
        echo "FAIL: $1 is missing but not reported"; failures=$((failures + 1))
    else
        echo "ok: $1 ($([ "$2" = 1 ] && echo present || echo missing))"
    fi
}
has /usr/lib/*/libOpenCL.so /usr/lib/libOpenCL.so && check ocl-icd-opencl-dev 1 || check ocl-icd-opencl-dev 0
has /etc/OpenCL/vendors/*.icd && check pocl-opencl-icd 1 || check pocl-opencl-icd 0
has /usr/include/CL/cl.h && check opencl-headers 1 || check opencl-headers 0
exit $((failures > 0))
