#!/usr/bin/env bash
# Install the built tree into a scratch prefix and use it as an outsider
# would: SONAMEs, exported symbols and dependencies of libgpuprim and
# libgpuprim-render, a program built against each pkg-config module
# (gpuprim, gpuprim-render) and each CMake target (gpuprim::gpuprim,
# gpuprim::render), and the Debian packages, the renderer command included.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
PREFIX=$(mktemp -d)
trap 'rm -rf "$PREFIX"' EXIT
cmake --install "$BUILD" --prefix "$PREFIX" >/dev/null
LIB=$(ls "$PREFIX"/lib*/libgpuprim.so.0.* | head -1)
LIBDIR=$(dirname "$LIB")

RLIB=$(ls "$PREFIX"/lib*/libgpuprim-render.so.0.* | head -1)
needed() { objdump -p "$1" | awk '/NEEDED/ {print $2}'; }
for lib in "$LIB" "$RLIB"; do
    want=$(basename "$lib" | sed 's/\.so\.0\..*/.so.0/')
    soname=$(objdump -p "$lib" | awk '/SONAME/ {print $2}')
    [ "$soname" = "$want" ] || { echo "FAIL: $lib: SONAME is '$soname'"; exit 1; }
    bad=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -v '^gp_' || true)
    [ -z "$bad" ] || { echo "FAIL: $lib exports symbols without gp_ prefix:"; echo "$bad" | head; exit 1; }
    echo "ok: SONAME $soname, $(nm -D --defined-only "$lib" | wc -l) exported symbols, all gp_"
    # NCCL is opened at run time by the distributed calls, never linked.
    if needed "$lib" | grep -qi nccl; then echo "FAIL: $lib depends on NCCL:"; needed "$lib"; exit 1; fi
done
# The primitives need no image library; the render library needs both.
if needed "$LIB" | grep -q png; then echo "FAIL: libgpuprim.so.0 needs libpng"; needed "$LIB"; exit 1; fi
needed "$RLIB" | grep -qx libgpuprim.so.0 || { echo "FAIL: libgpuprim-render does not need libgpuprim.so.0"; exit 1; }
needed "$RLIB" | grep -q '^libpng' || { echo "FAIL: libgpuprim-render does not need libpng"; exit 1; }
echo "ok: libgpuprim needs $(needed "$LIB" | tr '\n' ' ')"
echo "ok: libgpuprim-render needs $(needed "$RLIB" | tr '\n' ' ')"
if grep -qi png "$(dirname "$LIB")/pkgconfig/gpuprim.pc"; then echo "FAIL: gpuprim.pc mentions libpng"; exit 1; fi

