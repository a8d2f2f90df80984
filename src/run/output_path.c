/* The output file's path, checking it before anything is written, and
 * the lock that keeps two runs from writing it at once. */
#define _DEFAULT_SOURCE /* flock */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/temp_file.h"
#include "run/run.h"

/* Default output: the config's base name with .h5, in the current dir. */
static char *default_output(const char *config_path) {
  const char *base = strrchr(config_path, '/');
  base = base ? base + 1 : config_path;
  size_t len = strlen(base);
  const char *dot = strrchr(base, '.');
  if (dot && (strcmp(dot, ".yaml") == 0 || strcmp(dot, ".yml") == 0))
    len = (size_t)(dot - base);
  char *out = malloc(len + 4);
  if (out)
    snprintf(out, len + 4, "%.*s.h5", (int)len, base);
  return out;
}

/* Whether a file can be created in dir (also for root on a read-only or
 * virtual file system): creates and removes a hidden probe. errno tells
 * why not. */
static int can_create(const char *dir) {
  size_t size = strlen(dir) + 64;
  char *probe = malloc(size);
  if (!probe)
    return 0;
  snprintf(probe, size, "%s/.dem-probe-%ld-XXXXXX", dir, (long)getpid());
  int fd = mkstemp(probe);
  if (fd >= 0) {
    close(fd);
    unlink(probe);
  }
  free(probe);
  return fd >= 0;
}

/* A failure of the output path, at output.file's position when the path
 * came from the config. */
static dem_status output_fail(const struct dem_run *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static dem_status output_fail(const struct dem_run *r, const char *fmt, ...) {
  char msg[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  const struct dem_node *n =
      dem_node_get(dem_node_get(r->cfg->root, "output"), "file");
  if (n && !r->opt->output && !r->opt->restart)
    return dem_fail_at(DEM_ERR_USAGE, dem_node_file(n), dem_node_line(n),
                       dem_node_col(n), "%s", msg);
  return dem_fail(DEM_ERR_USAGE, "%s", msg);
}

/* The lock beside the output, ".NAME.lock": flock'ed for the whole run
 * and holding the process id for the message of a run refused. It is
 * removed at the end while still locked; a run that took a lock on a file
 * someone removed meanwhile (the inode at the name is no longer its own)
 * takes it again. A lock left by a killed run is free again (the kernel
 * drops the flock) and taken over. */
dem_status dem_run_lock_output(struct dem_run *r, const char *dir,
                               const char *base) {
  size_t size = strlen(dir) + strlen(base) + 16;
  char *path = malloc(size);
  if (!path)
    return dem_fail(DEM_ERR_NOMEM, "out of memory");
  snprintf(path, size, "%s/.%s.lock", dir, base);
  for (int attempt = 0; attempt < 100; attempt++) {
    struct stat held, named;
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0) {
      dem_status st = output_fail(r,
                                  "output file '%s/%s': cannot create "
                                  "its lock '%s' (%s)",
                                  dir, base, path, strerror(errno));
      free(path);
      return st;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      char pid[32] = "";
      ssize_t n = read(fd, pid, sizeof pid - 1);
      pid[n > 0 ? n : 0] = '\0';
      pid[strcspn(pid, "\n")] = '\0';
      close(fd);
      free(path);
      return output_fail(r,
                         "output file '%s': another dem run%s%s%s is "
                         "writing it; wait for it to end, or -o another "
                         "name",
                         r->output, pid[0] ? " (process " : "", pid,
                         pid[0] ? ")" : "");
    }
    if (fstat(fd, &held) == 0 && lstat(path, &named) == 0 &&
        held.st_dev == named.st_dev && held.st_ino == named.st_ino) {
      char pid[32];
      int len = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
      if (ftruncate(fd, 0) != 0 || write(fd, pid, (size_t)len) != len) {
        /* only the message of a refused run lacks the number */
      }
      r->lock_fd = fd;
      r->lock_path = path;
      return DEM_OK;
    }
    close(fd); /* removed by the run that held it: take the new one */
  }
  free(path);
  return output_fail(r, "output file '%s': cannot take its lock", r->output);
}

void dem_run_unlock_output(struct dem_run *r) {
  if (r->lock_fd < 0)
    return;
  unlink(r->lock_path);
  close(r->lock_fd);
  r->lock_fd = -1;
  free(r->lock_path);
  r->lock_path = NULL;
}

/* An output whose creation failed because its directory went away after
 * the checks (removed, or replaced by a file) is a bad output path too
 * (exit 2), not an input/output failure. */
dem_status dem_run_output_recheck(struct dem_run *r, dem_status st) {
  const char *slash = strrchr(r->output, '/');
  char dir[PATH_MAX];
  struct stat sb;
  if (st != DEM_ERR_IO || !slash)
    return st;
  snprintf(dir, sizeof dir, "%.*s",
           slash == r->output ? 1 : (int)(slash - r->output), r->output);
  if (stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode))
    return st;
  return dem_refail(DEM_ERR_USAGE,
                    "output file '%s': directory '%s' went away before the "
                    "file was created",
                    r->output, dir);
}

