/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The inputs that decided (the TUI's why-view, schedreplay-db(5)
 * decision_input and group_stat): what the first base model read at a
 * decision, kept by the engine beside the decision and stored for the
 * decisions where it matters (a base model missed the kernel's CPU, or a
 * patch pair's sides diverged).  The wakeup inputs are read from the view
 * the models saw (replay/decision.c); the group statistics are those the
 * base model's find_idlest_group() and find_busiest_group() compared,
 * reported by the model functions through sr_why_group() while a recorder
 * is set (only around the first base model's evaluation: a patch side and
 * the simulator record nothing, and the call costs a test of one pointer).
 */
#ifndef SCHEDREPLAY_WHY_H
#define SCHEDREPLAY_WHY_H

#include <stdint.h>

/* the group statistics kept per decision (the rest are counted, not kept) */
#define SR_WHY_MAX_GROUPS 32

/* where an input came from */
enum sr_why_source {
	SR_WHY_NONE,		/* not known (no task, no waker) */
	SR_WHY_ENGINE,		/* the engine's own account of the trace */
	SR_WHY_PROBE,		/* the select_rq probe read it from the kernel */
	SR_WHY_WARMUP,		/* the engine's, begun inside the trace (not warm) */
};

/* one group a find_idlest_group() or find_busiest_group() call compared */
struct sr_why_group {
	int fn;			/* 0 find_idlest_group (fork), 1 find_busiest_group */
	int call;		/* which call of the evaluation (0, 1, ...) */
	int cpu;		/* the CPU whose domain it is (this / dst) */
	int level;		/* the domain level */
	int first;		/* the group's first CPU */
	int local;		/* the group holding cpu */
	int picked;		/* the idlest group gone to / the busiest found */
	const char *type;	/* group_type: has_spare, fully_busy, imbalanced, overloaded */
	int weight;		/* CPUs */
	int nr;			/* sum_nr_running */
	int cfs;		/* CFS tasks (find_busiest_group), -1: not compared */
	int idle;		/* idle CPUs */
	long load;		/* see schedreplay-db(5) group_stat */
	long avg_load;		/* -1: not compared */
	long util;		/* -1: not compared */
	long runnable;		/* -1: not compared */
};

/* what the first base model read at one decision */
struct sr_why {
	int valid;
	/* wakeup: wake_wide()'s inputs */
	long wakee_flips, waker_flips;	/* -1: unknown (no waker) */
	int factor;			/* sd_llc_size of this_cpu */
	enum sr_why_source flips_src;
	/* the task's PELT signal as task_h_load() reads it */
	long task_load, task_util, task_runnable;
	enum sr_why_source pelt_src;
	long waker_load;		/* the waker's load_avg (sync), -1: none */
	/* the CPU loads the model's wake_affine_weight() compares */
	long this_load, prev_load;	/* -1: not read */
	enum sr_why_source prev_load_src;
	int calls;			/* find_*_group calls seen */
	int ngroups, dropped;
	/* the groups: grown by the recorder up to SR_WHY_MAX_GROUPS when the
	 * first is recorded (most wakeups compare none), freed by the owner */
	int cap;
	struct sr_why_group *g;
};

/**
 * sr_why_record - set (@w) or clear (NULL) the recorder the model
 * functions report to; the engine sets it around one evaluation only
 */
void sr_why_record(struct sr_why *w);

/* a find_*_group() call begins (@fn 0 idlest, 1 busiest); Return: its number, -1 none */
int sr_why_call(int fn);
/* one group compared in call @call (a no-op without a recorder) */
void sr_why_group(const struct sr_why_group *g);
/* the group of call @call starting at CPU @first was picked */
void sr_why_pick(int call, int first);

#endif
