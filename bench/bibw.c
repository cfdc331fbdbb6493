/* bibw.c — osu_bibw-style bidirectional bandwidth: ranks 0 and 1 each post windows of 64 MPI_Irecv and
 * 64 MPI_Isend at the same time; reports the sum of both directions in MB/s (10^6 B/s). */
#include "bench_common.h"

int main(int argc, char **argv)
{
    return bench_window_main(argc, argv, "bibw", BENCH_BIBW, (size_t)16 << 20,
                             "bidirectional bandwidth (sum of both directions)");
}