static const char *file_kind(mode_t m) {
  return S_ISDIR(m)    ? "a directory"
         : S_ISCHR(m)  ? "a character device"
         : S_ISBLK(m)  ? "a block device"
         : S_ISFIFO(m) ? "a named pipe"
         : S_ISSOCK(m) ? "a socket"
                       : "not a regular file";
}

/* The name and the names dem makes beside it (the sidecar, hidden
 * temporary files ".NAME.XXXXXX" and the lock ".NAME.lock") must fit the
 * directory's limit, so that a legal-looking name fails here (exit 2)
 * rather than when the file is created (exit 1). */
static dem_status check_name(const struct dem_run *r, const char *path,
                             const char *dir, const char *base) {
  long name_max = pathconf(dir, _PC_NAME_MAX);
  size_t len = strlen(base);
  /* NAME.xmf, or NAME less its .h5 and with .xmf */
  size_t xmf =
      len > 3 && strcmp(base + len - 3, ".h5") == 0 ? len + 1 : len + 4;
  if (name_max <= 0)
    name_max = 255;
  size_t longest = (xmf > len ? xmf : len) + DEM_TEMP_EXTRA;
  if (longest > (size_t)name_max) {
    size_t allowed = (size_t)name_max - DEM_TEMP_EXTRA - (xmf - len);
    return output_fail(r,
                       "output file name '%.40s...' is too long: %zu "
                       "characters, at most %zu here (the directory allows "
                       "%ld, and dem writes hidden temporary files "
                       "'.NAME.XXXXXX' beside it)",
                       base, len, allowed, name_max);
  }
  if (strlen(path) + DEM_TEMP_EXTRA + 8 >= PATH_MAX)
    return output_fail(r,
                       "output file '%.40s...': path too long (%zu "
                       "characters, at most %d)",
                       path, strlen(path), PATH_MAX - DEM_TEMP_EXTRA - 9);
  return DEM_OK;
}

/* What already exists at the output (path) or its sidecar: it must be a
 * regular file, and not the configuration being run. */
static dem_status check_existing(const struct dem_run *r, const char *path,
                                 const struct stat *sb, const char *what) {
  struct stat cfg;
  if (!S_ISREG(sb->st_mode))
    return output_fail(r,
                       "%s '%s' is %s: dem writes only regular files "
                       "(choose another name with -o)",
                       what, path, file_kind(sb->st_mode));
  if (stat(r->opt->config_path, &cfg) == 0 && cfg.st_dev == sb->st_dev &&
      cfg.st_ino == sb->st_ino)
    return output_fail(r,
                       "%s '%s' is the configuration file '%s': refused "
                       "(choose another name with -o)",
                       what, path, r->opt->config_path);
  return DEM_OK;
}

