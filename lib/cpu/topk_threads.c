/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/topk_threads.c - top-k on the context's threads, bit for bit the
 * reference's (cpu/topk.c) result.
 *
 * Each part gathers a contiguous piece of the keys as (order image, index)
 * entries and keeps at most its best k. Whenever a piece holds k entries,
 * the k-th best of them bounds the answer's k-th entry; keys after the
 * least bound so far are left out, and in the end every piece's list is
 * cut to the entries not after the least bound, then sorted. The answer is
 * the first k of the merge of those lists. The k outputs are cut into even
 * ranges; a range finds where it starts in every list by a selection over
 * the images (ties go to the lower part: it holds the lower indices) and
 * writes itself by a heap merge of the lists. (image, index) is a total
 * order, so this is exactly the reference's result. */
#include "search_internal.h"
#include "pool.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>

typedef struct {
    uint64_t image, index;
} ranked_key;

enum { kInsertionSort = 16 };

static inline int ranked_less(ranked_key x, ranked_key y)
{
    return x.image < y.image || (x.image == y.image && x.index < y.index);
}

static inline void swap_ranked(ranked_key *x, ranked_key *y)
{
    const ranked_key t = *x;
    *x = *y;
    *y = t;
}

static void insertion_sort(ranked_key *r, size_t n)
{
    size_t i, j;
    for (i = 1; i < n; i++) {
        const ranked_key x = r[i];
        for (j = i; j > 0 && ranked_less(x, r[j - 1]); j--) r[j] = r[j - 1];
        r[j] = x;
    }
}

/* Max-heap r[0..n): sift entry i down. */
static void sift_down(ranked_key *r, size_t n, size_t i)
{
    const ranked_key x = r[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && ranked_less(r[c], r[c + 1])) c++;
        if (!ranked_less(x, r[c])) break;
        r[i] = r[c];
        i = c;
    }
    r[i] = x;
}

/* The m least of r[0..len) into r[0..m), sorted, in O(len log m): the
 * fallback when pivots keep being poor. */
static void heap_partial_sort(ranked_key *r, size_t len, size_t m)
{
    size_t i;
    for (i = m / 2; i-- > 0;) sift_down(r, m, i);
    for (i = m; i < len; i++)
        if (ranked_less(r[i], r[0])) {
            swap_ranked(&r[0], &r[i]);
            sift_down(r, m, 0);
        }
    for (i = m; i-- > 1;) {
        swap_ranked(&r[0], &r[i]);
        sift_down(r, i, 0);
    }
}

/* Splits r[0..len) (len > kInsertionSort) around a median-of-3 pivot:
 * returns i with r[0, i) before r[i, len) and 1 <= i <= len - 2. */
static size_t partition(ranked_key *r, size_t len)
{
    const size_t mid = len / 2;
    ranked_key pivot;
    size_t i = 0, j = len - 1;
    /* r[0] <= r[mid] <= r[len - 1]: the ends stop both scans */
    if (ranked_less(r[mid], r[0])) swap_ranked(&r[0], &r[mid]);
    if (ranked_less(r[len - 1], r[mid])) {
        swap_ranked(&r[mid], &r[len - 1]);
        if (ranked_less(r[mid], r[0])) swap_ranked(&r[0], &r[mid]);
    }
    pivot = r[mid];
    for (;;) {
        do i++;
        while (ranked_less(r[i], pivot));
        do j--;
        while (ranked_less(pivot, r[j]));
        if (i >= j) return i;
        swap_ranked(&r[i], &r[j]);
    }
}

/* The m least of r[0..len) into r[0..m) (1 <= m <= len): with `sorted`, in
 * order (a quicksort that only goes into pieces reaching below m); else in
 * any order but the m-th least at m - 1 (quickselect). heap_partial_sort
 * once `depth` levels are spent. */
static void order_least(ranked_key *r, size_t len, size_t m, int depth, int sorted)
{
    while (len > kInsertionSort) {
        size_t i;
        if (depth-- == 0) {
            heap_partial_sort(r, len, m);
            return;
        }
        i = partition(r, len);
        if (m > i && !sorted) { /* the m-th least lies right of the split */
            r += i;
            len -= i;
            m -= i;
            continue;
        }
        if (m > i) {
            order_least(r + i, len - i, m - i, depth, 1);
            m = i;
        }
        len = i;
    }
    insertion_sort(r, len);
}

