// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the closed-loop simulator (replay/sim.c) on the
 * hand-written traces of tests/fixtures/demand/: every task gets exactly
 * its demand's CPU time, a wakeup edge orders the wakee's run after the
 * waker's point, a timer sleep lasts its recorded length, a fork's child
 * starts after the parent's fork point, an exec's placement moves the
 * task where the model says, the run is the same for the same
 * seed, and the jitter changes it within its bound.
 */
#include <stdlib.h>
#include <string.h>

#include "schedreplay/demand.h"
#include "schedreplay/kgen.h"
#include "schedreplay/model.h"
#include "schedreplay/sim.h"
#include "unit.h"

#define FIX "tests/fixtures/demand/"
#define MAXSL 256

struct rec {
	int n;
	struct sr_sim_slice s[MAXSL];
	int ndec;
	/* the wakeup decisions: wakee and this_cpu, in order */
	int nwake;
	int wake_pid[MAXSL], wake_this[MAXSL];
};

static int on_slice(const struct sr_sim_slice *s, void *data)
{
	struct rec *r = data;

	if (r->n < MAXSL)
		r->s[r->n++] = *s;
	return 0;
}

static int on_decision(const struct sr_decision *d, const struct sr_eval *e, int nevals,
		       void *data)
{
	struct rec *r = data;

	(void)e;
	(void)nevals;
	r->ndec++;
	if (d->kind == SR_DEC_WAKEUP && r->nwake < MAXSL) {
		r->wake_pid[r->nwake] = d->pid;
		r->wake_this[r->nwake++] = d->this_cpu;
	}
	return 0;
}

static struct sr_demand *load(const char *name)
{
	struct sr_demand *d = NULL;
	char *cause = NULL;

	if (sr_demand_from_trace(name, NULL, &d, &cause))
		d = NULL;
	CHECK(d != NULL, "%s: demand (%s)", name, cause ? cause : "ok");
	free(cause);
	return d;
}

static int eevdf;
static const char *const rules[] = { "CFS", "EEVDF", "EEVDF, delayed dequeue" };

static int run(const struct sr_demand *d, const struct sr_topology *t, double jitter,
	       uint64_t seed, struct rec *r, struct sr_run_metrics *m, struct sr_sim_stats *st)
{
	struct sr_sim_opts o = {
		.topo = t, .hz = 250, .model = sr_model_find("mainline"), .seed = seed,
		.jitter = jitter, .slice = on_slice, .decision = on_decision, .data = r,
		.eevdf = eevdf,
	};
	char *cause = NULL;
	int ret;

	memset(r, 0, sizeof(*r));
	ret = sr_sim_run(d, &o, m, st, &cause);
	CHECK(ret == 0, "simulated (%s)", cause ? cause : "ok");
	free(cause);
	return ret;
}

static uint64_t cpu_time(const struct rec *r, int pid)
{
	uint64_t sum = 0;
	int i;

	for (i = 0; i < r->n; i++)
		if (r->s[i].pid == pid)
			sum += r->s[i].end - r->s[i].start;
	return sum;
}

static uint64_t first_start(const struct rec *r, int pid)
{
	int i;

	for (i = 0; i < r->n; i++)
		if (r->s[i].pid == pid)
			return r->s[i].start;
	return 0;
}

static uint64_t demand_run(const struct sr_demand *d, int t)
{
	uint64_t sum = 0;
	unsigned i;

	for (i = 0; i < d->task[t].nsteps; i++)
		if (d->task[t].step[i].kind == SR_DM_RUN)
			sum += d->task[t].step[i].ns;
	return sum;
}

static void test_pipe_pair(const struct sr_topology *t)
{
	struct sr_demand *d = load(FIX "pipe-pair.txt");
	struct sr_run_metrics m, m2;
	struct sr_sim_stats st;
	struct rec r, r2;
	int i;

	if (!d || run(d, t, 0, 1, &r, &m, &st))
		goto out;
	for (i = 0; i < d->ntasks; i++)
		CHECK_EQ(cpu_time(&r, d->task[i].pid), demand_run(d, i),
			 "pipe pair: task %d gets its demand's CPU time", i);
	/* pong's first run follows ping's first burst (100 us) and an idle wakeup's
	 * cost drawn from the recorded ones (10, 15 and 20 us) */
	CHECK(first_start(&r, 101) >= d->t0 + 100000 + 9000 &&
	      first_start(&r, 101) <= d->t0 + 100000 + 21000,
	      "pong runs after ping's wakeup point (at +%llu ns)",
	      (unsigned long long)(first_start(&r, 101) - d->t0));
	CHECK_EQ(st.stuck, 0, "nobody left waiting");
	CHECK_EQ(st.unrun_ns, 0, "all the demand ran");
	CHECK_EQ(st.demand_ns, demand_run(d, 0) + demand_run(d, 1), "the demand's CPU time");
	CHECK(st.decisions[SR_DEC_WAKEUP] >= 2, "the wakeups were placed by the model (%llu)",
	      (unsigned long long)st.decisions[SR_DEC_WAKEUP]);
	CHECK(r.ndec > 0, "decisions are reported");
	if (run(d, t, 0, 1, &r2, &m2, &st))
		goto out;
	CHECK(r.n == r2.n && !memcmp(r.s, r2.s, (size_t)r.n * sizeof(r.s[0])),
	      "the same options give the same run");
	if (run(d, t, 0.01, 7, &r2, &m2, &st))
		goto out;
	for (i = 0; i < d->ntasks; i++) {
		uint64_t want = demand_run(d, i), got = cpu_time(&r2, d->task[i].pid);

		CHECK(got >= want * 99 / 100 - 10 && got <= want * 101 / 100 + 10,
		      "with 1%% jitter task %d gets its time within 1%% (%llu of %llu)", i,
		      (unsigned long long)got, (unsigned long long)want);
	}
out:
	sr_demand_free(d);
}

