/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/merge.c - the reference merge: two cursors over the order images,
 * taking from a unless b's key is strictly before a's (a first on ties);
 * and the same on the context's threads (merge path). */
#include "search_internal.h"
#include "pool.h"

#include <string.h>

gp_status gpi_cpu_merge(const gpi_merge_args *a)
{
    const size_t ks = gp_dtype_size(a->key_dtype), vs = a->value_size;
    size_t i = 0, j = 0, o;
    for (o = 0; o < a->na + a->nb; o++) {
        int take_a = i < a->na;
        if (take_a && j < a->nb)
            take_a = !(gpi_order_image(a->key_dtype, a->descending, a->b_keys, j) <
                       gpi_order_image(a->key_dtype, a->descending, a->a_keys, i));
        if (take_a) {
            memcpy((char *)a->keys_out + o * ks, (const char *)a->a_keys + i * ks, ks);
            if (vs) memcpy((char *)a->values_out + o * vs, (const char *)a->a_values + i * vs, vs);
            i++;
        } else {
            memcpy((char *)a->keys_out + o * ks, (const char *)a->b_keys + j * ks, ks);
            if (vs) memcpy((char *)a->values_out + o * vs, (const char *)a->b_values + j * vs, vs);
            j++;
        }
    }
    return GP_SUCCESS;
}

/* ---- on the context's threads --------------------------------------------------------
 * Merge path: part p writes the outputs [lo, hi) of an even cut of the
 * na + nb outputs. Its starting cursors are the reference's cursors after
 * lo outputs, found by a binary search over the diagonal i + j = lo; from
 * there it takes keys by the reference's rule, so sorted inputs give the
 * reference's bits. The cursors stay within both inputs and the writes
 * within [lo, hi) whatever the inputs, so unsorted inputs touch nothing
 * outside the buffers. */

/* How many of a's keys the reference has taken after d outputs (for sorted
 * inputs): the first m in [max(0, d - nb), min(d, na)) at which b's key
 * d - 1 - m comes strictly before a's key m, else the range's end. */
static size_t merge_split(const gpi_merge_args *a, size_t d)
{
    size_t lo = d > a->nb ? d - a->nb : 0, hi = d < a->na ? d : a->na;
    while (lo < hi) {
        const size_t m = lo + (hi - lo) / 2;
        if (gpi_order_image(a->key_dtype, a->descending, a->b_keys, d - 1 - m) <
            gpi_order_image(a->key_dtype, a->descending, a->a_keys, m))
            hi = m;
        else
            lo = m + 1;
    }
    return lo;
}

/* Outputs [o, hi) from cursors i, j (i + j == o): branch-free while both
 * inputs have keys (b's key taken only when strictly before a's), then the
 * rest of the input left. KT: key word, IMAGE: its ascending order image
 * (flip: the descending complement), VT/HAS_V: the value word, if any. */
#define DEFINE_MERGE_RANGE(NAME, KT, IMAGE, VT, HAS_V)                                             \
    static void NAME(const gpi_merge_args *a, size_t i, size_t j, size_t o, size_t hi)          \
    {                                                                                            \
        const KT *ak = (const KT *)a->a_keys, *bk = (const KT *)a->b_keys;                       \
        const VT *av = (const VT *)a->a_values, *bv = (const VT *)a->b_values;                   \
        const KT flip = a->descending ? (KT)~(KT)0 : 0;                                          \
        KT *ko = (KT *)a->keys_out;                                                              \
        VT *vo = (VT *)a->values_out;                                                            \
        (void)av, (void)bv, (void)vo;                                                            \
        for (; o < hi && i < a->na && j < a->nb; o++) {                                          \
            const KT x = ak[i], y = bk[j];                                                       \
            const int take_b = (KT)(IMAGE(y) ^ flip) < (KT)(IMAGE(x) ^ flip);                    \
            ko[o] = take_b ? y : x;                                                              \
            if (HAS_V) vo[o] = take_b ? bv[j] : av[i];                                           \
            i += (size_t)!take_b;                                                                \
            j += (size_t)take_b;                                                                 \
        }                                                                                        \
        if (o == hi) return;                                                                     \
        if (i < a->na) {                                                                         \
            memcpy(ko + o, ak + i, (hi - o) * sizeof(KT));                                       \
            if (HAS_V) memcpy(vo + o, av + i, (hi - o) * sizeof(VT));                            \
        } else {                                                                                 \
            memcpy(ko + o, bk + j, (hi - o) * sizeof(KT));                                       \
            if (HAS_V) memcpy(vo + o, bv + j, (hi - o) * sizeof(VT));                            \
        }                                                                                        \
    }

