/* SPDX-License-Identifier: BSD-3-Clause */
/* NCCL's own collectives on p GPUs of this process: the link ceiling that
 * bench_dist's rows are read against (see world.h). nccl-tests' bus
 * bandwidth convention. */
#include <nccl.h>

#include "world.h"

#define NCCL(x)                                                                                       \
    do {                                                                                              \
        ncclResult_t r_ = (x);                                                                        \
        if (r_ != ncclSuccess) die("%s:%d %s -> %s", __FILE__, __LINE__, #x, ncclGetErrorString(r_)); \
    } while (0)

namespace {

/* p NCCL ranks, one a GPU, each with a stream, a source of `in_bytes` and a
 * destination of `out_bytes`. */
struct NcclWorld {
    int p;
    std::vector<ncclComm_t> comm;
    std::vector<cudaStream_t> stream;
    std::vector<void *> a, b;

    NcclWorld(int p_, size_t in_bytes, size_t out_bytes) : p(p_), comm(p_), stream(p_), a(p_), b(p_)
    {
        std::vector<int> devs(p);
        for (int r = 0; r < p; r++) devs[r] = r;
        NCCL(ncclCommInitAll(comm.data(), p, devs.data()));
        for (int r = 0; r < p; r++) {
            CK(cudaSetDevice(r));
            CK(cudaStreamCreateWithFlags(&stream[r], cudaStreamNonBlocking));
            CK(cudaMalloc(&a[r], in_bytes));
            CK(cudaMalloc(&b[r], out_bytes));
            fill(a[r], in_bytes, r, FLOATS);
        }
    }
    ~NcclWorld()
    {
        for (int r = 0; r < p; r++) {
            CK(cudaSetDevice(r));
            CK(cudaFree(a[r]));
            CK(cudaFree(b[r]));
            CK(cudaStreamDestroy(stream[r]));
            ncclCommDestroy(comm[r]);
        }
    }
    /* Median wall time of `iters` calls of issue() (after 5 more), from the
     * first launch to the moment every stream is idle. */
    template <class F> double time(F issue, int iters = 20)
    {
        std::vector<double> s;
        for (int it = 0; it < iters + 5; it++) {
            const double t0 = now_ms();
            NCCL(ncclGroupStart());
            issue();
            NCCL(ncclGroupEnd());
            for (int r = 0; r < p; r++) {
                CK(cudaSetDevice(r));
                CK(cudaStreamSynchronize(stream[r]));
            }
            if (it >= 5) s.push_back(now_ms() - t0);
        }
        return median_of(s);
    }
};

} // namespace

NcclBw nccl_bandwidth(int p, size_t bytes)
{
    NcclWorld w(p, bytes, bytes * p);
    NcclBw out{};
    out.allreduce_ms = w.time([&] {
        for (int r = 0; r < p; r++)
            NCCL(ncclAllReduce(w.a[r], w.b[r], bytes / 4, ncclFloat, ncclSum, w.comm[r], w.stream[r]));
    });
    out.allgather_ms = w.time([&] {
        for (int r = 0; r < p; r++) NCCL(ncclAllGather(w.a[r], w.b[r], bytes / p, ncclUint8, w.comm[r], w.stream[r]));
    });
    /* bus bandwidth: all-reduce 2(p-1)/p, all-gather (p-1)/p of the total size */
    out.allreduce_busbw = bytes * 2.0 * (p - 1) / p / out.allreduce_ms / 1e6;
    out.allgather_busbw = bytes * 1.0 * (p - 1) / p / out.allgather_ms / 1e6;
    return out;
}

double nccl_all_to_all_ms(int p, size_t bytes_per_rank)
{
    const size_t slice = bytes_per_rank / p;
    NcclWorld w(p, bytes_per_rank, bytes_per_rank);
    return w.time([&] {
        for (int r = 0; r < p; r++)
            for (int q = 0; q < p; q++) {
                NCCL(ncclSend((char *)w.a[r] + q * slice, slice, ncclUint8, q, w.comm[r], w.stream[r]));
                NCCL(ncclRecv((char *)w.b[r] + q * slice, slice, ncclUint8, q, w.comm[r], w.stream[r]));
            }
    });
}