static dem_status check_output(struct dem_run *r, const char *path) {
  const struct dem_run_options *opt = r->opt;
  char dir[PATH_MAX];
  struct stat sb, xsb;
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  dem_status st;
  if (!path[0])
    return output_fail(r, "output file: empty name");
  if (!base[0])
    return output_fail(r, "output file '%s': no file name after the last '/'",
                       path);
  if (strlen(path) >= sizeof dir)
    return output_fail(r,
                       "output file '%.40s...': path too long (%zu "
                       "characters)",
                       path, strlen(path));
  if (slash && slash == path)
    snprintf(dir, sizeof dir, "/");
  else if (slash)
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
  else
    snprintf(dir, sizeof dir, ".");
  if (stat(dir, &sb) != 0)
    return output_fail(r,
                       "output file '%s': directory '%s' does not exist (%s)",
                       path, dir, strerror(errno));
  if (!S_ISDIR(sb.st_mode))
    return output_fail(r, "output file '%s': '%s' is not a directory", path,
                       dir);
  if (access(dir, W_OK | X_OK) != 0 || (!opt->restart && !can_create(dir)))
    return output_fail(r,
                       "output file '%s': cannot write in directory '%s' (%s)",
                       path, dir, strerror(errno));
  if ((st = check_name(r, path, dir, base)))
    return st;
  /* From here on no other dem run may write this output (or restart it)
   * until this one ends: two runs racing to create or replace the same
   * file would leave one's output with the other's exit status. */
  if (!opt->check_only && (st = dem_run_lock_output(r, dir, base)))
    return st;
  char *xmf = dem_h5_sidecar_path(path);
  if (!xmf)
    return dem_fail(DEM_ERR_NOMEM, "out of memory");
  struct stat lsb;
  int exists = stat(path, &sb) == 0, err = errno;
  int xmf_exists = stat(xmf, &xsb) == 0;
  /* A symbolic link to nothing is there too: it would block the exclusive
   * creation, and --force replaces the link (never its target). */
  int present = exists || lstat(path, &lsb) == 0;
  int xmf_present = xmf_exists || lstat(xmf, &lsb) == 0;
  if (exists && S_ISDIR(sb.st_mode))
    st = output_fail(r, "output file '%s' is a directory", path);
  else if (opt->restart && !exists)
    st = dem_fail(DEM_ERR_USAGE, "--restart '%s': %s", path, strerror(err));
  else if (exists &&
           (st = check_existing(
                r, path, &sb, opt->restart ? "--restart file" : "output file")))
    ;
  else if (xmf_exists && (st = check_existing(r, xmf, &xsb, "sidecar")))
    ;
  else if (opt->restart) {
    if (access(path, R_OK | W_OK) != 0)
      st = dem_fail(DEM_ERR_USAGE, "--restart '%s': %s", path, strerror(errno));
  } else if ((present || xmf_present) && opt->check_only)
    fprintf(stderr,
            "  note: output file '%s' exists (dem run will need "
            "--force to overwrite it)\n",
            present ? path : xmf);
  else if (present && !opt->force)
    st = output_fail(r,
                     "output file '%s' exists (use --force to overwrite "
                     "it, or -o another name)",
                     path);
  else if (xmf_present && !opt->force)
    st = output_fail(r,
                     "output file '%s': its sidecar '%s' exists (use "
                     "--force to overwrite both, or -o another name)",
                     path, xmf);
  free(xmf);
  return st;
}

dem_status dem_run_output(struct dem_run *r) {
  const struct dem_run_options *opt = r->opt;
  if (opt->restart && opt->output && strcmp(opt->restart, opt->output) != 0)
    return dem_fail(DEM_ERR_USAGE,
                    "--restart '%s' appends to that file: -o "
                    "'%s' cannot name another",
                    opt->restart, opt->output);
  if (opt->restart)
    r->output = strdup(opt->restart);
  else if (opt->output)
    r->output = strdup(opt->output);
  else if (r->out.file)
    r->output = strdup(r->out.file);
  else
    r->output = default_output(opt->config_path);
  if (!r->output)
    return dem_fail(DEM_ERR_NOMEM, "out of memory");
  return check_output(r, r->output);
}
