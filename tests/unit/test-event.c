// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for event names and prev_state decoding across the kernel
 * eras seen in the fixtures (schedreplay-models(7) §1.1, fixtures README),
 * and the kinds a trace.dat's formats declare (sr_trace_info.kinds).
 */
#include <stdlib.h>
#include <string.h>

#include "schedreplay/event.h"
#include "schedreplay/trace.h"
#include "unit.h"

/* the kinds @path declares (0: not known), -1 if it does not open */
static long kinds_of(const char *path)
{
	struct sr_trace *t = NULL;
	char *cause = NULL;
	long k = -1;

	if (!sr_trace_open(path, NULL, &t, &cause))
		k = (long)sr_trace_borrow_info(t)->kinds;
	CHECK(k >= 0, "open '%s' (%s)", path, cause ? cause : "ok");
	sr_trace_free(t);
	free(cause);
	return k;
}

static void check_kinds(void)
{
	long k = kinds_of("tests/fixtures/tracedat/numa/numa-6.12-forks.dat");

	/* select_rq probes, no balance_rq format: the meta scan looks for no balance probe */
	CHECK(k > 0 && (k >> SR_EV_SELECT_RQ & 1) && (k >> SR_EV_SELECT_RQ_RET & 1) &&
	      (k >> SR_EV_SWITCH & 1) && (k >> SR_EV_OTHER & 1) && !(k >> SR_EV_BALANCE_RQ & 1),
	      "numa-6.12-forks kinds %#lx", k);
	k = kinds_of("tests/fixtures/tracedat/numa/numa-6.1-messaging-balance.dat");
	CHECK(k > 0 && (k >> SR_EV_BALANCE_RQ & 1), "messaging-balance kinds %#lx", k);
	k = kinds_of("tests/fixtures/tracedat/succeed/live-6.18-top-v7.dat");
	CHECK(k > 0 && !(k >> SR_EV_SELECT_RQ & 1) && !(k >> SR_EV_BALANCE_RQ & 1),
	      "live-6.18-top-v7 kinds %#lx", k);
	/* a text trace says nothing before its lines */
	CHECK_EQ(kinds_of("tests/fixtures/text/succeed/lisa-trace.txt"), 0, "text kinds unknown");
}

int main(void)
{
	long long raw = -7;

	CHECK_EQ(sr_event_kind_from_name("sched_switch"), SR_EV_SWITCH, "sched_switch");
	CHECK_EQ(sr_event_kind_from_name("sched:sched_wakeup"), SR_EV_WAKEUP, "perf prefix");
	CHECK_EQ(sr_event_kind_from_name("sched_wakeup_new"), SR_EV_WAKEUP_NEW, "wakeup_new");
	CHECK_EQ(sr_event_kind_from_name("sched_load_se"), SR_EV_OTHER, "other sched_ event");
	CHECK_EQ(sr_event_kind_from_name("irq_handler_entry"), SR_EV_OTHER, "non-sched event");
	CHECK(!strcmp(sr_event_kind_name(SR_EV_MIGRATE), "migrate"), "kind name");

	/* 4.14+ ftrace: TASK_REPORT_MAX (0x100) or TASK_STATE_MAX (0x1000) on preemption */
	CHECK_EQ(sr_prev_state_decode(0, SR_PSTATE_REPORT), SR_PREV_RUNNABLE, "0 is R");
	CHECK_EQ(sr_prev_state_decode(0x100, SR_PSTATE_REPORT), SR_PREV_PREEMPTED, "0x100 R+");
	CHECK_EQ(sr_prev_state_decode(4096, SR_PSTATE_REPORT), SR_PREV_PREEMPTED, "4096 R+");
	CHECK_EQ(sr_prev_state_decode(1, SR_PSTATE_REPORT), SR_PREV_BLOCKED, "S");
	CHECK_EQ(sr_prev_state_decode(0x80, SR_PSTATE_REPORT), SR_PREV_BLOCKED, "I");
	CHECK_EQ(sr_prev_state_decode(0x40, SR_PSTATE_REPORT), SR_PREV_BLOCKED, "P (report)");
	CHECK_EQ(sr_prev_state_decode(0x10, SR_PSTATE_REPORT), SR_PREV_DEAD, "X");
	CHECK_EQ(sr_prev_state_decode(0x20, SR_PSTATE_REPORT), SR_PREV_DEAD, "Z");
	/* raw p->state before 4.14: 64 is TASK_DEAD, 1024/2048 TASK_STATE_MAX */
	CHECK_EQ(sr_prev_state_decode(64, SR_PSTATE_RAW_OLD), SR_PREV_DEAD, "x (3.x)");
	CHECK_EQ(sr_prev_state_decode(1024, SR_PSTATE_RAW_OLD), SR_PREV_PREEMPTED, "3.x R+");
	CHECK_EQ(sr_prev_state_decode(2048, SR_PSTATE_RAW_OLD), SR_PREV_PREEMPTED, "4.4 R+");
	CHECK_EQ(sr_prev_state_decode(130, SR_PSTATE_RAW_OLD), SR_PREV_BLOCKED, "4.4 killable");
	/* raw 4.14+ (LTTng): 0x80 TASK_DEAD, 0x102 killable, 0x402 TASK_IDLE */
	CHECK_EQ(sr_prev_state_decode(128, SR_PSTATE_RAW_NEW), SR_PREV_DEAD, "4.15 TASK_DEAD");
	CHECK_EQ(sr_prev_state_decode(258, SR_PSTATE_RAW_NEW), SR_PREV_BLOCKED, "4.15 killable");
	CHECK_EQ(sr_prev_state_decode(1026, SR_PSTATE_RAW_NEW), SR_PREV_BLOCKED, "4.15 idle");
	CHECK_EQ(sr_prev_state_decode(4096, SR_PSTATE_RAW_NEW), SR_PREV_PREEMPTED, "4.15 R+");
	CHECK_EQ(sr_prev_state_decode(-1, SR_PSTATE_REPORT), SR_PREV_UNKNOWN, "negative");

	CHECK_EQ(sr_prev_state_parse("R", &raw), SR_PREV_RUNNABLE, "text R");
	CHECK_EQ(raw, 0, "text R raw");
	CHECK_EQ(sr_prev_state_parse("R+", &raw), SR_PREV_PREEMPTED, "text R+");
	CHECK_EQ(raw, 0x100, "text R+ raw");
	CHECK_EQ(sr_prev_state_parse("D|K", &raw), SR_PREV_BLOCKED, "text D|K");
	CHECK_EQ(sr_prev_state_parse("S", &raw), SR_PREV_BLOCKED, "text S");
	CHECK_EQ(raw, 1, "text S raw");
	CHECK_EQ(sr_prev_state_parse("x", &raw), SR_PREV_DEAD, "text x");
	CHECK_EQ(sr_prev_state_parse("X", &raw), SR_PREV_DEAD, "text X");
	CHECK_EQ(sr_prev_state_parse("I", &raw), SR_PREV_BLOCKED, "text I");
	CHECK_EQ(sr_prev_state_parse("R-", &raw), SR_PREV_UNKNOWN, "text R- is not a state");
	CHECK_EQ(sr_prev_state_parse("Q", &raw), SR_PREV_UNKNOWN, "unknown letter");
	CHECK_EQ(sr_prev_state_parse("", &raw), SR_PREV_UNKNOWN, "empty");
	check_kinds();
	return unit_done();
}
