/* dem_bench: runs a config's scheme for a fixed number of steps in process
 * and prints what bench/bench.py reports, one "key value" per line:
 * loop time, sphere-steps per second, each operator's time, neighbour
 * builds and pairs, bytes of the lists, peak resident memory, the energy at
 * the first and last step, and the cost of one observation and one
 * snapshot written to HDF5 (the "output" a run pays at each interval),
 * the loop's CPU time (all threads; on a shared machine, with one
 * thread, steadier than the wall clock: time the host gives other jobs
 * is not counted), and the 10th percentile and the median of the steps'
 * own times (steadier again: a step the host interrupts is one slow step
 * among many, where it adds to the loop's total).
 *
 *   dem_bench CONFIG STEPS THREADS OUT.h5 [path.key=value ...]
 *   dem_bench --probe     (the machine's 1-to-2-thread speedup on arithmetic,
 *                          what two threads pay to meet, and how long a
 *                          line takes from one's core to the other's)
 *
 * DEM_BENCH_BROAD_PHASE=on|off in the environment forces the broad phase
 * on bodies on or off (default: automatic).
 *
 * Built by bench/bench.py against build/libdemcore.a; not part of the
 * test suite. */
#include <math.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config/config.h"
#include "io/h5io.h"
#include "operators/pipeline.h"
#include "run/observe.h"
#include "setup/setup.h"
#include "sim/body_order.h"
#include "sim/neighbors.h"

static int by_value(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Waits until *flag holds v; yields the core now and then, so that two
 * threads sharing one core still take turns. */
static void wait_for(const long *flag, long v) {
  for (unsigned spins = 1; __atomic_load_n(flag, __ATOMIC_ACQUIRE) != v;
       spins++)
    if (!(spins & 0xffff))
      sched_yield();
}

/* How long a cache line that one of two threads wrote takes to reach the
 * other, in ns: the two hand a counter back and forth (each waits for the
 * other's value, then writes its own), half of one round trip; NAN
 * without a team of two. Each line one thread writes and the other reads
 * in the same step pays it. In the AMD EPYC Zen 3 guest of
 * docs/performance.md it read about 50 or about 250 ns as the host moved
 * the two vCPUs between cores. */
static double line_probe(void) {
  enum { N = 20000 };
  static _Alignas(64) long flag;
  double ns = NAN;
  flag = 0;
#pragma omp parallel num_threads(2)
  if (omp_get_num_threads() == 2) {
    const long me = omp_get_thread_num();
#pragma omp barrier
    const double a = omp_get_wtime();
    for (long i = 0; i < N; i++) {
      const long wait = 2 * i + me, mine = 2 * i + me + 1;
      if (me == 1 || i > 0) /* thread 0 starts the first round */
        wait_for(&flag, wait);
      __atomic_store_n(&flag, mine, __ATOMIC_RELEASE);
    }
    if (me == 0) {
      wait_for(&flag, 2 * (long)N);
      ns = (omp_get_wtime() - a) / N * 1e9 / 2;
    }
  }
  return ns;
}

/* What two threads pay to meet, in us: an empty parallel region (the
 * fork and the join each of the step's regions pays before any work) and
 * a barrier inside one (each `omp for`'s end), the median of 9 runs of
 * 20,000 each. libgomp's barrier makes a futex call every time, whoever
 * waits: where the host makes system calls slow (a paravirtualised
 * guest), that is microseconds, and the 2-thread speedup of a step of a
 * few hundred us loses to it what the arithmetic probe cannot show. */
static void sync_probe(void) {
  enum { N = 20000, RUNS = 9 };
  double fork_us[RUNS], barrier_us[RUNS], line_ns[RUNS];
  omp_set_num_threads(2);
  for (int r = 0; r < RUNS; r++) {
    double a = omp_get_wtime();
    for (int i = 0; i < N; i++) {
#pragma omp parallel
      { __asm__ volatile("" ::: "memory"); }
    }
    fork_us[r] = (omp_get_wtime() - a) / N * 1e6;
    a = omp_get_wtime();
#pragma omp parallel
    for (int i = 0; i < N; i++) {
#pragma omp barrier
    }
    barrier_us[r] = (omp_get_wtime() - a) / N * 1e6;
    line_ns[r] = line_probe();
  }
  qsort(fork_us, RUNS, sizeof *fork_us, by_value);
  qsort(barrier_us, RUNS, sizeof *barrier_us, by_value);
  qsort(line_ns, RUNS, sizeof *line_ns, by_value);
  printf("probe_region_us %.3f\nprobe_barrier_us %.3f\nprobe_line_ns %.1f\n",
         fork_us[RUNS / 2], barrier_us[RUNS / 2], line_ns[RUNS / 2]);
}

/* The machine's own 1-to-2-thread speedup on pure arithmetic (no memory
 * traffic, no sharing): what the host lets two threads have right now.
 * On a shared VM it drops well below 2 while a vCPU is taken away. */
static int probe(void) {
  double t[3] = {0, 0, 0}, sum = 0;
  for (int th = 1; th <= 2; th++) {
    omp_set_num_threads(th);
    double a = omp_get_wtime(), s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s)
    for (long i = 0; i < 100000000; i++)
      s += sqrt((double)i) * 1e-9;
    t[th] = omp_get_wtime() - a;
    sum += s;
  }
  printf("probe_speedup %.4f\nprobe_check %g\n", t[1] / t[2], sum);
  sync_probe();
  return 0;
}

