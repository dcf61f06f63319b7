// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the slices (src/slices.c) on small constructed event
 * streams: a running slice with the wait before it, a wakeup counted and
 * one of a running task not, a preemption, the wakeup's target state and
 * decision, a migration while runnable, idle time while another CPU had a
 * waiter (any node, the same node), a lost switch out, the states open at
 * the end, the state letters of each prev_state encoding, and the
 * estimates at a decision.  Topology: preset 2x2x1 (CPUs 0-1 node 0, 2-3
 * node 1).
 */
#include <stdlib.h>
#include <string.h>

#include "schedreplay/slices.h"
#include "unit.h"

#define MAXROWS 256

static struct sr_slice_row rows[MAXROWS];
static int nrows;

static int emit(const struct sr_slice_row *r, void *data)
{
	(void)data;
	if (nrows < MAXROWS)
		rows[nrows++] = *r;
	return 0;
}

/* the last row of @table for @tid (-1: any), NULL if none */
static const struct sr_slice_row *find(enum sr_slice_table table, int tid, int cpu)
{
	int i;

	for (i = nrows - 1; i >= 0; i--)
		if (rows[i].table == table && (tid < 0 || rows[i].tid == tid) &&
		    (cpu < 0 || rows[i].cpu == cpu))
			return &rows[i];
	return NULL;
}

static struct sr_slices *sl;

static void sw(uint64_t ts, int cpu, int prev, enum sr_prev_state st, long long raw, int next)
{
	struct sr_event ev;

	sr_event_reset(&ev);
	ev.kind = SR_EV_SWITCH;
	ev.ts = ts;
	ev.cpu = cpu;
	ev.pid = prev;
	ev.prio = 120;
	ev.pid2 = next;
	ev.prio2 = 120;
	ev.prev_state = st;
	ev.prev_state_raw = raw;
	snprintf(ev.comm, SR_COMM_LEN, "t%d", prev);
	snprintf(ev.comm2, SR_COMM_LEN, "t%d", next);
	CHECK_EQ(sr_slices_feed(sl, &ev), 0, "switch %d -> %d on %d at %llu", prev, next, cpu,
		 (unsigned long long)ts);
}

static void wake(uint64_t ts, int cpu, int pid, int target, int waker, int is_new)
{
	struct sr_event ev;

	sr_event_reset(&ev);
	ev.kind = is_new ? SR_EV_WAKEUP_NEW : SR_EV_WAKEUP;
	ev.ts = ts;
	ev.cpu = cpu;
	ev.common_pid = waker;
	ev.pid = pid;
	ev.target_cpu = target;
	ev.success = 1;
	CHECK_EQ(sr_slices_feed(sl, &ev), 0, "wakeup of %d onto %d at %llu", pid, target,
		 (unsigned long long)ts);
}

static void migrate(uint64_t ts, int pid, int orig, int dest)
{
	struct sr_event ev;

	sr_event_reset(&ev);
	ev.kind = SR_EV_MIGRATE;
	ev.ts = ts;
	ev.cpu = dest;
	ev.pid = pid;
	ev.target_cpu = orig;
	ev.dest_cpu = dest;
	CHECK_EQ(sr_slices_feed(sl, &ev), 0, "migrate %d %d -> %d", pid, orig, dest);
}

