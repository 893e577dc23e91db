#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Install what the build needs and a fresh Debian/Ubuntu machine may lack:
# libpng (PNG images) always, cmocka (the tests) with --tests. Sourced by
# run.sh and test.sh; does nothing when the headers are already there, or
# when CMAKE_PREFIX_PATH points at unpacked packages (the GPU machines).
gp_install_deps() {
    local want=()
    [ -n "${CMAKE_PREFIX_PATH:-}" ] && return 0
    [ -f /usr/include/png.h ] || [ -f /usr/include/libpng16/png.h ] || want+=(libpng-dev)
    if [ "${1:-}" = --tests ]; then
        [ -f /usr/include/cmocka.h ] || want+=(libcmocka-dev)
        command -v pkg-config >/dev/null || want+=(pkg-config)
    fi
    [ ${#want[@]} -eq 0 ] && return 0
    echo "== installing ${want[*]}"
    local sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${want[@]}" >/dev/null
}
