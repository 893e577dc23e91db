#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Install a built tree into a scratch prefix and use it as an outsider
# would: SONAMEs, exported symbols and dependencies of libgpuprim and
# libgpuprim-render; programs built against each pkg-config module
# (gpuprim, gpuprim-render), shared and static (--static); the CMake targets,
# shared and static (gpuprim::gpuprim, gpuprim::render, ..._static), with and
# without the CUDA toolkit; and the Debian packages, the renderer command
# included. Works on a build with CUDA and on one without (GPUPRIM_CUDA=OFF).
#   scripts/check-install.sh [build folder, default build]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
PREFIX=$(mktemp -d)
trap 'rm -rf "$PREFIX"' EXIT
cmake --install "$BUILD" --prefix "$PREFIX" >/dev/null
fail() { echo "FAIL: $*"; exit 1; }

# The SONAME rule (CHANGELOG.md): 0.MINOR while the major version is 0, then MAJOR.
ver() { awk -v k="GP_VERSION_$1" '$1 == "#define" && $2 == k {print $3}' include/gpuprim/gpuprim.h; }
VERSION="$(ver MAJOR).$(ver MINOR).$(ver PATCH)"
if [ "$(ver MAJOR)" = 0 ]; then SOVER="0.$(ver MINOR)"; else SOVER=$(ver MAJOR); fi

CONFIG=$(ls "$PREFIX"/lib*/cmake/gpuprim/gpuprimConfig.cmake)
if grep -q 'set(GPUPRIM_HAVE_CUDA ON)' "$CONFIG"; then CUDA=1; else CUDA=0; fi
echo "ok: installed gpuprim $VERSION ($([ $CUDA = 1 ] && echo 'with CUDA' || echo 'without CUDA: CPU backend only'))"

LIB="$(ls "$PREFIX"/lib*/libgpuprim.so."$VERSION")"
RLIB="$(ls "$PREFIX"/lib*/libgpuprim-render.so."$VERSION")"
LIBDIR=$(dirname "$LIB")
needed() { objdump -p "$1" | awk '/NEEDED/ {print $2}'; }
for lib in "$LIB" "$RLIB"; do
    want="$(basename "$lib" | sed 's/\.so\..*//').so.$SOVER"
    soname=$(objdump -p "$lib" | awk '/SONAME/ {print $2}')
    [ "$soname" = "$want" ] || fail "$lib: SONAME is '$soname', want '$want'"
    [ -e "$LIBDIR/$soname" ] || fail "no $soname link beside $lib"
    bad=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -v '^gp_' || true)
    [ -z "$bad" ] || { echo "FAIL: $lib exports symbols without gp_ prefix:"; echo "$bad" | head; exit 1; }
    echo "ok: SONAME $soname, $(nm -D --defined-only "$lib" | wc -l) exported symbols, all gp_"
    # NCCL is opened at run time by the distributed calls, never linked.
    if needed "$lib" | grep -qi nccl; then echo "FAIL: $lib depends on NCCL:"; needed "$lib"; exit 1; fi
    # Without CUDA the libraries are plain C: no C++ runtime.
    if [ $CUDA = 0 ] && needed "$lib" | grep -q 'stdc++'; then fail "$lib (no CUDA) needs libstdc++"; fi