int main(void)
{
	struct sr_topology *t = sr_topology_new_preset("2x2x1", SR_ERA_MAINLINE, NULL);
	const struct sr_slice_row *r;
	int cpus[2];

	CHECK(t != NULL, "topology");
	sl = sr_slices_new(t, SR_PSTATE_REPORT, emit, NULL);
	CHECK(sl != NULL, "new");

	/* every CPU: idle -> a task; 10 runs on 0, 20 on 1, 30 on 2, CPU 3 idle */
	sw(1000, 0, 0, SR_PREV_RUNNABLE, 0, 10);
	sw(1000, 1, 0, SR_PREV_RUNNABLE, 0, 20);
	sw(1000, 2, 0, SR_PREV_RUNNABLE, 0, 30);
	sw(1000, 3, 50, SR_PREV_BLOCKED, 1, 0);
	CHECK_EQ(nrows, 0, "no slice seen whole yet");

	/* 10 sleeps (D) at 2000, is woken onto CPU 1 (busy with 20) at 3000 by 20 */
	sw(2000, 0, 10, SR_PREV_BLOCKED, 2, 0);
	r = find(SR_SL_SCHED, 10, -1);
	CHECK(r && r->ts == 1000 && r->dur == 1000 && !strcmp(r->state, "D"),
	      "10's running slice 1000+1000, end state D");
	CHECK(r && r->wait == SR_SL_NONE && r->delay == SR_SL_NONE, "its first: no wait known");
	wake(3000, 1, 10, 1, 20, 0);
	sr_slices_decision(sl, 10, 3000, 77, 0);
	/* a wakeup of a running task changes nothing */
	wake(3100, 1, 20, 1, 0, 0);
	/* CPU 0 idle from 2000 and CPU 3 from 1000 while CPU 1 has 10 waiting */
	sw(4000, 1, 20, SR_PREV_PREEMPTED, 0x100, 10);
	r = find(SR_SL_SCHED, 10, -1);
	CHECK(r && r->ts == 1000, "10's new slice is written at its end, not now");
	/* 20 preempted at 4000, then migrated to CPU 3 and run there at 4500 */
	migrate(4200, 20, 1, 3);
	sw(4500, 3, 0, SR_PREV_RUNNABLE, 0, 20);
	sw(5000, 1, 10, SR_PREV_BLOCKED, 1, 0);
	r = find(SR_SL_SCHED, 10, -1);
	CHECK(r && r->ts == 4000 && r->dur == 1000 && r->cpu == 1, "10 ran 4000+1000 on CPU 1");
	CHECK(r && r->wait == 2000 && r->delay == 1000, "off the CPU 2000 ns, 1000 of them runnable");
	CHECK(r && !strcmp(r->prev_state, "D") && r->woken == 1, "asleep in D, then woken");
	CHECK(r && r->queue_cpu == 1 && r->waker == 20, "queued on the target 1 by waker 20");
	CHECK(r && r->queue_idle == 0 && r->queue_nr == 1, "the target ran 20, nothing queued");
	CHECK(r && r->decision == 77, "the wakeup's decision");
	CHECK(!find(SR_SL_DIVERGENT, -1, -1), "77 did not diverge: no divergent_wakeup row");
	r = find(SR_SL_SCHED, 20, 1);
	CHECK(r && r->dur == 3000 && !strcmp(r->state, "R+"), "20's slice on 1 ended in R+");

	/* the estimate at a decision: CPU 2 runs 30 since 1000, CPU 0 idle */
	wake(5500, 2, 40, 2, 30, 1);
	sr_slices_decision(sl, 40, 5500, 88, 1);
	cpus[0] = 2;
	cpus[1] = 0;
	CHECK_EQ(sr_slices_estimate(sl, 88, 40, cpus, 2), 0, "estimate");
	r = find(SR_SL_ESTIMATE, -1, 0);
	CHECK(r && r->queue_idle == 1 && r->queue_nr == 0 && r->decision == 88,
	      "CPU 0: idle, at once");
	CHECK(!find(SR_SL_ESTIMATE, -1, 2), "CPU 2: waits for 30's switch out");
	sw(6000, 2, 30, SR_PREV_BLOCKED, 0x80, 40);
	r = find(SR_SL_ESTIMATE, -1, 2);
	CHECK(r && r->tid == 30 && r->wait == 4500 && r->dur == 500 && r->queue_nr == 1,
	      "CPU 2: 30 had run 4500 ns and went on 500; the queue without the wakee");
	r = find(SR_SL_SCHED, 30, -1);
	CHECK(r && !strcmp(r->state, "I"), "0x80 is I (report encoding)");

	/* a lost switch out: CPU 3 runs 20 by our account, the trace says 60 leaves */
	sw(7000, 3, 60, SR_PREV_BLOCKED, 1, 0);
	r = find(SR_SL_SCHED, 20, 3);
	CHECK(r && r->ts == 4500 && r->dur == 2500 && !r->state[0],
	      "20's slice on 3 closed, its end state unknown");
	CHECK(r && r->delay == 500 && r->wait == 500 && r->woken == SR_SL_NONE,
	      "20: runnable 500 ns after its preemption, not woken");
	CHECK(r && r->queue_cpu == 1 && !strcmp(r->prev_state, "R+"),
	      "queued on 1 in R+ (then migrated)");

	CHECK_EQ(sr_slices_finish(sl, 8000), 0, "finish");
	r = find(SR_SL_TASK, 10, -1);
	CHECK(r && !strcmp(r->state, "S") && r->ts == 5000 && r->n[2] == 1 && r->n[3] == 1000,
	      "10 asleep since 5000, one wakeup of 1000 ns");
	r = find(SR_SL_TASK, 40, -1);
	CHECK(r && !strcmp(r->state, "Running") && r->cpu == 2, "40 still running on 2");
	r = find(SR_SL_SCHED, 40, -1);
	CHECK(r && r->ts == 6000 && r->dur == SR_SL_NONE, "its slice open");
	CHECK(r && r->woken == 2 && r->delay == 500 && r->waker == 30,
	      "40: woken new by its parent 30, 500 ns");
	r = find(SR_SL_DIVERGENT, -1, -1);
	CHECK(r && r->decision == 88 && r->delay == 500,
	      "88 diverged: its woken slice's delay in divergent_wakeup, with the open slice");
	/*
	 * CPU 0 idle 2000..8000 (6000 ns); a busy CPU had a waiter: CPU 1 during
	 * 3000..4000 (10, same node), CPU 1 again 4000..4200 (20 preempted,
	 * same node), CPU 2 during 5500..6000 (40, the other node).
	 */
	r = find(SR_SL_CPU, -1, 0);
	CHECK(r && r->n[0] == 6000 && r->n[1] == 1, "CPU 0: 6000 ns idle, one period");
	CHECK(r && r->n[2] == 1700 && r->n[3] == 1, "CPU 0: 1700 ns of it while a CPU had a waiter");
	CHECK(r && r->n[4] == 1200 && r->n[5] == 1, "CPU 0: 1200 ns while one of node 0 had");
	r = find(SR_SL_CPU, -1, 3);
	CHECK(r && r->n[0] == 3500 + 1000 && r->n[1] == 2, "CPU 3: idle 1000..4500, 7000..8000");
	CHECK(r && r->n[2] == 1200 && r->n[4] == 0, "CPU 3: waiting elsewhere 1200, none in node 1");

	sr_slices_free(sl);

	/* the letters of the raw encodings: 4.9's TASK_STATE_TO_CHAR_STR, 4.14+ raw */
	{
		static const struct {
			enum sr_pstate_enc enc;
			enum sr_prev_state st;
			long long raw;
			const char *want;
		} l[] = {
			{ SR_PSTATE_RAW_OLD, SR_PREV_DEAD, 0x10, "X" },
			{ SR_PSTATE_RAW_OLD, SR_PREV_DEAD, 0x20, "Z" },
			{ SR_PSTATE_RAW_OLD, SR_PREV_DEAD, 0x40, "x" },
			{ SR_PSTATE_RAW_OLD, SR_PREV_BLOCKED, 0x200, "P" },
			{ SR_PSTATE_RAW_OLD, SR_PREV_BLOCKED, 0x402, "I" },
			{ SR_PSTATE_RAW_NEW, SR_PREV_DEAD, 0x80, "x" },
			{ SR_PSTATE_RAW_NEW, SR_PREV_BLOCKED, 0x402, "I" },
			{ SR_PSTATE_RAW_NEW, SR_PREV_BLOCKED, 0x401, "S" },
			{ SR_PSTATE_REPORT, SR_PREV_DEAD, 0x20, "Z" },
			{ SR_PSTATE_REPORT, SR_PREV_BLOCKED, 0x40, "P" },
		};
		size_t i;

		for (i = 0; i < sizeof(l) / sizeof(l[0]); i++) {
			sl = sr_slices_new(t, l[i].enc, emit, NULL);
			nrows = 0;
			sw(1000, 0, 0, SR_PREV_RUNNABLE, 0, 70);
			sw(2000, 0, 70, l[i].st, l[i].raw, 0);
			r = find(SR_SL_SCHED, 70, -1);
			CHECK(r && !strcmp(r->state, l[i].want), "encoding %d, 0x%llx is %s",
			      (int)l[i].enc, l[i].raw, l[i].want);
			sr_slices_free(sl);
		}
	}
	sr_topology_free(t);
	return unit_done();
}
