/* bw.c — osu_bw-style unidirectional bandwidth: rank 0 sends windows of 64 MPI_Isend to rank 1, which
 * acks each window; reports MB/s (10^6 B/s) for 1 B .. 16 MiB. */
#include "bench_common.h"

int main(int argc, char **argv)
{
    return bench_window_main(argc, argv, "bw", BENCH_BW, (size_t)16 << 20,
                             "unidirectional bandwidth, rank 0 -> rank 1");
}