static void partial_sort(ranked_key *r, size_t len, size_t m, int depth) { order_least(r, len, m, depth, 1); }
static void select_least(ranked_key *r, size_t len, size_t m, int depth) { order_least(r, len, m, depth, 0); }

/* A piece's candidates are gathered in a buffer of up to 4k + kSpare
 * entries. When it fills, its best k are selected: the k-th of them bounds
 * the answer's k-th entry (k entries come no later). The pieces share the
 * least bound found so far (under a mutex, at each cut: cuts are rare);
 * entries after it are dropped, keys after it never enter. Small k: the
 * keys are read once and few are stored. Larger k: a first bound, an image
 * a little past rank k of a sample of the keys, keeps out most keys from
 * the start; it is checked after the gathering (k keys not above it), and
 * the rare miss gathers again without it. */
enum { kSpare = 8192, kCapPerK = 4, kSamples = 4096 };

typedef struct topk_job {
    const gpi_topk_args *a;
    ranked_key *r;                    /* the pieces' buffers */
    int lists;                        /* parts of the ranking step */
    size_t first[GPI_POOL_MAX_PARTS]; /* piece p: buffer r[first[p], first[p] + cap[p]) */
    size_t cap[GPI_POOL_MAX_PARTS];
    size_t len[GPI_POOL_MAX_PARTS];   /* then its list of best entries: r[first[p], + len[p]) */
    pthread_mutex_t lock;             /* guards bounded and bound while the pieces are gathered */
    int bounded;
    ranked_key bound;                 /* the least k-th best of a piece's entries so far */
    uint64_t first_bound;             /* keys of a higher image are not gathered */
} topk_job;

static int sort_depth(size_t len)
{
    int depth = 0;
    for (; len > 1; len >>= 1) depth += 2;
    return depth;
}

/* The least of the job's bound and this one, which becomes the job's. */
static ranked_key share_bound(topk_job *job, ranked_key bound)
{
    pthread_mutex_lock(&job->lock);
    if (!job->bounded || ranked_less(bound, job->bound)) {
        job->bound = bound;
        job->bounded = 1;
    } else {
        bound = job->bound;
    }
    pthread_mutex_unlock(&job->lock);
    return bound;
}

/* buf[0..len) (len >= k) cut to its entries not after the shared bound,
 * its k-th best shared first; returns how many are left (at most k). */
static size_t cut(topk_job *job, ranked_key *buf, size_t len, ranked_key *bound)
{
    const size_t k = job->a->k;
    size_t i, kept = 0;
    select_least(buf, len, k, sort_depth(len));
    *bound = share_bound(job, buf[k - 1]);
    for (i = 0; i < k; i++)
        if (!ranked_less(*bound, buf[i])) buf[kept++] = buf[i];
    return kept;
}

/* The piece [lo, hi) of keys of dtype DT into buf (cap entries; cap > k
 * unless cap == hi - lo); returns how many entries it holds. Key i (a new
 * index) is after the bound unless its image is below the bound's, or
 * equal with i below the bound's index. */
#define DEFINE_GATHER(NAME, DT)                                                                       \
    static size_t NAME(topk_job *job, size_t lo, size_t hi, ranked_key *buf, size_t cap)          \
    {                                                                                             \
        const gpi_topk_args *a = job->a;                                                          \
        ranked_key bound;                                                                         \
        size_t i, len = 0;                                                                        \
        bound.image = job->first_bound, bound.index = UINT64_MAX;                                 \
        for (i = lo; i < hi; i++) {                                                               \
            const uint64_t image = gpi_order_image(DT, a->descending, a->keys_in, i);             \
            if (image >= bound.image && (image > bound.image || i > bound.index)) continue;       \
            if (len == cap) {                                                                     \
                len = cut(job, buf, len, &bound);                                                 \
                if (image >= bound.image && (image > bound.image || i > bound.index)) continue;   \
            }                                                                                     \
            buf[len].image = image;                                                               \
            buf[len++].index = i;                                                                 \
        }                                                                                         \
        return len;                                                                               \
    }

