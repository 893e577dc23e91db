/* SPDX-License-Identifier: BSD-3-Clause */
/* euler - every a^5 + b^5 + c^5 + d^5 = e^5 with 0 < a <= b <= c <= d < e <= N
 * (Lander and Parkin's counterexample to Euler's sum of powers conjecture:
 * 27^5 + 84^5 + 110^5 + 133^5 = 144^5, and its multiples).
 *
 * Two searches, each on the CPU (all cores) or CUDA:
 *   naive: every a <= b <= c <= d, e found by binary search among the
 *          fifth powers: O(N^4 log N);
 *   fast:  meet in the middle. The sums a^5 + b^5 (a <= b) are sorted with
 *          gpuprim's gp_sort_pairs, the pair riding along as the value; then
 *          for each c <= d and each e > d with e^5 <= d^5 + 3 c^5 (beyond,
 *          a^5 + b^5 <= 2 c^5 cannot make up the rest) the sorted sums are
 *          searched for e^5 - c^5 - d^5, keeping pairs with b <= c:
 *          O(N^3 log N) at worst, far less with that bound.
 * Arithmetic is exact in 64 bits: N <= 5000 keeps 4 N^5 < 2^64.
 *
 *   euler [-n N] [--method naive|fast|both] [--backend auto|cuda|cpu] [--threads T]
 */
#include "demo_util.h"

#include <gpuprim/gpuprim.h>

namespace {

constexpr int kMaxN = 5000, kMaxSolutions = 4096;

struct Solution {
    int a, b, c, d, e;
};

__host__ __device__ inline uint64_t p5(uint64_t x) { return x * x * x * x * x; }

/* The e in (lo, hi] with e^5 == s, or 0. */
__host__ __device__ inline int find_e(const uint64_t *pow5, int lo, int hi, uint64_t s)
{
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (pow5[mid] <= s) lo = mid;
        else hi = mid - 1;
    }
    return pow5[lo] == s ? lo : 0;
}

/* First index in sums[0, m) with sums[i] >= s. */
__host__ __device__ inline size_t lower_bound(const uint64_t *sums, size_t m, uint64_t s)
{
    size_t lo = 0, hi = m;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sums[mid] < s) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* (c, d) with 1 <= c <= d <= N - 1 from a flat index. */
__host__ __device__ inline void pair_of(uint64_t k, int *c, int *d)
{
    int d0 = (int)((sqrt(8.0 * (double)k + 1.0) - 1.0) / 2.0);
    while ((uint64_t)d0 * (d0 + 1) / 2 > k) d0--;
    while ((uint64_t)(d0 + 1) * (d0 + 2) / 2 <= k) d0++;
    *c = (int)(k - (uint64_t)d0 * (d0 + 1) / 2) + 1;
    *d = d0 + 1;
}

__host__ __device__ inline void record(Solution *out, int *count, Solution s)
{
#ifdef __CUDA_ARCH__
    int i = atomicAdd(count, 1);
#else
    int i = __atomic_fetch_add(count, 1, __ATOMIC_RELAXED);
#endif
    if (i < kMaxSolutions) out[i] = s;
}

/* naive, for the pair (c, d): every a <= b <= c. */
__host__ __device__ inline void naive_cd(const uint64_t *pow5, int n, int c, int d, Solution *out, int *count)
{
    const uint64_t cd = pow5[c] + pow5[d];
    for (int a = 1; a <= c; a++)
        for (int b = a; b <= c; b++) {
            uint64_t s = pow5[a] + pow5[b] + cd;
            if (s > pow5[n]) break;
            int e = find_e(pow5, d + 1, n, s);
            if (e) record(out, count, Solution{a, b, c, d, e});
        }
}

/* fast, for the pair (c, d): every e with e^5 <= d^5 + 3 c^5. */
__host__ __device__ inline void fast_cd(const uint64_t *pow5, int n, const uint64_t *sums, const uint32_t *ab,
                                        size_t m, int c, int d, Solution *out, int *count)
{
    const uint64_t cd = pow5[c] + pow5[d], top = pow5[d] + 3 * pow5[c];
    for (int e = d + 1; e <= n && pow5[e] <= top; e++) {
        const uint64_t want = pow5[e] - cd;
        for (size_t i = lower_bound(sums, m, want); i < m && sums[i] == want; i++) {
            const int a = (int)(ab[i] >> 16), b = (int)(ab[i] & 0xffff);
            if (b <= c) record(out, count, Solution{a, b, c, d, e});
        }
    }
}