#define DEFINE_MERGE_RANGES(KEY, KT, IMAGE)                              \
    DEFINE_MERGE_RANGE(merge_##KEY##_v0, KT, IMAGE, uint32_t, 0)         \
    DEFINE_MERGE_RANGE(merge_##KEY##_v4, KT, IMAGE, uint32_t, 1)         \
    DEFINE_MERGE_RANGE(merge_##KEY##_v8, KT, IMAGE, uint64_t, 1)

DEFINE_MERGE_RANGES(u32, uint32_t, gpi_u32_image)
DEFINE_MERGE_RANGES(i32, uint32_t, gpi_i32_image)
DEFINE_MERGE_RANGES(f32, uint32_t, gpi_f32_image)
DEFINE_MERGE_RANGES(u64, uint64_t, gpi_u64_image)
DEFINE_MERGE_RANGES(i64, uint64_t, gpi_i64_image)
DEFINE_MERGE_RANGES(f64, uint64_t, gpi_f64_image)

typedef void (*merge_range_fn)(const gpi_merge_args *a, size_t i, size_t j, size_t o, size_t hi);

typedef struct merge_job {
    const gpi_merge_args *a;
    merge_range_fn range;
} merge_job;

static merge_range_fn pick_merge_range(gp_dtype dt, size_t vs)
{
    static const merge_range_fn table[6][3] = {
        {merge_u32_v0, merge_u32_v4, merge_u32_v8}, {merge_i32_v0, merge_i32_v4, merge_i32_v8},
        {merge_f32_v0, merge_f32_v4, merge_f32_v8}, {merge_u64_v0, merge_u64_v4, merge_u64_v8},
        {merge_i64_v0, merge_i64_v4, merge_i64_v8}, {merge_f64_v0, merge_f64_v4, merge_f64_v8}};
    const int v = vs == 0 ? 0 : vs == 4 ? 1 : vs == 8 ? 2 : -1;
    int k;
    switch (dt) {
    case GP_UINT32: k = 0; break;
    case GP_INT32: k = 1; break;
    case GP_FLOAT32: k = 2; break;
    case GP_UINT64: k = 3; break;
    case GP_INT64: k = 4; break;
    case GP_FLOAT64: k = 5; break;
    default: return NULL;
    }
    return v < 0 ? NULL : table[k][v];
}

static void merge_part(void *arg, int part, int parts)
{
    const merge_job *job = (const merge_job *)arg;
    const gpi_merge_args *a = job->a;
    size_t lo, hi, i;
    gpi_pool_range(a->na + a->nb, part, parts, 1, &lo, &hi);
    if (lo == hi) return;
    i = merge_split(a, lo);
    job->range(a, i, lo - i, lo, hi);
}

gp_status gpi_cpu_merge_threads(const gpi_merge_args *a, int threads)
{
    const size_t n = a->na + a->nb;
    merge_job job;
    job.a = a;
    job.range = pick_merge_range(a->key_dtype, a->value_size);
    if (n < 2 * GPI_POOL_MIN_PART || !job.range) return gpi_cpu_merge(a);
    gpi_pool_run(gpi_pool_parts(n, threads), merge_part, &job);
    return GP_SUCCESS;
}
