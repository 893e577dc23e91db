/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/topk.c - the reference top-k: every key becomes (order image, index),
 * the pairs are sorted by image then index (qsort: the index makes every
 * pair distinct, so the order is total and the result the stable one), and
 * the first k are written out. */
#include "search_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    uint64_t image, index;
} ranked_key;

static int cmp_ranked(const void *x, const void *y)
{
    const ranked_key *p = (const ranked_key *)x, *q = (const ranked_key *)y;
    if (p->image != q->image) return p->image < q->image ? -1 : 1;
    return (p->index > q->index) - (p->index < q->index);
}

gp_status gpi_cpu_topk(const gpi_topk_args *a)
{
    const size_t ks = gp_dtype_size(a->key_dtype), vs = a->value_size;
    ranked_key *r;
    size_t i;
    if (a->n > SIZE_MAX / sizeof *r) return GP_ERROR_OUT_OF_MEMORY;
    r = (ranked_key *)malloc(a->n * sizeof *r);
    if (!r) return GP_ERROR_OUT_OF_MEMORY;
    for (i = 0; i < a->n; i++) {
        r[i].image = gpi_order_image(a->key_dtype, a->descending, a->keys_in, i);
        r[i].index = i;
    }
    qsort(r, a->n, sizeof *r, cmp_ranked);
    for (i = 0; i < a->k; i++) {
        const uint64_t from = r[i].index;
        memcpy((char *)a->keys_out + i * ks, (const char *)a->keys_in + from * ks, ks);
        if (!vs) continue;
        if (a->values_in) memcpy((char *)a->values_out + i * vs, (const char *)a->values_in + from * vs, vs);
        else if (vs == 4) ((uint32_t *)a->values_out)[i] = (uint32_t)from;
        else ((uint64_t *)a->values_out)[i] = from;
    }
    free(r);
    return GP_SUCCESS;
}
