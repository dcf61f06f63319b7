// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the replay engine and the base models on small
 * constructed traces: runqueue bookkeeping, decision points and what is
 * not a placement, wakeup paths (affine idle, prev idle, recent_used_cpu,
 * weight), fork placement through the slow path, wake_wide, migration
 * classes.  Topology: preset 2x2x1 (CPUs 0-1 node 0, 2-3 node 1).
 */
#include <stdlib.h>
#include <string.h>

#include "schedreplay/model.h"
#include "schedreplay/replay.h"
#include "unit.h"

static struct sr_decision last;
static struct sr_eval last_ev[SR_MAX_MODELS];
static int ndecisions;

static int cb(const struct sr_decision *d, const struct sr_eval *e, int n, void *data)
{
	(void)data;
	/* load-balance decisions have their own tests (test-balance.c) */
	if (sr_decision_is_balance(d->kind))
		return 0;
	last = *d;
	memset(last_ev, 0, sizeof(last_ev));
	memcpy(last_ev, e, (size_t)n * sizeof(*e));
	ndecisions++;
	return 0;
}

static uint64_t T = 1000000000ULL;

static void ev_switch(struct sr_replay *r, int cpu, int prev, const char *pcomm, int state,
		      int next, const char *ncomm)
{
	struct sr_event ev;

	sr_event_reset(&ev);
	ev.kind = SR_EV_SWITCH;
	ev.ts = T += 1000;
	ev.cpu = cpu;
	ev.pid = prev;
	ev.prio = 120;
	strncpy(ev.comm, pcomm, SR_COMM_LEN - 1);
	ev.pid2 = next;
	ev.prio2 = 120;
	strncpy(ev.comm2, ncomm, SR_COMM_LEN - 1);
	ev.prev_state = state;
	sr_replay_feed(r, &ev);
}

static void ev_wake(struct sr_replay *r, enum sr_event_kind k, int cpu, int waker, int pid,
		    const char *comm, int target)
{
	struct sr_event ev;

	sr_event_reset(&ev);
	ev.kind = k;
	ev.ts = T += 1000;
	ev.cpu = cpu;
	ev.common_pid = waker;
	ev.pid = pid;
	ev.prio = 120;
	strncpy(ev.comm, comm, SR_COMM_LEN - 1);
	ev.target_cpu = target;
	sr_replay_feed(r, &ev);
}

static void ev_migrate(struct sr_replay *r, int cpu, int common, int pid, const char *comm,
		       int orig, int dest)
{
	struct sr_event ev;

	sr_event_reset(&ev);
	ev.kind = SR_EV_MIGRATE;
	ev.ts = T += 1000;
	ev.cpu = cpu;
	ev.common_pid = common;
	ev.pid = pid;
	ev.prio = 120;
	strncpy(ev.comm, comm, SR_COMM_LEN - 1);
	ev.target_cpu = orig;
	ev.dest_cpu = dest;
	sr_replay_feed(r, &ev);
}

static void ev_fork(struct sr_replay *r, int cpu, int parent, int child)
{
	struct sr_event ev;

	sr_event_reset(&ev);
	ev.kind = SR_EV_FORK;
	ev.ts = T += 1000;
	ev.cpu = cpu;
	ev.common_pid = parent;
	ev.pid = parent;
	strncpy(ev.comm, "parent", SR_COMM_LEN - 1);
	ev.pid2 = child;
	strncpy(ev.comm2, "child", SR_COMM_LEN - 1);
	sr_replay_feed(r, &ev);
}

static struct sr_replay *setup(const struct sr_topology *t, const struct sr_model **m)
{
	struct sr_replay *r = sr_replay_new(t, 250, m, 1);

	sr_replay_set_callback(r, cb, NULL);
	ndecisions = 0;
	return r;
}

static int has(const char *reason, const char *token)
{
	return strstr(reason, token) != NULL;
}

