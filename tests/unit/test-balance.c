// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the load-balance side of the engine (replay/state.c) and
 * the surrogate (replay/balance.c) on small constructed event streams:
 * cfs_tasks in MRU order, a pull settled newidle or periodic at the
 * puller's next switch, a newly-idle switch without a pull and when it is
 * not one, a nohz pass seen once, the per-CPU name rule, the era defaults
 * of the base models and the balance pairs' sides.  Topology: preset
 * 1x4x1 (one LLC, one MC level).
 */
#include <stdlib.h>
#include <string.h>

#include "schedreplay/balance.h"
#include "schedreplay/model.h"
#include "schedreplay/fidelity.h"
#include "schedreplay/patch.h"
#include "unit.h"

static struct sr_decision last;
static struct sr_eval last_ev[SR_MAX_MODELS];
static int nbalance;

static int cb(const struct sr_decision *d, const struct sr_eval *e, int n, void *data)
{
	(void)data;
	if (!sr_decision_is_balance(d->kind))
		return 0;
	last = *d;
	memset(last_ev, 0, sizeof(last_ev));
	memcpy(last_ev, e, (size_t)n * sizeof(*e));
	nbalance++;
	return 0;
}

static uint64_t T = 1000000000ULL;

static void sw(struct sr_replay *r, int cpu, int prev, const char *pcomm, int state, int next,
	       const char *ncomm, uint64_t dt)
{
	struct sr_event ev;

	sr_event_reset(&ev);
	ev.kind = SR_EV_SWITCH;
	ev.ts = T += dt;
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

static void mig(struct sr_replay *r, int cpu, int pid, const char *comm, int orig, int dest,
		uint64_t dt)
{
	struct sr_event ev;

	sr_event_reset(&ev);
	ev.kind = SR_EV_MIGRATE;
	ev.ts = T += dt;
	ev.cpu = cpu;
	ev.pid = pid;
	ev.prio = 120;
	strncpy(ev.comm, comm, SR_COMM_LEN - 1);
	ev.target_cpu = orig;
	ev.dest_cpu = dest;
	sr_replay_feed(r, &ev);
}

static int has(const char *reason, const char *token)
{
	return strstr(reason, token) != NULL;
}

/* a view of @t on hand-made runqueues and cfs_tasks lists, at 10 s, HZ 250 */
static void hand_view(struct sr_view *v, const struct sr_topology *t, struct sr_rq *rq,
		      const struct sr_task **head, const struct sr_task **tail)
{
	memset(v, 0, sizeof(*v));
	v->topo = t;
	v->rq = rq;
	v->cfs_head = head;
	v->cfs_tail = tail;
	v->now = 10000000000ULL;
	v->hz = 250;
}

/*
 * migrate_load by load (calculate_imbalance() and detach_tasks(), 6.1 and
 * 6.12) on a hand-made view of preset 1x2x1: CPU 0 runs one task of load
 * @local_load, CPU 1 runs one and queues two of load @task_load each.  A
 * busy periodic balance on CPU 0 with @nr_failed as sd->nr_balance_failed
 * (-1: none given, as replay evaluates).  Return: the pulled pid, 0 none.
 */
static int load_pull(const struct sr_topology *two, long local_load, long task_load,
		     int nr_failed, struct sr_eval *e)
{
	static struct sr_task task[4];
	static const struct sr_task *head[2], *tail[2];
	struct sr_rq rq[2];
	struct sr_lb_input in;
	struct sr_view v;
	unsigned char failed[2 * SR_MAX_DOMAIN_LEVELS];
	int i;

	memset(task, 0, sizeof(task));
	memset(rq, 0, sizeof(rq));
	for (i = 0; i < 4; i++) {
		task[i].pid = 10 + i;
		task[i].prio = 120;
		task[i].weight = 1024;
		task[i].bound_cpu = -1;
		task[i].kthread = 0;
		task[i].pelt.load_avg = (unsigned long)(i ? task_load : local_load);
	}
	/* cpu 1: 11 runs (head), 12 then 13 queued (13 the least recently run) */
	task[1].lb_next = &task[2];
	task[2].lb_prev = &task[1];
	task[2].lb_next = &task[3];
	task[3].lb_prev = &task[2];
	head[0] = tail[0] = &task[0];
	head[1] = &task[1];
	tail[1] = &task[3];
	rq[0].curr = 10;
	rq[0].nr_running = rq[0].cfs_nr = 1;
	rq[0].curr_cfs = rq[0].known = 1;
	rq[0].cfs.load_avg = (unsigned long)local_load;
	rq[1].curr = 11;
	rq[1].nr_running = rq[1].cfs_nr = 3;
	rq[1].curr_cfs = rq[1].known = 1;
	rq[1].cfs.load_avg = (unsigned long)(3 * task_load);
	/* both CPUs busy for long: CPU 0 fully busy, CPU 1 overloaded (group_classify()) */
	for (i = 0; i < 2; i++) {
		rq[i].cfs.util_avg = SR_SCHED_CAPACITY;
		rq[i].cfs.runnable_avg = (unsigned long)rq[i].nr_running * SR_SCHED_CAPACITY;
	}
	hand_view(&v, two, rq, head, tail);
	memset(&in, 0, sizeof(in));
	in.kind = SR_DEC_LB_PERIODIC;
	in.cpu = 0;
	in.idle = SR_LB_NOT_IDLE;
	memset(failed, nr_failed > 0 ? nr_failed : 0, sizeof(failed));
	in.nr_failed = nr_failed >= 0 ? failed : NULL;
	if (sr_model_balance(sr_model_find("mainline"), &v, &in, NULL, e))
		return -1;
	return e->cpu == 0 && e->src_cpu == 1 ? e->task : 0;
}

static void test_migrate_load(void)
{
	struct sr_topology *two = sr_topology_new_preset("1x2x1", SR_ERA_MAINLINE, NULL);
	struct sr_eval e;

	CHECK(two && two->ncpus == 2 && two->cpu[0].ndomains == 1, "preset 1x2x1: one MC level");
	if (!two)
		return;
	/* local 900 against the busiest's 3 x 300 = 900 (average 900): balanced */
	CHECK_EQ(load_pull(two, 900, 300, 0, &e), 0,
		 "local as loaded as the average: no pull (%s)", e.reason);
	CHECK(e.lb_reset & 1, "a balanced domain resets nr_balance_failed");
	CHECK_EQ(load_pull(two, 900, 300, -1, &e), 0,
		 "replay (no nr_balance_failed), local as loaded: balanced as well (%s)", e.reason);
	CHECK_EQ(load_pull(two, 600, 500, -1, &e), 13,
		 "replay (no nr_balance_failed), local lighter: one task a pull, the tail, "
		 "whatever its load");
	/* local 300 against 3 x 500: imbalance min(1500 - 900, 900 - 300) = 600 */
	CHECK_EQ(load_pull(two, 300, 500, 0, &e), 13, "a task of 500 fits an imbalance of 600");
	CHECK(e.lb_reset & 1, "a pull resets nr_balance_failed");
	/* local 600 against 3 x 500: imbalance min(1500 - 1050, 1050 - 600) = 450 */
	CHECK_EQ(load_pull(two, 600, 500, 0, &e), 0,
		 "a task of 500 does not fit an imbalance of 450 (%s)", e.reason);
	CHECK((e.lb_failed & 1) && !(e.lb_reset & 1), "nothing moved: nr_balance_failed++");
	CHECK_EQ(load_pull(two, 600, 500, 1, &e), 13,
		 "one failed balance before: 500 >> 1 fits (shr_bound())");
	sr_topology_free(two);
}

/*
 * group_classify() and migrate_util (6.1, 6.12) on a hand-made view of
 * preset 2x2x1 (node 0: CPUs 0-1, node 1: CPUs 2-3): CPU 0 newly idle (its
 * blocked util 100), CPU 1 runs two tasks (util 1024), CPU 2 runs one and
 * queues two (util 1024, runnable 3072), CPU 3 runs one.  Node 0 runs as
 * many tasks as CPUs, with spare util; node 1 is overloaded.  A newly idle
 * balance on CPU 0 at NUMA only (as the balance probes can show), CPU 2's
 * queued tasks of util @util.  Return: the pulled pid, 0 none.
 */
static int util_pull(const struct sr_topology *t, long util, struct sr_eval *e)
{
	static struct sr_task task[7];
	static const struct sr_task *head[4], *tail[4];
	static const int cpu_of[7] = { 1, 1, 2, 2, 2, 3, -1 };
	struct sr_rq rq[4];
	struct sr_lb_input in;
	struct sr_view v;
	int i;

	memset(task, 0, sizeof(task));
	memset(rq, 0, sizeof(rq));
	memset((void *)head, 0, sizeof(head));
	memset((void *)tail, 0, sizeof(tail));
	for (i = 0; i < 6; i++) {
		int c = cpu_of[i];

		task[i].pid = 20 + i;
		task[i].prio = 120;
		task[i].weight = 1024;
		task[i].bound_cpu = -1;
		task[i].kthread = 0;
		task[i].cpu = c;
		task[i].lb_cpu = c;
		task[i].pelt.load_avg = 1024;
		task[i].pelt.util_avg = (unsigned long)(c == 2 && i > 2 ? util : 500);
		/* cfs_tasks most recently run first: the later task of a CPU is its tail */
		if (!head[c]) {
			head[c] = &task[i];
		} else {
			task[i].lb_prev = (struct sr_task *)tail[c];
			((struct sr_task *)tail[c])->lb_next = &task[i];
		}
		tail[c] = &task[i];
		rq[c].nr_running++;
		rq[c].cfs_nr++;
		if (!rq[c].curr) {
			rq[c].curr = task[i].pid;
			rq[c].curr_cfs = rq[c].known = 1;
			task[i].state = SR_TASK_RUNNING;
		} else {
			task[i].state = SR_TASK_QUEUED;
		}
		rq[c].cfs.load_avg += 1024;
		rq[c].cfs.runnable_avg += SR_SCHED_CAPACITY;
		rq[c].cfs.util_avg = SR_SCHED_CAPACITY;
	}
	rq[0].cfs.util_avg = 100;
	rq[0].cfs.load_avg = 100;
	rq[0].known = 1;
	hand_view(&v, t, rq, head, tail);
	memset(&in, 0, sizeof(in));
	in.kind = SR_DEC_NEWIDLE;
	in.cpu = 0;
	in.idle = SR_LB_NEWLY_IDLE;
	in.levels = 1u << 1;
	if (sr_model_balance(sr_model_find("mainline"), &v, &in, NULL, e))
		return -1;
	return e->cpu == 0 ? e->task : 0;
}

static void test_migrate_util(void)
{
	struct sr_topology *t = sr_topology_new_preset("2x2x1", SR_ERA_MAINLINE, NULL);
	struct sr_eval e;

	CHECK(t && t->ncpus == 4 && t->cpu[0].ndomains == 2, "preset 2x2x1: MC and NUMA");
	if (!t)
		return;
	/* spare: capacity 2048 less node 0's util 100 + 1024 = 924 */
	CHECK_EQ(util_pull(t, 500, &e), 24, "migrate_util: a task of util 500 fits the spare 924");
	CHECK(has(e.reason, "NUMA: busiest cpu 2 (nr 3, overloaded) > pull 24 from 2 to 0"),
	      "node 0 has spare capacity by util, node 1 is overloaded: %s", e.reason);
	CHECK_EQ(util_pull(t, 1000, &e), 0,
		 "migrate_util: tasks of util 1000 do not fit the spare 924 (%s)", e.reason);
	CHECK(has(e.reason, "NUMA: busiest cpu 2 (nr 3, overloaded) > none movable"),
	      "... none movable, where counting tasks (node 0 fully busy) pulls one: %s", e.reason);
	sr_topology_free(t);
}

/*
 * The periodic balance's clock (struct sr_lb_clock) on preset 2x2x1 (MC of
 * 2 CPUs, NUMA of 4) at HZ 250: get_sd_balance_interval() and
 * load_balance()'s balance_interval, as in 6.1 and 6.12
 */
static void test_lb_clock(void)
{
	struct sr_topology *t = sr_topology_new_preset("2x2x1", SR_ERA_MAINLINE, NULL);
	const struct sr_cpu_topo *ct;
	struct sr_lb_clock k;
	uint64_t j = 4000000, t0 = 1000 * j;
	int l;

	CHECK(t && t->cpu[0].ndomains == 2, "preset 2x2x1 for the clock");
	if (!t)
		return;
	ct = &t->cpu[0];
	sr_lb_clock_init(&k, t0);
	CHECK_EQ((long long)sr_lb_clock_due(&k, ct, t0, 0, 250, 4), 3LL,
		 "a clock that never balanced has every level due");
	/* MC idle: 2 ms, one jiffy; busy: 2 ms * 16 = 8 jiffies, less one */
	CHECK_EQ((long long)sr_lb_clock_interval(&k, ct, 0, 0, 250, 4), (long long)j,
		 "MC idle interval: one jiffy");
	CHECK_EQ((long long)sr_lb_clock_interval(&k, ct, 0, 1, 250, 4), (long long)(7 * j),
		 "MC busy interval: 32 ms is 8 jiffies, one less when busy");
	CHECK_EQ((long long)sr_lb_clock_interval(&k, ct, 1, 1, 250, 4), (long long)(15 * j),
		 "NUMA busy interval: 64 ms, 16 jiffies less one");
	/* HZ 250 * 4 CPUs / 10: max_load_balance_interval 100 jiffies */
	k.interval_ms[1] = 512;
	CHECK_EQ((long long)sr_lb_clock_interval(&k, ct, 1, 1, 250, 4), (long long)(100 * j),
		 "clamped to max_load_balance_interval");
	sr_lb_clock_init(&k, t0);
	/* balanced: doubles up to twice the span; the soonest level is next */
	sr_lb_clock_done(&k, ct, 3, ~0u, 0, t0, 250, 4, 0, 0, 0);
	CHECK(k.interval_ms[0] == 4 && k.interval_ms[1] == 8 && k.next_balance == t0 + j,
	      "a balanced pass doubles each interval (MC %u, NUMA %u), next in one jiffy",
	      k.interval_ms[0], k.interval_ms[1]);
	sr_lb_clock_done(&k, ct, 3, ~0u, 0, t0, 250, 4, 0, 0, 0);
	CHECK(k.interval_ms[0] == 4 && k.interval_ms[1] == 8, "... up to max_interval only");
	/* pinned: up to MAX_PINNED_INTERVAL; an imbalance found: back to the span */
	for (l = 0; l < 10; l++)
		sr_lb_clock_done(&k, ct, 1, ~0u, 0, t0, 250, 4, 0, 0, 1);
	CHECK_EQ((long long)k.interval_ms[0], 512LL, "only pinned tasks: doubled up to 512 ms");
	sr_lb_clock_done(&k, ct, 1, ~0u, 0, t0, 250, 4, 0, 1, 0);
	CHECK_EQ((long long)k.interval_ms[0], 2LL, "an imbalance found resets it to the span");
	/*
	 * a level past the walk's stop is not in rq->next_balance: a busy MC
	 * balanced (4 ms * 16, 15 jiffies), NUMA never balanced (due now)
	 */
	sr_lb_clock_init(&k, t0);
	sr_lb_clock_done(&k, ct, 1, 1, 1, t0, 250, 4, 0, 0, 0);
	CHECK(k.last_balance[1] == UINT64_MAX && k.next_balance == t0 + 15 * j,
	      "NUMA past the stop: not balanced, and not what next_balance waits for");
	sr_lb_clock_init(&k, t0);
	sr_lb_clock_done(&k, ct, 1, ~0u, 1, t0, 250, 4, 0, 0, 0);
	CHECK(k.next_balance == t0, "... where it is walked, its being due is the next balance");
	sr_topology_free(t);
}

/* CPU 0 runs a, with b and c queued (c least recently run) */
static void three_on_cpu0(struct sr_replay *r)
{
	sw(r, 0, 0, "swapper/0", SR_PREV_RUNNABLE, 30, "c", 1000);
	sw(r, 0, 30, "c", SR_PREV_PREEMPTED, 20, "b", 1000);
	sw(r, 0, 20, "b", SR_PREV_PREEMPTED, 10, "a", 1000);
}

int main(void)
{
	struct sr_topology *t = sr_topology_new_preset("1x4x1", SR_ERA_MAINLINE, NULL);
	const struct sr_model *mainline = sr_model_find("mainline");
	const struct sr_model *v415 = sr_model_find("v4.15");
	const struct sr_model *models[2] = { mainline, v415 };
	const struct sr_patch *p;
	struct sr_model *orig, *patched;
	struct sr_replay *r;
	struct sr_view v;

	CHECK(t && t->ncpus == 4, "preset 1x4x1 has 4 cpus");
	test_migrate_load();
	test_migrate_util();
	test_lb_clock();

	/* names and era defaults */
	CHECK(!strcmp(sr_decision_kind_name(SR_DEC_NEWIDLE), "newidle") &&
	      !strcmp(sr_decision_kind_name(SR_DEC_LB_NOHZ), "balance_nohz"),
	      "decision kind names");
	CHECK(sr_lb_per_cpu_name("ksoftirqd/3") && sr_lb_per_cpu_name("kworker/2:1H") &&
	      !sr_lb_per_cpu_name("kworker/u8:2") && !sr_lb_per_cpu_name("kworker/R-mm_pe") &&
	      !sr_lb_per_cpu_name("irq/45-foo"), "per-CPU names: smpboot and bound kworkers only");
	CHECK(mainline->pol.should_we_balance && v415->pol.should_we_balance &&
	      mainline->pol.should_we_balance != v415->pol.should_we_balance,
	      "mainline and v4.15 have different should_we_balance (003 merged in 5.19)");
	CHECK(mainline->pol.nohz_idle_balance != v415->pol.nohz_idle_balance,
	      "mainline's nohz pass wraps from ilb + 1, v4.x's starts at CPU 0");
	CHECK(mainline->sd_era == SR_ERA_MAINLINE && v415->sd_era == SR_ERA_V4,
	      "each base model names its sched-domain era");
	p = sr_patch_find("newidle-bail");
	CHECK(p && p->scope == SR_SCOPE_BALANCE, "newidle-bail is a balance pair");
	orig = sr_patch_side(p, mainline, 0);
	patched = sr_patch_side(p, mainline, 1);
	CHECK(orig->pol.should_we_balance != patched->pol.should_we_balance &&
	      orig->pol.load_balance == mainline->pol.load_balance &&
	      orig->base == mainline && sr_base(orig) == &mainline->pol,
	      "a side replaces only should_we_balance, the rest is the base's");
	free(orig);
	free(patched);
	CHECK(sr_patch_touches(sr_patch_find("nohz-first"), SR_DEC_LB_NOHZ) &&
	      !sr_patch_touches(sr_patch_find("nohz-first"), SR_DEC_WAKEUP) &&
	      !sr_patch_touches(sr_patch_find("wake-affine-equal"), SR_DEC_NEWIDLE),
	      "scopes: balance pairs touch balance kinds only");

	/* 1. cfs_tasks: most recently run first */
	r = sr_replay_new(t, 250, models, 2);
	sr_replay_set_callback(r, cb, NULL);
	three_on_cpu0(r);
	sr_replay_view(r, &v);
	CHECK(v.cfs_head[0] && v.cfs_head[0]->pid == 10 && v.cfs_tail[0] &&
	      v.cfs_tail[0]->pid == 30 && v.cfs_head[0]->lb_next->pid == 20,
	      "cfs_tasks of cpu 0: a, b, c");
	CHECK_EQ(nbalance, 0, "preemptions are no balance decisions");

	/* 2. a newidle pull by cpu 1: c (the tail, not cache hot) from cpu 0 */
	sw(r, 1, 0, "swapper/1", SR_PREV_RUNNABLE, 40, "d", 10);
	mig(r, 1, 30, "c", 0, 1, 2000000);
	CHECK_EQ(nbalance, 0, "the pull is settled at the puller's switch");
	sw(r, 1, 40, "d", SR_PREV_BLOCKED, 30, "c", 5000);
	CHECK_EQ(nbalance, 1, "one balance decision");
	CHECK_EQ(last.kind, SR_DEC_LB_NEWIDLE, "switch from a blocked task to the pulled one: newidle");
	CHECK(last.this_cpu == 1 && last.prev_cpu == 0 && last.actual_cpu == 1 && last.pid == 30,
	      "kernel: c from 0 to 1");
	CHECK(last_ev[0].cpu == 1 && last_ev[0].src_cpu == 0 && last_ev[0].task == 30,
	      "mainline pulls c from 0 to 1: %s", last_ev[0].reason);
	CHECK(has(last_ev[0].reason, "newidle > MC: busiest cpu 0 (nr 3, has spare)"),
	      "reason: %s", last_ev[0].reason);
	sr_replay_view(r, &v);
	CHECK(v.cfs_head[1] && v.cfs_head[1]->pid == 30 && v.cfs_tail[0]->pid == 20,
	      "c moved to cpu 1's list, b is cpu 0's tail");

	/* 3. a pull by an idle cpu is periodic (idle balance) */
	mig(r, 2, 20, "b", 0, 2, 2000000);
	sw(r, 2, 0, "swapper/2", SR_PREV_RUNNABLE, 20, "b", 5000);
	CHECK_EQ(last.kind, SR_DEC_LB_PERIODIC, "a pull by an idle cpu: periodic");
	CHECK(has(last_ev[0].reason, "periodic, idle"), "reason: %s", last_ev[0].reason);

	/* 4. a blocked task that leaves its cpu idle: newidle without a pull */
	sw(r, 2, 20, "b", SR_PREV_BLOCKED, 0, "swapper/2", 1000);
	CHECK_EQ(last.kind, SR_DEC_NEWIDLE, "newly idle, nothing pulled");
	CHECK(last.actual_cpu == -1 && last.pid == 20, "kernel: no pull; the blocking task b");
	CHECK(last_ev[0].cpu == -1 && has(last_ev[0].reason, "no overload"),
	      "nothing to pull anywhere: %s", last_ev[0].reason);
	/* ... but not when something else is queued there */
	nbalance = 0;
	sw(r, 3, 0, "swapper/3", SR_PREV_RUNNABLE, 50, "e", 1000);
	sw(r, 3, 50, "e", SR_PREV_PREEMPTED, 60, "f", 1000);
	sw(r, 3, 60, "f", SR_PREV_BLOCKED, 50, "e", 1000);
	CHECK_EQ(nbalance, 0, "a blocked task with another one queued: no newidle");

	/* 5. a nohz pass: the first migration emitted on an idle cpu for another */
	sw(r, 1, 30, "c", SR_PREV_PREEMPTED, 40, "d", 1000);
	sw(r, 1, 40, "d", SR_PREV_PREEMPTED, 70, "g", 1000);
	nbalance = 0;
	mig(r, 2, 40, "d", 1, 3, 10000000);
	mig(r, 2, 30, "c", 1, 0, 1000);
	CHECK_EQ(nbalance, 1, "one pass, one decision");
	CHECK(last.kind == SR_DEC_LB_NOHZ && last.this_cpu == 2 && last.actual_cpu == 3,
	      "nohz pass on cpu 2, first pull to cpu 3");
	CHECK(has(last_ev[0].reason, "nohz ilb 2"), "reason: %s", last_ev[0].reason);
	CHECK_EQ(sr_replay_borrow_stats(r)->decisions[SR_DEC_LB_NOHZ], 1, "stats count it");
	sr_replay_free(r);
	sr_topology_free(t);
	/* which kernels run which side, and the check against the recording kernel */
	{
		char note[512];

		CHECK(sr_kernel_version_cmp("6.12.117+deb12-amd64", "6.0") > 0 &&
		      sr_kernel_version_cmp("4.17.0", "4.17") == 0 &&
		      sr_kernel_version_cmp("4.9.0-13-amd64", "4.17") < 0 &&
		      sr_kernel_version_cmp("", "4.17") == 0, "kernel releases compare by X.Y");
		p = sr_patch_find("newidle-bail");
		CHECK(sr_patch_kernel_side(p, "6.12.117+deb12-amd64") == 1 &&
		      sr_patch_kernel_side(p, "5.10.0") == 0 && sr_patch_kernel_side(p, "") == -1,
		      "newidle-bail: the patched side since 6.0");
		CHECK(sr_patch_kernel_side(sr_patch_find("exit-sync-mel"), "6.1.0") == -1 &&
		      sr_patch_kernel_side(sr_patch_find("exit-sync-mel"), "4.15.0") == 0 &&
		      sr_patch_kernel_side(sr_patch_find("kthread-per-cpu"), "6.12") == 0 &&
		      sr_patch_kernel_side(sr_patch_find("nohz-first"), "4.1.5") == 1,
		      "exit-sync-mel runs nowhere after 4.17, kthread-per-cpu's original everywhere");
		CHECK(sr_patch_check(p, "6.12.117+deb12-amd64", 11, 4, 0, note, sizeof(note)) &&
		      strstr(note, "model error likely") && strstr(note, "since 6.0"),
		      "the kernel's side matching less often is a likely model error: %s", note);
		CHECK(!sr_patch_check(p, "6.12.117", 11, 0, 4, note, sizeof(note)) &&
		      !sr_patch_check(p, "5.15.0", 11, 4, 0, note, sizeof(note)) &&
		      !sr_patch_check(p, "", 11, 4, 0, note, sizeof(note)) &&
		      !sr_patch_check(p, "6.12", 0, 0, 0, note, sizeof(note)),
		      "no note when the kernel's side matches more, or the release is unknown");
		CHECK(sr_fidelity_check("wakeup", 100, 50, 60, note, sizeof(note)) &&
		      strstr(note, "prev_cpu") && !sr_fidelity_check("wakeup", 100, 61, 60, note,
		      sizeof(note)) && !sr_fidelity_check("wakeup_kept", 100, 50, 100, note,
		      sizeof(note)) && !sr_fidelity_check("newidle", 100, 50, 100, note,
		      sizeof(note)), "a model no better than the baseline, on the total kinds only");
	}
	return unit_done();
}
