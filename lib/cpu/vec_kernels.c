/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/vec_kernels.c - AVX2 inner loops of scan, reduce and compact
 * (cpu/vec_kernels.h), and the run-time checks that choose them. */
#include "vec_kernels.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int no_avx2_requested(void)
{
    const char *s = getenv("GP_CPU_NO_AVX2");
    return s && s[0] && strcmp(s, "0") != 0;
}

unsigned gpi_cpu_help_spins(void)
{
    const char *s = getenv("GP_CPU_HELP_SPINS");
    return s && s[0] ? (unsigned)strtoul(s, NULL, 10) : 256;
}

/* Outputs at least this large are stored non-temporally: half the
 * last-level cache (the input shares it), at least 4 MiB, and at most
 * 64 MiB (virtual machines may report the whole host's cache). */
static size_t stream_min;

static void find_stream_min(void)
{
    long llc = -1;
#ifdef _SC_LEVEL3_CACHE_SIZE
    llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
    if (llc <= 0) stream_min = (size_t)32 << 20;
    else stream_min = (size_t)llc / 2;
    if (stream_min < ((size_t)4 << 20)) stream_min = (size_t)4 << 20;
    if (stream_min > ((size_t)64 << 20)) stream_min = (size_t)64 << 20;
}

#if GPI_HAVE_AVX2_KERNELS
#include <immintrin.h>

#define GPI_AVX2 __attribute__((target("avx2,popcnt")))

/* Streams read from memory are prefetched this far ahead, every 64-byte
 * line: on two-core virtual machines the hardware prefetcher alone leaves a
 * read-bound loop well below the copy's read rate (a hint: it never faults,
 * even past the end of the buffer). */
#define PREFETCH_AHEAD 2048
static inline void prefetch_ahead(const void *p)
{
    _mm_prefetch((const char *)p + PREFETCH_AHEAD, _MM_HINT_T0);
}

static int cpu_has_avx2;
/* select_idx4[m]: the positions of the set bits of m, as 8 bytes; unused
 * bytes 0. select_idx8[m] (m < 16): the 32-bit word positions of the
 * 64-bit lanes set in m. */
static uint64_t select_idx4[256];
static uint32_t select_idx8[16][8];
static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void init_kernels(void)
{
    int m, b;
    __builtin_cpu_init();
    cpu_has_avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
    for (m = 0; m < 256; m++) {
        uint64_t v = 0;
        int k = 0;
        for (b = 0; b < 8; b++)
            if (m >> b & 1) v |= (uint64_t)b << (8 * k++);
        select_idx4[m] = v;
    }
    for (m = 0; m < 16; m++) {
        int k = 0;
        memset(select_idx8[m], 0, sizeof select_idx8[m]);
        for (b = 0; b < 4; b++)
            if (m >> b & 1) {
                select_idx8[m][2 * k] = (uint32_t)(2 * b);
                select_idx8[m][2 * k + 1] = (uint32_t)(2 * b + 1);
                k++;
            }
    }
    find_stream_min();
}

int gpi_cpu_avx2(void)
{
    pthread_once(&init_once, init_kernels);
    return cpu_has_avx2 && !no_avx2_requested();
}

int gpi_cpu_stream_output(size_t bytes)
{
    pthread_once(&init_once, init_kernels);
    return bytes >= stream_min;
}

GPI_AVX2 uint32_t gpi_avx2_sum_u32(const uint32_t *in, size_t n, uint32_t acc)
{
    __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
    __m128i h;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        prefetch_ahead(in + i);
        prefetch_ahead(in + i + 16);
        a0 = _mm256_add_epi32(a0, _mm256_loadu_si256((const __m256i *)(in + i)));
        a1 = _mm256_add_epi32(a1, _mm256_loadu_si256((const __m256i *)(in + i + 8)));
        a2 = _mm256_add_epi32(a2, _mm256_loadu_si256((const __m256i *)(in + i + 16)));
        a3 = _mm256_add_epi32(a3, _mm256_loadu_si256((const __m256i *)(in + i + 24)));
    }
    for (; i + 8 <= n; i += 8) a0 = _mm256_add_epi32(a0, _mm256_loadu_si256((const __m256i *)(in + i)));
    a0 = _mm256_add_epi32(_mm256_add_epi32(a0, a1), _mm256_add_epi32(a2, a3));
    h = _mm_add_epi32(_mm256_castsi256_si128(a0), _mm256_extracti128_si256(a0, 1));
    h = _mm_add_epi32(h, _mm_shuffle_epi32(h, 0x4e));
    h = _mm_add_epi32(h, _mm_shuffle_epi32(h, 0xb1));
    acc += (uint32_t)_mm_cvtsi128_si32(h);
    for (; i < n; i++) acc += in[i];
    return acc;
}

