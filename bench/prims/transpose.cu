/* SPDX-License-Identifier: BSD-3-Clause */
/* transpose: gp_transpose (row-major, 4- and 8-byte elements) against
 * cublasSgeam / cublasDgeam with op(A) = A^T, alpha 1, beta 0, B = C. */
#include "../harness.cuh"

static void transpose_row(size_t rows, size_t cols, size_t es)
{
    size_t count = rows * cols, bytes = count * es;
    int sets = rotation_sets(2 * bytes);
    std::vector<DevBuf> in, out;
    alloc_in_out(sets, bytes, bytes, &in, &out);
    for (DevBuf &b : in)
        (es == 4 ? fill_f32 : fill_f64)(b.p, count);
    DevBuf ref(bytes);
    const float one_f = 1.0f, zero_f = 0.0f;
    const double one_d = 1.0, zero_d = 0.0;
    /* row-major rows x cols = column-major cols x rows (ld cols); its
     * transpose, column-major rows x cols (ld rows), is the row-major
     * cols x rows result. B = C with beta = 0 (geam's in-place form). */
    auto geam = [&](const void *src, void *dst) {
        int m = (int)rows, nn = (int)cols;
        if (es == 4)
            CKB(cublasSgeam(g_cublas, CUBLAS_OP_T, CUBLAS_OP_N, m, nn, &one_f, (const float *)src, nn, &zero_f,
                            (const float *)dst, m, (float *)dst, m));
        else
            CKB(cublasDgeam(g_cublas, CUBLAS_OP_T, CUBLAS_OP_N, m, nn, &one_d, (const double *)src, nn, &zero_d,
                            (const double *)dst, m, (double *)dst, m));
    };

    Row r;
    poison(out[0].p, bytes);
    GP(gp_transpose(g_ctx, es, in[0].p, out[0].p, rows, cols));
    poison(ref.p, bytes);
    geam(in[0].p, ref.p);
    r.status = check_status(diff_exact(out[0].p, ref.p, bytes), "transpose vs cuBLAS geam");

    r.op = "transpose";
    r.size = strf("%zux%zu %zuB", rows, cols, es);
    r.bytes = 2.0 * bytes;
    time_pair(
        r, es == 4 ? "cublasSgeam(T)" : "cublasDgeam(T)",
        [&](long i) {
            int k = (int)(i % sets);
            GP(gp_transpose(g_ctx, es, in[k].p, out[k].p, rows, cols));
        },
        [&](long i) {
            int k = (int)(i % sets);
            geam(in[k].p, out[k].p);
        });
    r.note = strf("row-major in, alpha=1 beta=0; %d set(s)", sets);
    add_row(r);
}

static void run_transpose()
{
    if (g_opt.quick) {
        transpose_row(4096, 4096, 4);
        transpose_row(4096, 4096, 8);
        transpose_row(1234, 2011, 4);
    } else {
        transpose_row(16384, 16384, 4);
        transpose_row(16384, 16384, 8);
        transpose_row(12345, 20011, 4);
    }
}

BENCH_GROUP("transpose", 60, run_transpose);