DEFINE_GATHER(gather_u32, GP_UINT32)
DEFINE_GATHER(gather_i32, GP_INT32)
DEFINE_GATHER(gather_u64, GP_UINT64)
DEFINE_GATHER(gather_i64, GP_INT64)
DEFINE_GATHER(gather_f32, GP_FLOAT32)
DEFINE_GATHER(gather_f64, GP_FLOAT64)

/* The first bound: the image at rank k / n of a sample of the keys, plus
 * three standard deviations (UINT64_MAX: none). r: room for kSamples. */
static uint64_t sample_bound(const gpi_topk_args *a, ranked_key *r)
{
    const size_t step = a->n / kSamples;
    const double expected = (double)a->k / (double)a->n * kSamples;
    const double rank = expected + 3.0 * sqrt(expected) + 8.0;
    size_t i;
    if (a->k <= kSpare || step == 0 || rank >= kSamples - 1) return UINT64_MAX;
    for (i = 0; i < kSamples; i++) {
        r[i].image = gpi_order_image(a->key_dtype, a->descending, a->keys_in, i * step);
        r[i].index = i;
    }
    select_least(r, kSamples, (size_t)rank + 1, sort_depth(kSamples));
    return r[(size_t)rank].image;
}

static void rank_part(void *arg, int part, int parts)
{
    topk_job *job = (topk_job *)arg;
    ranked_key *buf = job->r + job->first[part], bound;
    const size_t cap = job->cap[part];
    size_t lo, hi, len;
    gpi_pool_range(job->a->n, part, parts, 1, &lo, &hi);
    switch (job->a->key_dtype) {
    case GP_UINT32: len = gather_u32(job, lo, hi, buf, cap); break;
    case GP_INT32: len = gather_i32(job, lo, hi, buf, cap); break;
    case GP_UINT64: len = gather_u64(job, lo, hi, buf, cap); break;
    case GP_INT64: len = gather_i64(job, lo, hi, buf, cap); break;
    case GP_FLOAT32: len = gather_f32(job, lo, hi, buf, cap); break;
    default: len = gather_f64(job, lo, hi, buf, cap); break;
    }
    if (len >= job->a->k) len = cut(job, buf, len, &bound);
    job->len[part] = len;
}

/* Each list cut to the entries not after the final bound (pieces learn of
 * it late), then sorted. */
static void sort_part(void *arg, int part, int parts)
{
    topk_job *job = (topk_job *)arg;
    ranked_key *list = job->r + job->first[part];
    size_t m = job->len[part], i, kept = 0;
    (void)parts;
    if (job->bounded) {
        for (i = 0; i < m; i++)
            if (!ranked_less(job->bound, list[i])) list[kept++] = list[i];
        m = kept;
    }
    if (m) partial_sort(list, m, m, sort_depth(m));
    job->len[part] = m;
}