/* CPU time of the process (all its threads). */
static double cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int fail(const char *what) {
  fprintf(stderr, "dem_bench: %s: %s\n", what, dem_last_error());
  return 1;
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--probe") == 0)
    return probe();
  if (argc < 5) {
    fprintf(stderr, "usage: dem_bench CONFIG STEPS THREADS OUT.h5 "
                    "[path.key=value ...]\n");
    return 2;
  }
  long steps = atol(argv[2]);
  int threads = atoi(argv[3]);
  omp_set_num_threads(threads);
  struct dem_config *cfg = NULL;
  struct dem_sim sim = {0};
  struct dem_pipeline *p = NULL;
  struct dem_output_options out;
  double t0 = omp_get_wtime();
  if (dem_config_load(argv[1], &cfg))
    return fail("config");
  for (int i = 5; i < argc; i++)
    if (dem_config_set(cfg, argv[i]))
      return fail("--set");
  if (dem_setup(cfg, &sim, &out) || dem_setup_pipeline(cfg, &sim, &p))
    return fail("setup");
  const char *broad = getenv("DEM_BENCH_BROAD_PHASE");
  if (broad)
    sim.nb.broad_phase = strcmp(broad, "on") == 0    ? DEM_BROAD_ON
                         : strcmp(broad, "off") == 0 ? DEM_BROAD_OFF
                                                     : DEM_BROAD_AUTO;
  double t_setup = omp_get_wtime() - t0;
  struct dem_observer obs;
  /* As `dem run` starts: bodies in spatial order (when due), lists,
   * forces at t0, the scheme's half steps. */
  if (dem_observer_init(&obs, &sim) || dem_body_order_if_due(&sim) ||
      dem_neighbors_build(&sim) || dem_pipeline_initial_forces(p, &sim))
    return fail("start");
  dem_pipeline_start(p, &sim);
  struct dem_energy_row e0, e1;
  dem_observe_energy(&obs, &sim, p, &e0);
  long builds0 = sim.nb.builds;
  for (size_t k = 0; k < p->n_ops; k++)
    p->ops[k].seconds = 0, p->ops[k].calls = 0;
  p->timing = 1;
  double *step_time =
      malloc((size_t)(steps > 0 ? steps : 1) * sizeof *step_time);
  if (!step_time)
    return fail("memory");
  double c1 = cpu_seconds(), t1 = omp_get_wtime();
  for (long i = 0; i < steps; i++) {
    const double ts = omp_get_wtime();
    if (dem_pipeline_step(p, &sim))
      return fail("step");
    step_time[i] = omp_get_wtime() - ts;
  }
  double loop = omp_get_wtime() - t1, loop_cpu = cpu_seconds() - c1;
  if (steps > 0)
    qsort(step_time, (size_t)steps, sizeof *step_time, by_value);
  /* Where the host has put the team's two cores just now: the line's
   * time moves with it, from minute to minute on a guest. */
  const double line_ns = threads >= 2 ? line_probe() : NAN;

  /* Output: one energy row and one snapshot, as a run writes them. */
  double t2 = omp_get_wtime();
  dem_observe_energy(&obs, &sim, p, &e1);
  double t_energy = omp_get_wtime() - t2;
  struct dem_h5_run_info info = {.config_text = "bench",
                                 .scheme = p->scheme_name,
                                 .version = DEM_VERSION_STRING,
                                 .time_step = sim.dt,
                                 .xdmf = obs.xdmf,
                                 .n_xdmf = obs.n_xdmf};
  struct dem_h5_writer *h5;
  t2 = omp_get_wtime();
  if (dem_h5_create(argv[4], 1, &info, &h5))
    return fail("output");
  struct dem_snapshot snap;
  if (dem_observe_snapshot(&obs, &sim, &snap) ||
      dem_h5_energy_append(h5, &e1, 1) || dem_h5_snapshot_write(h5, &snap) ||
      dem_h5_close(h5))
    return fail("output");
  double t_snapshot = omp_get_wtime() - t2;

  /* VmHWM, not getrusage: ru_maxrss keeps the high-water mark of the
   * process that exec'd us (a Python harness). */
  long hwm_kb = -1;
  FILE *st = fopen("/proc/self/status", "r");
  char line[256];
  while (st && fgets(line, sizeof line, st))
    if (sscanf(line, "VmHWM: %ld kB", &hwm_kb) == 1)
      break;
  if (st)
    fclose(st);
  printf("threads %d\nspheres %zu\nbodies %zu\nsteps %ld\n", threads, sim.s.n,
         sim.b.n, steps);
  printf("setup_seconds %.6f\nloop_seconds %.6f\n", t_setup, loop);
  printf("sphere_steps_per_second %.6e\n", (double)sim.s.n * steps / loop);
  printf("loop_cpu_seconds %.6f\n", loop_cpu);
  if (threads >= 2)
    printf("line_ns_after %.1f\n", line_ns);
  if (steps > 0)
    printf("step_p10_seconds %.9f\nstep_median_seconds %.9f\n",
           step_time[steps / 10], step_time[steps / 2]);
  free(step_time);
  for (size_t k = 0; k < p->n_ops; k++)
    printf("op %s %.6f\n", p->ops[k].type->name, p->ops[k].seconds);
  printf("op output_energy_row %.6f\nop output_snapshot %.6f\n", t_energy,
         t_snapshot);
  printf("builds %ld\nskin %.6g\npairs %zu\nactive %zu\ncandidates %zu\n",
         sim.nb.builds - builds0, sim.nb.skin, sim.pairs.n, sim.nb.n_active,
         sim.nb.n_candidates);
  printf("neighbor_bytes %zu\npeak_rss_bytes %ld\n",
         dem_neighbors_bytes(&sim.nb), hwm_kb * 1024L);
  printf("energy_start %.17g\nenergy_end %.17g\n", e0.total, e1.total);
  dem_observer_free(&obs);
  dem_pipeline_free(p);
  dem_sim_release(&sim);
  dem_config_free(cfg);
  return 0;
}
