/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Run, wait and sleep slices, and the scheduling delay of every wakeup, as
 * the trace shows them (schedreplay-db(5): the sched_slice, task and
 * cpu_idle tables; task_state, thread_state and wakeup are views of them).
 * Each running slice's row carries the time off the CPU before it (asleep,
 * then runnable from a wakeup or a preemption): one row per switch.  Computed from the normalized event stream
 * alone, beside the replay engine and independent of it: what the kernel
 * did, not what a model would have done.  Memory is one record per task
 * and per CPU, whatever the length of the trace; every finished slice is
 * handed to a callback at once (the store queues it for its writer).
 *
 * Definitions (those of perf sched and Perfetto where they have one):
 *  - running: from the sched_switch that puts a task on a CPU to the one
 *    that takes it off; its end state is the prev_state of that switch;
 *  - runnable (R, or R+ after a preemption): from a sched_wakeup or
 *    sched_wakeup_new of a sleeping task, or a switch out in state R, to
 *    its next switch in;
 *  - sleeping (S, D, ... the letters of the switch out): until its wakeup;
 *  - a wakeup counts (perf sched latency) when the task was sleeping or not
 *    seen yet; a wakeup of a running or runnable task changes nothing.
 */
#ifndef SCHEDREPLAY_SLICES_H
#define SCHEDREPLAY_SLICES_H

#include <sqlite3.h>
#include <stdint.h>

#include "schedreplay/event.h"
#include "schedreplay/topology.h"

enum sr_slice_table {
	SR_SL_SCHED,		/* sched_slice: a running slice and the wait before it */
	SR_SL_TASK,		/* task: per task totals and state at the end */
	SR_SL_CPU,		/* cpu_idle: per CPU idle totals, at the end */
	SR_SL_ESTIMATE,		/* cpu_estimate: a CPU at a divergent decision */
	SR_SL_DIVERGENT,	/* divergent_wakeup: a divergent decision's woken slice */
	SR_SL__COUNT
};

#define SR_SL_NONE (-1)		/* an integer column that is NULL */

/* one row of one of the tables above; unused integers are SR_SL_NONE */
struct sr_slice_row {
	enum sr_slice_table table;
	uint64_t ts;		/* sched: switch in; task: since when in its last state */
	int64_t dur;		/* sched: ns; SR_SL_NONE: still running at the end */
	int tid;
	int cpu;		/* sched: the CPU; task: of its last state; cpu_idle: the CPU */
	int prio;
	char state[8];		/* sched: end state; task: the state at the end */
	/* sched: the time off the CPU before the slice */
	int64_t wait;		/* ns since the previous switch out */
	int64_t delay;		/* of that, ns runnable */
	char prev_state[4];	/* the state of the previous switch out */
	int woken;		/* 1 sched_wakeup, 2 sched_wakeup_new: the delay began there */
	int queue_cpu;		/* the CPU it was queued on when it became runnable */
	int waker;		/* woken: the waker's tid */
	int queue_idle;		/* woken: queue_cpu ran the idle task at the wakeup */
	int queue_nr;		/* woken: tasks runnable on queue_cpu then, the running one too */
	long decision;		/* woken: the engine's decision id, SR_SL_NONE when none */
	/*
	 * cpu_estimate: ts the instant, cpu, tid its running task (0 idle),
	 * queue_idle, queue_nr, wait how long that task had run, dur how long
	 * it went on running (SR_SL_NONE: not seen), decision
	 */
	/* divergent_wakeup: decision and delay, those of its sched_slice row */
	/* task */
	char comm[SR_COMM_LEN];
	uint64_t n[6];		/* task: run_ns, slices, wakeups, delay_ns, max_delay_ns,
				 * preemptions; cpu_idle: idle_ns, periods, waiting_ns,
				 * waiting_periods, node_waiting_ns, node_waiting_periods */
};

struct sr_slices;

typedef int (*sr_slice_emit_fn)(const struct sr_slice_row *row, void *data);

