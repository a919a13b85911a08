/* RailMPI demo job: every rank exchanges messages with every other rank (data checked), then
 * ranks 0 and 1 measure ping-pong latency and streaming bandwidth, and rank 0 prints a table.
 * Run: mpiexec -n 4 ./demo */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double latency_us(int peer, int rank, size_t bytes, char *buf, int iters) {
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; i++) {
    if (rank == 0) {
      MPI_Send(buf, (int)bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
      MPI_Recv(buf, (int)bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buf, (int)bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, (int)bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
    }
  }
  return (MPI_Wtime() - t0) * 1e6 / (2.0 * iters);
}

static double bandwidth_mbs(int peer, int rank, size_t bytes, char *buf, int iters) {
  enum { window = 16 };
  MPI_Request req[window];
  char ack = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; i++) {
    for (int w = 0; w < window; w++) {
      if (rank == 0)
        MPI_Isend(buf, (int)bytes, MPI_CHAR, peer, 2, MPI_COMM_WORLD, &req[w]);
      else
        MPI_Irecv(buf, (int)bytes, MPI_CHAR, peer, 2, MPI_COMM_WORLD, &req[w]);
    }
    MPI_Waitall(window, req, MPI_STATUSES_IGNORE);
    if (rank == 0)
      MPI_Recv(&ack, 1, MPI_CHAR, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else
      MPI_Send(&ack, 1, MPI_CHAR, peer, 3, MPI_COMM_WORLD);
  }
  double seconds = MPI_Wtime() - t0;
  return (double)bytes * window * iters / seconds / 1e6;
}

int main(int argc, char **argv) {
  int rank, size, len;
  char host[MPI_MAX_PROCESSOR_NAME], version[MPI_MAX_LIBRARY_VERSION_STRING];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Get_processor_name(host, &len);
  MPI_Get_library_version(version, &len);

  /* All-to-all greeting: every pair exchanges its ranks, checked. */
  int bad = 0;
  for (int peer = 0; peer < size; peer++) {
    int mine[2] = {rank, peer}, theirs[2] = {-1, -1};
    MPI_Sendrecv(mine, 2, MPI_INT, peer, 0, theirs, 2, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (theirs[0] != peer || theirs[1] != rank) bad++;
  }
  int total_bad = 0;
  MPI_Allreduce(&bad, &total_bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("%s\n", version);
    printf("%d ranks on %s: %d pairwise exchanges, %s\n", size, host, size * size,
           total_bad ? "ERRORS" : "all correct");
  }

  if (size >= 2 && rank < 2) {
    const size_t sizes[] = {8, 1024, 65536, 1 << 20};
    char *buf = malloc(1 << 20);
    memset(buf, 'r', 1 << 20);
    if (rank == 0) printf("\n%10s %14s %16s\n", "bytes", "latency (us)", "bandwidth (MB/s)");
    for (int i = 0; i < 4; i++) {
      int iters = sizes[i] >= 65536 ? 50 : 1000;
      double lat = latency_us(1 - rank, rank, sizes[i], buf, iters);
      double bw = bandwidth_mbs(1 - rank, rank, sizes[i], buf, sizes[i] >= 65536 ? 10 : 100);
      if (rank == 0) printf("%10zu %14.2f %16.1f\n", sizes[i], lat, bw);
    }
    free(buf);
  } else if (size >= 2) {
    /* The other ranks join the barriers of the measurement loops. */
    for (int i = 0; i < 8; i++) MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return total_bad ? 1 : 0;
}
