/* msgrate.c — osu_mbw_mr-style message rate with one pair: windows of 64 MPI_Isend from rank 0 to
 * rank 1, acked per window; reports messages per second for small sizes (1 B .. 8 KiB). */
#include "bench_common.h"

int main(int argc, char **argv)
{
    return bench_window_main(argc, argv, "msgrate", BENCH_MSGRATE, 8192,
                             "message rate of one pair, rank 0 -> rank 1");
}