__global__ void naive_kernel(const uint64_t *pow5, int n, uint64_t pairs, Solution *out, int *count)
{
    for (uint64_t k = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; k < pairs; k += (uint64_t)gridDim.x * blockDim.x) {
        int c, d;
        pair_of(k, &c, &d);
        naive_cd(pow5, n, c, d, out, count);
    }
}

__global__ void fast_kernel(const uint64_t *pow5, int n, const uint64_t *sums, const uint32_t *ab, size_t m,
                            uint64_t pairs, Solution *out, int *count)
{
    for (uint64_t k = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; k < pairs; k += (uint64_t)gridDim.x * blockDim.x) {
        int c, d;
        pair_of(k, &c, &d);
        fast_cd(pow5, n, sums, ab, m, c, d, out, count);
    }
}

__global__ void pair_sums_kernel(const uint64_t *pow5, int n, uint64_t *sums, uint32_t *ab, uint64_t m)
{
    for (uint64_t k = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; k < m; k += (uint64_t)gridDim.x * blockDim.x) {
        int a, b;
        pair_of(k, &a, &b);
        sums[k] = pow5[a] + pow5[b];
        ab[k] = (uint32_t)a << 16 | (uint32_t)b;
    }
}

struct CpuSearch {
    const uint64_t *pow5, *sums;
    const uint32_t *ab;
    size_t m;
    int n, fast;
    uint64_t pairs;
    Solution *out;
    int count;
};
void cpu_part(void *arg, int part, int parts)
{
    CpuSearch *s = (CpuSearch *)arg;
    for (uint64_t k = (uint64_t)part; k < s->pairs; k += (uint64_t)parts) { /* interleaved: big c, d spread out */
        int c, d;
        pair_of(k, &c, &d);
        if (s->fast) fast_cd(s->pow5, s->n, s->sums, s->ab, s->m, c, d, s->out, &s->count);
        else naive_cd(s->pow5, s->n, c, d, s->out, &s->count);
    }
}

int cmp_solution(const void *x, const void *y)
{
    const Solution *p = (const Solution *)x, *q = (const Solution *)y;
    if (p->e != q->e) return p->e - q->e;
    return p->a - q->a;
}

void gp_check(gp_status s, gp_context *ctx, const char *what)
{
    if (s) demo_die("%s: %s (%s)", what, gp_status_string(s), ctx ? gp_context_last_error(ctx) : "");
}