static void test_fork_wait(const struct sr_topology *t)
{
	struct sr_demand *d = load(FIX "fork-wait.txt");
	struct sr_run_metrics m;
	struct sr_sim_stats st;
	struct rec r;

	if (!d || run(d, t, 0, 1, &r, &m, &st))
		goto out;
	CHECK_EQ(st.decisions[SR_DEC_FORK], 1, "one fork placement");
	CHECK(first_start(&r, 201) >= d->t0 + 50000, "the child runs after the fork point");
	/* onto an idle CPU after the recorded fork's cost (10 us), not a wakeup's (20 us) */
	CHECK(first_start(&r, 201) >= d->t0 + 50000 + 9000 &&
	      first_start(&r, 201) <= d->t0 + 50000 + 11000,
	      "%s: the child's first run follows the fork by the recorded cost (+%llu ns)",
	      rules[eevdf], (unsigned long long)(first_start(&r, 201) - d->t0 - 50000));
	CHECK_EQ(cpu_time(&r, 201), 460000, "the child's CPU time");
	CHECK_EQ(cpu_time(&r, 200), 140000, "the parent's CPU time");
	/* the parent's second burst follows the child's wakeup point (450 us into it) */
	CHECK(m.makespan_s >= 460e-6 && m.makespan_s < 700e-6,
	      "the makespan ends at the child's exit (%g s)", m.makespan_s);
	CHECK_EQ(st.stuck, 0, "nobody left waiting");
out:
	sr_demand_free(d);
}

static void test_timer(const struct sr_topology *t)
{
	struct sr_demand *d = load(FIX "timer-sleeper.txt");
	struct sr_run_metrics m;
	struct sr_sim_stats st;
	struct rec r;
	int i, k = 0;
	uint64_t start[3] = { 0 };

	if (!d || run(d, t, 0, 1, &r, &m, &st))
		goto out;
	for (i = 0; i < r.n && k < 3; i++)
		if (r.s[i].pid == 300)
			start[k++] = r.s[i].start;
	CHECK_EQ(k, 3, "three bursts of the sleeper");
	/* each burst 100 us, each sleep 10 ms, and the wakeup cost in between */
	CHECK(start[1] - start[0] >= 10100000 && start[1] - start[0] <= 10200000,
	      "the timer sleep lasts its recorded 10 ms (%llu ns between bursts)",
	      (unsigned long long)(start[1] - start[0]));
	CHECK_EQ(st.decisions[SR_DEC_FORK], 0, "no fork");
out:
	sr_demand_free(d);
}

/*
 * Two CPU hogs queued on one CPU (1x1x1): under both rules they share it,
 * EEVDF in base slices (2.25 ms at 1 CPU: 0.75 ms), CFS in sched_slice()
 * periods; neither waits longer than a few slices.
 */
static void test_eevdf_share(const struct sr_topology *two)
{
	struct sr_topology *t = sr_topology_new_flat(1, SR_ERA_MAINLINE);
	struct sr_demand *d = sr_demand_new(1);
	struct sr_event ev;
	struct sr_run_metrics m;
	struct sr_sim_stats st;
	struct rec r;
	int i, maxgap[2] = { 0, 0 };

	(void)two;
	sr_topology_build_domains(t);
	sr_event_reset(&ev);
	ev.kind = SR_EV_SWITCH;
	ev.cpu = 0;
	ev.prio = ev.prio2 = 120;
	/* hog 10 runs, hog 11 queued; both run 20 ms in all */
	ev.ts = 1000000;
	ev.pid = 0;
	ev.pid2 = 10;
	ev.prev_state = SR_PREV_RUNNABLE;
	sr_demand_feed(d, &ev);
	for (i = 0; i < 20; i++) {
		ev.ts += 2000000;
		ev.pid = i % 2 ? 11 : 10;
		ev.pid2 = i % 2 ? 10 : 11;
		ev.prev_state = SR_PREV_PREEMPTED;
		sr_demand_feed(d, &ev);
	}
	sr_demand_finish(d);
	for (eevdf = 0; eevdf < 3; eevdf++) {
		uint64_t last_end[2] = { 0, 0 };

		if (run(d, t, 0, 1, &r, &m, &st))
			break;
		CHECK_EQ(cpu_time(&r, 10) + cpu_time(&r, 11), 40000000,
			 "%s: the hogs get their 40 ms", rules[eevdf]);
		maxgap[0] = maxgap[1] = 0;
		for (i = 0; i < r.n; i++) {
			int h = r.s[i].pid == 11;

			if (last_end[h] && (int)(r.s[i].start - last_end[h]) > maxgap[h])
				maxgap[h] = (int)(r.s[i].start - last_end[h]);
			last_end[h] = r.s[i].end;
		}
		CHECK(maxgap[0] > 0 && maxgap[0] <= 8000000 && maxgap[1] <= 8000000,
		      "%s: they take turns, neither waits more than 8 ms (%d, %d ns)",
		      rules[eevdf], maxgap[0], maxgap[1]);
		CHECK(st.preemptions > 2, "%s: by tick or deadline preemption (%llu)",
		      rules[eevdf], (unsigned long long)st.preemptions);
	}
	sr_demand_free(d);
	sr_topology_free(t);
}

static void ev_sw(struct sr_demand *d, uint64_t ts, int prev, int state, int next)
{
	struct sr_event ev;

	sr_event_reset(&ev);
	ev.kind = SR_EV_SWITCH;
	ev.cpu = 0;
	ev.ts = ts;
	ev.pid = prev;
	ev.pid2 = next;
	ev.prio = ev.prio2 = 120;
	ev.prev_state = state;
	sr_demand_feed(d, &ev);
}

/*
 * 6.12's delayed dequeue on one CPU: A runs 3 ms and sleeps ahead of B (not
 * eligible), so it stays queued; B wakes it 1 ms later, where it is.
 */
