/* SPDX-License-Identifier: BSD-3-Clause */
/* stencil: gp_laplacian_2d float, CLAMP, against a naive kernel (one
 * thread per point, five global loads, 32x8 blocks). */
#include "../harness.cuh"

/* The naive anchor: CLAMP boundary, the library's evaluation order without
 * FMA, so that the check is in practice exact. */
__global__ void k_naive_laplacian(const float *__restrict__ in, float *__restrict__ out, int rows, int cols)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= cols || y >= rows)
        return;
    size_t row = (size_t)y * cols;
    float c = in[row + x];
    float nn = in[(size_t)max(y - 1, 0) * cols + x];
    float s = in[(size_t)min(y + 1, rows - 1) * cols + x];
    float w = in[row + max(x - 1, 0)];
    float e = in[row + min(x + 1, cols - 1)];
    float v = __fmul_rn(-4.0f, c);
    v = __fadd_rn(v, nn);
    v = __fadd_rn(v, s);
    v = __fadd_rn(v, w);
    v = __fadd_rn(v, e);
    out[row + x] = v;
}

static void run_stencil()
{
    size_t rows = g_opt.quick ? 4096 : 16384, cols = rows;
    size_t count = rows * cols, bytes = count * 4;
    int sets = rotation_sets(2 * bytes);
    std::vector<DevBuf> in, out;
    alloc_in_out(sets, bytes, bytes, &in, &out);
    for (DevBuf &b : in)
        fill_f32(b.p, count);
    DevBuf ref(bytes);
    dim3 blk(32, 8), grd((unsigned)((cols + 31) / 32), (unsigned)((rows + 7) / 8));
    auto naive = [&](const void *src, void *dst) {
        k_naive_laplacian<<<grd, blk, 0, g_stream>>>((const float *)src, (float *)dst, (int)rows, (int)cols);
        CK_LAUNCH();
    };

    Row r;
    poison(out[0].p, bytes);
    GP(gp_laplacian_2d(g_ctx, GP_FLOAT32, GP_BOUNDARY_CLAMP, in[0].p, out[0].p, rows, cols));
    naive(in[0].p, ref.p);
    r.status = check_status(diff_f32(out[0].as<float>(), ref.as<float>(), count, 1e-5f),
                            "laplacian_2d vs naive (tolerance 1e-5*(1+|ref|))");

    r.op = "stencil";
    r.size = strf("%zux%zu f32", rows, cols);
    r.bytes = 2.0 * bytes;
    time_pair(
        r, "naive 5-point kernel",
        [&](long i) {
            int k = (int)(i % sets);
            GP(gp_laplacian_2d(g_ctx, GP_FLOAT32, GP_BOUNDARY_CLAMP, in[k].p, out[k].p, rows, cols));
        },
        [&](long i) {
            int k = (int)(i % sets);
            naive(in[k].p, out[k].p);
        });
    r.note = strf("gp_laplacian_2d CLAMP; %d set(s)", sets);
    add_row(r);
}

BENCH_GROUP("stencil", 70, run_stencil);
