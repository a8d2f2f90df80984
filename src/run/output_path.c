/* The output file's path, and checking it before anything is written. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
  char probe[4200];
  snprintf(probe, sizeof probe, "%s/.dem-probe-%ld-XXXXXX", dir,
           (long)getpid());
  int fd = mkstemp(probe);
  if (fd < 0)
    return 0;
  close(fd);
  unlink(probe);
  return 1;
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

static dem_status check_output(const struct dem_run *r, const char *path) {
  const struct dem_run_options *opt = r->opt;
  char dir[4096];
  struct stat sb;
  const char *slash = strrchr(path, '/');
  if (!path[0])
    return output_fail(r, "output file: empty name");
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
  int exists = stat(path, &sb) == 0;
  if (exists && S_ISDIR(sb.st_mode))
    return output_fail(r, "output file '%s' is a directory", path);
  if (opt->restart) {
    if (!exists || access(path, R_OK | W_OK) != 0)
      return dem_fail(DEM_ERR_USAGE, "--restart '%s': %s", path,
                      strerror(errno));
    return DEM_OK;
  }
  if (exists && opt->check_only)
    fprintf(stderr,
            "  note: output file '%s' exists (dem run will need "
            "--force to overwrite it)\n",
            path);
  else if (exists && !opt->force)
    return output_fail(r,
                       "output file '%s' exists (use --force to overwrite "
                       "it, or -o another name)",
                       path);
  return DEM_OK;
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