static void test_delayed(void)
{
	struct sr_topology *t = sr_topology_new_flat(1, SR_ERA_MAINLINE);
	struct sr_demand *d = sr_demand_new(1);
	struct sr_run_metrics m;
	struct sr_sim_stats st;
	struct sr_event ev;
	struct rec r;
	int i;

	sr_topology_build_domains(t);
	ev_sw(d, 1000000, 0, SR_PREV_RUNNABLE, 20);
	ev_sw(d, 4000000, 20, SR_PREV_BLOCKED, 21);
	sr_event_reset(&ev);
	ev.kind = SR_EV_WAKING;
	ev.cpu = 0;
	ev.ts = 5000000;
	ev.common_pid = 21;
	ev.pid = 20;
	ev.prio = 120;
	ev.target_cpu = 0;
	sr_demand_feed(d, &ev);
	ev_sw(d, 6000000, 21, SR_PREV_BLOCKED, 20);
	ev_sw(d, 7000000, 20, SR_PREV_BLOCKED, 0);
	sr_demand_finish(d);
	for (eevdf = 1; eevdf < 3; eevdf++) {
		uint64_t second = 0;
		int seen = 0;

		if (run(d, t, 0, 1, &r, &m, &st))
			break;
		CHECK_EQ(st.delayed, eevdf == 2 ? 1 : 0, "%s: A's sleep %s queued", rules[eevdf],
			 eevdf == 2 ? "stays" : "does not stay");
		CHECK_EQ(st.delayed_wakeups, eevdf == 2 ? 1 : 0, "%s: %s", rules[eevdf],
			 eevdf == 2 ? "B wakes it while it is queued" : "no delayed wakeup");
		for (i = 0; i < r.n; i++)
			if (r.s[i].pid == 20 && seen++ == 1)
				second = r.s[i].start;
		CHECK(second >= 1000000 + 3000000 + 1000000, "%s: A runs again after B's wakeup point",
		      rules[eevdf]);
		CHECK_EQ(cpu_time(&r, 20) + cpu_time(&r, 21), 3000000 + 1000000 + 1000000 + 1000000,
			 "%s: the CPU time", rules[eevdf]);
	}
	sr_demand_free(d);
	sr_topology_free(t);
}

/*
 * enqueue_entity() runs update_curr() before place_entity() (6.12): on one
 * CPU, B (lag 0) wakes by its timer 0.4 ms into A's first slice.  Placed
 * at A's vruntime as of now, B neither makes A ineligible nor has the
 * earlier deadline, so A keeps its protected slice (RUN_TO_PARITY) and B
 * runs at the tick after A's deadline.  Placed at A's vruntime of its
 * switch-in, B would find A 0.4 ms past the average and preempt at once.
 */
static void test_wake_place_now(void)
{
	struct sr_topology *t = sr_topology_new_flat(1, SR_ERA_MAINLINE);
	struct sr_demand *d = sr_demand_new(1);
	struct sr_run_metrics m;
	struct sr_sim_stats st;
	struct rec r;
	int i;

	sr_topology_build_domains(t);
	ev_sw(d, 1000000, 0, SR_PREV_RUNNABLE, 21);
	ev_sw(d, 1100000, 21, SR_PREV_BLOCKED, 0);
	ev_sw(d, 2000000, 0, SR_PREV_RUNNABLE, 20);
	ev_sw(d, 2400000, 20, SR_PREV_PREEMPTED, 21);
	ev_sw(d, 2500000, 21, SR_PREV_DEAD, 20);
	ev_sw(d, 12000000, 20, SR_PREV_DEAD, 0);
	sr_demand_finish(d);
	for (eevdf = 1; eevdf < 3; eevdf++) {
		uint64_t a0 = 0, b1 = 0;
		int seen = 0;

		if (run(d, t, 0, 1, &r, &m, &st))
			break;
		a0 = first_start(&r, 20);
		for (i = 0; i < r.n; i++)
			if (r.s[i].pid == 21 && seen++ == 1)
				b1 = r.s[i].start;
		CHECK(a0 && b1 >= a0 + 700000,
		      "%s: B's wakeup 0.4 ms into A's slice does not preempt it (B runs %lld ns "
		      "after A's start)", rules[eevdf], (long long)(b1 - a0));
		CHECK_EQ(cpu_time(&r, 20) + cpu_time(&r, 21), 100000 + 400000 + 100000 + 9500000,
			 "%s: the CPU time", rules[eevdf]);
	}
	sr_demand_free(d);
	sr_topology_free(t);
}

static int last_cpu(const struct rec *r, int pid)
{
	int i, cpu = -1;

	for (i = 0; i < r->n; i++)
		if (r->s[i].pid == pid)
			cpu = r->s[i].cpu;
	return cpu;
}

/*
 * Two children of a parent pinned to CPU 0 each move themselves to CPUs
 * 2-3 from CPU 0: the calls pick the next allowed CPU in turn
 * (cpumask_any_and_distribute()), so the first goes to 2 and the second to
 * 3, not both to the first allowed CPU
 */
/* from the end of @pid's last slice elsewhere to its first slice on @cpu */
static uint64_t move_gap(const struct rec *r, int pid, int cpu)
{
	uint64_t end = 0;
	int i;

	for (i = 0; i < r->n; i++) {
		if (r->s[i].pid != pid)
			continue;
		if (r->s[i].cpu == cpu)
			return r->s[i].start - end;
		end = r->s[i].end;
	}
	return 0;
}

static void test_affinity_spread(void)
{
	struct sr_topology *t4 = sr_topology_new_flat(4, SR_ERA_MAINLINE);
	struct sr_demand *d = load(FIX "setaffinity-spread.txt");
	struct sr_run_metrics m;
	struct sr_sim_stats st;
	struct rec r;

	if (!d || !t4)
		goto out;
	sr_topology_build_domains(t4);
	if (run(d, t4, 0, 1, &r, &m, &st))
		goto out;
	CHECK_EQ(last_cpu(&r, 201), 2, "the first child moved to CPU 2");
	CHECK_EQ(last_cpu(&r, 202), 3, "the second child moved to CPU 3");
	/*
	 * the stopper's move onto an idle CPU reaches it by IPI: each child
	 * runs there the recorded 18 us after its move (idle_move_hist)
	 */
	CHECK_EQ(d->idle_move_samples, 2, "two recorded moves onto idle CPUs");
	{
		uint64_t gap = move_gap(&r, 201, 2);

		CHECK(gap >= 17000 && gap <= 19000,
		      "the first child waits about 18 us on CPU 2 (%llu ns)",
		      (unsigned long long)gap);
	}
	CHECK_EQ(cpu_time(&r, 201), demand_run(d, sr_demand_find(d, 201)),
		 "the first child got its CPU time");
	CHECK_EQ(cpu_time(&r, 202), demand_run(d, sr_demand_find(d, 202)),
		 "the second child got its CPU time");
out:
	sr_demand_free(d);
	sr_topology_free(t4);
}