int main(void)
{
	struct sr_topology *t = sr_topology_new_preset("2x2x1", SR_ERA_MAINLINE, NULL);
	const struct sr_model *mainline[1] = { sr_model_find("mainline") };
	const struct sr_model *v415[1] = { sr_model_find("v4.15") };
	struct sr_replay *r;
	const struct sr_replay_stats *st;

	CHECK(t && t->ncpus == 4, "preset 2x2x1 has 4 cpus");
	CHECK(mainline[0] && v415[0], "both base models exist");

	/*
	 * 1. runqueue bookkeeping through switches; the waker is an unbound
	 * kworker, whose wakeups are not sync (schedreplay-models(7) §9.1)
	 */
	r = setup(t, mainline);
	ev_switch(r, 0, 0, "swapper/0", SR_PREV_RUNNABLE, 200, "kworker/u8:0");
	ev_switch(r, 2, 0, "swapper/2", SR_PREV_RUNNABLE, 100, "wakee");
	CHECK_EQ(sr_replay_task(r, 200)->state, SR_TASK_RUNNING, "next becomes running");
	ev_switch(r, 2, 100, "wakee", SR_PREV_BLOCKED, 0, "swapper/2");
	CHECK_EQ(sr_replay_task(r, 100)->state, SR_TASK_BLOCKED, "S switch blocks prev");
	CHECK_EQ(sr_replay_task(r, 100)->cpu, 2, "blocked task keeps its cpu");

	/* 2. wakeup from a busy cpu on node 0 of a task whose prev (node 1) is idle */
	ev_wake(r, SR_EV_WAKING, 0, 200, 100, "wakee", 2);
	ev_wake(r, SR_EV_WAKEUP, 2, 200, 100, "wakee", 2);
	CHECK_EQ(ndecisions, 1, "one wakeup decision");
	CHECK_EQ(last.kind, SR_DEC_WAKEUP, "kind wakeup");
	CHECK_EQ(last.this_cpu, 0, "this_cpu is the waking cpu");
	CHECK_EQ(last.prev_cpu, 2, "prev_cpu is waking's target_cpu");
	CHECK_EQ(last.actual_cpu, 2, "actual is wakeup's target_cpu");
	CHECK_EQ(last_ev[0].cpu, 2, "mainline keeps it on idle prev");
	CHECK(has(last_ev[0].reason, "prev idle"), "reason names prev idle: %s", last_ev[0].reason);
	CHECK(has(last_ev[0].reason, "affine NUMA"), "affine domain is NUMA: %s",
	      last_ev[0].reason);
	CHECK(last.inferred & SR_INF_SYNC, "sync is marked inferred");
	CHECK_EQ(last.sync, 0, "a kernel thread's wakeup is inferred non-sync");

	/* 3. a wakeup of a task already queued is not a placement */
	ev_switch(r, 2, 100, "wakee", SR_PREV_PREEMPTED, 0, "swapper/2");
	ev_wake(r, SR_EV_WAKING, 0, 200, 100, "wakee", 2);
	ev_wake(r, SR_EV_WAKEUP, 2, 200, 100, "wakee", 2);
	CHECK_EQ(last.skip, SR_SKIP_RUNNABLE, "queued wakee: ttwu_runnable, no placement");

	/* 4. a per-CPU kthread's wakeup is not a placement */
	ev_switch(r, 1, 0, "swapper/1", SR_PREV_RUNNABLE, 300, "ksoftirqd/1");
	ev_switch(r, 1, 300, "ksoftirqd/1", SR_PREV_BLOCKED, 0, "swapper/1");
	ev_wake(r, SR_EV_WAKING, 0, 200, 300, "ksoftirqd/1", 1);
	ev_wake(r, SR_EV_WAKEUP, 1, 200, 300, "ksoftirqd/1", 1);
	CHECK_EQ(last.skip, SR_SKIP_BOUND, "ksoftirqd/1 is bound to cpu 1");
	CHECK(last.inferred & SR_INF_AFFINITY, "the binding is marked inferred");

	/* 5. waker on an idle cpu (IRQ) sharing the LLC with prev: affine idle path */
	ev_switch(r, 2, 0, "swapper/2", SR_PREV_RUNNABLE, 100, "wakee");
	ev_switch(r, 2, 100, "wakee", SR_PREV_BLOCKED, 400, "hog");
	ev_wake(r, SR_EV_WAKING, 3, 0, 100, "wakee", 2);
	ev_wake(r, SR_EV_WAKEUP, 3, 0, 100, "wakee", 3);
	CHECK_EQ(last_ev[0].cpu, 3, "idle this_cpu in prev's LLC, prev busy: this");
	CHECK(has(last_ev[0].reason, "this idle, shares LLC"), "reason: %s", last_ev[0].reason);
	CHECK(has(last_ev[0].reason, "affine MC"), "affine domain MC: %s", last_ev[0].reason);
	st = sr_replay_borrow_stats(r);
	CHECK_EQ(st->decisions[SR_DEC_WAKEUP], 2, "two placements so far");
	sr_replay_free(r);

	/* 5b. the same wakeup by a user task: inferred sync, and the waker is alone */
	r = setup(t, mainline);
	ev_switch(r, 0, 0, "swapper/0", SR_PREV_RUNNABLE, 200, "waker");
	ev_switch(r, 2, 0, "swapper/2", SR_PREV_RUNNABLE, 100, "wakee");
	ev_switch(r, 2, 100, "wakee", SR_PREV_BLOCKED, 0, "swapper/2");
	ev_wake(r, SR_EV_WAKING, 0, 200, 100, "wakee", 2);
	ev_wake(r, SR_EV_WAKEUP, 0, 200, 100, "wakee", 0);
	CHECK_EQ(last.sync, 1, "a user task's wakeup of a user task is inferred sync");
	CHECK_EQ(last_ev[0].cpu, 1, "sync, waker alone: this_cpu's LLC (its idle CPU 1), prev idle or not");
	CHECK(has(last_ev[0].reason, "sync, waker alone"), "reason: %s", last_ev[0].reason);
	sr_replay_free(r);

	/* 6. recent_used_cpu: prev and target busy, the recent cpu idle */
	r = setup(t, mainline);
	ev_switch(r, 0, 0, "swapper/0", SR_PREV_RUNNABLE, 200, "waker");
	ev_switch(r, 1, 0, "swapper/1", SR_PREV_RUNNABLE, 100, "wakee");
	ev_switch(r, 1, 100, "wakee", SR_PREV_BLOCKED, 0, "swapper/1");
	ev_wake(r, SR_EV_WAKING, 0, 200, 100, "wakee", 1);	/* prev 1 idle → 1 */
	ev_wake(r, SR_EV_WAKEUP, 1, 200, 100, "wakee", 1);
	CHECK_EQ(last_ev[0].cpu, 1, "prev idle");
	ev_switch(r, 1, 0, "swapper/1", SR_PREV_RUNNABLE, 100, "wakee");
	ev_migrate(r, 0, 200, 100, "wakee", 1, 0);	/* balanced to cpu 0 */
	ev_switch(r, 1, 100, "wakee", SR_PREV_PREEMPTED, 500, "hog1");
	ev_switch(r, 0, 200, "waker", SR_PREV_PREEMPTED, 100, "wakee");
	ev_switch(r, 0, 100, "wakee", SR_PREV_BLOCKED, 200, "waker");
	CHECK_EQ(sr_replay_task(r, 100)->recent_used_cpu, 1, "recent_used_cpu kept prev 1");
	st = sr_replay_borrow_stats(r);
	CHECK_EQ(st->migrations[SR_MIG_LB_PERIODIC] + st->migrations[SR_MIG_LB_NEWIDLE], 1,
		 "a pull by the destination is a load-balance migration");
	sr_replay_free(r);

	/* 7. fork: parent busy on cpu 0, everything else idle; node 1 has more
	 * idle cpus, and with imb_numa_nr 1 (a 2-cpu node: build_sched_domains()
	 * before degeneration) adjust_numa_imbalance() keeps no child local:
	 * mainline sends it to node 1, as the 6.1 and 6.12 guests do */
	r = setup(t, mainline);
	ev_switch(r, 0, 0, "swapper/0", SR_PREV_RUNNABLE, 200, "parent");
	ev_fork(r, 0, 200, 600);
	ev_wake(r, SR_EV_WAKEUP_NEW, 0, 200, 600, "child", 1);
	CHECK_EQ(last.kind, SR_DEC_FORK, "wakeup_new is a fork decision");
	CHECK_EQ(last.prev_cpu, 0, "fork prev is the parent's cpu");
	CHECK_EQ(last.idle_cpus, 3, "three idle cpus at the fork");
	CHECK_EQ(last_ev[0].cpu, 2, "mainline places the child on node 1's idle cpu 2");
	CHECK(has(last_ev[0].reason, "NUMA: idlest group"), "NUMA level goes to node 1: %s",
	      last_ev[0].reason);
	CHECK_EQ(sr_replay_task(r, 600)->pelt.load_avg, 1024, "a new task starts at full load");
	/* wake_up_new_task() sets recent_used_cpu = task_cpu(p) before placing it */
	CHECK_EQ(sr_replay_task(r, 600)->recent_used_cpu, 0,
		 "a new task's recent_used_cpu is the parent's cpu, not where it went");
	sr_replay_free(r);

	/* 8. v4.15 on the same fork: no NUMA allowance, the idle node wins */
	r = setup(t, v415);
	ev_switch(r, 0, 0, "swapper/0", SR_PREV_RUNNABLE, 200, "parent");
	ev_fork(r, 0, 200, 600);
	ev_wake(r, SR_EV_WAKEUP_NEW, 0, 200, 600, "child", 2);
	CHECK(last_ev[0].cpu == 2 || last_ev[0].cpu == 3, "v4.15 goes to the idle node: %d (%s)",
	      last_ev[0].cpu, last_ev[0].reason);
	sr_replay_free(r);

	/* 9. wake_wide: a waker that flips between many wakees stops pulling */
	r = setup(t, mainline);
	{
		int i;

		ev_switch(r, 0, 0, "swapper/0", SR_PREV_RUNNABLE, 200, "server");
		for (i = 0; i < 8; i++) {
			ev_switch(r, 2, 0, "swapper/2", SR_PREV_RUNNABLE, 700 + i, "client");
			ev_switch(r, 2, 700 + i, "client", SR_PREV_BLOCKED, 0, "swapper/2");
		}
		for (i = 0; i < 8; i++) {
			ev_wake(r, SR_EV_WAKING, 0, 200, 700 + i, "client", 2);
			ev_wake(r, SR_EV_WAKEUP, 2, 200, 700 + i, "client", 2);
		}
		CHECK(sr_replay_task(r, 200)->wakee_flips >= 8, "waker's flips count wakees: %u",
		      sr_replay_task(r, 200)->wakee_flips);
	}
	sr_replay_free(r);

	/* 10. the engine never keeps a task it freed */
	r = setup(t, mainline);
	ev_switch(r, 0, 0, "swapper/0", SR_PREV_RUNNABLE, 800, "dying");
	ev_switch(r, 0, 800, "dying", SR_PREV_DEAD, 0, "swapper/0");
	CHECK_EQ(sr_replay_task(r, 800)->state, SR_TASK_DEAD, "X/Z switch: dead");
	{
		struct sr_event ev;

		sr_event_reset(&ev);
		ev.kind = SR_EV_FREE;
		ev.cpu = 0;
		ev.ts = T += 1000;
		ev.pid = 800;
		sr_replay_feed(r, &ev);
	}
	CHECK(sr_replay_task(r, 800) == NULL, "sched_process_free forgets the task");
	sr_replay_free(r);

	/* 11. migration classes on a small synthetic trace */
	r = setup(t, mainline);
	ev_switch(r, 0, 0, "swapper/0", SR_PREV_RUNNABLE, 200, "waker");
	ev_switch(r, 2, 0, "swapper/2", SR_PREV_RUNNABLE, 100, "wakee");
	ev_switch(r, 2, 100, "wakee", SR_PREV_BLOCKED, 0, "swapper/2");
	/* between its waking and its wakeup: a wakeup migration */
	ev_wake(r, SR_EV_WAKING, 0, 200, 100, "wakee", 2);
	ev_migrate(r, 0, 200, 100, "wakee", 2, 0);
	ev_wake(r, SR_EV_WAKEUP, 0, 200, 100, "wakee", 0);
	/* done by a stopper thread: active balance */
	ev_switch(r, 1, 0, "swapper/1", SR_PREV_RUNNABLE, 900, "migration/1");
	ev_migrate(r, 1, 900, 100, "wakee", 0, 3);
	/* by an idle third cpu for another: nohz idle balance */
	ev_switch(r, 3, 0, "swapper/3", SR_PREV_RUNNABLE, 500, "hog");
	ev_switch(r, 3, 500, "hog", SR_PREV_PREEMPTED, 501, "hog2");
	ev_migrate(r, 2, 0, 500, "hog", 3, 1);
	/* the task moves itself (exec, setaffinity) */
	ev_migrate(r, 3, 501, 501, "hog2", 3, 2);
	st = sr_replay_borrow_stats(r);
	CHECK_EQ(st->migrations[SR_MIG_WAKEUP], 1, "migration inside a wakeup");
	CHECK_EQ(st->migrations[SR_MIG_ACTIVE], 1, "migration by migration/N");
	CHECK_EQ(st->migrations[SR_MIG_LB_NOHZ], 1, "migration by an idle third cpu");
	CHECK_EQ(st->migrations[SR_MIG_AFFINITY], 1, "a task moving itself");
	CHECK_EQ(st->migrations[SR_MIG_UNEXPLAINED], 0, "nothing unexplained");
	CHECK_EQ(sr_replay_task(r, 500)->cpu, 1, "a queued task follows its migration");
	sr_replay_free(r);

	/* util_est: sampled at each sleep, fast up, a quarter of the way down */
	r = setup(t, mainline);
	{
		const struct sr_task *w;
		unsigned long e, d;

		ev_switch(r, 0, 0, "swapper/0", SR_PREV_RUNNABLE, 300, "worker");
		T += 200000000ULL;
		ev_switch(r, 0, 300, "worker", SR_PREV_BLOCKED, 0, "swapper/0");
		w = sr_replay_task(r, 300);
		CHECK(w->pelt.util_avg > 900, "200 ms running: util_avg %lu", w->pelt.util_avg);
		CHECK_EQ(w->util_est, w->pelt.util_avg, "first sleep: util_est jumps to util_avg");
		CHECK(!w->util_est_queued, "a sleeping task is not in the cpu's sum");
		e = w->util_est;
		T += 1000000000ULL;
		ev_wake(r, SR_EV_WAKING, 1, 0, 300, "worker", 0);
		ev_wake(r, SR_EV_WAKEUP, 1, 0, 300, "worker", 0);
		CHECK(w->util_est_queued, "the wakeup adds it to the cpu's sum");
		ev_switch(r, 0, 0, "swapper/0", SR_PREV_RUNNABLE, 300, "worker");
		T += 2000000ULL;
		ev_switch(r, 0, 300, "worker", SR_PREV_BLOCKED, 0, "swapper/0");
		d = w->pelt.util_avg;
		CHECK(d + 10 < e, "after 1 s asleep util_avg %lu is far below %lu", d, e);
		CHECK_EQ(w->util_est, ((e << 2) - (e - d)) >> 2, "EWMA moves 1/4 of the way down");
		CHECK(w->util_est_unchanged, "no new sample until util_avg changes");
	}
	sr_replay_free(r);

	/* a fork whose child is its parent (damaged input) is ignored, not a use after free */
	r = setup(t, mainline);
	ev_switch(r, 0, 0, "swapper/0", SR_PREV_RUNNABLE, 200, "parent");
	{
		struct sr_event ev;

		sr_event_reset(&ev);
		ev.kind = SR_EV_FORK;
		ev.ts = T += 1000;
		ev.cpu = 0;
		ev.pid = ev.pid2 = 200;
		strncpy(ev.comm, "parent", SR_COMM_LEN - 1);
		strncpy(ev.comm2, "child", SR_COMM_LEN - 1);
		sr_replay_feed(r, &ev);
	}
	CHECK(sr_replay_task(r, 200) && !strcmp(sr_replay_task(r, 200)->comm, "parent"),
	      "a fork of pid 200 into pid 200 leaves the task as it was");
	sr_replay_free(r);

	/* CPU numbers beyond the topology are never indexed: the event is ignored */
	r = setup(t, mainline);
	ev_switch(r, 0, 0, "swapper/0", SR_PREV_RUNNABLE, 200, "waker");
	ev_switch(r, 0, 200, "waker", SR_PREV_RUNNABLE, 0, "swapper/0");
	{
		uint64_t before = sr_replay_borrow_stats(r)->events;

		ev_wake(r, SR_EV_WAKING, 0, 200, 100, "wakee", 100000);
		ev_wake(r, SR_EV_WAKING, 0, 200, 101, "wakee", 4);
		ev_wake(r, SR_EV_WAKEUP, 0, 200, 101, "wakee", 4);
		ev_wake(r, SR_EV_WAKEUP_NEW, 0, 200, 102, "child", 1 << 20);
		ev_migrate(r, 0, 200, 100, "wakee", 9, 0);
		ev_migrate(r, 0, 200, 100, "wakee", 0, 4);
		CHECK_EQ(sr_replay_borrow_stats(r)->events, before,
			 "events with a cpu outside the topology are ignored");
		CHECK_EQ(ndecisions, 0, "and open no decision");
	}
	sr_replay_free(r);

	sr_topology_free(t);
	return unit_done();
}
