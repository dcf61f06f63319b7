/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The normalized scheduler event.  Every reader (trace.dat, CTF, ftrace text)
 * fills this one structure from the trace's own format description, so that
 * replay and info never see where an event came from.
 */
#ifndef SCHEDREPLAY_EVENT_H
#define SCHEDREPLAY_EVENT_H

#include <stddef.h>
#include <stdint.h>

#define SR_COMM_LEN 16

enum sr_event_kind {
	SR_EV_SWITCH,		/* sched_switch: prev -> next on cpu */
	SR_EV_WAKING,		/* sched_waking: emitted on the waker's cpu */
	SR_EV_WAKEUP,		/* sched_wakeup: target_cpu = chosen cpu */
	SR_EV_WAKEUP_NEW,	/* sched_wakeup_new: fork placement */
	SR_EV_MIGRATE,		/* sched_migrate_task: orig_cpu -> dest_cpu */
	SR_EV_FORK,		/* sched_process_fork: parent -> child */
	SR_EV_EXIT,		/* sched_process_exit */
	SR_EV_FREE,		/* sched_process_free */
	/* the recorder's probe events, in one run (sr_event_kind_is_probe()) */
	SR_EV_SELECT_RQ,	/* schedreplay/select_rq kprobe: select_task_rq_fair entry */
	SR_EV_SELECT_RQ_RET,	/* schedreplay/select_rq_ret: its return value */
	SR_EV_SETAFFINITY,	/* schedreplay/setaffinity kprobe: sched_setaffinity entry */
	SR_EV_BALANCE_RQ,	/* schedreplay/balance_rq kprobe: load_balance entry */
	SR_EV_RQSTAT,		/* schedreplay/rqstat kprobe: every CPU's rq at select_task_rq_fair */
	SR_EV_LB_RQSTAT,	/* schedreplay/lb_rqstat kprobe: the same at find_busiest_group */
	SR_EV_LB_TASK,		/* schedreplay/lb_task kprobe: can_migrate_task with lb_env's fields */
	SR_EV_LOST,		/* lost / discarded events marker (count may be unknown) */
	SR_EV_OTHER,		/* any other event, passed through by name */
	SR_EV__COUNT
};

/* the recorder's probe events (SR_EV_SELECT_RQ to SR_EV_LB_TASK), named by their readers */
static inline int sr_event_kind_is_probe(enum sr_event_kind kind)
{
	return kind >= SR_EV_SELECT_RQ && kind <= SR_EV_LB_TASK;
}

/* What a sched_switch says about the task that left the CPU. */
enum sr_prev_state {
	SR_PREV_UNKNOWN,
	SR_PREV_RUNNABLE,	/* state 0 / "R": still on the runqueue */
	SR_PREV_PREEMPTED,	/* "R+": preempted, still on the runqueue */
	SR_PREV_BLOCKED,	/* S, D, T, t, I, P, ...: dequeued */
	SR_PREV_DEAD,		/* X, Z, x: final switch of an exiting task */
};

/*
 * How a numeric prev_state is encoded.  Kernels before 4.14 record the raw
 * p->state (OR-ed with TASK_STATE_MAX on preemption); 4.14+ ftrace records
 * the "report" index as one bit (TASK_REPORT_MAX on preemption); LTTng
 * always records the raw state, whose bit values moved in 4.14.
 */
enum sr_pstate_enc {
	SR_PSTATE_REPORT,	/* 4.14+ ftrace: 0x10 X, 0x20 Z, 0x40 P, 0x80 I */
	SR_PSTATE_RAW_OLD,	/* raw p->state before 4.14: 0x10 Z, 0x20 X, 0x40 x */
	SR_PSTATE_RAW_NEW,	/* raw p->state 4.14+: 0x10 X, 0x20 Z, 0x40 P, 0x80 x */
};

/*
 * The context an event fired in, from the trace's irq-flags (TRACE_FLAG_HARDIRQ,
 * TRACE_FLAG_SOFTIRQ, TRACE_FLAG_NMI: the latency column's h, s, H, z, Z):
 * interrupt context is in_task() false
 */
enum sr_event_ctx {
	SR_CTX_UNKNOWN,		/* the trace does not say */
	SR_CTX_TASK,
	SR_CTX_IRQ,		/* hardirq, softirq being served, or NMI */
};

/*
 * The rqstat input probe (schedreplay-record(1), "Input probes"): what
 * select_task_rq_fair() reads of every CPU, at its entry.  -1: a field the
 * event does not have.
 */
#define SR_RQSTAT_MAX_CPUS 64
struct sr_rqstat_cpu {
	long long load, util, runnable;	/* rq->cfs.avg.load_avg, util_avg, runnable_avg */
	long long util_est;		/* rq->cfs.avg.util_est (6.1: util_est.enqueued) */
	long long nr_running, ttwu_pending;
	long long nr_idle_scan;		/* sd_llc_shared->nr_idle_scan */
};

struct sr_rqstat {
	int ncpus;			/* CPUs 0 .. ncpus-1 have fields */
	struct sr_rqstat_cpu cpu[SR_RQSTAT_MAX_CPUS];
};

/*
 * rqstat's fields of CPU i in the trace are c<i><name>, for every reader:
 * the names in this order, and the member of struct sr_rqstat_cpu each
 * fills (sr_rqstat_field())
 */
enum { SR_RQ_LOAD, SR_RQ_UTIL, SR_RQ_RUN, SR_RQ_UE, SR_RQ_NR, SR_RQ_TTWU, SR_RQ_SCAN,
       SR_RQ_NFIELDS };