/* the start of @pid's @n-th slice (from 0), 0 if it has none */
static uint64_t nth_start(const struct rec *r, int pid, int n)
{
	int i;

	for (i = 0; i < r->n; i++)
		if (r->s[i].pid == pid && n-- == 0)
			return r->s[i].start;
	return 0;
}

/*
 * A reader (RT, so that it runs as soon as it is woken) with two wakers (a
 * FIFO's writers): in the recording writer A
 * ends its first sleep at 2 ms and the RT writer B its second at 2.56 ms.
 * On one CPU, A (2 ms of work) waits behind a 10 ms hog, so B's wakeup
 * (its timer at 2.5 ms) comes first: whichever waker comes first ends the
 * sleep (try_to_wake_up() on the wait queue), so the reader runs again
 * at B's wakeup, not at A's after 4 ms and more.
 */
static void test_two_wakers(void)
{
	struct sr_topology *t1 = sr_topology_new_flat(1, SR_ERA_MAINLINE);
	struct sr_demand *d = load(FIX "two-wakers.txt");
	struct sr_run_metrics m;
	struct sr_sim_stats st;
	struct rec r;

	if (!d || !t1)
		goto out;
	sr_topology_build_domains(t1);
	for (eevdf = 0; eevdf < 3; eevdf++) {
		uint64_t second;

		if (run(d, t1, 0, 1, &r, &m, &st))
			break;
		second = nth_start(&r, 300, 1);
		CHECK(second > d->t0 + 2500000 && second < d->t0 + 3000000,
		      "%s: the reader's second burst follows the first wakeup to come, B's "
		      "(at +%llu us)", rules[eevdf], (unsigned long long)((second - d->t0) / 1000));
		CHECK(nth_start(&r, 300, 2) > d->t0 + 4000000,
		      "%s: its second sleep blocks until A's wakeup", rules[eevdf]);
		CHECK_EQ(cpu_time(&r, 300), 300000, "%s: the reader's CPU time", rules[eevdf]);
		CHECK_EQ(st.stuck, 0, "%s: nobody left waiting", rules[eevdf]);
	}
out:
	eevdf = 0;
	sr_demand_free(d);
	sr_topology_free(t1);
}

/*
 * A producer (it wakes the reader without blocking in between, SR_DM_F_STREAM)
 * and its reader, recorded on two CPUs, simulated on one.  EEVDF: the
 * writer's slices now cover several of its recorded wakeup points while the
 * reader waits, and pipe_write() would have woken the reader at its first
 * write after each block, so each of the reader's sleeps still blocks and
 * ends by the writer's progress (100 us of it) after the block.  CFS: the
 * woken reader does not preempt the writer (within wakeup_granularity), the
 * writer runs to its exit first, and the reader then finds the data without
 * sleeping (its writer gone: no sleep blocks).
 */
static uint64_t writer_end(const struct rec *r)
{
	uint64_t end = 0;
	int i;

	for (i = 0; i < r->n; i++)
		if (r->s[i].pid == 401 && r->s[i].end > end)
			end = r->s[i].end;
	return end;
}

static void test_producer(void)
{
	struct sr_topology *t1 = sr_topology_new_flat(1, SR_ERA_MAINLINE);
	struct sr_demand *d = load(FIX "producer.txt");
	struct sr_run_metrics m;
	struct sr_sim_stats st;
	struct rec r;

	if (!d || !t1)
		goto out;
	sr_topology_build_domains(t1);
	for (eevdf = 0; eevdf < 3; eevdf++) {
		int i, ends = 0;

		if (run(d, t1, 0, 1, &r, &m, &st))
			break;
		if (!eevdf) {
			CHECK_EQ(m.wakeups, 1, "CFS: the reader blocks once, before the writer's exit");
			CHECK(first_start(&r, 400) == d->t0 && nth_start(&r, 400, 1) >= writer_end(&r),
			      "CFS: the writer runs to its exit before the reader's second burst");
			CHECK(nth_start(&r, 400, 1) + 2400000 <= r.s[r.n - 1].end + 1000 &&
			      r.s[r.n - 1].end - nth_start(&r, 400, 1) < 2500000,
			      "CFS: then the reader runs its 8 bursts back to back");
		} else {
			CHECK_EQ(m.wakeups, 8, "%s: the reader's 8 sleeps each end by a wakeup",
				 rules[eevdf]);
		}
		CHECK_EQ(cpu_time(&r, 400), 2500000, "%s: the reader's CPU time", rules[eevdf]);
		CHECK_EQ(cpu_time(&r, 401), 3440000, "%s: the writer's CPU time", rules[eevdf]);
		CHECK_EQ(st.stuck, 0, "%s: nobody left waiting", rules[eevdf]);
		/*
		 * each of the reader's slices ends at a block (its bursts are
		 * shorter than a slice); the next starts once the writer has run
		 * 100 us since
		 */
		for (i = 0; i < r.n; i++) {
			uint64_t wrote = 0;
			int j;

			if (r.s[i].pid != 400)
				continue;
			for (j = i + 1; j < r.n && r.s[j].pid != 400; j++)
				wrote += r.s[j].end - r.s[j].start;
			if (j < r.n && wrote >= 100000)
				ends++;
		}
		if (eevdf)
			CHECK_EQ(ends, 8, "%s: each of the reader's 8 sleeps lasts 100 us of the "
				 "writer's CPU time", rules[eevdf]);
	}
out:
	eevdf = 0;
	sr_demand_free(d);
	sr_topology_free(t1);
}

