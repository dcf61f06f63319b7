// SPDX-License-Identifier: GPL-2.0
/*
 * Names of normalized events and the decoding of sched_switch's prev_state,
 * whose encoding changed with kernel 4.14 and differs between ftrace and
 * LTTng (schedreplay-models(7) §1.1).
 */
#include "schedreplay/event.h"

#include <string.h>

#include "banned.h"

const char *const sr_probe_field_name[SR_PROBE_NFIELDS] = {
	[SR_PROBE_FLIPS] = "flips",
	[SR_PROBE_LOAD] = "load",
	[SR_PROBE_UTIL] = "util",
	[SR_PROBE_RUNNABLE] = "runnable",
	[SR_PROBE_PREVLOAD] = "prevload",
};

int sr_event_probe_set(struct sr_event *ev, int i, long long v)
{
	long long *const slot[SR_PROBE_NFIELDS] = {
		&ev->flips, &ev->tload, &ev->tutil, &ev->trunnable, &ev->prevload,
	};

	if (i < 0 || i >= SR_PROBE_NFIELDS || v < 0 || (i == SR_PROBE_FLIPS && v > 0xffffffffLL))
		return -1;
	*slot[i] = v;
	return 0;
}

const char *const sr_rqstat_field_name[SR_RQ_NFIELDS] = {
	[SR_RQ_LOAD] = "load", [SR_RQ_UTIL] = "util", [SR_RQ_RUN] = "run", [SR_RQ_UE] = "ue",
	[SR_RQ_NR] = "nr", [SR_RQ_TTWU] = "ttwu", [SR_RQ_SCAN] = "scan",
};

long long *sr_rqstat_field(struct sr_rqstat_cpu *c, int i)
{
	long long *const slot[SR_RQ_NFIELDS] = {
		[SR_RQ_LOAD] = &c->load, [SR_RQ_UTIL] = &c->util, [SR_RQ_RUN] = &c->runnable,
		[SR_RQ_UE] = &c->util_est, [SR_RQ_NR] = &c->nr_running,
		[SR_RQ_TTWU] = &c->ttwu_pending, [SR_RQ_SCAN] = &c->nr_idle_scan,
	};

	return slot[i];
}

static const char *const kind_names[SR_EV__COUNT] = {
	[SR_EV_SWITCH]		= "switch",
	[SR_EV_WAKING]		= "waking",
	[SR_EV_WAKEUP]		= "wakeup",
	[SR_EV_WAKEUP_NEW]	= "wakeup_new",
	[SR_EV_MIGRATE]		= "migrate",
	[SR_EV_FORK]		= "fork",
	[SR_EV_EXIT]		= "exit",
	[SR_EV_FREE]		= "free",
	[SR_EV_SELECT_RQ]	= "select_rq",
	[SR_EV_SELECT_RQ_RET]	= "select_rq_ret",
	[SR_EV_SETAFFINITY]	= "setaffinity",
	[SR_EV_BALANCE_RQ]	= "balance_rq",
	[SR_EV_LB_TASK]		= "lb_task",
	[SR_EV_RQSTAT]		= "rqstat",
	[SR_EV_LB_RQSTAT]	= "lb_rqstat",
	[SR_EV_LOST]		= "lost",
	[SR_EV_OTHER]		= "other",
};

const char *sr_event_kind_name(enum sr_event_kind kind)
{
	if ((unsigned)kind >= SR_EV__COUNT)
		return "?";
	return kind_names[kind];
}

static const struct {
	const char *name;
	enum sr_event_kind kind;
} tp_names[] = {
	{ "sched_switch",	SR_EV_SWITCH },
	{ "sched_waking",	SR_EV_WAKING },
	{ "sched_wakeup",	SR_EV_WAKEUP },
	{ "sched_wakeup_new",	SR_EV_WAKEUP_NEW },
	{ "sched_migrate_task",	SR_EV_MIGRATE },
	{ "sched_process_fork",	SR_EV_FORK },
	{ "sched_process_exit",	SR_EV_EXIT },
	{ "sched_process_free",	SR_EV_FREE },
};

enum sr_event_kind sr_event_kind_from_name(const char *name)
{
	size_t i;

	/* the recorder's probe events (a contract: schedreplay-record(1)) */
	if (!strncmp(name, "schedreplay:", 12) || !strncmp(name, "schedreplay/", 12))
		name += 12;
	if (!strcmp(name, "select_rq"))
		return SR_EV_SELECT_RQ;
	if (!strcmp(name, "select_rq_ret"))
		return SR_EV_SELECT_RQ_RET;
	if (!strcmp(name, "setaffinity"))
		return SR_EV_SETAFFINITY;
	if (!strcmp(name, "balance_rq"))
		return SR_EV_BALANCE_RQ;
	if (!strcmp(name, "rqstat"))
		return SR_EV_RQSTAT;
	if (!strcmp(name, "lb_rqstat"))
		return SR_EV_LB_RQSTAT;
	if (!strcmp(name, "lb_task"))
		return SR_EV_LB_TASK;
	/* perf's CTF converter and "system:event" spellings */
	if (!strncmp(name, "sched:", 6))
		name += 6;
	if (strncmp(name, "sched_", 6))
		return SR_EV_OTHER;
	for (i = 0; i < sizeof(tp_names) / sizeof(tp_names[0]); i++)
		if (!strcmp(name, tp_names[i].name))
			return tp_names[i].kind;
	return SR_EV_OTHER;
}

