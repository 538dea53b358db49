#!/usr/bin/env bash
# Installs what warplab needs on a Debian/Ubuntu machine, when it is missing
# and when this user can: a C compiler, CMake, and PoCL with the OpenCL
# headers (so that the opencl backend runs real kernels on the CPU). The CUDA
# toolkit is used when nvcc is on PATH or in /usr/local/cuda; it is never
# installed here. Without apt or root, it says what is missing and goes on:
# the cpu backend needs nothing more than a C compiler and CMake.
set -uo pipefail

[ -d /usr/local/cuda/bin ] && case ":$PATH:" in *:/usr/local/cuda/bin:*) ;; *) export PATH="$PATH:/usr/local/cuda/bin" ;; esac

# Whether any of the paths exists (the globs expanded by the caller; one
# that matches nothing stays as written and does not exist).
any_exists() {
    for path in "$@"; do [ -e "$path" ] && return 0; done
    return 1
}

missing=()
command -v cmake >/dev/null 2>&1 || missing+=(cmake)
command -v cc >/dev/null 2>&1 || missing+=(build-essential)
command -v make >/dev/null 2>&1 || missing+=(make)
[ -e /usr/include/CL/cl.h ] || missing+=(opencl-headers)
any_exists /usr/lib/*/libOpenCL.so /usr/lib/libOpenCL.so || missing+=(ocl-icd-opencl-dev)
any_exists /etc/OpenCL/vendors/*.icd || missing+=(pocl-opencl-icd)

# WARPLAB_SETUP_DRY_RUN=1: say what is missing, install nothing (tests).
if [ -n "${WARPLAB_SETUP_DRY_RUN:-}" ]; then
    echo "missing: ${missing[*]}"
    exit 0
fi
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo -n"; fi
fi
if command -v apt-get >/dev/null 2>&1 && { [ "$(id -u)" = 0 ] || [ -n "$sudo" ]; }; then
    echo "warplab setup: installing ${missing[*]}" >&2
    if $sudo apt-get update -qq >/dev/null 2>&1 &&
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1; then
        exit 0
    fi
    echo "warplab setup: could not install ${missing[*]} (offline?); continuing without" >&2
else
    echo "warplab setup: missing ${missing[*]}; install them (apt-get install ${missing[*]}) for" \
        "the OpenCL backend; continuing without" >&2
fi
# cmake and a compiler are required; OpenCL is optional.
command -v cmake >/dev/null 2>&1 && command -v cc >/dev/null 2>&1
