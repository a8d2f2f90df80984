/* Hidden temporary files beside an output: unpredictable names, created
 * exclusively, so a rename can replace the output in one step. */
#include "io/temp_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* splitmix64: a well-mixed sequence from a seed that differs between
 * processes and calls (the name only has to be hard to guess and rarely
 * taken; O_EXCL makes it safe). */
static uint64_t mix(uint64_t *s) {
  uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

int dem_temp_create(const char *path, char **tmp) {
  static const char letters[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  static uint64_t calls;
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  int dir_len = slash ? (int)(slash - path + 1) : 0;
  size_t size = strlen(path) + DEM_TEMP_EXTRA + 1;
  struct timespec ts;
  uint64_t seed;
  *tmp = malloc(size);
  if (!*tmp) {
    errno = ENOMEM;
    return -1;
  }
  clock_gettime(CLOCK_REALTIME, &ts);
  seed = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^
         ((uint64_t)getpid() << 12) ^ ++calls;
  for (int attempt = 0; attempt < 100; attempt++) {
    char suffix[7];
    uint64_t r = mix(&seed);
    for (int k = 0; k < 6; k++, r /= 62)
      suffix[k] = letters[r % 62];
    suffix[6] = '\0';
    snprintf(*tmp, size, "%.*s.%s.%s", dir_len, path, base, suffix);
    int fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0)
      return fd;
    if (errno != EEXIST)
      break;
  }
  int saved = errno;
  free(*tmp);
  *tmp = NULL;
  errno = saved;
  return -1;
}