done
# The primitives need no image library; the render library needs both.
if needed "$LIB" | grep -q png; then fail "libgpuprim needs libpng: $(needed "$LIB" | tr '\n' ' ')"; fi
needed "$RLIB" | grep -qx "libgpuprim.so.$SOVER" || fail "libgpuprim-render does not need libgpuprim.so.$SOVER"
needed "$RLIB" | grep -q '^libpng' || fail "libgpuprim-render does not need libpng"
echo "ok: libgpuprim needs $(needed "$LIB" | tr '\n' ' ')"
echo "ok: libgpuprim-render needs $(needed "$RLIB" | tr '\n' ' ')"
PCDIR="$LIBDIR/pkgconfig"
grep -qi png "$PCDIR/gpuprim.pc" && fail "gpuprim.pc mentions libpng"
grep -h "^Libs" "$PCDIR"/*.pc | grep -q rpath && fail "a .pc file forces a run-time search path"

# ---- pkg-config, shared: the examples and a render library program. The
# .pc files set no run-time search path: the programs choose their own.
export PKG_CONFIG_PATH="$PCDIR"
OUTDIR="$PREFIX/examples"; mkdir -p "$OUTDIR"
for src in examples/*.c; do
    exe="$OUTDIR/$(basename "$src" .c)"
    cc -std=c99 -Wall -Wextra -Werror "$src" -o "$exe" $(pkg-config --cflags --libs gpuprim) -Wl,-rpath,"$LIBDIR"
    GP_BACKEND=cpu "$exe" >"$exe.out" || { echo "FAIL: $src on the CPU backend"; cat "$exe.out"; exit 1; }
    echo "ok: $(basename "$src") built with pkg-config gpuprim and ran on the CPU backend"
done

# An outside program of the render library.
cat >"$PREFIX/render_main.c" <<'C'
#include <gpuprim/render.h>
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    gp_context *ctx; gp_scene *scene; float *img = malloc(32 * 32 * 4 * sizeof(float)), *ref = malloc(32 * 32 * 4 * sizeof(float));
    int diff = -1;
    if (!img || !ref || gp_context_create(&ctx, GP_BACKEND_CPU, 0) || gp_scene_create(&scene, "rgb", 0)) return 1;
    if (gp_render(ctx, scene, 32, 32, img) || gp_render_reference(scene, 32, 32, ref)) return 1;
    if (gp_image_compare(img, ref, 32, 32, &diff, NULL) || diff != 0) return 1;
    gp_scene_destroy(scene);
    gp_context_destroy(ctx);
    printf("%s\n", gp_version_string());
    free(img); free(ref);
    return 0;
}
C
# A program of the primitives that also checks what a CUDA context says.
cat >"$PREFIX/main.c" <<'C'
#include <gpuprim/gpuprim.h>
#include <stdio.h>
int main(void) {
    gp_context *ctx; int32_t in[5] = {3, 1, 4, 1, 5}, sum = 0; int ndev = -1;
    if (gp_context_create(&ctx, GP_BACKEND_CPU, 0)) return 1;
    if (gp_reduce(ctx, GP_INT32, GP_OP_SUM, in, 5, &sum)) return 1;
    gp_context_destroy(ctx);
    if (gp_cuda_device_count(&ndev) || ndev < 0) return 1;
    if (ndev == 0 && gp_context_create(&ctx, GP_BACKEND_CUDA, 0) != GP_ERROR_NO_DEVICE) return 1;
    printf("%d\n", sum);
    return sum == 14 ? 0 : 1;
}
C
cc -std=c99 -Wall -Wextra -Werror "$PREFIX/render_main.c" -o "$OUTDIR/render_main" \
    $(pkg-config --cflags --libs gpuprim-render) -Wl,-rpath,"$LIBDIR"
"$OUTDIR/render_main" >/dev/null || fail "the gpuprim-render pkg-config program"
echo "ok: a renderer program built with pkg-config gpuprim-render and ran"

# ---- pkg-config --static: in a copy of the prefix without the shared
# libraries, so that -lgpuprim can only mean libgpuprim.a.
SPREFIX="$PREFIX/static-only"; mkdir -p "$SPREFIX"
cp -a "$PREFIX/include" "$SPREFIX/"
mkdir -p "$SPREFIX/$(basename "$LIBDIR")"
cp -a "$LIBDIR"/*.a "$PCDIR" "$SPREFIX/$(basename "$LIBDIR")/"
for prog in main render_main; do
    mod=gpuprim; [ $prog = render_main ] && mod=gpuprim-render
    exe="$OUTDIR/${prog}_static"
    cc -std=c99 -Wall -Wextra -Werror "$PREFIX/$prog.c" -o "$exe" \
        $(PKG_CONFIG_PATH="$SPREFIX/$(basename "$LIBDIR")/pkgconfig" pkg-config --static --cflags --libs $mod) ||
        fail "static link of $prog.c with pkg-config --static $mod"
    needed "$exe" | grep -q gpuprim && fail "$exe (static) still needs a shared gpuprim: $(needed "$exe" | tr '\n' ' ')"
    "$exe" >/dev/null || fail "$prog.c linked statically (pkg-config --static $mod) failed to run"
    echo "ok: $prog.c linked statically with pkg-config --static $mod and ran"
done

# ---- CMake: find_package(gpuprim) from a project outside the tree, C only.
CONSUMER="$PREFIX/consumer"; mkdir -p "$CONSUMER"
cp "$PREFIX/main.c" "$PREFIX/render_main.c" "$CONSUMER/"
cat >"$CONSUMER/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.24)
project(consumer C)
option(WANT_STATIC "link the static targets too" ON)
if(WANT_STATIC)
  find_package(gpuprim $VERSION REQUIRED COMPONENTS static)
else()
  find_package(gpuprim $VERSION REQUIRED)
endif()
add_executable(consumer main.c)
target_link_libraries(consumer PRIVATE gpuprim::gpuprim)
add_executable(render_consumer render_main.c)
target_link_libraries(render_consumer PRIVATE gpuprim::render)
if(WANT_STATIC)
  add_executable(consumer_static main.c)
  target_link_libraries(consumer_static PRIVATE gpuprim::gpuprim_static)
  add_executable(render_consumer_static render_main.c)
  target_link_libraries(render_consumer_static PRIVATE gpuprim::render_static)
endif()
CM
cmake -S "$CONSUMER" -B "$CONSUMER/build" -DCMAKE_PREFIX_PATH="$PREFIX" >"$CONSUMER/configure.log" 2>&1 ||
    { cat "$CONSUMER/configure.log"; fail "find_package(gpuprim COMPONENTS static)"; }
cmake --build "$CONSUMER/build" >"$CONSUMER/build.log" 2>&1 || { cat "$CONSUMER/build.log"; fail "building the CMake consumer"; }
for exe in consumer render_consumer consumer_static render_consumer_static; do
    "$CONSUMER/build/$exe" >/dev/null || fail "the CMake consumer $exe"
done
needed "$CONSUMER/build/consumer_static" | grep -q gpuprim && fail "consumer_static needs a shared gpuprim"
echo "ok: find_package(gpuprim): gpuprim::gpuprim, gpuprim::render and both static targets built and ran"

# Without the CUDA toolkit (find_package(CUDAToolkit) disabled): the shared
# targets still work; asking for the static ones fails with a message when
# they need the toolkit.
cmake -S "$CONSUMER" -B "$CONSUMER/build-nocuda" -DCMAKE_PREFIX_PATH="$PREFIX" -DWANT_STATIC=OFF \
    -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON >"$CONSUMER/configure2.log" 2>&1 ||
    { cat "$CONSUMER/configure2.log"; fail "find_package(gpuprim) without the CUDA toolkit"; }
cmake --build "$CONSUMER/build-nocuda" >/dev/null || fail "building the shared consumer without the CUDA toolkit"
"$CONSUMER/build-nocuda/consumer" >/dev/null || fail "the shared consumer built without the CUDA toolkit"
if [ $CUDA = 1 ]; then
    if cmake -S "$CONSUMER" -B "$CONSUMER/build-nocuda-static" -DCMAKE_PREFIX_PATH="$PREFIX" -DWANT_STATIC=ON \
        -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON >"$CONSUMER/configure3.log" 2>&1; then
        fail "find_package(gpuprim COMPONENTS static) succeeded without the CUDA toolkit"
    fi
    grep -q "CUDA toolkit" "$CONSUMER/configure3.log" || { cat "$CONSUMER/configure3.log"; fail "no word about the toolkit"; }
    echo "ok: without the CUDA toolkit, find_package(gpuprim) gives the shared targets; COMPONENTS static says it needs the toolkit"
else
    echo "ok: without the CUDA toolkit, find_package(gpuprim) gives the shared targets"
fi

# The installed renderer command.
"$PREFIX/bin/renderer" --version >"$PREFIX/version.out" || fail "renderer --version"
grep -q "^libgpuprim $VERSION" "$PREFIX/version.out" || { cat "$PREFIX/version.out"; fail "renderer --version"; }
out=$("$PREFIX/bin/renderer" --scene rgb --size 64 --backend cpu --quiet --check --output "$PREFIX/rgb.png")
[ "$out" = "check: max per-channel difference 0 (8-bit levels), 0 differing pixels: OK" ] ||
    fail "renderer --quiet --check printed more than its verdict: '$out'"
echo "ok: the installed renderer: --version, and --quiet --check prints its verdict alone"

# ---- The Debian packages (cpack -G DEB): unpacked into a scratch root, as
# dpkg would install them, then used as an outsider would.
if command -v cpack >/dev/null && command -v dpkg-deb >/dev/null; then
    DEBS="$PREFIX/debs"; ROOT="$PREFIX/root"; mkdir -p "$DEBS" "$ROOT"
    (cd "$BUILD" && cpack -G DEB -B "$DEBS" >"$DEBS/cpack.log" 2>&1) || { cat "$DEBS/cpack.log"; fail "cpack -G DEB"; }
    RT=libgpuprim$SOVER; RR=libgpuprim-render$SOVER
    for pkg in $RT $RR libgpuprim-dev gpuprim-renderer; do
        deb=$(ls "$DEBS"/${pkg}_*.deb 2>/dev/null | head -1)
        [ -n "$deb" ] || fail "no $pkg package"
        dpkg-deb -x "$deb" "$ROOT"
        echo "ok: $(basename "$deb"): Depends: $(dpkg-deb -f "$deb" Depends)"
    done
    dpkg-deb -f "$DEBS"/libgpuprim-dev_*.deb Depends | grep "$RT (= " >/dev/null || fail "-dev does not pin the runtime"
    dpkg-deb -f "$DEBS"/gpuprim-renderer_*.deb Depends | grep "$RR (= " >/dev/null ||
        fail "gpuprim-renderer does not depend on $RR"
    dpkg-deb -f "$DEBS"/${RT}_*.deb Depends | grep png >/dev/null && fail "$RT depends on libpng"
    dpkg-deb -c "$DEBS"/${RR}_*.deb | grep "libgpuprim-render.so.$SOVER" >/dev/null || fail "$RR lacks the library"
    PC=$(dirname "$(find "$ROOT" -name gpuprim.pc | head -1)")
    PKGLIB=$(dirname "$PC")
    for src in examples/*.c; do
        exe="$DEBS/$(basename "$src" .c)"
        cc -std=c99 -Wall -Wextra -Werror "$src" -o "$exe" $(PKG_CONFIG_PATH="$PC" pkg-config --cflags --libs gpuprim) \
            -Wl,-rpath,"$PKGLIB"
        GP_BACKEND=cpu "$exe" >/dev/null || fail "$src against the packages"
    done
    echo "ok: the examples built against the unpacked packages (pkg-config) and ran"
    cc -std=c99 -Wall -Wextra -Werror "$PREFIX/render_main.c" -o "$DEBS/render_main" \
        $(PKG_CONFIG_PATH="$PC" pkg-config --cflags --libs gpuprim-render) -Wl,-rpath,"$PKGLIB"
    "$DEBS/render_main" >/dev/null || fail "the renderer program against the packages"
    echo "ok: a renderer program built against the unpacked packages (pkg-config gpuprim-render) and ran"
    "$ROOT/usr/bin/renderer" --scene rgb --size 64 --backend cpu --quiet --check --output "$DEBS/rgb.png" >/dev/null ||
        fail "the packaged renderer"
    [ -s "$DEBS/rgb.png" ] || fail "the packaged renderer wrote no image"
    echo "ok: the packaged renderer ran (its RPATH finds the packaged library)"
else
    echo "NOTE: cpack or dpkg-deb missing: the Debian packages were not checked"
fi