/*
 * EEVDF's base slice by release: two busy tasks on one CPU with a tick of
 * 0.1 ms (HZ 10000), so that a slice ends at the first tick at or past its
 * deadline: 0.70 ms on 6.12.117 (the stable backport of 2ae891b82695) and
 * 6.15, 0.75 ms (ended at the tick of 0.8 ms) on 6.12.10 and 6.6
 */
static void test_base_slice(void)
{
	static const struct {
		const char *release;
		uint64_t slice;
	} cases[] = {
		{ "6.12.117+deb12-amd64", 700000 }, { "6.15.2", 700000 },
		{ "6.12.10", 800000 }, { "6.6.30", 800000 },
	};
	struct sr_topology *t1 = sr_topology_new_flat(1, SR_ERA_MAINLINE);
	struct sr_demand *d = sr_demand_new(1);
	struct sr_run_metrics m;
	struct sr_sim_stats st;
	struct rec r;
	size_t i;

	sr_topology_build_domains(t1);
	ev_sw(d, 1000000000, 0, SR_PREV_RUNNABLE, 20);
	ev_sw(d, 1010000000, 20, SR_PREV_PREEMPTED, 21);
	ev_sw(d, 1020000000, 21, SR_PREV_DEAD, 20);
	ev_sw(d, 1030000000, 20, SR_PREV_DEAD, 0);
	sr_demand_finish(d);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sr_kgen g;
		struct sr_sim_opts o = {
			.topo = t1, .hz = 10000, .model = sr_model_find("mainline"), .seed = 1,
			.slice = on_slice, .data = &r, .eevdf = 2, .kgen = &g,
		};
		char *cause = NULL;

		sr_kgen_parse(cases[i].release, SR_KGEN_SRC_OPTION, &g);
		memset(&r, 0, sizeof(r));
		CHECK(sr_sim_run(d, &o, &m, &st, &cause) == 0, "%s: simulated", cases[i].release);
		free(cause);
		CHECK(r.n > 2, "%s: the two tasks take turns", cases[i].release);
		CHECK_EQ(r.s[0].end - r.s[0].start, cases[i].slice, "%s: the first slice",
			 cases[i].release);
	}
	sr_demand_free(d);
	sr_topology_free(t1);
}

/*
 * A newly idle balance takes the recorded time (the probes: 100 us): the
 * wakee that lands on the CPU meanwhile (a timer at +150 us; the other CPU
 * runs a bound kworker) runs when the balance ends at +200 us, and the
 * blocking task's CPU time is its 100 us without the balance
 */
static void test_newidle_window(const struct sr_topology *t)
{
	struct sr_demand *d = load(FIX "newidle-window.txt");
	struct sr_run_metrics m;
	struct sr_sim_stats st;
	struct rec r;

	if (!d)
		return;
	for (eevdf = 0; eevdf < 3; eevdf++) {
		if (run(d, t, 0, 1, &r, &m, &st))
			break;
		CHECK_EQ(cpu_time(&r, 400), 100000, "%s: the blocking task's CPU time",
			 rules[eevdf]);
		/* the drawn length is within the histogram's 1 % of 100 us */
		CHECK(first_start(&r, 403) >= d->t0 + 198000 && first_start(&r, 403) <= d->t0 + 202000,
		      "%s: the wakee runs when the newly idle balance ends (+%llu ns)", rules[eevdf],
		      (unsigned long long)(first_start(&r, 403) - d->t0));
		CHECK_EQ(st.newidle_arrivals, 1, "%s: it arrived during the balance", rules[eevdf]);
	}
	eevdf = 0;
	sr_demand_free(d);
}

/*
 * NI_RANDOM (sched_balance_newidle(), Debian 6.1.192 and 6.12.117): a CPU
 * that goes newly idle 100 times while the other CPU has two tasks it may
 * not pull (kworkers bound to it) balances on a 1024-sided draw at most
 * 1 + newidle_ratio (512 to start with): about half the time, where a
 * kernel without it balances every time (the sleeper's 100 blocks, and the
 * kworkers' last)
 */
static void test_ni_random(const struct sr_topology *t)
{
	static const struct {
		const char *release;
		int lo, hi;
	} cases[] = { { "6.12.117+deb12-amd64", 25, 75 }, { "6.5.0", 100, 102 } };
	struct sr_demand *d = load(FIX "newidle-draw.txt");
	struct sr_run_metrics m;
	struct sr_sim_stats st;
	struct rec r;
	size_t i;

	if (!d)
		return;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sr_kgen g;
		struct sr_sim_opts o = {
			.topo = t, .hz = 250, .model = sr_model_find("mainline"), .seed = 1,
			.slice = on_slice, .data = &r, .kgen = &g,
		};
		char *cause = NULL;
		uint64_t n;

		sr_kgen_parse(cases[i].release, SR_KGEN_SRC_OPTION, &g);
		memset(&r, 0, sizeof(r));
		CHECK(sr_sim_run(d, &o, &m, &st, &cause) == 0, "%s: simulated", cases[i].release);
		free(cause);
		n = st.decisions[SR_DEC_NEWIDLE] + st.decisions[SR_DEC_LB_NEWIDLE];
		CHECK(n >= (uint64_t)cases[i].lo && n <= (uint64_t)cases[i].hi,
		      "%s: %llu of the 100 newly idle balances run (%d to %d)", cases[i].release,
		      (unsigned long long)n, cases[i].lo, cases[i].hi);
	}
	sr_demand_free(d);
}

/*
 * A sleeper on CPU 1 whose wakeups come from interrupts served on CPU 0
 * (the softirq and hardirq inside "busy"): try_to_wake_up() runs there,
 * so each of those wakeups is evaluated with this_cpu 0, as the kernel's
 * select_task_rq() was; the third comes from busy's own task context.
 */
