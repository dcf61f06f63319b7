/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The demand of a recorded workload: what each task asked of the machine,
 * with the scheduler's answers taken out.  Per task, an ordered list of
 * steps: run bursts (CPU time between blocking points), the points inside
 * a burst where the task wakes or forks another task, changes its own
 * affinity or execs, its sleeps with what ended each one (a wakeup by another task
 * at a point of that task's execution, a timer or interrupt after a
 * duration, nothing seen), and its exit.  Built from the normalized event
 * stream (schedreplay/event.h) by sr_demand_feed(); read by the simulator
 * and written out as an rt-app workload (schedreplay-simulate(1) says what
 * is inferred and how).
 *
 * Memory: the extraction's own state is per task and per CPU; the demand
 * itself is a list of steps per task and grows with the number of blocking
 * points, wakeups and forks in the trace (32 bytes a step).  Consecutive
 * slices of one burst (preemptions, migrations) never add a step.
 */
#ifndef SCHEDREPLAY_DEMAND_H
#define SCHEDREPLAY_DEMAND_H

#include <stdint.h>
#include <stdio.h>

#include "schedreplay/event.h"

struct sr_rm;
struct sr_hist;
struct sr_trace;

enum sr_dm_step_kind {
	SR_DM_RUN,		/* @ns of CPU time */
	SR_DM_WAKE,		/* wakes task @peer, ending its sleep step @peer_step;
				 * @peer_step -1: the wakee was not asleep (no effect) */
	SR_DM_FORK,		/* task @peer appears here */
	SR_DM_AFFINITY,		/* its allowed CPUs become @mask (setaffinity probe) */
	SR_DM_SLEEP,		/* blocks until @end happens */
	SR_DM_EXIT,		/* exits; always the last step */
	SR_DM_EXEC,		/* execs on @cpu (sched_exec()): @peer_step the CPU the
				 * kernel's select_task_rq() returned, -1 not traced */
};

/* what ended a sleep */
enum sr_dm_end {
	SR_DM_BY_TASK,		/* task @peer's WAKE step @peer_step; @ns = recorded length */
	SR_DM_BY_TIMER,		/* no task behind it (woken by the idle task): after @ns */
	SR_DM_BY_UNKNOWN,	/* no wakeup seen (lost events): it ran again after @ns */
	SR_DM_NEVER,		/* still asleep at the end of the trace; @ns up to there */
};

struct sr_dm_step {
	uint8_t kind;		/* enum sr_dm_step_kind */
	uint8_t end;		/* SLEEP: enum sr_dm_end */
	uint16_t flags;		/* SR_DM_F_* */
	int32_t peer;		/* WAKE, FORK: the other task's index; SLEEP BY_TASK: the waker */
	int32_t peer_step;	/* WAKE: the wakee's SLEEP step; SLEEP BY_TASK: the waker's WAKE;
				 * SLEEP BY_TIMER: the CPU the wakeup ran on (-1 unknown) */
	int32_t cpu;		/* RUN: the CPU its first slice ran on; WAKE: the waker's CPU;
				 * SLEEP: the CPU it blocked on */
	uint64_t ts;		/* trace time the step began (RUN: first slice; SLEEP: block) */
	union {
		uint64_t ns;	/* RUN: CPU time; SLEEP: recorded length;
				 * WAKE with SR_DM_F_STREAM: the waker's CPU time
				 * from the wakee's block to this wakeup */
		uint64_t mask;	/* AFFINITY: CPUs 0-63 */
	};
};

/* SR_DM_SLEEP flags */
#define SR_DM_F_EARLY	(1 << 0)	/* the wakeup came before the task had blocked
					 * (its sched_waking raced the switch-out) */
#define SR_DM_F_INITIAL	(1 << 1)	/* asleep from the trace start: length from there */
/* SR_DM_WAKE flags */
#define SR_DM_F_SYNC	(1 << 2)	/* WF_SYNC, as the select_rq probe read it */
#define SR_DM_F_SYNC_KNOWN (1 << 3)	/* the probe gave the wake flags (else sync unknown) */
#define SR_DM_F_EXITING	(1 << 4)	/* the waker had passed sched_process_exit */
#define SR_DM_F_STREAM	(1 << 5)	/* a producer's wakeup: the waker had not blocked
					 * since its previous wakeup of a task; @ns is its
					 * CPU time from the wakee's block to the wakeup */

