/* `dem energy`: the energy drift report of one or more output files. */
#include "cli/commands.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dem/status.h"
#include "io/h5io.h"

enum { COLUMNS = 11, CELL = 64 };

static const char *const table_header[COLUMNS] = {
    "file",  "rows",          "t_end",          "E0",
    "E_end", "max_dev_%",     "mean_dev_%",     "drift_%",
    "W_end", "balance_max_%", "balance_drift_%"};
static const char *const csv_header[COLUMNS] = {"file",
                                                "rows",
                                                "t_end",
                                                "e0",
                                                "e_end",
                                                "max_rel_dev_percent",
                                                "mean_rel_dev_percent",
                                                "final_drift_percent",
                                                "dissipated_end",
                                                "max_balance_percent",
                                                "final_balance_percent"};

struct report {
  const char *file;
  struct dem_energy_summary s;
};

enum { CSV, HELP };

static const struct dem_cli_option energy_options[] = {
    {"csv", 0, NULL,
     "comma-separated values with a header line, every number exact", CSV},
    {"help", 'h', NULL, "this text", HELP},
    {0}};

static void usage(FILE *f) {
  fputs("usage: dem energy OUT.h5 [MORE.h5 ...] [--csv]\n"
        "\n"
        "Energy drift report of dem output files, one line per file:\n"
        "  rows        energy rows stored (/energy/total)\n"
        "  t_end       time of the last row, in s\n"
        "  E0, E_end   total energy of the first and last row, in J\n"
        "  max_dev_%   max |E-E0|/|E0| over all rows, in percent\n"
        "  mean_dev_%  mean |E-E0|/|E0| over all rows, in percent\n"
        "  drift_%     (E_end-E0)/|E0|, in percent (signed)\n"
        "  W_end       work dissipated by the contacts up to the last row,\n"
        "              less the work moving mesh walls did (wall_work)\n"
        "              and the energy inserted bodies brought (inserted)\n"
        "  balance_max_%    max |E+W-E0|/|E0| over all rows, in percent\n"
        "  balance_drift_%  (E_end+W_end-E0)/|E0|, in percent (signed):\n"
        "              the energy balance, exact but for the time step's\n"
        "              error (equal to max_dev and drift when W = 0)\n"
        "  With insertion, |E0| in these fractions is |E0| plus the largest\n"
        "  energy the inserted bodies brought since the first row.\n"
        "\n",
        f);
  dem_cli_options_print(f, energy_options);
}

/* The shortest %g text that reads back as exactly x. */
static void format_exact(char *buf, size_t size, double x) {
  for (int digits = 15; digits <= 17; digits++) {
    snprintf(buf, size, "%.*g", digits, x);
    if (strtod(buf, NULL) == x)
      return;
  }
}

/* The cells of one report: 6 significant digits, or exact when `exact`. */
static void format_cells(const struct report *r, int exact,
                         char cells[COLUMNS][CELL]) {
  const double values[] = {r->s.t_end,
                           r->s.e0,
                           r->s.e_end,
                           100.0 * r->s.max_rel_dev,
                           100.0 * r->s.mean_rel_dev,
                           100.0 * r->s.final_drift,
                           r->s.w_end,
                           100.0 * r->s.max_balance,
                           100.0 * r->s.final_balance};
  snprintf(cells[1], CELL, "%zu", r->s.n);
  for (int c = 2; c < COLUMNS; c++) {
    if (exact)
      format_exact(cells[c], CELL, values[c - 2]);
    else
      snprintf(cells[c], CELL, "%.6g", values[c - 2]);
  }
}