/* Entries of l[0..len) with image below v (or_equal: not above v). */
static size_t count_images(const ranked_key *l, size_t len, uint64_t v, int or_equal)
{
    size_t lo = 0, hi = len;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (l[mid].image < v || (or_equal && l[mid].image == v)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* cur[p]: how many of list p's entries come before output `out` of the
 * merge. v is the largest image with at most `out` entries below it; the
 * remaining entries are those of image v, taken list by list. */
static void find_starts(const topk_job *job, size_t out, size_t *cur)
{
    uint64_t lo = 0, hi = UINT64_MAX;
    size_t rest = out;
    int p;
    while (lo < hi) {
        const uint64_t v = lo + (hi - lo) / 2 + 1;
        size_t below = 0;
        for (p = 0; p < job->lists && below <= out; p++)
            below += count_images(job->r + job->first[p], job->len[p], v, 0);
        if (below <= out) lo = v;
        else hi = v - 1;
    }
    for (p = 0; p < job->lists; p++) {
        cur[p] = count_images(job->r + job->first[p], job->len[p], lo, 0);
        rest -= cur[p];
    }
    for (p = 0; p < job->lists; p++) {
        const size_t equal = count_images(job->r + job->first[p], job->len[p], lo, 1) - cur[p];
        const size_t take = rest < equal ? rest : equal;
        cur[p] += take;
        rest -= take;
    }
}

/* One list in the merge: its next entry and where its entries end. */
typedef struct list_head {
    ranked_key next;
    size_t pos, end;
} list_head;

/* Min-heap of list heads h[0..n): sift entry i down. */
static void sift_heads(list_head *h, size_t n, size_t i)
{
    const list_head x = h[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && ranked_less(h[c + 1].next, h[c].next)) c++;
        if (!ranked_less(h[c].next, x.next)) break;
        h[i] = h[c];
        i = c;
    }
    h[i] = x;
}

/* Output o is key `from` of keys_in (and its value or index). */
static inline void write_out(const gpi_topk_args *a, size_t o, uint64_t from)
{
    if (gp_dtype_size(a->key_dtype) == 4) ((uint32_t *)a->keys_out)[o] = ((const uint32_t *)a->keys_in)[from];
    else ((uint64_t *)a->keys_out)[o] = ((const uint64_t *)a->keys_in)[from];
    if (a->value_size == 4)
        ((uint32_t *)a->values_out)[o] = a->values_in ? ((const uint32_t *)a->values_in)[from] : (uint32_t)from;
    else if (a->value_size == 8)
        ((uint64_t *)a->values_out)[o] = a->values_in ? ((const uint64_t *)a->values_in)[from] : from;
}

static void write_part(void *arg, int part, int parts)
{
    const topk_job *job = (const topk_job *)arg;
    list_head heads[GPI_POOL_MAX_PARTS];
    size_t cur[GPI_POOL_MAX_PARTS], lo, hi, o, n = 0;
    int p;
    gpi_pool_range(job->a->k, part, parts, 1, &lo, &hi);
    if (lo == hi) return;
    if (lo == 0)
        for (p = 0; p < job->lists; p++) cur[p] = 0;
    else
        find_starts(job, lo, cur);
    for (p = 0; p < job->lists; p++)
        if (cur[p] < job->len[p]) {
            heads[n].pos = job->first[p] + cur[p];
            heads[n].end = job->first[p] + job->len[p];
            heads[n].next = job->r[heads[n].pos];
            n++;
        }
    for (o = n / 2; o-- > 0;) sift_heads(heads, n, o);
    for (o = lo; o < hi; o++) {
        write_out(job->a, o, heads[0].next.index);
        if (++heads[0].pos < heads[0].end) heads[0].next = job->r[heads[0].pos];
        else heads[0] = heads[--n];
        sift_heads(heads, n, 0);
    }
}

gp_status gpi_cpu_topk_threads(const gpi_topk_args *a, int threads)
{
    topk_job job;
    size_t total = 0, lo, hi;
    int p;
    /* one part below 2 x GPI_POOL_MIN_PART keys: it runs on the caller,
     * and costs less than the reference's sort of all n */
    job.a = a;
    job.lists = gpi_pool_parts(a->n, threads);
    for (p = 0; p < job.lists; p++) {
        gpi_pool_range(a->n, p, job.lists, 1, &lo, &hi);
        job.first[p] = total;
        job.cap[p] = hi - lo > kSpare && a->k < (hi - lo - kSpare) / kCapPerK ? kCapPerK * a->k + kSpare : hi - lo;
        total += job.cap[p]; /* at most n */
    }
    if (total > SIZE_MAX / sizeof *job.r || !(job.r = (ranked_key *)malloc(total * sizeof *job.r)))
        return gpi_cpu_topk(a);
    if (pthread_mutex_init(&job.lock, NULL) != 0) {
        free(job.r);
        return gpi_cpu_topk(a);
    }
    job.bounded = 0;
    job.first_bound = sample_bound(a, job.r);
    gpi_pool_run(job.lists, rank_part, &job);
    if (job.first_bound != UINT64_MAX && !job.bounded) {
        /* no cut: each piece holds all its keys not above the first bound */
        size_t held = 0;
        for (p = 0; p < job.lists; p++) held += job.len[p];
        if (held < a->k) {
            job.first_bound = UINT64_MAX;
            gpi_pool_run(job.lists, rank_part, &job);
        }
    }
    pthread_mutex_destroy(&job.lock);
    gpi_pool_run(job.lists, sort_part, &job);
    gpi_pool_run(gpi_pool_parts(a->k, threads), write_part, &job);
    free(job.r);
    return GP_SUCCESS;
}
