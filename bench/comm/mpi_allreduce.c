/* backplane_mpi_allreduce BYTES...: Open MPI's MPI_Allreduce (float32 sum)
 * timed the nccl-tests way, the baseline of `backplane bench comm`. Run under
 * mpirun; rank 0 prints one line per size: "<bytes> <out-of-place us>
 * <in-place us>", the slowest rank's average over the iterations after a
 * warm-up. Buffers are touched first so page faults are not timed. With
 * --quick first, a few iterations only (a run that checks the path).
 *
 * backplane_mpi_allreduce --ping-pong: the link between ranks 0 and 1 (run
 * with one rank per host): rank 0 prints "<latency us> <bandwidth GB/s>",
 * half the best round trip of 8 bytes, and 2 x 4 MiB over the best round
 * trip of 4 MiB each way. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int warmup = 10;

static double time_allreduce(float *send, float *recv, int count, int iters,
                             int in_place) {
  const void *source = in_place ? MPI_IN_PLACE : send;
  for (int i = 0; i < warmup; i++)
    MPI_Allreduce(source, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  for (int i = 0; i < iters; i++)
    MPI_Allreduce(source, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  double mine = (MPI_Wtime() - start) / iters, slowest = 0;
  MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  return slowest * 1e6;
}

/* The best round trip of `bytes` between ranks 0 and 1, in seconds. */
static double best_round_trip(char *buffer, int bytes, int rounds, int rank) {
  double best = 1e30;
  for (int i = 0; i < rounds; i++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    if (rank == 0) {
      MPI_Send(buffer, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(buffer, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(buffer, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      MPI_Send(buffer, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
    double took = MPI_Wtime() - start;
    best = took < best ? took : best;
  }
  return best;
}

static int ping_pong(int rank) {
  enum { LARGE = 4 << 20 };
  char *buffer = calloc(1, LARGE);
  if (buffer == NULL)
    MPI_Abort(MPI_COMM_WORLD, 1);
  double small = best_round_trip(buffer, 8, 1000, rank);
  double large = best_round_trip(buffer, LARGE, 10, rank);
  if (rank == 0)
    printf("%.3f %.4f\n", small / 2 * 1e6, 2.0 * LARGE / large / 1e9);
  free(buffer);
  MPI_Finalize();
  return 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc > 1 && strcmp(argv[1], "--ping-pong") == 0)
    return ping_pong(rank);
  int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
  if (quick)
    warmup = 2;
  for (int a = 1 + quick; a < argc; a++) {
    size_t bytes = strtoull(argv[a], NULL, 10);
    int count = (int)(bytes / sizeof(float));
    float *send = malloc(bytes + 4), *recv = malloc(bytes + 4);
    if (send == NULL || recv == NULL)
      MPI_Abort(MPI_COMM_WORLD, 1);
    memset(send, 0, bytes + 4);
    memset(recv, 0, bytes + 4);
    int iters = quick                  ? 5
                : bytes >= (64u << 20) ? 5
                : bytes >= (1u << 20)  ? 20
                                       : 200;
    double oop = time_allreduce(send, recv, count, iters, 0);
    double ip = time_allreduce(send, recv, count, iters, 1);
    if (rank == 0)
      printf("%zu %.3f %.3f\n", bytes, oop, ip);
    free(send);
    free(recv);
  }
  MPI_Finalize();
  return 0;
}
