// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of demand extraction (replay/demand.c) on small hand-written
 * ftrace text traces in tests/fixtures/demand/: a pipe pair (ping-pong,
 * with one sched_waking that races the wakee's switch-out), a fork and
 * wait, a timer sleeper, a producer, a fork and exec.  Each checks the bursts, the sleeps and what ended
 * them, and the edges both ways.
 */
#include <stdlib.h>
#include <string.h>

#include "schedreplay/demand.h"
#include "schedreplay/runmetrics.h"
#include "schedreplay/error.h"
#include "unit.h"

#define FIX "tests/fixtures/demand/"

static struct sr_demand *load(const char *name)
{
	struct sr_demand *d = NULL;
	char *cause = NULL;
	char path[256];
	int ret;

	snprintf(path, sizeof(path), FIX "%s", name);
	ret = sr_demand_from_trace(path, NULL, &d, &cause);
	CHECK(ret == 0 && d, "%s: demand extracted (%s)", name, cause ? cause : "ok");
	free(cause);
	return d;
}

static const struct sr_dm_step *step(const struct sr_demand *d, int t, unsigned i)
{
	static const struct sr_dm_step none = { .kind = 0xff };

	if (t < 0 || t >= d->ntasks || i >= d->task[t].nsteps)
		return &none;
	return &d->task[t].step[i];
}

#define CHECK_RUN(d, t, i, ns_)							\
	do {									\
		CHECK_EQ(step(d, t, i)->kind, SR_DM_RUN, "task %d step %u is a run", t, i); \
		CHECK_EQ(step(d, t, i)->ns, ns_, "task %d step %u runs %lld ns", t, i, \
			 (long long)(ns_));					\
	} while (0)

#define CHECK_WAKE(d, t, i, peer_, pstep)					\
	do {									\
		CHECK_EQ(step(d, t, i)->kind, SR_DM_WAKE, "task %d step %u is a wake", t, i); \
		CHECK_EQ(step(d, t, i)->peer, peer_, "task %d step %u wakes task %d", t, i, peer_); \
		CHECK_EQ(step(d, t, i)->peer_step, pstep, "task %d step %u ends its sleep %d", \
			 t, i, pstep);						\
	} while (0)

#define CHECK_SLEEP(d, t, i, end_, ns_, peer_, pstep)				\
	do {									\
		CHECK_EQ(step(d, t, i)->kind, SR_DM_SLEEP, "task %d step %u is a sleep", t, i); \
		CHECK_EQ(step(d, t, i)->end, end_, "task %d step %u ended by %s", t, i, \
			 sr_dm_end_name(end_));					\
		CHECK_EQ(step(d, t, i)->ns, ns_, "task %d step %u slept %lld ns", t, i, \
			 (long long)(ns_));					\
		if ((end_) == SR_DM_BY_TASK) {					\
			CHECK_EQ(step(d, t, i)->peer, peer_, "task %d step %u woken by %d", \
				 t, i, peer_);					\
			CHECK_EQ(step(d, t, i)->peer_step, pstep,		\
				 "task %d step %u at the waker's step %d", t, i, pstep); \
		}								\
	} while (0)

static void test_pipe_pair(void)
{
	struct sr_demand *d = load("pipe-pair.txt");
	int ping, pong;

	if (!d)
		return;
	ping = sr_demand_find(d, 100);
	pong = sr_demand_find(d, 101);
	CHECK_EQ(d->ntasks, 2, "pipe pair: two tasks");
	CHECK(ping >= 0 && pong >= 0, "pipe pair: ping and pong found");
	CHECK_EQ(d->task[ping].origin, SR_DM_ORIGIN_RUNNABLE, "ping was queued at the start");
	CHECK_EQ(d->task[pong].origin, SR_DM_ORIGIN_SLEEPING, "pong was asleep at the start");
	CHECK_EQ(d->task[ping].nsteps, 10, "ping: 10 steps");
	CHECK_RUN(d, ping, 0, 100000);
	CHECK_WAKE(d, ping, 1, pong, 0);
	CHECK_RUN(d, ping, 2, 30000);
	CHECK_SLEEP(d, ping, 3, SR_DM_BY_TASK, 70000, pong, 2);
	CHECK_RUN(d, ping, 4, 85000);
	CHECK_WAKE(d, ping, 5, pong, 4);
	CHECK_RUN(d, ping, 6, 30000);
	/* pong's sched_waking at .325 came before ping's switch-out at .330 */
	CHECK_SLEEP(d, ping, 7, SR_DM_BY_TASK, 0, pong, 6);
	CHECK(step(d, ping, 7)->flags & SR_DM_F_EARLY, "ping step 7: the early wakeup is marked");
	CHECK_RUN(d, ping, 8, 110000);
	CHECK_SLEEP(d, ping, 9, SR_DM_NEVER, 0, -1, -1);

	CHECK_EQ(d->task[pong].nsteps, 9, "pong: 9 steps");
	CHECK_SLEEP(d, pong, 0, SR_DM_BY_TASK, 100000, ping, 1);
	CHECK(step(d, pong, 0)->flags & SR_DM_F_INITIAL, "pong's first sleep is from the start");
	CHECK_RUN(d, pong, 1, 80000);
	CHECK_WAKE(d, pong, 2, ping, 3);
	CHECK_RUN(d, pong, 3, 50000);
	CHECK_SLEEP(d, pong, 4, SR_DM_BY_TASK, 50000, ping, 5);
	CHECK_RUN(d, pong, 5, 5000);
	CHECK_WAKE(d, pong, 6, ping, 7);
	CHECK_RUN(d, pong, 7, 75000);
	CHECK_SLEEP(d, pong, 8, SR_DM_NEVER, 50000, -1, -1);

	CHECK_EQ(d->task[ping].run_ns, 355000, "ping ran 355 us in all");
	CHECK_EQ(d->task[ping].wait_ns, 15000 + 10000, "ping waited 25 us (woken to running)");
	CHECK_EQ(d->stats.by_task, 4, "four sleeps ended by the partner");
	CHECK_EQ(d->stats.early, 1, "one of them early");
	CHECK_EQ(d->stats.by_timer, 0, "no timer");
	CHECK_EQ(d->stats.inconsistent, 0, "nothing inconsistent");
	/* wakeups onto a CPU idle since before them: 15, 20 and 10 us (the first
	 * one's CPU had not switched yet in the trace, so it does not count) */
	CHECK_EQ(d->idle_wake_samples, 3, "three wakeups onto an idle CPU");
	CHECK(d->idle_wake_ns >= 14700 && d->idle_wake_ns <= 15300,
	      "their median cost is about 15 us (%llu ns)", (unsigned long long)d->idle_wake_ns);
	CHECK_EQ(d->preempt_wake_samples, 0, "no preempting wakeup");
	sr_demand_free(d);
}

static void test_fork_wait(void)
{
	struct sr_demand *d = load("fork-wait.txt");
	int parent, child;

	if (!d)
		return;
	CHECK_EQ(d->ntasks, 2, "fork-wait: two tasks");
	parent = 0;
	child = sr_demand_find(d, 201);
	CHECK_EQ(d->task[parent].pid, 200, "the parent is task 0");
	CHECK_EQ(child, 1, "the child is task 1");
	CHECK_EQ(d->task[child].origin, SR_DM_ORIGIN_FORKED, "the child was forked in the trace");
	CHECK_EQ(d->task[child].parent, parent, "by the parent");
	CHECK_EQ(d->task[child].parent_step, 1, "at its step 1");
	CHECK_EQ(d->task[parent].nsteps, 6, "parent: 6 steps");
	CHECK_RUN(d, parent, 0, 50000);
	CHECK_EQ(step(d, parent, 1)->kind, SR_DM_FORK, "parent step 1 is the fork");
	CHECK_EQ(step(d, parent, 1)->peer, child, "of the child");
	CHECK_RUN(d, parent, 2, 20000);
	/* wait(): ended by the child's exit path, at its last point */
	CHECK_SLEEP(d, parent, 3, SR_DM_BY_TASK, 440000, child, 1);
	CHECK_RUN(d, parent, 4, 70000);
	CHECK_SLEEP(d, parent, 5, SR_DM_NEVER, 0, -1, -1);

	CHECK_EQ(d->task[child].nsteps, 4, "child: 4 steps");
	CHECK_RUN(d, child, 0, 450000);
	CHECK_WAKE(d, child, 1, parent, 3);
	CHECK_RUN(d, child, 2, 10000);
	CHECK_EQ(step(d, child, 3)->kind, SR_DM_EXIT, "the child exits");
	CHECK_EQ(d->task[child].exit_ts, 2000520000ULL, "at its final switch");
	CHECK_EQ(d->task[child].wait_ns, 10000, "the child waited 10 us to run first");
	CHECK_EQ(d->stats.forks, 1, "one fork");
	CHECK_EQ(d->idle_fork_samples, 1, "one fork onto an idle CPU");
	CHECK(d->idle_fork_ns >= 9800 && d->idle_fork_ns <= 10200,
	      "its cost, fork to first run, is 10 us (%llu ns)", (unsigned long long)d->idle_fork_ns);
	CHECK_EQ(d->idle_wake_samples, 1, "the fork is not an idle wakeup; the parent's is");
	CHECK_EQ(d->stats.exits, 1, "one exit");
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);
		int ret = sr_demand_write_text(d, m);

		fclose(m);
		CHECK(ret == 0 && buf && strstr(buf, "task 1 pid 201 comm sh prio 120 origin forked "
						     "parent 0@1 run 460000 wait 10000 sleep 0\n"),
		      "the text dump names the child, its parent's fork step and its times");
		CHECK(buf && strstr(buf, "  3 sleep 440000 task 1@1\n"),
		      "the text dump gives the parent's wait and what ended it");
		free(buf);
	}
	sr_demand_free(d);
}