/* The inclusive sum scan within each 8-lane vector. */
static GPI_AVX2 inline __m256i scan8(__m256i x)
{
    __m256i low_top;
    x = _mm256_add_epi32(x, _mm256_slli_si256(x, 4));
    x = _mm256_add_epi32(x, _mm256_slli_si256(x, 8));
    low_top = _mm256_shuffle_epi32(_mm256_permute2x128_si256(x, x, 0x08), 0xff); /* (0 x4, x[3] x4) */
    return _mm256_add_epi32(x, low_top);
}

static GPI_AVX2 inline void put8(uint32_t *p, __m256i v, int stream)
{
    if (stream) _mm256_stream_si256((__m256i *)p, v);
    else _mm256_storeu_si256((__m256i *)p, v);
}

GPI_AVX2 uint32_t gpi_avx2_scan_u32(const uint32_t *in, uint32_t *out, size_t n, uint32_t carry, int inclusive,
                                    int stream, const uint32_t *fold, size_t fold_n, uint32_t *fold_sum)
{
    const __m256i last = _mm256_set1_epi32(7);
    __m256i c, f0 = _mm256_setzero_si256(), f1 = f0;
    __m128i h;
    size_t i = 0, folded = 0;
    if (stream) /* whole aligned vectors only */
        for (; i < n && ((uintptr_t)(out + i) & 31) != 0; i++) {
            const uint32_t x = in[i];
            out[i] = inclusive ? carry + x : carry;
            carry += x;
        }
    c = _mm256_set1_epi32((int)carry);
    for (; i + 16 <= n; i += 16) {
        /* Two vectors per step: the carry chain has one add per 16. */
        const __m256i x0 = _mm256_loadu_si256((const __m256i *)(in + i));
        const __m256i x1 = _mm256_loadu_si256((const __m256i *)(in + i + 8));
        const __m256i s0 = scan8(x0), s1 = scan8(x1);
        const __m256i t0 = _mm256_permutevar8x32_epi32(s0, last), t1 = _mm256_permutevar8x32_epi32(s1, last);
        const __m256i r0 = _mm256_add_epi32(s0, c);
        const __m256i r1 = _mm256_add_epi32(s1, _mm256_add_epi32(c, t0));
        if (folded + 16 <= fold_n) { /* the next piece's reads, between these stores */
            prefetch_ahead(fold + folded);
            f0 = _mm256_add_epi32(f0, _mm256_loadu_si256((const __m256i *)(fold + folded)));
            f1 = _mm256_add_epi32(f1, _mm256_loadu_si256((const __m256i *)(fold + folded + 8)));
            folded += 16;
        }
        c = _mm256_add_epi32(c, _mm256_add_epi32(t0, t1));
        put8(out + i, inclusive ? r0 : _mm256_sub_epi32(r0, x0), stream);
        put8(out + i + 8, inclusive ? r1 : _mm256_sub_epi32(r1, x1), stream);
    }
    if (fold_n) {
        f0 = _mm256_add_epi32(f0, f1);
        h = _mm_add_epi32(_mm256_castsi256_si128(f0), _mm256_extracti128_si256(f0, 1));
        h = _mm_add_epi32(h, _mm_shuffle_epi32(h, 0x4e));
        h = _mm_add_epi32(h, _mm_shuffle_epi32(h, 0xb1));
        *fold_sum = gpi_avx2_sum_u32(fold + folded, fold_n - folded, (uint32_t)_mm_cvtsi128_si32(h));
    }
    for (; i + 8 <= n; i += 8) {
        const __m256i x0 = _mm256_loadu_si256((const __m256i *)(in + i));
        const __m256i r0 = _mm256_add_epi32(scan8(x0), c);
        c = _mm256_permutevar8x32_epi32(r0, last);
        put8(out + i, inclusive ? r0 : _mm256_sub_epi32(r0, x0), stream);
    }
    carry = (uint32_t)_mm_cvtsi128_si32(_mm256_castsi256_si128(c));
    for (; i < n; i++) {
        const uint32_t x = in[i];
        out[i] = inclusive ? carry + x : carry;
        carry += x;
    }
    if (stream) _mm_sfence();
    return carry;
}