static void print_table(const struct report *reports, size_t n) {
  size_t width[COLUMNS];
  char(*cells)[COLUMNS][CELL] = calloc(n ? n : 1, sizeof *cells);
  for (int c = 0; c < COLUMNS; c++)
    width[c] = strlen(table_header[c]);
  for (size_t i = 0; i < n && cells; i++) {
    size_t len = strlen(reports[i].file);
    format_cells(&reports[i], 0, cells[i]);
    if (len > width[0])
      width[0] = len;
    for (int c = 1; c < COLUMNS; c++)
      if (strlen(cells[i][c]) > width[c])
        width[c] = strlen(cells[i][c]);
  }
  printf("%-*s", (int)width[0], table_header[0]);
  for (int c = 1; c < COLUMNS; c++)
    printf("  %*s", (int)width[c], table_header[c]);
  putchar('\n');
  for (size_t i = 0; i < n && cells; i++) {
    printf("%-*s", (int)width[0], reports[i].file);
    for (int c = 1; c < COLUMNS; c++)
      printf("  %*s", (int)width[c], cells[i][c]);
    putchar('\n');
  }
  free(cells);
}

/* A CSV field, quoted when it holds a comma, quote or line break. */
static void put_csv_field(const char *s) {
  if (!strpbrk(s, ",\"\r\n")) {
    fputs(s, stdout);
    return;
  }
  putchar('"');
  for (; *s; s++) {
    if (*s == '"')
      putchar('"');
    putchar(*s);
  }
  putchar('"');
}

static void print_csv(const struct report *reports, size_t n) {
  for (int c = 0; c < COLUMNS; c++)
    printf(c ? ",%s" : "%s", csv_header[c]);
  putchar('\n');
  for (size_t i = 0; i < n; i++) {
    char cells[COLUMNS][CELL];
    format_cells(&reports[i], 1, cells);
    put_csv_field(reports[i].file);
    for (int c = 1; c < COLUMNS; c++)
      printf(",%s", cells[c]);
    putchar('\n');
  }
}

int dem_cmd_energy(int argc, char **argv) {
  struct report *reports;
  struct dem_cli_parser p;
  const char *v;
  const char **files = calloc((size_t)argc, sizeof *files);
  size_t n_files = 0, n_ok = 0;
  int csv = 0, failed = 0, c;

  if (!files) {
    fprintf(stderr, "dem energy: out of memory\n");
    return dem_status_exit_code(DEM_ERR_NOMEM);
  }
  dem_cli_parser_init(&p, "dem energy", energy_options, argc, argv);
  while ((c = dem_cli_parser_next(&p, &v)) != DEM_CLI_END) {
    if (c == DEM_CLI_BAD) {
      free(files);
      return dem_status_exit_code(DEM_ERR_USAGE);
    }
    if (c == HELP) {
      usage(stdout);
      free(files);
      return 0;
    }
    if (c == CSV)
      csv = 1;
    else if (c == DEM_CLI_OPERAND)
      files[n_files++] = v;
  }
  if (n_files == 0) {
    fprintf(stderr, "dem energy: no output file given\n");
    usage(stderr);
    free(files);
    return dem_status_exit_code(DEM_ERR_USAGE);
  }
  reports = calloc(n_files, sizeof *reports);
  if (!reports) {
    fprintf(stderr, "dem energy: out of memory\n");
    free(files);
    return dem_status_exit_code(DEM_ERR_NOMEM);
  }
  for (size_t i = 0; i < n_files; i++) {
    const char *a = files[i];
    struct dem_energy_series series;
    dem_status st;
    dem_error_clear();
    st = dem_h5_read_energy(a, &series);
    if (st != DEM_OK) {
      fprintf(stderr, "dem energy: %s\n", dem_last_error());
      failed = 1;
      continue;
    }
    if (series.n == 0) {
      fprintf(stderr, "dem energy: %s: no energy rows\n", a);
      failed = 1;
    } else {
      reports[n_ok].file = a;
      dem_energy_summarize(&series, &reports[n_ok].s);
      n_ok++;
    }
    dem_energy_series_free(&series);
  }
  if (n_ok > 0) {
    if (csv)
      print_csv(reports, n_ok);
    else
      print_table(reports, n_ok);
  }
  free(reports);
  free(files);
  return failed ? dem_status_exit_code(DEM_ERR_IO) : 0;
}