static void test_timer_sleeper(void)
{
	struct sr_demand *d = load("timer-sleeper.txt");
	int t, o;

	if (!d)
		return;
	t = sr_demand_find(d, 300);
	o = sr_demand_find(d, 301);
	CHECK_EQ(d->ntasks, 2, "timer: two tasks");
	CHECK_EQ(d->task[t].nsteps, 6, "sleeper: 6 steps");
	CHECK_RUN(d, t, 0, 100000);
	CHECK_SLEEP(d, t, 1, SR_DM_BY_TIMER, 10000000, -1, -1);
	CHECK_EQ(step(d, t, 1)->peer, -1, "no task behind the timer");
	CHECK_EQ(step(d, t, 1)->peer_step, 0, "the timer's wakeup ran on CPU 0");
	CHECK_RUN(d, t, 2, 100000);
	CHECK_SLEEP(d, t, 3, SR_DM_BY_TIMER, 10000000, -1, -1);
	CHECK_RUN(d, t, 4, 100000);
	CHECK_SLEEP(d, t, 5, SR_DM_NEVER, 180000, -1, -1);
	CHECK_EQ(d->stats.by_timer, 2, "two timer wakeups");
	CHECK_EQ(d->stats.by_task, 0, "no task edges");
	/* the idle CPU's own timer wakes the task there: no IPI, a local cost */
	CHECK_EQ(d->idle_wake_local_samples, 2, "both timer wakeups are local to the idle CPU");
	CHECK_EQ(d->idle_wake_samples, 0, "none from another CPU");
	/* 'other' ran without a wakeup at its CPU's first switch: queued from the start */
	CHECK_EQ(d->task[o].origin, SR_DM_ORIGIN_RUNNABLE, "other was queued at the start");
	CHECK_RUN(d, o, 0, 100000);
	CHECK_EQ(d->task[o].wait_ns, 20400000, "other waited from the start");
	sr_demand_free(d);
}