export PKG_CONFIG_PATH="$LIBDIR/pkgconfig"
OUTDIR="$PREFIX/examples"; mkdir -p "$OUTDIR"
for src in examples/*.c; do
    exe="$OUTDIR/$(basename "$src" .c)"
    cc -std=c99 -Wall -Wextra -Werror "$src" -o "$exe" $(pkg-config --cflags --libs gpuprim)
    GP_BACKEND=cpu "$exe" >"$exe.out" || { echo "FAIL: $src on the CPU backend"; cat "$exe.out"; exit 1; }
    echo "ok: $(basename "$src") built with pkg-config and ran on the CPU backend"
done

# An outside program of the render library, built with pkg-config
# gpuprim-render (its Requires brings gpuprim).
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
cc -std=c99 -Wall -Wextra -Werror "$PREFIX/render_main.c" -o "$OUTDIR/render_main" $(pkg-config --cflags --libs gpuprim-render)
"$OUTDIR/render_main" >/dev/null || { echo "FAIL: the gpuprim-render pkg-config consumer"; exit 1; }
echo "ok: a renderer program built with pkg-config gpuprim-render and ran"

# find_package(gpuprim) from a CMake project outside the tree.
CONSUMER="$PREFIX/consumer"; mkdir -p "$CONSUMER"
cat >"$CONSUMER/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.24)
project(consumer C)
find_package(gpuprim 0.1 REQUIRED)
add_executable(consumer main.c)
target_link_libraries(consumer PRIVATE gpuprim::gpuprim)
add_executable(render_consumer render_main.c)
target_link_libraries(render_consumer PRIVATE gpuprim::render)
CM
cp "$PREFIX/render_main.c" "$CONSUMER/render_main.c"
cat >"$CONSUMER/main.c" <<'C'
#include <gpuprim/gpuprim.h>
#include <stdio.h>
int main(void) {
    gp_context *ctx; int32_t in[5] = {3, 1, 4, 1, 5}, sum = 0;
    if (gp_context_create(&ctx, GP_BACKEND_CPU, 0)) return 1;
    if (gp_reduce(ctx, GP_INT32, GP_OP_SUM, in, 5, &sum)) return 1;
    gp_context_destroy(ctx);
    printf("%d\n", sum);
    return sum == 14 ? 0 : 1;
}
C
cmake -S "$CONSUMER" -B "$CONSUMER/build" -DCMAKE_PREFIX_PATH="$PREFIX" >/dev/null
cmake --build "$CONSUMER/build" >/dev/null
"$CONSUMER/build/consumer" >/dev/null || { echo "FAIL: the gpuprim::gpuprim consumer"; exit 1; }
"$CONSUMER/build/render_consumer" >/dev/null || { echo "FAIL: the gpuprim::render consumer"; exit 1; }
echo "ok: find_package(gpuprim) consumers of gpuprim::gpuprim and gpuprim::render built and ran"

# The Debian packages (cpack -G DEB): unpacked into a scratch root, as dpkg
# would install them, then used as an outsider would.
if command -v cpack >/dev/null && command -v dpkg-deb >/dev/null; then
    DEBS="$PREFIX/debs"; ROOT="$PREFIX/root"; mkdir -p "$DEBS" "$ROOT"
    (cd "$BUILD" && cpack -G DEB -B "$DEBS" >"$DEBS/cpack.log" 2>&1) || { echo "FAIL: cpack -G DEB"; cat "$DEBS/cpack.log"; exit 1; }
    for pkg in libgpuprim0 libgpuprim-render0 libgpuprim-dev gpuprim-renderer; do
        deb=$(ls "$DEBS"/${pkg}_*.deb 2>/dev/null | head -1)
        [ -n "$deb" ] || { echo "FAIL: no $pkg package"; exit 1; }
        dpkg-deb -x "$deb" "$ROOT"
        echo "ok: $(basename "$deb"): Depends: $(dpkg-deb -f "$deb" Depends)"
    done
    dpkg-deb -f "$DEBS"/libgpuprim-dev_*.deb Depends | grep -q "libgpuprim0 (= " || { echo "FAIL: -dev does not pin the runtime"; exit 1; }
    dpkg-deb -f "$DEBS"/gpuprim-renderer_*.deb Depends | grep -q "libgpuprim-render0 (= " ||
        { echo "FAIL: gpuprim-renderer does not depend on libgpuprim-render0"; exit 1; }
    dpkg-deb -f "$DEBS"/libgpuprim0_*.deb Depends | grep -q png && { echo "FAIL: libgpuprim0 depends on libpng"; exit 1; }
    dpkg-deb -c "$DEBS"/libgpuprim-render0_*.deb | grep 'libgpuprim-render.so.0' >/dev/null ||
        { echo "FAIL: libgpuprim-render0 lacks the library"; exit 1; }
    PC=$(dirname "$(find "$ROOT" -name gpuprim.pc | head -1)")
    for src in examples/*.c; do
        exe="$DEBS/$(basename "$src" .c)"
        cc -std=c99 -Wall -Wextra -Werror "$src" -o "$exe" $(PKG_CONFIG_PATH="$PC" pkg-config --cflags --libs gpuprim)
        GP_BACKEND=cpu "$exe" >/dev/null || { echo "FAIL: $src against the packages"; exit 1; }
    done
    echo "ok: the examples built against the unpacked packages (pkg-config) and ran"
    cc -std=c99 -Wall -Wextra -Werror "$PREFIX/render_main.c" -o "$DEBS/render_main" \
        $(PKG_CONFIG_PATH="$PC" pkg-config --cflags --libs gpuprim-render)
    "$DEBS/render_main" >/dev/null || { echo "FAIL: the renderer program against the packages"; exit 1; }
    echo "ok: a renderer program built against the unpacked packages (pkg-config gpuprim-render) and ran"
    "$ROOT/usr/bin/renderer" --scene rgb --size 64 --backend cpu --quiet --check --output "$DEBS/rgb.png" >/dev/null ||
        { echo "FAIL: the packaged renderer"; exit 1; }
    [ -s "$DEBS/rgb.png" ] || { echo "FAIL: the packaged renderer wrote no image"; exit 1; }
    echo "ok: the packaged renderer ran (its RPATH finds the packaged library)"
else
    echo "NOTE: cpack or dpkg-deb missing: the Debian packages were not checked"
fi