static void test_timer_cpu(const struct sr_topology *t)
{
	struct sr_demand *d = load(FIX "irq-waker.txt");
	struct sr_run_metrics m;
	struct sr_sim_stats st;
	struct rec r;
	int i, k = 0, this[3] = { -1, -1, -1 };

	if (!d || run(d, t, 0, 1, &r, &m, &st))
		goto out;
	for (i = 0; i < r.nwake && k < 3; i++)
		if (r.wake_pid[i] == 401)
			this[k++] = r.wake_this[i];
	CHECK_EQ(k, 3, "irq waker: the sleeper's three wakeups are decisions");
	CHECK_EQ(this[0], 0, "the softirq's wakeup runs on CPU 0, where it was served");
	CHECK_EQ(this[1], 0, "the hardirq's too");
	CHECK_EQ(this[2], 0, "and busy's own wakeup on busy's CPU");
out:
	sr_demand_free(d);
}

/*
 * Two hogs pinned to CPU 0 of four (1 s): CPU 0's tick kicks the nohz pass
 * (two tasks on its runqueue, idle CPUs), which finds nothing it may move:
 * every task of the busiest queue is pinned (LBF_ALL_PINNED), so
 * load_balance() doubles each idle CPU's balance_interval past
 * max_interval up to MAX_PINNED_INTERVAL (6.1, 6.12), clamped to
 * max_load_balance_interval (100 jiffies, 400 ms, at HZ 250 on 4 CPUs):
 * 4, 8, 16, ... 256, 400 ms, about 8 passes in the second, not one a tick.
 */
static void test_nohz_backoff(void)
{
	struct sr_topology *t4 = sr_topology_new_flat(4, SR_ERA_MAINLINE);
	struct sr_demand *d = load(FIX "pinned-pair.txt");
	struct sr_run_metrics m;
	struct sr_sim_stats st;
	struct rec r;
	uint64_t n;

	if (!d || !t4)
		goto out;
	sr_topology_build_domains(t4);
	if (run(d, t4, 0, 1, &r, &m, &st))
		goto out;
	n = st.decisions[SR_DEC_LB_NOHZ];
	CHECK_EQ(st.pulls, 0, "pinned pair: nothing is pulled");
	CHECK(n >= 6 && n <= 12, "the nohz pass backs off to the pinned interval: %llu passes "
	      "in 1 s at HZ 250", (unsigned long long)n);
out:
	sr_demand_free(d);
	sr_topology_free(t4);
}

/*
 * The same pinned pair on two nodes of two CPUs: rebalance_domains() (6.1)
 * / sched_balance_domains() (6.12) balances each domain level on its own
 * interval (get_sd_balance_interval(), sd->last_balance).  On the idle
 * CPUs of node 1 the nohz pass reaches MC (span 2: 2 ms, 4 ms after
 * nothing moved, one jiffy at HZ 250) on every pass, 250 times each, and
 * CPU 3's NUMA (span 4: 8 ms, two jiffies) on every other one; the levels
 * whose busiest queue is CPU 0's pinned pair (CPU 1's MC, CPU 2's NUMA:
 * LBF_ALL_PINNED) back off to the pinned interval, a few times each;
 * CPU 1's NUMA finds node 1 no busier, every other jiffy; CPU 0's own
 * balance (busy_factor 16) MC every 15 jiffies, NUMA every 31: MC about
 * 17 + 9 + 2 x 250, NUMA about half of that.  Balancing every level on
 * the lowest one's interval gives NUMA as many balances as MC.
 */
static void test_level_intervals(void)
{
	struct sr_topology *t = sr_topology_new_preset("2x2x1", SR_ERA_MAINLINE, NULL);
	struct sr_demand *d = load(FIX "pinned-pair.txt");
	struct sr_run_metrics m;
	struct sr_sim_stats st;
	struct rec r;
	uint64_t mc, numa;

	if (!d || !t)
		goto out;
	if (run(d, t, 0, 1, &r, &m, &st))
		goto out;
	mc = st.lb_level[0];
	numa = st.lb_level[1];
	CHECK_EQ(st.pulls, 0, "pinned pair on 2x2x1: nothing is pulled");
	CHECK(mc >= 450 && mc <= 600, "MC is balanced about 2 CPUs x 250 ticks + 26 times: %llu",
	      (unsigned long long)mc);
	CHECK(numa * 10 >= mc * 4 && numa * 10 <= mc * 6,
	      "NUMA about half as often as MC: %llu of %llu", (unsigned long long)numa,
	      (unsigned long long)mc);
	CHECK_EQ(st.lb_level[2], 0, "no third level");
out:
	sr_demand_free(d);
	sr_topology_free(t);
}

/*
 * On two nodes of two CPUs (an LLC each), a task pinned to CPU 2 is woken
 * from CPU 0 while a hog runs on CPU 2: ttwu_queue_wakelist() queues it on
 * CPU 2's wake list, and it is activated there (its sched_wakeup) after
 * the recorded 1 ms (xllc-wake.txt's sched_waking to sched_wakeup).
 */
static uint64_t wl_waking, wl_wakeup;

static int wl_event(const struct sr_event *ev, void *data)
{
	(void)data;
	if (ev->pid == 801 && ev->kind == SR_EV_WAKING && !wl_waking)
		wl_waking = ev->ts;
	if (ev->pid == 801 && ev->kind == SR_EV_WAKEUP && !wl_wakeup)
		wl_wakeup = ev->ts;
	return 0;
}

