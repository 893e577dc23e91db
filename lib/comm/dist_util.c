/* SPDX-License-Identifier: BSD-3-Clause */
/* comm/dist_util.c - small pieces the distributed calls share: a scratch
 * that grows behind what it holds, a verdict round inside a call, and the
 * key images the splitters bisect on (the sort, the group-by). */
#include "comm_internal.h"

#include <string.h>

gp_status gpi_comm_scratch_keep(gp_comm *comm, size_t keep, size_t bytes, void **ptr)
{
    void *p = NULL;
    gp_status s;
    if (bytes <= comm->scratch_bytes || keep == 0) return gpi_comm_scratch(comm, bytes, ptr);
    if ((s = gp_malloc(comm->ctx, &p, bytes))) return s;
    if ((s = gpi_copy(comm->ctx, p, comm->scratch, keep, 2)) || (s = gp_context_synchronize(comm->ctx))) {
        gp_free(comm->ctx, p);
        return s;
    }
    gp_free(comm->ctx, comm->scratch);
    comm->scratch = p;
    comm->scratch_bytes = bytes;
    *ptr = p;
    return GP_SUCCESS;
}

gp_status gpi_dist_agree_step(gp_comm *comm, const char *fn, const char *what, gp_status mine, uint64_t *row)
{
    const uint64_t me = (uint64_t)mine;
    gp_status s;
    int q;
    if ((s = gpi_comm_allgather(comm, &me, NULL, sizeof me, row))) return s;
    if (mine) return mine; /* its detail is on this rank's context */
    for (q = 0; q < comm->size; q++)
        if (row[q])
            return gpi_error(comm->ctx, GP_ERROR_COMM, "%s: rank %d failed (%s) %s", fn, q,
                             gp_status_string((gp_status)row[q]), what);
    return GP_SUCCESS;
}

gp_status gpi_dist_key_images(gp_context *ctx, gp_dtype dtype, int descending, const void *keys, size_t n,
                              int begin_bit, int end_bit, uint64_t *out)
{
    const size_t ks = gp_dtype_size(dtype);
    const int width = end_bit - begin_bit;
    const uint64_t mask = width >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << width) - 1), flip = descending ? mask : 0;
    size_t i;
    if (n == 0) return GP_SUCCESS;
    if (ctx->backend == GP_BACKEND_CUDA)
        return gpi_cuda_dist_images(ctx, dtype, descending, keys, n, begin_bit, end_bit, out);
    for (i = 0; i < n; i++) {
        const unsigned char *k = (const unsigned char *)keys + i * ks;
        uint64_t img;
        if (ks == 4) {
            uint32_t b;
            memcpy(&b, k, 4);
            if (dtype == GP_INT32) b ^= 0x80000000u;
            else if (dtype == GP_FLOAT32) b = gpi_f32_image(b);
            img = b;
        } else {
            memcpy(&img, k, 8);
            if (dtype == GP_INT64) img ^= (uint64_t)1 << 63;
            else if (dtype == GP_FLOAT64) img = gpi_f64_image(img);
        }
        out[i] = ((img >> begin_bit) & mask) ^ flip;
    }
    return GP_SUCCESS;
}