/**
 * sr_slices_new - start the slices of one trace
 * @topo: the CPUs and their nodes
 * @enc: how the trace's numeric prev_state reads (the state letters)
 * @emit: called with each finished row; a nonzero return stops the feed
 * Return: the state (freed with sr_slices_free), NULL when out of memory.
 */
struct sr_slices *sr_slices_new(const struct sr_topology *topo, enum sr_pstate_enc enc,
				sr_slice_emit_fn emit, void *data);

/**
 * sr_slices_feed - one event of the trace, in time order
 * Return: 0, -SR_E_NOMEM, or the emit callback's nonzero return.
 */
int sr_slices_feed(struct sr_slices *sl, const struct sr_event *ev);

/**
 * sr_slices_decision - the engine placed task @tid at @ts (its decision's
 * done_ts): the wakeup of @tid at @ts, if counted, takes decision @id;
 * @diverged: a pair's sides diverged there (the store's divergent rows),
 * so that the woken slice's row comes with a divergent_wakeup row too
 */
void sr_slices_decision(struct sr_slices *sl, int tid, uint64_t ts, long id, int diverged);

/**
 * sr_slices_estimate - the CPUs a divergent decision's sides (and the
 * kernel) chose, as the trace shows them now: idle or not, queue, and how
 * long the running task went on (known at its switch out); one row per
 * decision and CPU (a CPU < 0 is ignored); the queue leaves out @tid, the
 * decision's task
 * Return: 0, -SR_E_NOMEM, or the emit callback's nonzero return.
 */
int sr_slices_estimate(struct sr_slices *sl, long id, int tid, const int *cpus, int ncpus);

/**
 * sr_slices_finish - the trace ended at @last_ts: the open slices (dur
 * NULL), the wakeups that never ran, the task and CPU totals
 * Return: 0 or the emit callback's nonzero return.
 */
int sr_slices_finish(struct sr_slices *sl, uint64_t last_ts);

void sr_slices_free(struct sr_slices *sl);

/* ---- the tables (src/slices-sql.c), for the store ---- */

/* CREATE TABLE/VIEW IF NOT EXISTS of the tables and views, for a new file
 * and for an append to a file written before they existed */
extern const char sr_slices_schema[];

struct sr_slices_copy {
	const char *table, *sql;	/* the store binds :r (runs) and :d (decisions) */
};
/* the append copies of the tables, ended by { NULL, NULL } */
extern const struct sr_slices_copy sr_slices_copy[];

/**
 * sr_slices_sql_prepare - the INSERT statements, one per table
 * Return: SQLITE_OK, or SQLite's code (the statements made are finalized).
 */
int sr_slices_sql_prepare(sqlite3 *db, sqlite3_stmt *st[SR_SL__COUNT]);
void sr_slices_sql_finalize(sqlite3_stmt *st[SR_SL__COUNT]);

/**
 * sr_slices_sql_insert - write @row of run @run_id
 * Return: SQLITE_DONE, or SQLite's code.
 */
int sr_slices_sql_insert(sqlite3_stmt *st[SR_SL__COUNT], long run_id,
			 const struct sr_slice_row *row);

/* the columns of sched_slice, the INSERT statement's text before its values */
#define SR_SL_SCHED_COLUMNS 16
#define SR_SL_SCHED_INSERT "INSERT INTO sched_slice VALUES "

struct sr_bind_cache;

/**
 * sr_slices_sql_bind_sched - bind the sched_slice @row of run @run_id to
 * parameters @off + 1 .. @off + SR_SL_SCHED_COLUMNS of @q (an INSERT of
 * SR_SL_SCHED_INSERT with several rows of values)
 *
 * @bc: what @q's parameters hold (src/bind-cache.h), so that what they
 * hold already is not bound again; NULL binds every one.  The row's texts
 * must stay put until @q has been stepped.
 */
void sr_slices_sql_bind_sched(sqlite3_stmt *q, struct sr_bind_cache *bc, int off, long run_id,
			      const struct sr_slice_row *row);

#endif
