/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The closed-loop simulator: a recorded demand (schedreplay/demand.h) run
 * again on a simulated machine with the recording's topology and HZ, every
 * placement and balance decision made by one model side through the same
 * decision functions replay evaluates (sr_model_evaluate, sr_model_balance
 * on a view the simulator fills), so that a decision changes what follows.
 *
 * The machine: per-CPU runqueues with CFS's pick by vruntime, place_entity
 * on wakeup and fork, wakeup preemption and tick preemption (the pre-EEVDF
 * rules: sched_latency, min_granularity and wakeup_granularity scaled by
 * 1 + log2(CPUs, at most 8)); RT tasks (prio < 100) before CFS, FIFO, on
 * their previous CPU; ticks at HZ on busy CPUs only (nohz idle); PELT
 * through replay/pelt.c; periodic balance at the lowest domain's interval
 * on busy CPUs, the nohz idle balance kicked from a busy CPU's tick with two
 * tasks queued, newly idle balance when a CPU runs out of work.
 * schedreplay-simulate(1) says what is left out.
 */
#ifndef SCHEDREPLAY_SIM_H
#define SCHEDREPLAY_SIM_H

#include <stdint.h>

#include "schedreplay/demand.h"
#include "schedreplay/event.h"
#include "schedreplay/model.h"
#include "schedreplay/runmetrics.h"
#include "schedreplay/topology.h"

struct sr_kgen;

/* one simulated slice: @pid ran on @cpu from @start to @end (ns, the trace's clock) */
struct sr_sim_slice {
	int pid;
	char comm[SR_COMM_LEN];
	int cpu;
	uint64_t start, end;
};

struct sr_sim_opts {
	const struct sr_topology *topo;
	int hz;
	const struct sr_model *model;	/* the side under test */
	/* evaluated beside it at every decision, to count where they differ; may be NULL */
	const struct sr_model *shadow;
	uint64_t seed;			/* of the timing perturbation */
	double jitter;			/* run bursts and timer sleeps times 1 +- jitter
					 * (uniform); 0: none */
	int eevdf;			/* the fair class's rules: 0 CFS, 1 EEVDF (6.6+),
					 * 2 EEVDF with 6.12's delayed dequeue */
	/* the recording kernel's generation, for the models (schedreplay/kgen.h); may be NULL */
	const struct sr_kgen *kgen;
	/*
	 * Also evaluated at every decision, for the decision callback only (a
	 * pair's base model beside its sides, as replay evaluates them); may be
	 * NULL.  It changes nothing in the run.
	 */
	const struct sr_model *observer;
	/*
	 * Each simulated decision, with the evaluations: @e[0] the model's
	 * (what the simulated machine did: d->actual_cpu), then the shadow's
	 * and the observer's where those are set (@nevals of them); may be NULL
	 */
	int (*decision)(const struct sr_decision *d, const struct sr_eval *e, int nevals,
			void *data);
	/* each slice, may be NULL */
	int (*slice)(const struct sr_sim_slice *s, void *data);
	/*
	 * What a trace of the simulated machine would show, in time order:
	 * sched_switch (prev_state R+ for a preempted task, S for a sleep, X
	 * for an exit, as the 4.14+ report encoding), sched_waking and
	 * sched_wakeup (common_pid the waker, 0 a timer), sched_process_fork
	 * and sched_wakeup_new, sched_migrate_task (a wakeup's move, a pull,
	 * an affinity move; a fork's placement emits none, as in the kernel's
	 * wake_up_new_task()), sched_process_exit.  May be NULL.
	 */
	int (*event)(const struct sr_event *ev, void *data);
	/* each migration of the simulated run, classified by its cause; may be NULL */
	int (*migration)(const struct sr_migration *m, void *data);
	void *data;
};

struct sr_sim_stats {
	uint64_t events;		/* simulator events processed */
	uint64_t decisions[SR_DEC__COUNT];
	uint64_t diverged[SR_DEC__COUNT];	/* the shadow model chose otherwise */
	uint64_t pulls;			/* tasks moved by balancing */
	uint64_t preemptions;		/* wakeup and tick preemptions */
	uint64_t ticks;
	uint64_t delayed;		/* eevdf-delay: sleeps that stayed queued */
	uint64_t delayed_wakeups;	/* wakeups of such a task: no placement */
	uint64_t newidle_timed;		/* newly idle balances that took time */
	uint64_t newidle_arrivals;	/* ... during which a task arrived on the CPU */
	uint64_t newidle_bails;		/* ... which ended at the arrival (SR_LBO_BAIL) */
	uint64_t stuck;			/* tasks left waiting for a wakeup that never came */
	/*
	 * the demand's recorded CPU time (its RUN steps), and what of it the
	 * run did not execute: of tasks left waiting (stuck) and of forked
	 * tasks whose parent never reached the fork (unforked of unrun_tasks)
	 */
	uint64_t demand_ns;
	uint64_t unrun_ns;
	uint64_t unrun_tasks;
	uint64_t unforked;
	/* exec placements (sched_exec(), SR_DM_EXEC steps): made, sent elsewhere,
	 * and those where the shadow model chose otherwise */
	uint64_t execs;
	uint64_t exec_moves;
	uint64_t exec_diverged;
	/*
	 * periodic and nohz balances per domain level (bottom up): the CPUs'
	 * levels whose balance interval had elapsed at a pass
	 */
	uint64_t lb_level[SR_MAX_DOMAIN_LEVELS];
	uint64_t t_end;			/* when the last task finished (trace clock) */
};

/**
 * sr_sim_run - simulate @d once
 * @out: the run's figures (schedreplay/runmetrics.h)
 * @stats: what the simulator did, may be NULL
 * Return: 0, or a negated SR_E_* code with @cause (caller frees); a callback's
 * non-zero return stops the run and is returned.
 */
int sr_sim_run(const struct sr_demand *d, const struct sr_sim_opts *o,
	       struct sr_run_metrics *out, struct sr_sim_stats *stats, char **cause);

#endif