/*
 * Wakeups of a running task do not end its next sleep: one on the wakee's
 * own CPU (from an interrupt), a waking from another CPU whose sched_wakeup
 * follows while the wakee still runs, and a sched_wakeup from another CPU
 * on a kernel without sched_waking.  Only a sched_waking from another CPU
 * whose sched_wakeup comes after the switch-out raced it (pipe-pair's
 * step 7).
 */
static void test_running_wake(void)
{
	struct sr_demand *d = load("running-wake.txt");
	int t, w;

	if (d) {
		t = sr_demand_find(d, 400);
		CHECK_RUN(d, t, 0, 100000);
		CHECK_SLEEP(d, t, 1, SR_DM_BY_TIMER, 50000000, -1, -1);
		CHECK(!(step(d, t, 1)->flags & SR_DM_F_EARLY), "the own-CPU waking is not early");
		/*
		 * 402 appears switched in from the idle task on CPU 0, which
		 * went idle at 3.050210: not queued there since the start, but
		 * asleep until then, its wakeup unseen
		 */
		t = sr_demand_find(d, 402);
		CHECK_EQ(d->task[t].origin, SR_DM_ORIGIN_SLEEPING, "402 was asleep at the start");
		CHECK_SLEEP(d, t, 0, SR_DM_BY_UNKNOWN, 1000010000, -1, -1);
		CHECK_EQ(d->task[t].wait_ns, 10000, "402 waited only after its timer: 10 us");
		/*
		 * 403's waking from CPU 1, its sched_wakeup while 402 still
		 * runs (ttwu_runnable()): a sleep of no length there, ended by
		 * 403, and 402's blocking switch after is its own timer sleep
		 */
		w = sr_demand_find(d, 403);
		CHECK_RUN(d, t, 1, 90000);
		CHECK_SLEEP(d, t, 2, SR_DM_BY_TASK, 0, w, 1);
		CHECK(step(d, t, 2)->flags & SR_DM_F_EARLY, "the waking of the queued task is early");
		CHECK_RUN(d, t, 3, 910000);
		CHECK_SLEEP(d, t, 4, SR_DM_BY_TIMER, 20000000, -1, -1);
		CHECK_EQ(d->stats.early, 1, "only the waking of the queued task is early");
		sr_demand_free(d);
	}
	d = load("running-wakeup-only.txt");
	if (!d)
		return;
	t = sr_demand_find(d, 500);
	w = sr_demand_find(d, 501);
	CHECK_RUN(d, t, 0, 100000);
	CHECK_SLEEP(d, t, 1, SR_DM_BY_TASK, 30000000, w, 1);
	CHECK_EQ(d->stats.early, 0, "sched_wakeup only: nothing early");
	CHECK_EQ(d->stats.by_task, 1, "one sleep ended by the waker");
	sr_demand_free(d);
}