/* One search; returns its time in seconds and prints the solutions. */
double search(int n, int fast, int cuda, int threads, int verbose)
{
    const uint64_t pairs = (uint64_t)(n - 1) * (uint64_t)n / 2; /* (c, d) and (a, b) alike: 1 <= x <= y <= n-1 */
    uint64_t *pow5 = (uint64_t *)malloc((size_t)(n + 1) * 8);
    Solution *sol = (Solution *)malloc(kMaxSolutions * sizeof(Solution));
    int count = 0;
    double t0;
    for (int i = 0; i <= n; i++) pow5[i] = p5((uint64_t)i);
    gp_context *ctx = NULL;
    gp_check(gp_context_create(&ctx, cuda ? GP_BACKEND_CUDA : GP_BACKEND_CPU, 0), ctx, "gp_context_create");
    if (cuda) {
        uint64_t *d_pow5, *d_sums = NULL, *keys = NULL;
        uint32_t *d_ab = NULL, *vals = NULL;
        Solution *d_sol;
        int *d_count;
        DEMO_CUDA(cudaMalloc(&d_pow5, (size_t)(n + 1) * 8));
        DEMO_CUDA(cudaMalloc(&d_sol, kMaxSolutions * sizeof(Solution)));
        DEMO_CUDA(cudaMalloc(&d_count, sizeof(int)));
        DEMO_CUDA(cudaMemcpy(d_pow5, pow5, (size_t)(n + 1) * 8, cudaMemcpyHostToDevice));
        DEMO_CUDA(cudaMemset(d_count, 0, sizeof(int)));
        if (fast) {
            DEMO_CUDA(cudaMalloc(&keys, pairs * 8));
            DEMO_CUDA(cudaMalloc(&vals, pairs * 4));
            DEMO_CUDA(cudaMalloc(&d_sums, pairs * 8));
            DEMO_CUDA(cudaMalloc(&d_ab, pairs * 4));
        }
        DEMO_CUDA(cudaDeviceSynchronize());
        t0 = demo_now();
        if (fast) {
            pair_sums_kernel<<<1024, 256>>>(d_pow5, n, keys, vals, pairs);
            DEMO_CUDA(cudaGetLastError());
            gp_check(gp_sort_pairs(ctx, GP_UINT64, GP_SORT_ASCENDING, keys, d_sums, 4, vals, d_ab, pairs, 0, 64), ctx,
                     "gp_sort_pairs");
            fast_kernel<<<1024, 256>>>(d_pow5, n, d_sums, d_ab, pairs, pairs, d_sol, d_count);
        } else {
            naive_kernel<<<1024, 256>>>(d_pow5, n, pairs, d_sol, d_count);
        }
        DEMO_CUDA(cudaGetLastError());
        DEMO_CUDA(cudaMemcpy(&count, d_count, sizeof(int), cudaMemcpyDeviceToHost)); /* waits for the search */
        t0 = demo_now() - t0;
        if (count > kMaxSolutions) count = kMaxSolutions;
        DEMO_CUDA(cudaMemcpy(sol, d_sol, (size_t)count * sizeof(Solution), cudaMemcpyDeviceToHost));
        cudaFree(d_pow5), cudaFree(d_sol), cudaFree(d_count), cudaFree(keys), cudaFree(vals), cudaFree(d_sums),
            cudaFree(d_ab);
    } else {
        CpuSearch s = {pow5, NULL, NULL, pairs, n, fast, pairs, sol, 0};
        uint64_t *keys = NULL, *sums = NULL;
        uint32_t *vals = NULL, *ab = NULL;
        t0 = demo_now();
        if (fast) {
            keys = (uint64_t *)malloc(pairs * 8), sums = (uint64_t *)malloc(pairs * 8);
            vals = (uint32_t *)malloc(pairs * 4), ab = (uint32_t *)malloc(pairs * 4);
            if (!keys || !sums || !vals || !ab) demo_die("out of memory");
            for (uint64_t k = 0; k < pairs; k++) {
                int a, b;
                pair_of(k, &a, &b);
                keys[k] = pow5[a] + pow5[b];
                vals[k] = (uint32_t)a << 16 | (uint32_t)b;
            }
            gp_check(gp_sort_pairs(ctx, GP_UINT64, GP_SORT_ASCENDING, keys, sums, 4, vals, ab, pairs, 0, 64), ctx,
                     "gp_sort_pairs");
            s.sums = sums, s.ab = ab;
        }
        demo_parallel(cpu_part, &s, threads);
        t0 = demo_now() - t0;
        count = s.count < kMaxSolutions ? s.count : kMaxSolutions;
        free(keys), free(sums), free(vals), free(ab);
    }
    gp_context_destroy(ctx);
    qsort(sol, (size_t)count, sizeof *sol, cmp_solution);
    if (verbose)
        for (int i = 0; i < count; i++)
            printf("  %d^5 + %d^5 + %d^5 + %d^5 = %d^5\n", sol[i].a, sol[i].b, sol[i].c, sol[i].d, sol[i].e);
    printf("euler: N = %d, %s search, %s: %d solution(s), %.3f ms\n", n, fast ? "fast (meet in the middle, gp_sort)" : "naive",
           cuda ? "cuda" : "cpu", count, t0 * 1e3);
    free(pow5), free(sol);
    return t0;
}

} // namespace

static const char kUsage[] =
    "euler - all a^5+b^5+c^5+d^5 = e^5 with 0 < a <= b <= c <= d < e <= N\n"
    "  -n N                      the bound (default 250, at most 5000)\n"
    "  --method naive|fast|both  the O(N^4 log N) search, the meet in the middle, or both (default)\n"
    "  --backend auto|cuda|cpu   where to search (auto: CUDA when a device answers)\n"
    "  --threads T               CPU threads (default: all cores)\n"
    "  --help";

int main(int argc, char **argv)
{
    const char *backend = "auto", *method = "both";
    int n = 250, threads = demo_cpu_threads();
    const char *o, *v;
    for (int i = 1; demo_option(argc, argv, &i, kUsage, &o, &v);) {
        if (!strcmp(o, "-n")) n = atoi(v);
        else if (!strcmp(o, "--method")) method = v;
        else if (!strcmp(o, "--backend")) backend = v;
        else if (!strcmp(o, "--threads")) threads = atoi(v);
        else demo_die("unknown option %s (see --help)", o);
    }
    if (n < 2 || n > kMaxN) demo_die("-n must be in 2..%d (4 N^5 must fit 64 bits)", kMaxN);
    if (threads < 1) demo_die("--threads >= 1");
    const int naive = !strcmp(method, "naive") || !strcmp(method, "both");
    const int fast = !strcmp(method, "fast") || !strcmp(method, "both");
    if (!naive && !fast) demo_die("--method naive|fast|both");
    const int cuda = demo_use_cuda(backend);
    if (naive) search(n, 0, cuda, threads, 1);
    if (fast) search(n, 1, cuda, threads, !naive);
    return 0;
}
