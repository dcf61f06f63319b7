/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The figures of one run of a workload, recorded or simulated, computed by
 * the same code from the same kind of facts (a CPU switched to a task or to
 * idle, a task was woken, a task exited), so that the recording and a
 * simulation compare like with like (schedreplay-simulate(1) defines each
 * figure).  Memory is per task and per CPU: latencies go into a log-scale
 * histogram (1/32 of an octave, so p50 and p99 are within about 2 %), the
 * mean and the maximum are exact.
 */
#ifndef SCHEDREPLAY_RUNMETRICS_H
#define SCHEDREPLAY_RUNMETRICS_H

#include <stdint.h>

#include "schedreplay/topology.h"

struct sr_rm;

/* a log-scale histogram of nanosecond values (1/32 of an octave a bucket) */
#define SR_HIST_BUCKETS (64 * 32 + 2)
struct sr_hist {
	uint64_t n;
	double sum;
	uint64_t max;
	uint64_t count[SR_HIST_BUCKETS];
};

/* sr_hist_add - count @v (ns) */
void sr_hist_add(struct sr_hist *h, uint64_t v);

/**
 * sr_hist_quantile - the value below which a share @q of the samples lie
 * Return: the bucket's middle (within about 1 % of a sample), 0 with no samples.
 */
double sr_hist_quantile(const struct sr_hist *h, double q);

/**
 * sr_hist_sample - the value at share @u (0 <= u < 1) of the samples, as
 * sr_hist_quantile() but for drawing from the distribution with a uniform @u
 * Return: ns, 0 with no samples.
 */
uint64_t sr_hist_sample(const struct sr_hist *h, double u);

struct sr_run_metrics {
	double makespan_s;
	uint64_t migrations;
	uint64_t migrations_cross_llc;
	uint64_t migrations_cross_node;
	uint64_t wakeups;		/* latency samples */
	double lat_p50_us, lat_p99_us, lat_mean_us, lat_max_us;
	int nnodes;
	double busy_pct_per_node[64];	/* nodes 0..63 */
	double idle_while_waiting_s;
};

/**
 * sr_rm_new - an accumulator for @ntasks tasks (indices 0..ntasks-1; it
 * grows when a larger index is seen) on @topo, starting at @t0
 * Return: caller frees with sr_rm_free(); NULL without memory.
 */
struct sr_rm *sr_rm_new(const struct sr_topology *topo, int ntasks, uint64_t t0);

/**
 * sr_rm_start - the run starts at @t0 (before any other call; for callers
 * that learn it from the first event)
 */
void sr_rm_start(struct sr_rm *m, uint64_t t0);

/**
 * sr_rm_switch - @cpu starts running task @next (-1: idle) at @ts; the task
 * it ran before is runnable again if @prev_runnable, else it sleeps (or exits)
 * Return: 0, or -SR_E_NOMEM.
 */
int sr_rm_switch(struct sr_rm *m, uint64_t ts, int cpu, int prev_runnable, int next);

/**
 * sr_rm_wakeup - task @t became runnable after a sleep at @ts (a latency
 * sample starts; @sample 0 for a new task's first wakeup, which is not one)
 * Return: 0, or -SR_E_NOMEM.
 */
int sr_rm_wakeup(struct sr_rm *m, uint64_t ts, int t, int sample);

/**
 * sr_rm_exit - task @t exited at @ts; @workload: it was forked inside the
 * run (the last such exit is the makespan's end)
 */
void sr_rm_exit(struct sr_rm *m, uint64_t ts, int t, int workload);

/**
 * sr_rm_finish - the figures, with the run ending at @t_end (the makespan's
 * end when no task forked inside the run exited)
 */
void sr_rm_finish(struct sr_rm *m, uint64_t t_end, struct sr_run_metrics *out);

/* sr_rm_free - NULL is fine */
void sr_rm_free(struct sr_rm *m);

#endif