/* a sleep whose wakeup was lost: the task runs again, the end is unknown */
static void test_unknown_end(void)
{
	struct sr_demand *d = sr_demand_new(1);
	struct sr_event ev;
	int ret = 0;

	sr_event_reset(&ev);
	ev.kind = SR_EV_SWITCH;
	ev.cpu = 0;
	ev.ts = 1000;
	ev.pid = 0;
	ev.pid2 = 7;
	ev.prev_state = SR_PREV_RUNNABLE;
	ret |= sr_demand_feed(d, &ev);
	ev.ts = 2000;
	ev.pid = 7;
	ev.pid2 = 0;
	ev.prev_state = SR_PREV_BLOCKED;
	ret |= sr_demand_feed(d, &ev);
	ev.ts = 5000;
	ev.pid = 0;
	ev.pid2 = 7;
	ev.prev_state = SR_PREV_RUNNABLE;
	ret |= sr_demand_feed(d, &ev);
	ret |= sr_demand_finish(d);
	CHECK_EQ(ret, 0, "fed");
	CHECK_SLEEP(d, 0, 1, SR_DM_BY_UNKNOWN, 3000, -1, -1);
	CHECK_EQ(d->stats.by_unknown, 1, "counted as unknown");
	CHECK_EQ(d->task[0].run_ns, 1000, "the second burst has no time yet");
	sr_demand_free(d);
}

