/* SPDX-License-Identifier: BSD-3-Clause */
/* argminmax: gp_argmin / gp_argmax over 2^28 int32 and float32 against
 * cub::DeviceReduce::ArgMin / ArgMax (the form with separate value and
 * int64 index outputs) + the result's copy to host + a stream sync, as ours
 * returns to the host. */
#include <cub/device/device_reduce.cuh>

#include "../harness.cuh"
#include "gpuprim/argminmax.h"

#include <cinttypes>
#include <cstring>

/* A result as both sides report it: the extreme value's bytes (zero-extended)
 * and its index. CUB's device result is the value at offset 0, the int64
 * index at offset 8 of one 16-byte buffer, copied back in one transfer. */
struct ArgResult {
    uint64_t value_bits;
    int64_t index;
};

template <typename T>
static void argminmax_row(const std::vector<DevBuf> &in, size_t n, bool is_max, gp_dtype dt, const char *tname)
{
    const long sets = (long)in.size();
    DevBuf dres(16);
    HostScalar hres;
    T *dval = dres.as<T>();
    int64_t *didx = (int64_t *)((char *)dres.p + 8);
    size_t tb = 0;
    auto cub_call = [&](void *temp, const T *src) {
        if (is_max)
            CK(cub::DeviceReduce::ArgMax(temp, tb, src, dval, didx, (int64_t)n, g_stream));
        else
            CK(cub::DeviceReduce::ArgMin(temp, tb, src, dval, didx, (int64_t)n, g_stream));
    };
    cub_call(nullptr, in[0].as<T>());
    DevBuf temp(std::max<size_t>(tb, 16));
    auto anchor = [&](long i) -> ArgResult {
        cub_call(temp.p, in[i % sets].as<T>());
        CK(cudaMemcpyAsync(hres.p, dres.p, 16, cudaMemcpyDeviceToHost, g_stream));
        CK(cudaStreamSynchronize(g_stream));
        ArgResult a = {0, 0};
        memcpy(&a.value_bits, hres.p, sizeof(T)); /* the value's bytes only */
        memcpy(&a.index, (const char *)hres.p + 8, 8);
        return a;
    };
    auto ours = [&](long i) -> ArgResult {
        ArgResult a = {0, 0};
        uint64_t idx = ~0ull;
        if (is_max)
            GP(gp_argmax(g_ctx, dt, in[i % sets].p, n, &a.value_bits, &idx));
        else
            GP(gp_argmin(g_ctx, dt, in[i % sets].p, n, &a.value_bits, &idx));
        a.index = (int64_t)idx;
        return a;
    };
    Row r;
    const ArgResult o = ours(0), c = anchor(0);
    if (o.index != c.index || o.value_bits != c.value_bits)
        r.status = check_failed("%s %s: ours index %" PRId64 " value bits 0x%" PRIx64 ", CUB index %" PRId64
                                " value bits 0x%" PRIx64,
                                is_max ? "argmax" : "argmin", tname, o.index, o.value_bits, c.index, c.value_bits);
    r.op = is_max ? "argmax" : "argmin";
    r.size = strf("%s %s", pow2_or_dec(n).c_str(), tname);
    r.bytes = (double)n * sizeof(T);
    time_pair(r, is_max ? "cub::DeviceReduce::ArgMax+D2H" : "cub::DeviceReduce::ArgMin+D2H",
              [&](long i) { (void)ours(i); }, [&](long i) { (void)anchor(i); });
    r.note = strf("%s; first index of the extreme; both include result copy + sync; %ld set(s)",
                  dt == GP_INT32 ? "int32 full range" : "float32 in [-1,1) (ties: the lowest index)", sets);
    add_row(r);
}

static void run_argminmax()
{
    const size_t n = large_n(), bytes = n * 4;
    const int sets = rotation_sets(bytes);
    std::vector<DevBuf> in = alloc_sets(sets, bytes);
    for (DevBuf &b : in)
        fill_i32(b.p, n, 0, 0);
    argminmax_row<int32_t>(in, n, false, GP_INT32, "i32");
    argminmax_row<int32_t>(in, n, true, GP_INT32, "i32");
    for (DevBuf &b : in)
        fill_f32(b.p, n);
    argminmax_row<float>(in, n, false, GP_FLOAT32, "f32");
    argminmax_row<float>(in, n, true, GP_FLOAT32, "f32");
}

BENCH_GROUP("argminmax", 150, run_argminmax, "argmin argmax");