/* how a task came to be in the demand */
enum sr_dm_origin {
	SR_DM_ORIGIN_RUNNING,	/* on a CPU when the trace started (burst from the start) */
	SR_DM_ORIGIN_RUNNABLE,	/* queued when the trace started */
	SR_DM_ORIGIN_SLEEPING,	/* asleep when the trace started: its first step is a sleep */
	SR_DM_ORIGIN_FORKED,	/* forked inside the trace by @parent at its @parent_step */
};

struct sr_dm_task {
	int pid;
	int prio;		/* kernel scale, last seen; -1 unknown */
	char comm[SR_COMM_LEN];	/* last name seen */
	enum sr_dm_origin origin;
	int parent;		/* FORKED: the parent's index, else -1 */
	int parent_step;	/* FORKED: the parent's FORK step */
	int first_cpu;		/* the CPU it was first seen on, -1 unknown */
	int bound_cpu;		/* a per-CPU kernel thread's CPU by its name, else -1 */
	int kthread;		/* 1: a kernel thread by its name (or a child of one) */
	uint64_t mask;		/* allowed CPUs 0-63 at its start (all ones: unknown) */
	int mask_known;		/* a setaffinity probe (of it or its parent) told @mask */
	uint64_t first_ts;	/* trace start for tasks not forked inside the trace */
	uint64_t exit_ts;	/* 0 if it did not exit */
	/*
	 * Not forked inside the trace: p->wakee_flips at the trace's start as
	 * the select_rq probe first shows it (a wakeup of the task, or a fork
	 * of its child, which copies it), less the flips its own wakeups
	 * added before that; -1 unknown.  A child inherits its parent's.
	 */
	long long flips0;
	/* recorded figures, for comparison with the simulation */
	uint64_t run_ns;	/* CPU time in the trace */
	uint64_t wait_ns;	/* runnable but not running */
	uint64_t sleep_ns;	/* asleep */
	unsigned nsteps;
	unsigned cap;
	struct sr_dm_step *step;
};

/* one wakeup's activation onto a busy CPU: sched_waking on @from to sched_wakeup on @to */
struct sr_dm_act {
	int16_t from, to;
	uint64_t ns;
};

/* counts of what the extraction saw and inferred */
struct sr_dm_stats {
	uint64_t events;
	uint64_t bursts;		/* RUN steps */
	uint64_t sleeps;
	uint64_t by_task;		/* sleeps ended by a task */
	uint64_t by_timer;
	uint64_t by_unknown;
	uint64_t early;			/* of by_task: the waking raced the switch-out */
	uint64_t never;			/* asleep at the end */
	uint64_t forks;
	uint64_t execs;			/* EXEC steps */
	uint64_t exits;
	uint64_t redundant_wakes;	/* wakeups of a task that was not asleep */
	uint64_t stream;		/* of by_task: a producer's (SR_DM_F_STREAM) */
	uint64_t lost_markers;		/* lost-event markers: the state may be off there */
	uint64_t inconsistent;		/* events that contradicted the tracked state */
};

struct sr_demand {
	int ntasks;
	struct sr_dm_task *task;	/* index order = order of first appearance */
	int ncpus;			/* highest CPU seen + 1 */
	uint64_t t0, t1;		/* first and last event time */
	/*
	 * The recorded machine's cost of a wakeup onto an idle CPU from
	 * another CPU: the median time from a task's wakeup to its switch-in
	 * on a CPU that was idle throughout (IPI, idle exit, the switch), and
	 * how many such wakeups the median is of (0: none, the cost is 0)
	 */
	uint64_t idle_wake_ns;
	uint64_t idle_wake_samples;
	/*
	 * the same for a wakeup whose sched_waking ran on the idle CPU itself
	 * (its own timer or interrupt: ttwu_queue() activates the task there,
	 * no IPI); 0 samples: such wakeups draw from idle_wake_hist
	 */
	uint64_t idle_wake_local_ns;
	uint64_t idle_wake_local_samples;
	/* the same for a wakeup that preempted the task running on its CPU */
	uint64_t preempt_wake_ns;
	uint64_t preempt_wake_samples;
	/*
	 * the same for a forked task's first run on a CPU that was idle
	 * throughout (wake_up_new_task()); 0 samples: forks draw from
	 * idle_wake_hist
	 */
	uint64_t idle_fork_ns;
	uint64_t idle_fork_samples;
	/*
	 * the same for a queued task moved onto an idle CPU by another CPU
	 * (the stopper's move_queued_task() for an affinity change, a remote
	 * balance's attach_task()): the move to its switch-in there; 0
	 * samples: such moves draw from idle_wake_hist
	 */
	uint64_t idle_move_ns;
	uint64_t idle_move_samples;
	/*
	 * how long the recorded machine's newly idle balances took: the
	 * recorder's newidle probe (newidle_balance() entry) to its
	 * newidle_ret on the same CPU; 0 samples without those probes
	 */
	uint64_t newidle_ns;
	uint64_t newidle_samples;
	/* the distributions (schedreplay/runmetrics.h), NULL before sr_demand_finish() */
	struct sr_hist *idle_wake_hist, *idle_wake_local_hist, *preempt_wake_hist, *idle_fork_hist;
	struct sr_hist *idle_move_hist;
	struct sr_hist *newidle_hist;
	/*
	 * every wakeup onto a CPU that ran another task, with the time from its
	 * sched_waking to its sched_wakeup (nact entries; none without
	 * sched_waking): the simulator takes the pairs of CPUs in different
	 * LLCs, whose activation waits for the target's IPI
	 */
	struct sr_dm_act *act;
	size_t nact;
	struct sr_dm_stats stats;
	void *priv;			/* extraction state; NULL after sr_demand_finish() */
};