/*
 * A forked child that sets its own affinity in its first slice: its mask
 * until then is its parent's (not the call's, from the start), and the
 * call is a step after the CPU time it ran first
 */
static void test_fork_setaffinity(void)
{
	struct sr_demand *d = load("fork-setaffinity.txt");
	int child;

	if (!d)
		return;
	child = sr_demand_find(d, 201);
	CHECK(child >= 0, "fork-setaffinity: the child is a task");
	if (child < 0)
		goto out;
	CHECK_EQ(d->task[child].mask_known, 0, "the child's mask at its start is its parent's "
		 "(unknown), not the one it set later");
	CHECK_EQ(d->task[child].nsteps, 4, "child: run, affinity, run, exit");
	CHECK_RUN(d, child, 0, 240000);
	CHECK_EQ(step(d, child, 1)->kind, SR_DM_AFFINITY, "then the setaffinity call");
	CHECK_EQ(step(d, child, 1)->mask, 1, "to CPU 0");
	CHECK_RUN(d, child, 2, 200000);
	CHECK_EQ(step(d, child, 3)->kind, SR_DM_EXIT, "the child exits");
out:
	sr_demand_free(d);
}

/*
 * The recorded machine's cost of a wakeup that preempts the running task:
 * a user task preempted at its return to user mode is switched out in
 * state R (schedule() from exit_to_user_mode, not preempt_schedule_irq's
 * R+): both count
 */
static void test_preempt_cost(void)
{
	struct sr_demand *d = load("preempt-user.txt");

	if (!d)
		return;
	CHECK_EQ(d->preempt_wake_samples, 2, "preempt-user: both preempting wakeups (R, R+) count");
	CHECK_EQ(d->preempt_wake_hist->max, 200000, "the longer one, 200 us after its sched_waking");
	sr_demand_free(d);
}

/*
 * The recorder's newidle probes: the blocking task switches out after its
 * CPU's newly idle balance (newidle at +100 us, newidle_ret at +200 us), so
 * its CPU time ends where the balance began, and the balance's length is a
 * sample of the machine's newidle cost
 */
static void test_newidle_probe(void)
{
	struct sr_demand *d = load("newidle-window.txt");
	int b;

	if (!d)
		return;
	b = sr_demand_find(d, 400);
	CHECK_RUN(d, b, 0, 100000);
	CHECK_EQ(d->newidle_samples, 1, "one newly idle balance timed by the probes");
	CHECK(d->newidle_ns >= 98000 && d->newidle_ns <= 102000,
	      "it took 100 us (%llu ns)", (unsigned long long)d->newidle_ns);
	sr_demand_free(d);
}

/*
 * Wakeups from interrupt context (the irq-flags column's s and h) are not
 * the interrupted task's: a timer's softirq and a hardirq inside "busy"
 * end the sleeper's first two sleeps after their recorded lengths; only
 * busy's own wakeup from task context is a dependency edge.
 */
static void test_irq_waker(void)
{
	struct sr_demand *d = load("irq-waker.txt");
	int b, t;

	if (!d)
		return;
	b = sr_demand_find(d, 400);
	t = sr_demand_find(d, 401);
	CHECK(b >= 0 && t >= 0, "irq waker: busy and sleeper found");
	if (b < 0 || t < 0)
		goto out;
	CHECK_EQ(d->task[t].nsteps, 8, "sleeper: 8 steps");
	CHECK_RUN(d, t, 0, 100000);
	CHECK_SLEEP(d, t, 1, SR_DM_BY_TIMER, 4000000, -1, -1);
	CHECK_EQ(step(d, t, 1)->peer, -1, "the softirq wakeup has no task behind it");
	CHECK_EQ(step(d, t, 1)->peer_step, 0, "it ran on CPU 0, where the softirq was served");
	CHECK_RUN(d, t, 2, 100000);
	CHECK_SLEEP(d, t, 3, SR_DM_BY_TIMER, 2000000, -1, -1);
	CHECK_EQ(step(d, t, 3)->peer, -1, "the hardirq wakeup has no task behind it");
	CHECK_RUN(d, t, 4, 100000);
	CHECK_SLEEP(d, t, 5, SR_DM_BY_TASK, 2000000, b, 1);
	CHECK_RUN(d, t, 6, 100000);
	CHECK_SLEEP(d, t, 7, SR_DM_NEVER, 1540000, -1, -1);
	/* busy: one burst up to its task-context wakeup, the wakeup, the rest */
	CHECK_EQ(d->task[b].nsteps, 4, "busy: 4 steps");
	CHECK_RUN(d, b, 0, 8340000);
	CHECK_WAKE(d, b, 1, t, 5);
	CHECK_RUN(d, b, 2, 1660000);
	CHECK_EQ(d->stats.by_timer, 2, "two wakeups from interrupt context");
	CHECK_EQ(d->stats.by_task, 1, "one task edge");
out:
	sr_demand_free(d);
}

