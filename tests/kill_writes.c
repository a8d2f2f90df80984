/* Kills a process with SIGKILL just before its N-th pwrite (loaded with
 * LD_PRELOAD by tests/cli_kill_writes.sh; HDF5 writes files with pwrite):
 * $DEM_KILL_AT_WRITE=N kills before write N; with $DEM_KILL_PAGES=P, it
 * first writes write N up to its P-th page boundary in the file (Linux
 * copies a write into the page cache page by page and a SIGKILL stops it
 * between two pages: a torn write). Without N, the count of writes of a
 * process that wrote is written to the file $DEM_WRITES_COUNT at its exit
 * (its parents, which wrote nothing, leave the count alone). With
 * $DEM_WRITES_LOG, each write's file offset and size are appended to that
 * file, a line each, in order. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

static atomic_long writes;
static long kill_at = -1, pages;
enum { PAGE = 4096 };

typedef ssize_t pwrite_fn(int, const void *, size_t, off_t);

static pwrite_fn *real_pwrite(void) {
  static pwrite_fn *real;
  if (!real)
    real = (pwrite_fn *)dlsym(RTLD_NEXT, "pwrite64");
  return real;
}

static void before_write(int fd, const void *buf, size_t n, off_t at) {
  static int log_fd = -2;
  if (kill_at < 0) {
    const char *k = getenv("DEM_KILL_AT_WRITE"), *p = getenv("DEM_KILL_PAGES");
    pages = p ? atol(p) : 0;
    kill_at = k ? atol(k) : 0;
  }
  if (log_fd == -2) {
    const char *log = getenv("DEM_WRITES_LOG");
    log_fd =
        log ? open(log, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644) : -1;
  }
  if (log_fd >= 0)
    dprintf(log_fd, "%lld %zu\n", (long long)at, n);
  if (atomic_fetch_add(&writes, 1) + 1 != kill_at)
    return;
  if (pages > 0) {
    size_t torn = (size_t)(PAGE - at % PAGE) + (size_t)(pages - 1) * PAGE;
    real_pwrite()(fd, buf, torn < n ? torn : n, at);
  }
  kill(getpid(), SIGKILL);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t at) {
  before_write(fd, buf, n, at);
  return real_pwrite()(fd, buf, n, at);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t at) {
  before_write(fd, buf, n, at);
  return real_pwrite()(fd, buf, n, at);
}

__attribute__((destructor)) static void report(void) {
  const char *path = getenv("DEM_WRITES_COUNT");
  FILE *f;
  if (!path || atomic_load(&writes) == 0 || !(f = fopen(path, "w")))
    return;
  fprintf(f, "%ld\n", (long)atomic_load(&writes));
  fclose(f);
}