/**
 * sr_demand_new - an empty demand, ready for sr_demand_feed()
 * @use_waking: end sleeps at sched_waking (the waker's context); 0 when the
 *	trace has no sched_waking, so that sched_wakeup is used instead
 * Return: caller frees with sr_demand_free(); NULL without memory.
 */
struct sr_demand *sr_demand_new(int use_waking);

/**
 * sr_demand_set_metrics - also feed the recorded run's facts to @rm
 * (schedreplay/runmetrics.h), task indices being the demand's; @rm stays
 * the caller's and must outlive the extraction
 */
void sr_demand_set_metrics(struct sr_demand *d, struct sr_rm *rm);

/**
 * sr_demand_feed - take one event (in global timestamp order)
 * Return: 0, or -SR_E_NOMEM (the demand must then only be freed).
 */
int sr_demand_feed(struct sr_demand *d, const struct sr_event *ev);

/**
 * sr_demand_finish - close every task at the last event's time: running
 * bursts end there, sleeps stay SR_DM_NEVER; frees the extraction state
 * Return: 0, or -SR_E_NOMEM.
 */
int sr_demand_finish(struct sr_demand *d);

/**
 * sr_demand_from_trace - open @path, feed every event, finish
 * @rm: the recorded run's figures are fed to it (sr_demand_set_metrics), may be NULL
 * @d_out: receives the demand
 * @cause: caller-freed message naming the file and the place, may be NULL
 * Return: 0, or a negated SR_E_* code.
 */
int sr_demand_from_trace(const char *path, struct sr_rm *rm, struct sr_demand **d_out,
			 char **cause);

/**
 * sr_demand_from_open_trace - the same from the open trace @tr (of @path,
 * for messages), from its current event to its end; @tr stays the caller's
 * Return: 0, or a negated SR_E_* code.
 */
int sr_demand_from_open_trace(struct sr_trace *tr, const char *path, struct sr_rm *rm,
			      struct sr_demand **d_out, char **cause);

/**
 * sr_demand_find - the index of the last task with @pid, -1 if none
 */
int sr_demand_find(const struct sr_demand *d, int pid);

/**
 * sr_demand_write_text - one line per step, for tests and debugging
 * Return: 0, or -SR_E_IO if @f has an error.
 */
int sr_demand_write_text(const struct sr_demand *d, FILE *f);

/**
 * sr_demand_write_rtapp - the demand as an rt-app JSON workload (rt-app 1.0
 * grammar: runtime/sleep events, two-party barriers for wakeup and fork edges, cpus
 * for affinity; schedreplay-simulate(1) says how)
 * @kthreads: also write kernel threads (recognised by name)
 * Return: 0, or -SR_E_IO if @f has an error.
 */
int sr_demand_write_rtapp(const struct sr_demand *d, FILE *f, int kthreads);

/* sr_dm_end_name - "task", "timer", "unknown", "never" */
const char *sr_dm_end_name(enum sr_dm_end e);

/* sr_demand_free - NULL is fine */
void sr_demand_free(struct sr_demand *d);

#endif