/*
 * The stopper moves a preempted task onto an idle CPU (move_queued_task():
 * the move is emitted on the source CPU, the destination learns of it by
 * IPI): its switch-in there 500 us later is a sample of the machine's
 * idle_move cost.  A CPU that pulls a task for itself (the second move,
 * emitted on its destination) is not.
 */
static void test_remote_move(void)
{
	struct sr_demand *d = load("remote-move.txt");

	if (!d)
		return;
	CHECK_EQ(d->idle_move_samples, 1, "remote-move: one move onto an idle CPU by another CPU");
	CHECK(d->idle_move_ns >= 490000 && d->idle_move_ns <= 510000,
	      "it ran there about 500 us after the move (%llu ns)",
	      (unsigned long long)d->idle_move_ns);
	CHECK(d->idle_move_hist && d->idle_move_hist->n == 1, "the distribution has that sample");
	sr_demand_free(d);
}

/*
 * An exiting child wakes its parent twice (the SIGCHLD's signal_wake_up(),
 * then do_notify_parent()'s __wake_up_parent()); the second finds the
 * parent running, woken before it blocked.  That is a sleep of no length
 * where the waking came (the parent went on to fork the next child), not
 * the end of the parent's next real wait, which the next child ends.
 */
static void test_double_wake(void)
{
	struct sr_demand *d = load("double-wake.txt");
	int p, c1, c2;

	if (!d)
		return;
	p = sr_demand_find(d, 700);
	c1 = sr_demand_find(d, 701);
	c2 = sr_demand_find(d, 702);
	CHECK(p >= 0 && c1 >= 0 && c2 >= 0, "double wake: three tasks");
	if (p < 0 || c1 < 0 || c2 < 0)
		goto out;
	CHECK_SLEEP(d, p, 3, SR_DM_BY_TASK, 1110000, c1, 1);
	CHECK_RUN(d, p, 4, 170000);
	CHECK_SLEEP(d, p, 5, SR_DM_BY_TASK, 0, c1, 3);
	CHECK(step(d, p, 5)->flags & SR_DM_F_EARLY, "the second wakeup came before any block");
	CHECK_RUN(d, p, 6, 830000);
	CHECK_EQ(step(d, p, 7)->kind, SR_DM_FORK, "then the parent forks the second child");
	CHECK_SLEEP(d, p, 9, SR_DM_BY_TASK, 2080000, c2, 1);
	CHECK_EQ(d->task[p].wait_ns, 40000, "the parent's wait for the second child is a sleep");
	CHECK_EQ(d->stats.redundant_wakes, 0, "no wakeup left over");
out:
	sr_demand_free(d);
}

/*
 * A wakeup from CPU 0 onto CPU 2, which runs a hog: sched_waking at 2 ms
 * on the waker's CPU, sched_wakeup 1 ms later on the target (the wake
 * list's IPI): one activation sample, with its two CPUs.
 */