const char *sr_event_kind_tp(enum sr_event_kind kind)
{
	size_t i;

	for (i = 0; i < sizeof(tp_names) / sizeof(tp_names[0]); i++)
		if (tp_names[i].kind == kind)
			return tp_names[i].name;
	if (sr_event_kind_is_probe(kind))
		return kind_names[kind];
	switch (kind) {
	case SR_EV_LOST:
		return "lost events marker";
	default:
		return "event";
	}
}

enum sr_prev_state sr_prev_state_decode(long long raw, enum sr_pstate_enc enc)
{
	long long low = raw & 0xff;

	if (raw == 0)
		return SR_PREV_RUNNABLE;
	if (raw < 0)
		return SR_PREV_UNKNOWN;
	/*
	 * Preemption is flagged by one bit above the state bits
	 * (TASK_REPORT_MAX or TASK_STATE_MAX, depending on the era) with no
	 * state bit set.  Raw states above 0xff (WAKEKILL, NOLOAD) always come
	 * with a sleep bit, so "no low bit" means preempted in every encoding.
	 */
	if (low == 0)
		return SR_PREV_PREEMPTED;
	switch (enc) {
	case SR_PSTATE_REPORT:
		if (low & (0x10 | 0x20))
			return SR_PREV_DEAD;
		break;
	case SR_PSTATE_RAW_OLD:
		if (low & (0x10 | 0x20 | 0x40))
			return SR_PREV_DEAD;
		break;
	case SR_PSTATE_RAW_NEW:
		if (low & (0x10 | 0x20 | 0x80))
			return SR_PREV_DEAD;
		break;
	}
	return SR_PREV_BLOCKED;
}

enum sr_prev_state sr_prev_state_parse(const char *text, long long *raw)
{
	/* 4.14+ report letters and their bits; older letters map onto them */
	static const struct {
		char c;
		long long bit;
		enum sr_prev_state st;
	} letters[] = {
		{ 'S', 0x01, SR_PREV_BLOCKED },	{ 'D', 0x02, SR_PREV_BLOCKED },
		{ 'T', 0x04, SR_PREV_BLOCKED },	{ 't', 0x08, SR_PREV_BLOCKED },
		{ 'X', 0x10, SR_PREV_DEAD },	{ 'Z', 0x20, SR_PREV_DEAD },
		{ 'P', 0x40, SR_PREV_BLOCKED },	{ 'I', 0x80, SR_PREV_BLOCKED },
		{ 'x', 0x10, SR_PREV_DEAD },	{ 'K', 0x00, SR_PREV_BLOCKED },
		{ 'W', 0x00, SR_PREV_BLOCKED },	{ 'N', 0x00, SR_PREV_BLOCKED },
	};
	enum sr_prev_state st = SR_PREV_UNKNOWN;
	long long r = 0;
	const char *p = text;
	size_t i;

	if (!p || !*p)
		return SR_PREV_UNKNOWN;
	if (p[0] == 'R') {
		if (p[1] == '+' && !p[2]) {
			r = 0x100;
			st = SR_PREV_PREEMPTED;
		} else if (!p[1]) {
			st = SR_PREV_RUNNABLE;
		} else {
			return SR_PREV_UNKNOWN;
		}
		if (raw)
			*raw = r;
		return st;
	}
	for (; *p; p++) {
		if (*p == '|')
			continue;
		for (i = 0; i < sizeof(letters) / sizeof(letters[0]); i++)
			if (letters[i].c == *p)
				break;
		if (i == sizeof(letters) / sizeof(letters[0]))
			return SR_PREV_UNKNOWN;
		r |= letters[i].bit;
		if (st != SR_PREV_DEAD)
			st = letters[i].st;
	}
	if (raw)
		*raw = r;
	return st;
}

void sr_event_reset(struct sr_event *ev)
{
	/* field by field: this runs once per event on every reader's hot path */
	ev->kind = SR_EV_OTHER;
	ev->ts = 0;
	ev->cpu = SR_CPU_NONE;
	ev->common_pid = SR_PID_NONE;
	ev->ctx = SR_CTX_UNKNOWN;
	ev->softirq = 0;
	ev->pid = SR_PID_NONE;
	ev->prio = -1;
	ev->comm[0] = '\0';
	ev->pid2 = SR_PID_NONE;
	ev->prio2 = -1;
	ev->comm2[0] = '\0';
	ev->target_cpu = SR_CPU_NONE;
	ev->dest_cpu = SR_CPU_NONE;
	ev->wake_flags = -1;
	ev->lb_idle = -1;
	ev->lb_level = -1;
	ev->lb_mt = -1;
	ev->lb_imb = -1;
	ev->lb_nbf = -1;
	ev->flips = -1;
	ev->tload = ev->tutil = ev->trunnable = -1;
	ev->prevload = -1;
	ev->prev_state_raw = 0;
	ev->prev_state = SR_PREV_UNKNOWN;
	ev->success = -1;
	ev->lost = -1;
	ev->name = NULL;
	ev->text = NULL;
	ev->rqstat = NULL;
}

void sr_strlcpy(char *dst, const char *src, size_t size)
{
	size_t n;

	if (!size)
		return;
	n = src ? strnlen(src, size - 1) : 0;
	if (n)
		memcpy(dst, src, n);
	dst[n] = '\0';
}
