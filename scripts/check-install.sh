#!/usr/bin/env bash
# Install the built tree into a scratch prefix and use it as an outsider
# would: SONAME, exported symbols, pkg-config and find_package(gpuprim).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
PREFIX=$(mktemp -d)
trap 'rm -rf "$PREFIX"' EXIT
cmake --install "$BUILD" --prefix "$PREFIX" >/dev/null
LIB=$(ls "$PREFIX"/lib*/libgpuprim.so.0.* | head -1)
LIBDIR=$(dirname "$LIB")

soname=$(objdump -p "$LIB" | awk '/SONAME/ {print $2}')
[ "$soname" = "libgpuprim.so.0" ] || { echo "FAIL: SONAME is '$soname'"; exit 1; }
bad=$(nm -D --defined-only "$LIB" | awk '{print $3}' | grep -v '^gp_' || true)
[ -z "$bad" ] || { echo "FAIL: exported symbols without gp_ prefix:"; echo "$bad" | head; exit 1; }
echo "ok: SONAME $soname, $(nm -D --defined-only "$LIB" | wc -l) exported symbols, all gp_"
# NCCL is opened at run time by the distributed calls, never linked.
if objdump -p "$LIB" | awk '/NEEDED/ {print $2}' | grep -qi nccl; then
    echo "FAIL: $LIB depends on NCCL:"; objdump -p "$LIB" | grep NEEDED; exit 1
fi
echo "ok: no NCCL among its dependencies ($(objdump -p "$LIB" | awk '/NEEDED/ {printf "%s ", $2}'))"

export PKG_CONFIG_PATH="$LIBDIR/pkgconfig"
OUTDIR="$PREFIX/examples"; mkdir -p "$OUTDIR"
for src in examples/*.c; do
    exe="$OUTDIR/$(basename "$src" .c)"
    cc -std=c99 -Wall -Wextra -Werror "$src" -o "$exe" $(pkg-config --cflags --libs gpuprim)
    GP_BACKEND=cpu "$exe" >"$exe.out" || { echo "FAIL: $src on the CPU backend"; cat "$exe.out"; exit 1; }
    echo "ok: $(basename "$src") built with pkg-config and ran on the CPU backend"
done

# find_package(gpuprim) from a CMake project outside the tree.
CONSUMER="$PREFIX/consumer"; mkdir -p "$CONSUMER"
cat >"$CONSUMER/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.24)
project(consumer C)
find_package(gpuprim 0.1 REQUIRED)
add_executable(consumer main.c)
target_link_libraries(consumer PRIVATE gpuprim::gpuprim)
CM
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
"$CONSUMER/build/consumer" >/dev/null && echo "ok: find_package(gpuprim) consumer built and ran"

# The Debian packages (cpack -G DEB): unpacked into a scratch root, as dpkg
# would install them, then used as an outsider would.
if command -v cpack >/dev/null && command -v dpkg-deb >/dev/null; then
    DEBS="$PREFIX/debs"; ROOT="$PREFIX/root"; mkdir -p "$DEBS" "$ROOT"
    (cd "$BUILD" && cpack -G DEB -B "$DEBS" >"$DEBS/cpack.log" 2>&1) || { echo "FAIL: cpack -G DEB"; cat "$DEBS/cpack.log"; exit 1; }
    for pkg in libgpuprim0 libgpuprim-dev gpuprim-renderer; do
        deb=$(ls "$DEBS"/${pkg}_*.deb 2>/dev/null | head -1)
        [ -n "$deb" ] || { echo "FAIL: no $pkg package"; exit 1; }
        dpkg-deb -x "$deb" "$ROOT"
        echo "ok: $(basename "$deb"): Depends: $(dpkg-deb -f "$deb" Depends)"
    done
    dpkg-deb -f "$DEBS"/libgpuprim-dev_*.deb Depends | grep -q "libgpuprim0 (= " || { echo "FAIL: -dev does not pin the runtime"; exit 1; }
    PC=$(dirname "$(find "$ROOT" -name gpuprim.pc | head -1)")
    for src in examples/*.c; do
        exe="$DEBS/$(basename "$src" .c)"
        cc -std=c99 -Wall -Wextra -Werror "$src" -o "$exe" $(PKG_CONFIG_PATH="$PC" pkg-config --cflags --libs gpuprim)
        GP_BACKEND=cpu "$exe" >/dev/null || { echo "FAIL: $src against the packages"; exit 1; }
    done
    echo "ok: the examples built against the unpacked packages (pkg-config) and ran"
    "$ROOT/usr/bin/renderer" --scene rgb --size 64 --backend cpu --quiet --output "$DEBS/rgb.png" >/dev/null ||
        { echo "FAIL: the packaged renderer"; exit 1; }
    echo "ok: the packaged renderer ran (its RPATH finds the packaged library)"
else
    echo "NOTE: cpack or dpkg-deb missing: the Debian packages were not checked"
fi