static void test_activation(void)
{
	struct sr_demand *d = load("xllc-wake.txt");

	if (!d)
		return;
	CHECK_EQ(d->nact, 1, "xllc wake: one wakeup onto a busy CPU");
	if (d->nact == 1) {
		CHECK_EQ(d->act[0].from, 0, "its sched_waking ran on CPU 0");
		CHECK_EQ(d->act[0].to, 2, "it was activated on CPU 2");
		CHECK_EQ(d->act[0].ns, 1000000, "1 ms after the waking");
	}
	sr_demand_free(d);
}

/*
 * A producer: the writer wakes the reader 8 times without blocking itself;
 * its first wakeup (none before it) is a point of its execution, the 7
 * others SR_DM_F_STREAM with its CPU time from the reader's block (100 us,
 * the writer running throughout).  A ping-pong partner blocks between its
 * wakeups: none of the pipe pair's is a producer's, nor the second wakeup
 * of a partner that found the reply without sleeping.
 */
static void test_producer(void)
{
	struct sr_demand *d = load("producer.txt");
	int r, w, i;
	unsigned j;

	if (!d)
		return;
	r = sr_demand_find(d, 400);
	w = sr_demand_find(d, 401);
	CHECK(r >= 0 && w >= 0, "producer: reader and writer found");
	CHECK_EQ(d->task[w].nsteps, 18, "writer: 9 runs, 8 wakes, the exit");
	CHECK_WAKE(d, w, 1, r, 1);
	CHECK(!(step(d, w, 1)->flags & SR_DM_F_STREAM), "its first wakeup is a point of its own");
	for (j = 3; j < 17; j += 2) {
		CHECK_WAKE(d, w, j, r, (int)j);
		CHECK(step(d, w, j)->flags & SR_DM_F_STREAM, "writer step %u: a producer's wakeup", j);
		CHECK_EQ(step(d, w, j)->ns, 100000, "writer step %u: 100 us of its CPU time from the "
			 "reader's block", j);
	}
	CHECK_EQ(d->stats.stream, 7, "7 sleeps ended by a producer");
	for (j = 1; j < 17; j += 2)
		CHECK_SLEEP(d, r, j, SR_DM_BY_TASK, 100000, w, (int)j);
	sr_demand_free(d);

	d = load("pipe-pair.txt");
	if (!d)
		return;
	for (i = 0; i < d->ntasks; i++)
		for (j = 0; j < d->task[i].nsteps; j++)
			CHECK(!(d->task[i].step[j].flags & SR_DM_F_STREAM),
			      "pipe pair: task %d step %u is not a producer's", i, j);
	CHECK_EQ(d->stats.stream, 0, "pipe pair: no producer");
	sr_demand_free(d);

	/* ping once finds pong's reply without sleeping and wakes it again, unblocked */
	d = load("reply-twice.txt");
	if (!d)
		return;
	CHECK_WAKE(d, 0, 7, 1, 6);
	CHECK(!(step(d, 0, 7)->flags & SR_DM_F_STREAM),
	      "a partner that mostly blocks between its wakeups is no producer (1 of 5 unblocked)");
	CHECK_EQ(d->stats.stream, 0, "reply-twice: no producer");
	sr_demand_free(d);
}

#define CHECK_EXEC(d, t, i, cpu_, to)						\
	do {									\
		CHECK_EQ(step(d, t, i)->kind, SR_DM_EXEC, "task %d step %u is an exec", t, i); \
		CHECK_EQ(step(d, t, i)->cpu, cpu_, "task %d step %u execs on CPU %d", t, i, cpu_); \
		CHECK_EQ(step(d, t, i)->peer_step, to, "task %d step %u: the kernel's CPU %d", \
			 t, i, to);						\
	} while (0)

/*
 * A fork, an exec, a run: the exec is a point of the child's execution
 * (its select_rq probe with WF_EXEC), between its burst before and the
 * rest after the stopper's move; the sched_process_exec after it is the
 * same exec.  Without the probe the tracepoint gives the point.
 */