GPI_AVX2 size_t gpi_avx2_count_u8(const uint8_t *f, size_t n)
{
    const __m256i zero = _mm256_setzero_si256();
    size_t i = 0, zeros = 0;
    for (; i + 64 <= n; i += 64) {
        prefetch_ahead(f + i);
        const __m256i a = _mm256_loadu_si256((const __m256i *)(f + i));
        const __m256i b = _mm256_loadu_si256((const __m256i *)(f + i + 32));
        const uint64_t za = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, zero));
        const uint64_t zb = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(b, zero));
        zeros += (size_t)_mm_popcnt_u64(za | zb << 32);
    }
    for (; i < n; i++) zeros += f[i] == 0;
    return n - zeros;
}

/* The bits of the non-zero bytes among f[0, 32). */
static GPI_AVX2 inline uint32_t set_bits32(const uint8_t *f)
{
    const __m256i v = _mm256_loadu_si256((const __m256i *)f);
    return ~(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_setzero_si256()));
}

GPI_AVX2 size_t gpi_avx2_select4_u8(const uint32_t *in, const uint8_t *f, size_t n, uint32_t *buf)
{
    size_t i = 0, k = 0;
    for (; i + 32 <= n; i += 32) {
        const uint32_t bits = set_bits32(f + i);
        int g;
        prefetch_ahead(in + i);
        prefetch_ahead(in + i + 16);
        for (g = 0; g < 4; g++) {
            const unsigned m = bits >> (8 * g) & 0xff;
            const __m256i idx = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)&select_idx4[m]));
            const __m256i v = _mm256_loadu_si256((const __m256i *)(in + i + 8 * g));
            _mm256_storeu_si256((__m256i *)(buf + k), _mm256_permutevar8x32_epi32(v, idx));
            k += (size_t)_mm_popcnt_u32(m);
        }
    }
    for (; i < n; i++) {
        buf[k] = in[i];
        k += f[i] != 0;
    }
    return k;
}

GPI_AVX2 size_t gpi_avx2_select8_u8(const uint64_t *in, const uint8_t *f, size_t n, uint64_t *buf)
{
    size_t i = 0, k = 0;
    for (; i + 32 <= n; i += 32) {
        const uint32_t bits = set_bits32(f + i);
        int g;
        prefetch_ahead(in + i);
        prefetch_ahead(in + i + 8);
        prefetch_ahead(in + i + 16);
        prefetch_ahead(in + i + 24);
        for (g = 0; g < 8; g++) {
            const unsigned m = bits >> (4 * g) & 0xf;
            const __m256i idx = _mm256_loadu_si256((const __m256i *)select_idx8[m]);
            const __m256i v = _mm256_loadu_si256((const __m256i *)(in + i + 4 * g));
            _mm256_storeu_si256((__m256i *)(buf + k), _mm256_permutevar8x32_epi32(v, idx));
            k += (size_t)_mm_popcnt_u32(m);
        }
    }
    for (; i < n; i++) {
        buf[k] = in[i];
        k += f[i] != 0;
    }
    return k;
}

GPI_AVX2 void gpi_avx2_copy_stream(void *dst_, const void *src_, size_t bytes)
{
    char *dst = (char *)dst_;
    const char *src = (const char *)src_;
    size_t head = (size_t)(-(uintptr_t)dst & 63), i; /* whole lines from the first */
    if (head > bytes) head = bytes;
    memcpy(dst, src, head);
    for (i = head; i + 32 <= bytes; i += 32)
        _mm256_stream_si256((__m256i *)(dst + i), _mm256_loadu_si256((const __m256i *)(src + i)));
    memcpy(dst + i, src + i, bytes - i);
}

GPI_AVX2 void gpi_avx2_store_fence(void)
{
    _mm_sfence();
}

#else /* no AVX2 kernels in this build */

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

int gpi_cpu_avx2(void)
{
    (void)no_avx2_requested;
    return 0;
}

int gpi_cpu_stream_output(size_t bytes)
{
    pthread_once(&init_once, find_stream_min);
    return bytes >= stream_min;
}
#endif
