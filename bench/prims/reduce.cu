/* SPDX-License-Identifier: BSD-3-Clause */
/* reduce: gp_reduce SUM to host, int32 and float32, against
 * cub::DeviceReduce::Sum + the result's copy to host + a stream sync. */
#include <cub/device/device_reduce.cuh>

#include "../harness.cuh"

#include <cinttypes>
#include <cmath>
#include <cstring>

/* CUB's sum of set i % sets to host: the reduce rows' anchor (the result
 * copy and the synchronization included, as gp_reduce does them). */
template <typename T>
struct CubSumToHost {
    const std::vector<DevBuf> &in;
    size_t n;
    DevBuf dres{16}, temp;
    HostScalar hres;
    size_t temp_bytes = 0;
    CubSumToHost(const std::vector<DevBuf> &in_, size_t n_) : in(in_), n(n_)
    {
        CK(cub::DeviceReduce::Sum(nullptr, temp_bytes, in[0].as<T>(), dres.as<T>(), (int)n, g_stream));
        temp.alloc(std::max<size_t>(temp_bytes, 16));
    }
    T operator()(long i)
    {
        const int k = (int)(i % (long)in.size());
        CK(cub::DeviceReduce::Sum(temp.p, temp_bytes, in[k].as<T>(), dres.as<T>(), (int)n, g_stream));
        CK(cudaMemcpyAsync(hres.p, dres.p, sizeof(T), cudaMemcpyDeviceToHost, g_stream));
        CK(cudaStreamSynchronize(g_stream));
        return *hres.as<T>();
    }
};

/* One reduce row: gp_reduce (SUM of dtype d, to host) against cub_sum, both
 * over the rotated sets. */
template <typename T>
static void reduce_row(gp_dtype d, const std::vector<DevBuf> &in, size_t n, CubSumToHost<T> &cub_sum,
                       const char *variant, const std::string &status, const std::string &note)
{
    const long sets = (long)in.size();
    Row r;
    r.op = "reduce";
    r.variant = variant;
    r.size = pow2_or_dec(n);
    r.bytes = (double)(n * sizeof(T));
    time_pair(
        r, "cub::DeviceReduce::Sum+D2H",
        [&](long i) {
            T v;
            GP(gp_reduce(g_ctx, d, GP_OP_SUM, in[i % sets].p, n, &v));
        },
        [&](long i) { (void)cub_sum(i); });
    r.status = status;
    r.note = note;
    add_row(r);
}

static void run_reduce()
{
    size_t n = large_n(), bytes = n * 4;
    int sets = rotation_sets(bytes);
    std::vector<DevBuf> in = alloc_sets(sets, bytes);
    for (DevBuf &b : in)
        fill_i32(b.p, n, 0, 0);

    CubSumToHost<int32_t> cub_isum(in, n);
    int32_t ours_v = 0x5A5A5A5A;
    GP(gp_reduce(g_ctx, GP_INT32, GP_OP_SUM, in[0].p, n, &ours_v));
    int32_t ref_v = cub_isum(0);
    std::string st = ours_v == ref_v ? "OK" : check_failed("reduce: ours %" PRId32 ", CUB %" PRId32, ours_v, ref_v);
    reduce_row<int32_t>(GP_INT32, in, n, cub_isum, "", st,
                        strf("int32 sum to host; both sides include result copy + stream sync; %d set(s)", sets));

    /* float32 sums: ours adds in the documented fixed tree (scalar loads,
     * the same bits at any address); CUB in its own order. The check: the
     * two agree to rounding, and ours gives the same bits for the same
     * values one element past a 16-byte boundary. */
    for (DevBuf &b : in)
        fill_f32(b.p, n);
    DevBuf shifted(bytes + 16);
    CK(cudaMemcpyAsync((char *)shifted.p + 4, in[0].p, bytes, cudaMemcpyDeviceToDevice, g_stream));
    CubSumToHost<float> cub_fsum(in, n);
    float f_ours = 0, f_shift = 1, f_cub = cub_fsum(0);
    GP(gp_reduce(g_ctx, GP_FLOAT32, GP_OP_SUM, in[0].p, n, &f_ours));
    GP(gp_reduce(g_ctx, GP_FLOAT32, GP_OP_SUM, (char *)shifted.p + 4, n, &f_shift));
    st = "OK";
    if (memcmp(&f_ours, &f_shift, 4) != 0 || !(fabs((double)f_ours - f_cub) <= 1e-3 * (fabs((double)f_cub) + n)))
        st = check_failed("float sum: ours %.9g (shifted %.9g), CUB %.9g", f_ours, f_shift, f_cub);
    reduce_row<float>(GP_FLOAT32, in, n, cub_fsum, "float32", st,
                      "float32 sum to host: ours the fixed tree (same bits at any address), CUB vectorized");
}

BENCH_GROUP("reduce", 30, run_reduce);