static void test_exec(void)
{
	struct sr_demand *d = load("fork-exec.txt");
	int c, sh;

	if (!d)
		return;
	c = sr_demand_find(d, 201);
	CHECK(c >= 0, "fork-exec: the child found");
	CHECK_EQ(d->stats.execs, 1, "one exec (the probe and the tracepoint are the same one)");
	CHECK_RUN(d, c, 0, 240000);
	CHECK_EXEC(d, c, 1, 0, 2);
	CHECK_EQ(step(d, c, 1)->ts, 2000300000, "at the probe's time");
	/* the stopper's wakeup and the rest of the burst, on CPU 2 */
	CHECK_RUN(d, c, 2, 5000);
	CHECK_EQ(step(d, c, 3)->kind, SR_DM_WAKE, "the child wakes the stopper");
	CHECK_RUN(d, c, 4, 2010000);
	CHECK_EQ(d->stats.inconsistent, 0, "nothing inconsistent");
	sr_demand_free(d);

	d = load("exec-events.txt");
	if (!d)
		return;
	sh = sr_demand_find(d, 200);
	c = sr_demand_find(d, 201);
	CHECK_EQ(d->stats.execs, 2, "exec-events: two execs");
	CHECK_RUN(d, sh, 0, 100000);
	CHECK_EXEC(d, sh, 1, 0, 0);
	CHECK_RUN(d, sh, 2, 200000);
	CHECK_EQ(step(d, sh, 3)->kind, SR_DM_FORK, "then sh forks (its tracepoint added no step)");
	CHECK_RUN(d, c, 0, 180000);
	CHECK_EXEC(d, c, 1, 1, -1);
	CHECK_EQ(step(d, c, 1)->ts, 2000500000, "the tracepoint's time, no probe");
	CHECK_RUN(d, c, 2, 110000);
	sr_demand_free(d);
}

/*
 * A pipeline cat -> filter -> sink (pipeline.txt): filter's sleeps ended
 * twice by cat's writes and once by sink's read (room), sink's twice by
 * filter's writes; none is a producer's (each waker blocked or was first
 * between its wakeups of a sleeper), so every edge is a point of the
 * waker's execution, which the simulator's feeds() counts per pair
 */
static void test_pipeline(void)
{
	struct sr_demand *d = load("pipeline.txt");
	int cat, filter, sink;

	if (!d)
		return;
	cat = sr_demand_find(d, 500);
	filter = sr_demand_find(d, 501);
	sink = sr_demand_find(d, 502);
	CHECK(cat == 0 && filter == 1 && sink == 2, "pipeline: three tasks in order");
	CHECK_RUN(d, cat, 0, 50000);
	CHECK_WAKE(d, cat, 1, filter, 1);
	CHECK_WAKE(d, cat, 3, filter, 7);
	CHECK_SLEEP(d, filter, 1, SR_DM_BY_TASK, 40000, cat, 1);
	CHECK_WAKE(d, filter, 3, sink, 1);
	CHECK_SLEEP(d, filter, 5, SR_DM_BY_TASK, 20000, sink, 3);
	CHECK_SLEEP(d, filter, 7, SR_DM_BY_TASK, 50000, cat, 3);
	CHECK_WAKE(d, filter, 9, sink, 5);
	CHECK_SLEEP(d, sink, 1, SR_DM_BY_TASK, 60000, filter, 3);
	CHECK_WAKE(d, sink, 3, filter, 5);
	CHECK_SLEEP(d, sink, 5, SR_DM_BY_TASK, 90000, filter, 9);
	CHECK_EQ(d->stats.stream, 0, "pipeline: no producer's wakeup");
	CHECK_EQ(step(d, sink, 7)->kind, SR_DM_EXIT, "pipeline: sink exits");
	sr_demand_free(d);
}

int main(void)
{
	test_pipe_pair();
	test_fork_wait();
	test_timer_sleeper();
	test_running_wake();
	test_unknown_end();
	test_fork_setaffinity();
	test_preempt_cost();
	test_newidle_probe();
	test_irq_waker();
	test_remote_move();
	test_double_wake();
	test_activation();
	test_producer();
	test_exec();
	test_pipeline();
	return unit_done();
}