static void test_wakelist(void)
{
	struct sr_topology *t = sr_topology_new_preset("2x2x1", SR_ERA_MAINLINE, NULL);
	struct sr_demand *d = load(FIX "xllc-wake.txt");
	struct sr_sim_opts o = {
		.hz = 250, .model = sr_model_find("mainline"), .seed = 1, .event = wl_event,
	};
	struct sr_run_metrics m;
	char *cause = NULL;

	if (!d || !t)
		goto out;
	sr_topology_build_domains(t);
	o.topo = t;
	CHECK(sr_sim_run(d, &o, &m, NULL, &cause) == 0, "xllc wake: simulated (%s)",
	      cause ? cause : "ok");
	free(cause);
	CHECK(wl_waking && wl_wakeup >= wl_waking + 990000 && wl_wakeup <= wl_waking + 1010000,
	      "the pinned task is activated on CPU 2 1 ms after its waking (%lld ns)",
	      (long long)(wl_wakeup - wl_waking));
out:
	sr_demand_free(d);
	sr_topology_free(t);
}

static int ex_moves, ex_from = -1, ex_to = -1, ex_kind = -1;

static int ex_migration(const struct sr_migration *mg, void *data)
{
	(void)data;
	if (mg->pid == 201) {
		ex_moves++;
		ex_from = mg->orig_cpu;
		ex_to = mg->dest_cpu;
		ex_kind = mg->kind;
	}
	return 0;
}

/*
 * A fork, an exec, a run (2x2x1): the child forked on CPU 0 while every
 * CPU was busy execs when node 1 has gone idle; the model's exec
 * placement (sched_exec(), SD_BALANCE_EXEC) sends it to node 1's most
 * recently idle CPU 2, and the stopper moves it there at once: its 2 ms
 * after the exec run on CPU 2, as recorded, not on CPU 0.
 */
static void test_exec(void)
{
	struct sr_topology *t = sr_topology_new_preset("2x2x1", SR_ERA_MAINLINE, NULL);
	struct sr_demand *d = load(FIX "fork-exec.txt");
	struct sr_sim_opts o = {
		.hz = 250, .model = sr_model_find("mainline"), .seed = 1, .slice = on_slice,
		.migration = ex_migration,
	};
	struct sr_run_metrics m;
	struct sr_sim_stats st;
	struct rec r;
	char *cause = NULL;
	uint64_t on2 = 0;
	int i;

	if (!d || !t)
		goto out;
	sr_topology_build_domains(t);
	o.topo = t;
	o.data = &r;
	memset(&r, 0, sizeof(r));
	i = sr_sim_run(d, &o, &m, &st, &cause);
	CHECK(i == 0, "fork-exec: simulated (%s)", cause ? cause : "ok");
	free(cause);
	CHECK_EQ(st.execs, 1, "one exec placement");
	CHECK_EQ(st.exec_moves, 1, "... which sends the child elsewhere");
	CHECK_EQ(ex_moves, 1, "the child moves once");
	CHECK(ex_from == 0 && ex_to == 2 && ex_kind == SR_MIG_ACTIVE,
	      "from CPU 0 to CPU 2, by the stopper (%d -> %d, %d)", ex_from, ex_to, ex_kind);
	for (i = 0; i < r.n; i++)
		if (r.s[i].pid == 201 && r.s[i].cpu == 2)
			on2 += r.s[i].end - r.s[i].start;
	CHECK(on2 >= 2000000, "its run after the exec is on CPU 2 (%llu ns there)",
	      (unsigned long long)on2);
	CHECK_EQ(cpu_time(&r, 201), demand_run(d, sr_demand_find(d, 201)),
		 "the child got its CPU time");
out:
	sr_demand_free(d);
	sr_topology_free(t);
}

/*
 * A wakeup edge the run never makes (the waker's WAKE step cut, as when
 * the trace started after the wait began and its waker's wakeup is not
 * the one recorded): pong never wakes, ping then waits for pong's reply;
 * the run says what it left un-run, the two tasks' CPU time from their
 * waits on, instead of ending as if complete.
 */
static void test_unrun(const struct sr_topology *t)
{
	struct sr_demand *d = load(FIX "pipe-pair.txt");
	struct sr_run_metrics m;
	struct sr_sim_stats st;
	struct rec r;
	uint64_t want = 0;
	int ping, pong, slept = 0;
	unsigned i;

	if (!d)
		return;
	ping = sr_demand_find(d, 100);
	pong = sr_demand_find(d, 101);
	CHECK(ping >= 0 && pong >= 0, "ping and pong");
	if (ping < 0 || pong < 0)
		goto out;
	for (i = 0; i < d->task[ping].nsteps; i++) {
		struct sr_dm_step *s = &d->task[ping].step[i];

		if (s->kind == SR_DM_WAKE && s->peer == pong && s->peer_step >= 0 && !slept) {
			s->peer_step = -1;	/* pong's first wakeup, cut */
		} else if (s->kind == SR_DM_SLEEP) {
			slept = 1;
		} else if (s->kind == SR_DM_RUN && slept) {
			want += s->ns;
		}
	}
	want += demand_run(d, pong);
	if (run(d, t, 0, 1, &r, &m, &st))
		goto out;
	CHECK_EQ(st.stuck, 2, "cut edge: both left waiting");
	CHECK_EQ(st.unrun_tasks, 2, "cut edge: two tasks with CPU time left");
	CHECK_EQ(st.unforked, 0, "cut edge: no fork left unmade");
	CHECK_EQ(st.unrun_ns, want, "cut edge: pong's time and ping's from its first wait");
	CHECK_EQ(st.demand_ns, demand_run(d, ping) + demand_run(d, pong),
		 "cut edge: the demand's CPU time");
	CHECK_EQ(cpu_time(&r, 101), 0, "cut edge: pong never runs");
out:
	sr_demand_free(d);
}

/* cut task @pid's @nth (from 0) WAKE step of task @wakee: the wakeup is made no more */
static int cut_wake(struct sr_demand *d, int pid, int wakee, int nth)
{
	int t = sr_demand_find(d, pid), w = sr_demand_find(d, wakee);
	unsigned i;

	CHECK(t >= 0 && w >= 0, "tasks %d and %d", pid, wakee);
	for (i = 0; t >= 0 && w >= 0 && i < d->task[t].nsteps; i++) {
		struct sr_dm_step *s = &d->task[t].step[i];

		if (s->kind == SR_DM_WAKE && s->peer == w && s->peer_step >= 0 && !nth--) {
			s->peer_step = -1;
			return 0;
		}
	}
	CHECK(0, "task %d has that wakeup of task %d", pid, wakee);
	return -1;
}