extern const char *const sr_rqstat_field_name[SR_RQ_NFIELDS];
long long *sr_rqstat_field(struct sr_rqstat_cpu *c, int i);

#define SR_PID_NONE	(-1)
#define SR_CPU_NONE	(-1)

struct sr_event {
	enum sr_event_kind kind;
	uint64_t ts;		/* ns, on the trace's clock */
	int cpu;		/* cpu whose buffer held the event */
	int common_pid;		/* task current when it fired (waker); -1 unknown */
	enum sr_event_ctx ctx;	/* the context it fired in */
	int softirq;		/* TRACE_FLAG_SOFTIRQ alone (a softirq being served) */

	/* the task the event is about (switch: prev; fork: parent) */
	int pid;
	int prio;		/* kernel scale: 0..99 RT, 100..139 CFS; -1 unknown */
	char comm[SR_COMM_LEN];

	/* the second task (switch: next; fork: child) */
	int pid2;
	int prio2;
	char comm2[SR_COMM_LEN];

	int target_cpu;		/* waking/wakeup(_new): target_cpu; migrate: orig_cpu;
				 * select_rq: prev_cpu */
	int dest_cpu;		/* migrate: dest_cpu; select_rq_ret: the returned cpu */
	long long wake_flags;	/* select_rq: wake_flags, -1 where absent */
	long long flips;	/* select_rq: p->wakee_flips, -1 where absent */
	/* select_rq: p->se.avg.load_avg, util_avg, runnable_avg; -1 where absent */
	long long tload, tutil, trunnable;
	/* select_rq: prev_cpu's cpu_load() (its root cfs_rq's load_avg), -1 where absent */
	long long prevload;
	uint64_t cpumask;	/* setaffinity: the requested mask of CPUs 0-63 */
	/* balance_rq: the enum cpu_idle_type value (2 CPU_NEWLY_IDLE), -1 absent */
	int lb_idle;
	int lb_level;		/* balance_rq, lb_task: sd->level, -1 absent */
	/*
	 * lb_task (validation, record.sh --lb-probes): lb_env's
	 * migration_type (0 load, 1 util, 2 task, 3 misfit), imbalance and
	 * sd->nr_balance_failed; -1 absent.  Its dst is target_cpu, its
	 * idle type lb_idle.
	 */
	int lb_mt;
	long long lb_imb;
	int lb_nbf;

	long long prev_state_raw;	/* switch: as recorded (letters are mapped) */
	enum sr_prev_state prev_state;
	int success;		/* sched_wakeup's success field, -1 where absent */

	long long lost;		/* SR_EV_LOST: count, -1 when unknown */
	const char *name;	/* SR_EV_OTHER: event name (valid until sr_trace_free) */
	/*
	 * SR_EV_OTHER "print" (trace_marker writes): the text, without a
	 * trailing newline; valid until the next event.  NULL otherwise.
	 */
	const char *text;
	/* SR_EV_RQSTAT: the CPUs' fields, valid until the next event; NULL otherwise */
	const struct sr_rqstat *rqstat;
};

/* balance_rq's idle value for CPU_NEWLY_IDLE, the same in every kernel version */
#define SR_LB_IDLE_NEWLY	2

/**
 * sr_event_kind_name - stable name of an event kind
 * Return: static string ("switch", "waking", ...).
 */
const char *sr_event_kind_name(enum sr_event_kind kind);

/**
 * sr_event_kind_from_name - map a tracepoint name to a kind
 * @name: "sched_switch", "sched:sched_switch", "sched_wakeup_new", ...
 *
 * Return: the kind, SR_EV_OTHER for names that are not scheduler events.
 */
enum sr_event_kind sr_event_kind_from_name(const char *name);

/**
 * sr_event_kind_tp - the tracepoint (or probe) an event kind comes from, for
 * messages: "sched_waking", "select_rq", ...; "event" for any other kind.
 * Return: a static string.
 */
const char *sr_event_kind_tp(enum sr_event_kind kind);

/**
 * sr_prev_state_decode - classify a numeric prev_state
 * Return: one of enum sr_prev_state.
 */
enum sr_prev_state sr_prev_state_decode(long long raw, enum sr_pstate_enc enc);

/**
 * sr_prev_state_parse - classify a textual prev_state ("R+", "S", "D|K", "x")
 * @text: the letters as printed by the kernel
 * @raw: receives an equivalent 4.14+ report value (R+ = 0x100)
 *
 * Return: one of enum sr_prev_state; SR_PREV_UNKNOWN if @text is not letters.
 */
enum sr_prev_state sr_prev_state_parse(const char *text, long long *raw);

/**
 * sr_strlcpy - bounded copy that always terminates (comm fields, names)
 * @src may be NULL: @dst becomes empty.
 */
void sr_strlcpy(char *dst, const char *src, size_t size);

/*
 * The select_rq probe's optional numeric fields beyond pid and wake_flags
 * (schedreplay-record(1)): their names in the trace, in this order, for
 * every reader.
 */
enum { SR_PROBE_FLIPS, SR_PROBE_LOAD, SR_PROBE_UTIL, SR_PROBE_RUNNABLE, SR_PROBE_PREVLOAD,
       SR_PROBE_NFIELDS };
extern const char *const sr_probe_field_name[SR_PROBE_NFIELDS];

/**
 * sr_event_probe_set - store select_rq's optional field @i
 * Return: 0, or -1 when @v is out of the field's range (flips is a u32, the
 * others are non-negative); the event keeps -1 then.
 */
int sr_event_probe_set(struct sr_event *ev, int i, long long v);

/**
 * sr_event_reset - clear an event to "nothing known"
 */
void sr_event_reset(struct sr_event *ev);

#endif
