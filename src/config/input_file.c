/* Opening the files a run reads (the config, sphere files): regular files of
 * bounded size only, and never blocking on a FIFO or a device. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/config.h"

/* What a file that is not a regular file is, for messages. */
static const char *file_kind(mode_t m) {
  if (S_ISDIR(m))
    return "a directory";
  if (S_ISCHR(m))
    return "a character device";
  if (S_ISBLK(m))
    return "a block device";
  if (S_ISFIFO(m))
    return "a FIFO";
  if (S_ISSOCK(m))
    return "a socket";
  return "not a regular file";
}

void dem_format_bytes(long long bytes, char *buf, size_t size) {
  if (bytes >= 1024LL * 1024 && bytes % (1024LL * 1024) == 0)
    snprintf(buf, size, "%lld MiB", bytes / (1024LL * 1024));
  else if (bytes >= 1024LL * 1024)
    snprintf(buf, size, "%.1f MiB", (double)bytes / (1024.0 * 1024.0));
  else
    snprintf(buf, size, "%lld bytes", bytes);
}

FILE *dem_open_input_file(const char *path, long long max_bytes, char *why,
                          size_t why_size) {
  /* O_NONBLOCK: opening a FIFO without a writer would otherwise wait for
   * one, deaf to signals handled by a flag. */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    snprintf(why, why_size, "%s", strerror(errno));
    return NULL;
  }
  struct stat sb;
  if (fstat(fd, &sb) != 0) {
    snprintf(why, why_size, "%s", strerror(errno));
    close(fd);
    return NULL;
  }
  if (!S_ISREG(sb.st_mode)) {
    if (S_ISDIR(sb.st_mode))
      snprintf(why, why_size, "it is a directory");
    else
      snprintf(why, why_size, "it is %s, not a regular file",
               file_kind(sb.st_mode));
    close(fd);
    return NULL;
  }
  if ((long long)sb.st_size > max_bytes) {
    char limit[32], size[32];
    dem_format_bytes(max_bytes, limit, sizeof limit);
    dem_format_bytes((long long)sb.st_size, size, sizeof size);
    snprintf(why, why_size, "it is larger than the limit of %s (%s)", limit,
             size);
    close(fd);
    return NULL;
  }
  int flags = fcntl(fd, F_GETFL);
  if (flags >= 0)
    fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  FILE *f = fdopen(fd, "rb");
  if (!f) {
    snprintf(why, why_size, "%s", strerror(errno));
    close(fd);
  }
  return f;
}