/*
 * A pipeline cat -> filter -> sink (tests/fixtures/demand/pipeline.txt), one
 * stage a CPU, with one wakeup the simulated order does not make (its WAKE
 * step cut).  filter feeds sink (it ended two of sink's sleeps, sink one of
 * its own: room), cat feeds filter.  pipe_write() wakes the reader before
 * it waits for room, so a writer waiting for its reader left it data:
 *  - filter's first write to sink cut: filter then blocks for room in
 *    sink's pipe while sink waits for data, and sink's wait ends at
 *    filter's block (+100 us, and the recorded idle wakeup's 5 us); the
 *    whole demand runs.  Before, sink was left waiting with filter;
 *  - sink's wakeup of filter (room) cut: filter waits for room, so sink
 *    does not block for data and runs its demand to its exit; filter is
 *    left waiting for the room sink never signals;
 *  - cat's first write cut: filter waits for data and sink, which does not
 *    feed filter (the next stage wakes it only for room), blocks for
 *    filter's: filter's wait goes on to cat's next write (200 us into cat),
 *    and both are left waiting at the end (filter's last wait was for that
 *    write).
 */
static void test_fed_pipeline(void)
{
	struct sr_topology *t3 = sr_topology_new_flat(3, SR_ERA_MAINLINE);
	struct sr_demand *d = NULL;
	struct sr_run_metrics m;
	struct sr_sim_stats st;
	struct rec r;
	uint64_t at;

	if (!t3)
		goto out;
	sr_topology_build_domains(t3);
	d = load(FIX "pipeline.txt");
	if (!d || cut_wake(d, 501, 502, 0) || run(d, t3, 0, 1, &r, &m, &st))
		goto out;
	at = nth_start(&r, 502, 1);
	at = at ? at - d->t0 : 0;
	CHECK(at >= 100000 && at <= 110000,
	      "data cut: sink's wait ends when filter blocks for room (+%llu ns)",
	      (unsigned long long)at);
	CHECK_EQ(st.stuck, 0, "data cut: nobody left waiting");
	CHECK_EQ(st.unrun_ns, 0, "data cut: all the demand ran");
	sr_demand_free(d);
	d = load(FIX "pipeline.txt");
	if (!d || cut_wake(d, 502, 501, 0) || run(d, t3, 0, 1, &r, &m, &st))
		goto out;
	CHECK_EQ(cpu_time(&r, 502), 142000, "room cut: sink runs its demand to its exit");
	CHECK_EQ(nth_start(&r, 502, 2), 0, "room cut: sink does not block for data again");
	CHECK_EQ(st.stuck, 1, "room cut: filter alone left waiting");
	sr_demand_free(d);
	d = load(FIX "pipeline.txt");
	if (!d || cut_wake(d, 500, 501, 0) || run(d, t3, 0, 1, &r, &m, &st))
		goto out;
	CHECK(nth_start(&r, 501, 1) >= d->t0 + 200000,
	      "cat's write cut: sink's wait does not end filter's, cat's next write does (+%llu ns)",
	      (unsigned long long)(nth_start(&r, 501, 1) - d->t0));
	CHECK_EQ(st.stuck, 2, "cat's write cut: filter and sink left waiting");
	CHECK_EQ(cpu_time(&r, 500), 252000, "cat's write cut: cat runs its demand");
out:
	sr_demand_free(d);
	sr_topology_free(t3);
}

/*
 * A ping-pong pair that each ended most of the other's sleeps is left
 * alone even where one woke the other once more: pong's last wait (to the
 * trace's end) taken as one more wakeup by ping, ping then ended 3 of
 * pong's sleeps and pong 2 of ping's.  Ping's first request cut, both wait
 * for each other, and stay so (which holds the message cannot be told),
 * as with the even pair of test_unrun(); a count ahead by one does not
 * make ping a writer whose block ends pong's wait.
 */
static void test_fed_pingpong(const struct sr_topology *t)
{
	struct sr_demand *d = load(FIX "pipe-pair.txt");
	struct sr_run_metrics m;
	struct sr_sim_stats st;
	struct rec r;
	int ping, pong;
	struct sr_dm_step *last;

	if (!d)
		return;
	ping = sr_demand_find(d, 100);
	pong = sr_demand_find(d, 101);
	if (ping < 0 || pong < 0 || cut_wake(d, 100, 101, 0))
		goto out;
	last = &d->task[pong].step[d->task[pong].nsteps - 1];
	CHECK(last->kind == SR_DM_SLEEP && last->end == SR_DM_NEVER, "pong's last wait is to the end");
	last->end = SR_DM_BY_TASK;
	last->peer = ping;
	last->peer_step = -1;
	if (run(d, t, 0, 1, &r, &m, &st))
		goto out;
	CHECK_EQ(st.stuck, 2, "near-even pair: both left waiting");
	CHECK_EQ(cpu_time(&r, 101), 0, "near-even pair: pong never runs");
out:
	sr_demand_free(d);
}

int main(void)
{
	struct sr_topology *t = sr_topology_new_flat(2, SR_ERA_MAINLINE);

	sr_topology_build_domains(t);
	for (eevdf = 0; eevdf < 3; eevdf++) {
		printf("# the fair class's rules: %s\n", rules[eevdf]);
		test_pipe_pair(t);
		test_fork_wait(t);
		test_timer(t);
	}
	test_eevdf_share(t);
	test_delayed();
	test_wake_place_now();
	test_affinity_spread();
	test_two_wakers();
	test_producer();
	test_base_slice();
	test_newidle_window(t);
	test_ni_random(t);
	test_timer_cpu(t);
	test_nohz_backoff();
	test_level_intervals();
	test_wakelist();
	test_exec();
	test_unrun(t);
	test_fed_pipeline();
	test_fed_pingpong(t);
	sr_topology_free(t);
	return unit_done();
}
