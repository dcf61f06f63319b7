/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The replay engine: rebuilds the scheduler state a trace implies (per-CPU
 * runqueues, per-task state and PELT, wakee flips, recent_used_cpu) by
 * applying what the kernel actually did, event by event (open loop), and
 * stops at every decision point (wakeup placement, fork placement, load
 * balancing: replay/balance.c) to let the models evaluate it.  Memory is
 * bounded by tasks and CPUs.
 */
#ifndef SCHEDREPLAY_REPLAY_H
#define SCHEDREPLAY_REPLAY_H

#include <stdint.h>

#include "schedreplay/event.h"
#include "schedreplay/pelt.h"
#include "schedreplay/topology.h"

enum sr_task_state {
	SR_TASK_UNKNOWN,	/* not seen in a way that tells (trace start) */
	SR_TASK_RUNNING,
	SR_TASK_QUEUED,		/* runnable, waiting */
	SR_TASK_BLOCKED,
	SR_TASK_DEAD,
};

/* inputs a trace cannot show (schedreplay-models(7) §9), as a bitmask of what
 * was inferred at a decision rather than observed */
enum sr_inferred {
	SR_INF_SYNC		= 1 << 0,	/* WF_SYNC: not traced */
	SR_INF_EXITING		= 1 << 1,	/* PF_EXITING from sched_process_exit */
	SR_INF_KTHREAD		= 1 << 2,	/* kernel thread from name / parent */
	SR_INF_AFFINITY		= 1 << 3,	/* cpus_allowed from a per-CPU name, or
						 * a CPU a balance was refused (schedreplay-replay(1), INFERENCE RULES) */
	SR_INF_PELT_WARMUP	= 1 << 4,	/* a task's PELT began inside the trace */
	SR_INF_TOPOLOGY		= 1 << 5,	/* topology is a preset or flat */
	SR_INF_PREV_CPU		= 1 << 6,	/* no sched_waking: prev from the last run */
	SR_INF_FLIPS		= 1 << 7,	/* wakee's wakee_flips: from the trace alone */
	SR_INF_NI_RANDOM	= 1 << 8,	/* a newidle level taken as skipped by NI_RANDOM's
						 * draw, which no trace shows */
	SR_INF_NEAR		= 1 << 9,	/* the first model's path turned on a comparison
						 * of PELT signals within SR_NEAR_PERMILLE of
						 * its threshold, closer than the engine's
						 * signals are to the kernel's */
};

/*
 * A comparison of PELT signals (load, util, runnable, their group sums)
 * decided within this many per mille of its threshold is "near" (SR_INF_NEAR):
 * on the 2-node guest recordings with the input probes the engine's
 * per-CPU load is within 1 to 2.5 % of the kernel's at the median of the
 * forks' reads and runnable within 2 to 6 % (7 to 16 % and 16 to 29 % at
 * the ninetieth percentile; schedreplay-replay(1), INFERENCE RULES)
 */
#define SR_NEAR_PERMILLE	50

struct sr_task {
	int pid;
	int tgid;			/* -1 unknown */
	char comm[SR_COMM_LEN];
	int prio;
	unsigned long weight;
	enum sr_task_state state;
	int cpu;			/* task_cpu(): where it runs, waits or last ran */
	struct sr_pelt pelt;
	int pelt_valid;			/* seen from a wakeup/fork: PELT history is ours */
	int attached;			/* its load is counted in cpu[cpu]'s cfs signal */
	unsigned long attached_load;	/* what was added at attach (for detach) */
	unsigned long attached_util;
	unsigned long attached_runnable;
	int queued_load;		/* counted in the runnable (enqueued) sum */
	/* util_est (v4.17+): the EWMA of util_avg at each sleep, and whether
	 * it is counted in its cpu's enqueued sum */
	unsigned long util_est;
	/* before v6.8: util_est.enqueued, the last sample stored */
	unsigned long util_est_enq;
	int util_est_unchanged;		/* UTIL_AVG_UNCHANGED: no PELT update since */
	/* the estimate before the sample of its last sleep, while that sample
	 * can still be redone from the next wakeup probe's signal (state.c) */
	int util_est_redo;
	unsigned long util_est_was, util_est_enq_was;
	int util_est_unchanged_was;
	int util_est_queued;
	unsigned wakee_flips;
	uint64_t wakee_flip_decay;	/* jiffies */
	int last_wakee;
	int recent_used_cpu;
	int exiting;			/* sched_process_exit seen, final switch not yet */
	int slept_d;			/* its last block was uninterruptible (D): not woken sync */
	int exit_grouped;		/* in an autogroup at its sched_process_exit */
	int kthread;			/* 1 kernel thread, 0 user, -1 unknown */
	int kname;			/* state.c kthread_named() of @comm: 1, 0, -1 not yet */
	int bound_cpu;			/* single allowed CPU when known/inferred, else -1 */
	uint64_t allowed;		/* cpus_allowed of CPUs 0-63 from the setaffinity
					 * probe (CPUs 64+ count as allowed) */
	int allowed_known;		/* the probe (or a parent's) set @allowed */
	unsigned inferred;		/* SR_INF_* facts that are guesses for this task */
	int snapshot;			/* kthread/affinity come from the recording */
	/* the inferred-affinity rule (sr_replay_infer_refusal) */
	int aff_observed;		/* snapshot, probe or such a parent told the mask */
	int aff_snapshot_only;		/* ... only a snapshot of every CPU, no probe */
	uint64_t seen_cpus;		/* CPUs 0-63 it was queued or ran on */
	uint64_t aff_denied;		/* CPUs 0-63 inferred not allowed (newidle only) */
	unsigned aff_refusals;		/* newidle balances that left it on aff_cpu */
	int aff_cpu;			/* where it was when first refused */
	uint64_t aff_first;		/* when it was first refused there */
	int fork_pin;			/* 1 + the CPU its forks are inferred pinned to,
					 * 0 none (state.c, aff_fork) */
	int fork_pin_forks;		/* forks that showed that pin (its wakeups take it from 3) */
	uint64_t last_wakeup_ts;
	/* a sched_waking seen, sched_wakeup not yet */
	int waking;
	uint64_t waking_ts;
	int waking_cpu;
	int waking_waker;
	int ttwu_cpu;			/* the CPU its wakeup is queued for, -1 none */
	uint64_t enqueue_ts;		/* when it last joined its CPU's queue */
	/* EEVDF (6.6+): its vruntime while queued, the lag it keeps while not */
	int64_t vruntime;
	int64_t vlag;
	uint64_t vr_start;		/* when it last began to run (update_curr()) */
	int delayed;			/* 6.12+ sched_delayed: blocked, still queued */
	uint64_t delay_proven;		/* a balance moved it as sched_delayed at this time */
	/*
	 * its task group (schedreplay-models(7) §3.5): 0 the root task group
	 * (kernel threads, autogroup off, or not known), else the slot of
	 * its autogroup among the view's groups (1-based)
	 */
	int tg;
	int tg_pos;			/* engine-private: its place in the grouped tasks, -1 none */
	int delay_next;			/* its blocking switch keeps it queued */
	/* the wakeup-affinity rule (decision.c, aff_wake_refused) */
	uint64_t wake_seen;		/* seen_cpus since it last woke on another LLC */
	unsigned aff_wake_refusals;	/* wakeups kept in wake_seen a model took out */
	int aff_wake;			/* wakeups: allowed only on wake_seen */
	/* CPUs 0-63 another task's sched_setaffinity() moved it off (state.c, settle_pull) */
	uint64_t aff_off;
	void *pending;			/* engine-private: its open decision, or NULL */
	/* load balancing (replay/balance.c) */
	uint64_t exec_start;		/* last switch in or out: task_hot() */
	uint64_t remote_wakeup_ts;	/* last wakeup whose waking ran on another CPU */
	int lb_cpu;			/* on this CPU's cfs_tasks list, -1 none */
	struct sr_task *lb_next;	/* toward the tail (least recently run) */
	struct sr_task *lb_prev;	/* toward the head (most recently run) */
};

struct sr_rq {
	int curr;			/* pid running, 0 idle, -1 unknown */
	int nr_running;			/* all classes, running + queued */
	int cfs_nr;			/* CFS tasks running + queued */
	int rt_nr;
	unsigned long cfs_weight;	/* sum of queued CFS weights (load.weight) */
	struct sr_pelt cfs;		/* root cfs_rq signal; includes blocked load */
	long runnable_load;		/* v4.15-5.6 runnable_load_avg: enqueued tasks only */
	unsigned long util_est;		/* cfs_rq util_est: sum over enqueued tasks */
	uint64_t idle_stamp;		/* when it last went idle */
	int known;			/* a sched_switch has been seen on it */
	int ttwu_pending;		/* wakeups chosen for it, not yet activated */
	int nr_delayed;			/* sched_delayed tasks, counted in nr_running
					 * and cfs_nr (6.12+) */
	int64_t vzero;			/* avg_vruntime() when it last had entities */
	int curr_cfs;			/* curr is a CFS task */
	/*
	 * select_idle_cpu()'s SIS_UTIL nr: sd_llc_shared->nr_idle_scan + 1 of
	 * this CPU's LLC as the last LLC-level balance wrote it (6.0+); 0: not
	 * known, the models compute it at the wakeup (replay/idle-scan.c)
	 */
	int sis_nr;
	/*
	 * update_cfs_rq_h_load()'s cache of the root cfs_rq (6.1, 6.12,
	 * CONFIG_FAIR_GROUP_SCHED): h_load is cpu_load() as the first
	 * task_h_load() of jiffy h_load_jiffy - 1 read it; 0: none taken
	 */
	long h_load;
	uint64_t h_load_jiffy;
};

struct sr_replay;

/*
 * One task group's state on one CPU as wake_affine_weight() reads it
 * (schedreplay-models(7) §3.5), computed at the decision: the group
 * cfs_rq's load_avg (its tasks' signals, blocked ones decayed), its
 * load.weight (queued tasks), the group entity's weight
 * (calc_group_shares()) and load_avg (that weight times the share of time
 * the group had a task runnable here).
 */
struct sr_tg_cpu {
	unsigned long grq_load;
	unsigned long grq_weight;
	unsigned long shares;
	unsigned long se_load;
};

/*
 * The task groups below the root a view knows (autogroups): @n groups, slot
 * g (1..n) on CPU c at cpu[(g - 1) * ncpus + c]; @root_load[c] is CPU c's
 * cpu_load() with the group entities in place of their tasks' loads;
 * @grq_sum[c] and @se_sum[c] are what that took out (the grouped tasks'
 * load_avg on c) and put in (the entities' load_avg), both 0 where a probe
 * gave the kernel's own cpu_load() of c at this decision.
 */
struct sr_tg_view {
	int n;
	int ncpus;
	const struct sr_tg_cpu *cpu;
	const long *root_load;
	const long *grq_sum;
	const long *se_sum;
};

/*
 * The read-only state a model sees at a decision: everything a decision
 * function may read, and nothing that leads back to whoever filled it (the
 * replay engine, a test, a simulator).  The helpers sr_view_*() below
 * (replay/view.c) compute from it alone.  Whoever fills it provides, per
 * CPU, the runqueue's curr, curr_cfs, nr_running, cfs_nr, cfs_weight,
 * runnable_load, util_est, the root cfs_rq's PELT signal (cfs),
 * idle_stamp, known, ttwu_pending and nr_delayed (0 before 6.12); per
 * task, pid, comm, prio, weight, pelt, wakee_flips, recent_used_cpu,
 * kthread, bound_cpu or allowed/allowed_known, exec_start, aff_denied (0:
 * nothing inferred), delayed (0 before 6.12) and the cfs_tasks links
 * (lb_next, lb_prev); and kgen, the kernel generation (NULL: none of the
 * later behaviours, as 6.1); tests/unit/test-model.c fills one by hand.
 */
struct sr_view {
	const struct sr_topology *topo;
	const struct sr_rq *rq;		/* topo->ncpus entries */
	/*
	 * per CPU, its CFS tasks (queued and running) in rq->cfs_tasks order:
	 * cfs_head[cpu] the most recently run, following lb_next;
	 * cfs_tail[cpu] the least recently run, following lb_prev (the end
	 * detach_tasks() starts from).  NULL entries: none.
	 */
	const struct sr_task *const *cfs_head;
	const struct sr_task *const *cfs_tail;
	uint64_t now;			/* the decision's time, ns */
	int hz;				/* CONFIG_HZ (jiffies, the nohz tick) */
	/* the recording kernel's generation (schedreplay/kgen.h); NULL: none */
	const struct sr_kgen *kgen;
	/* the task groups at this decision; NULL: a flat hierarchy (every
	 * task in the root task group) */
	const struct sr_tg_view *tg;
};

/**
 * sr_replay_view - a view of the engine's state as it is now (what the
 * models see at a decision made now); valid until the next event is fed
 */
void sr_replay_view(const struct sr_replay *r, struct sr_view *v);

enum sr_decision_kind {
	SR_DEC_WAKEUP,
	SR_DEC_FORK,
	/*
	 * load balancing (replay/balance.c): the kernel pulled a task
	 * (periodic or idle balance on the puller, newidle balance, a nohz
	 * idle-balance pass), or a CPU went newly idle and nothing was pulled
	 */
	SR_DEC_LB_PERIODIC,
	SR_DEC_LB_NEWIDLE,
	SR_DEC_LB_NOHZ,
	SR_DEC_NEWIDLE,
	SR_DEC__COUNT,
};

/* the database's decision.kind text */
const char *sr_decision_kind_name(enum sr_decision_kind k);

static inline int sr_decision_is_balance(enum sr_decision_kind k)
{
	return k >= SR_DEC_LB_PERIODIC && k < SR_DEC__COUNT;
}

/* why the kernel's placement did not run (excluded from fidelity) */
enum sr_skip {
	SR_SKIP_NONE,
	SR_SKIP_RUNNABLE,	/* ttwu_runnable: wakee still queued or running */
	SR_SKIP_BOUND,		/* single-CPU affinity */
	SR_SKIP_ON_CPU,		/* wakee still on its CPU (may take the wakelist) */
	SR_SKIP_UNKNOWN_TASK,	/* wakee's state unknown (before its first switch) */
	SR_SKIP_NOT_FAIR,	/* RT/DL wakee: not select_task_rq_fair */
	SR_SKIP_NO_SELECT,	/* the select_rq probe says select_task_rq_fair did not run */
	SR_SKIP_NO_BALANCE,	/* newly idle: the balance probes show no load_balance */
};

/* one CPU as a model saw it at a decision (sr_replay_keep_snapshots) */
struct sr_cpu_snap {
	int nr_running;
	int cfs_nr;
	int curr;			/* pid running, 0 idle, -1 unknown */
	char curr_comm[SR_COMM_LEN];
	int idle;			/* idle_cpu() as the models read it */
	long load;			/* cpu_load(), simulated PELT */
	unsigned long util;		/* cpu_util(), simulated PELT */
};

/*
 * For balance decisions the fields mean: this_cpu the balancing CPU (the
 * puller; the idle-load-balance CPU of a nohz pass), pid the task the
 * kernel moved (a newly-idle switch without a pull: the task that
 * blocked), prev_cpu where it came from and actual_cpu where it went (-1:
 * the kernel pulled nothing), ts the migration (or the newly-idle switch),
 * waker unused.
 */
struct sr_decision {
	long id;
	enum sr_decision_kind kind;
	uint64_t ts;			/* sched_waking (wakeup) / sched_wakeup_new (fork) */
	uint64_t done_ts;		/* sched_wakeup / sched_wakeup_new */
	int pid;
	char comm[SR_COMM_LEN];
	int waker;			/* common_pid of sched_waking; fork: parent */
	char waker_comm[SR_COMM_LEN];
	int this_cpu;
	int prev_cpu;
	int actual_cpu;
	int sync;			/* the value used (inferred unless probed) */
	int kernel_cpu;			/* select_task_rq_fair's return (probe), else -1 */
	long long wake_flags;		/* from the probe, else -1 */
	int waker_exiting;
	int waker_irq;			/* sched_waking fired in interrupt context
					 * (the trace's irq-flags; 0: task or not told) */
	enum sr_skip skip;
	unsigned inferred;		/* SR_INF_* */
	/* state snapshot at the decision, for the database and the TUI */
	int this_nr, prev_nr, actual_nr;
	int idle_cpus;			/* allowed CPUs idle at the decision */
	/* every CPU at the evaluation (topo->ncpus entries), or NULL */
	const struct sr_cpu_snap *snap;
};

#define SR_REASON_LEN 256
#define SR_MAX_MODELS 16
#define SR_LB_MAX_EFFECTS 16

/* what a balance evaluation did besides choosing (compared between sides) */
enum sr_lb_outcome {
	SR_LBO_SOME_PINNED	= 1 << 0,	/* LBF_SOME_PINNED was set on some level */
	SR_LBO_HINT_SET		= 1 << 1,	/* a parent group's sgc->imbalance set */
	SR_LBO_BAIL		= 1 << 2,	/* should_we_balance bailed (newly idle) */
	SR_LBO_REDO		= 1 << 3,	/* an LBF_ALL_PINNED redo ran */
	SR_LBO_ABORT		= 1 << 4,	/* nohz pass abandoned (need_resched) */
	SR_LBO_INF_AFFINITY	= 1 << 5,	/* an inferred affinity refused a task */
	SR_LBO_NI_RANDOM	= 1 << 6,	/* a level that would pull passed over as
						 * NI_RANDOM's draw (the trace shows no pull there) */
};
/* the outcome bits that make two sides' balance decisions differ */
#define SR_LBO_COMPARE (SR_LBO_SOME_PINNED | SR_LBO_HINT_SET | SR_LBO_BAIL)

/*
 * One model's evaluation.  At a wakeup or fork, cpu is the CPU chosen.  At
 * a balance decision, cpu is the CPU that receives the first task the
 * model pulls (-1: it pulls nothing), src_cpu where that task was and task
 * its pid; lbf the SR_LBO_* bits; effect[] the group-imbalance hints
 * (sgc->imbalance) the model set or cleared, applied by the engine to the
 * model's own balance state when the decision closes.
 */
struct sr_eval {
	int cpu;
	char reason[SR_REASON_LEN];	/* tokens joined by " > " */
	int src_cpu;
	int task;
	unsigned lbf;
	int neffects;
	int effect[SR_LB_MAX_EFFECTS];	/* (group index << 1) | value */
	unsigned ni_skip;		/* bit i: the i-th domain passed over as NI_RANDOM's
					 * draw where its balance would have pulled */
	uint64_t h_load_read;		/* bit c: task_h_load() read CPU c's root cfs_rq
					 * (sr_view_h_load_jiffy()) */
	/*
	 * bit level * ncpus + cpu: that load_balance() found an imbalance
	 * and moved nothing (sd->nr_balance_failed++), or it moved or found
	 * the domain balanced (sd->nr_balance_failed = 0); simulate keeps
	 * the counts, replay does not read them.  lb_pinned: that it ended
	 * at out_all_pinned with LBF_ALL_PINNED (every task of the busiest
	 * queues pinned), which lets simulate double sd->balance_interval
	 * past max_interval
	 */
	uint64_t lb_failed, lb_reset, lb_pinned;
	/*
	 * per domain level (the CPU's i-th domain, bottom up): 1 + the
	 * migration type calculate_imbalance() chose at the first
	 * load_balance() there (0 load, 1 util, 2 task); 0: none reached
	 */
	unsigned char lb_mt[SR_MAX_DOMAIN_LEVELS];
	/*
	 * the smallest relative margin, per mille, of the comparisons of PELT
	 * signals the placement path decided by (1000: none; mainline's
	 * wakeup and fork placement only)
	 */
	unsigned margin;
};

/**
 * sr_eval_sides_differ - do a pair's two sides @o and @p differ at @d?
 *
 * At a wakeup or fork: the CPU.  At a balance decision: the pull
 * (receiving CPU, source CPU, task) or what the balance did besides
 * (SR_LBO_COMPARE: LBF_SOME_PINNED, a parent group's imbalance hint set, a
 * newly-idle bail-out), so that a pair whose effect is on the flags (seed
 * 000) or on the time spent (seed 003) shows where it acts even when both
 * sides pull nothing.  replay and simulate count divergences by it.
 */
int sr_eval_sides_differ(const struct sr_decision *d, const struct sr_eval *o,
			 const struct sr_eval *p);

/* 1 when @e matches the kernel at @d: the same CPU; for a pull also the same source */
int sr_eval_matches(const struct sr_decision *d, const struct sr_eval *e);

struct sr_model;

/**
 * sr_replay_new - an engine over @topo (borrowed; must outlive the engine)
 * @hz: CONFIG_HZ of the recording kernel (wake_wide decay), e.g. 250
 * @models: the models to evaluate at each decision (borrowed)
 */
struct sr_replay *sr_replay_new(const struct sr_topology *topo, int hz,
				const struct sr_model *const *models, int nmodels);

/**
 * sr_replay_use_probes - the trace has the recorder's select_rq probes:
 * evaluate each wakeup when select_task_rq_fair ran, with its real
 * wake_flags (WF_SYNC), pair each fork with its probe hit (WF_FORK), and
 * treat wakeups and forks without a probe hit as not placed.  Wake flags are read in the 6.x layout (EXEC 0x02, FORK 0x04,
 * TTWU 0x08, SYNC 0x10).
 */
void sr_replay_use_probes(struct sr_replay *r, int on);

/**
 * sr_replay_trace_declares_waking - the trace declares sched_waking (its
 * format is in the file).  Until a sched_waking comes in a trace that does
 * not, wakeup decisions are opened from sched_migrate_task and
 * sched_wakeup instead (schedreplay-models(7) §9.3).  Default: declared.
 */
void sr_replay_trace_declares_waking(struct sr_replay *r, int on);

/**
 * sr_replay_use_balance_probes - the trace has the recorder's balance
 * probes (schedreplay-record(1) --balance-probes): a newly idle switch at
 * which the kernel called no load_balance(CPU_NEWLY_IDLE) is not a
 * decision the models are held to (skip no_balance)
 * @r:  the engine
 * @on: 1 to use them (before the first event)
 */
void sr_replay_use_balance_probes(struct sr_replay *r, int on);

/**
 * sr_replay_use_input_probes - read the rqstat input probe (schedreplay-record(1)
 * --input-probes): a wakeup or fork placement whose select_rq follows one
 * on its CPU reads every CPU's cfs load, util, runnable, util_est,
 * nr_running, ttwu_pending and nr_idle_scan as the kernel had them, not
 * the engine's (the engine's state is left as it is)
 * @r:  the engine
 * @on: 1 to use them (before the first event; needs sr_replay_use_probes())
 */
void sr_replay_use_input_probes(struct sr_replay *r, int on);

/**
 * sr_replay_ignore_affinity - withhold what the recording says of affinity
 * (the task snapshot's masks and bound CPUs, the setaffinity probe), as if
 * another recorder had made the trace; call before the hints
 */
void sr_replay_ignore_affinity(struct sr_replay *r, int on);

/**
 * sr_replay_affinity_unseen - the trace cannot show a sched_setaffinity()
 * after its task snapshot (no setaffinity probe): a snapshot mask of every
 * CPU holds only at the snapshot, so the inferred affinity from forks
 * (schedreplay-replay(1), INFERENCE RULES) still applies to the task and
 * its children; call before the hints
 * @r:  the engine
 * @on: 1 when the trace has no setaffinity probe
 */
void sr_replay_affinity_unseen(struct sr_replay *r, int on);

/**
 * sr_replay_hint_task - what the recording's task snapshot says of a task
 * that existed when recording began: kernel thread or not (-1 unknown),
 * and the one CPU it may run on (-1: several or unknown).  Observed facts
 * replace the name-based inferences.
 */
int sr_replay_hint_task(struct sr_replay *r, int pid, int tgid, const char *comm, int kthread,
			int bound_cpu);

/**
 * sr_replay_set_touches - per model, the decision kinds (1 << kind) it is
 * evaluated at; balance decisions skip the models without a balance kind
 * (their evaluation is cpu -1, no reason).  Default: every kind.
 */
void sr_replay_set_touches(struct sr_replay *r, const unsigned *touches);

/* the decisions sr_replay_keep_snapshots() gives a snapshot */
enum sr_snapshots {
	SR_SNAP_NONE,
	SR_SNAP_ALL,		/* every decision */
	/*
	 * the wakeups and forks where two models chose apart (at the others
	 * no pair's sides diverge), and every balance decision (which of its
	 * hypotheses holds, and so whether its sides diverge, comes later)
	 */
	SR_SNAP_DIVERGENT,
};

/**
 * sr_replay_keep_snapshots - give @which decisions a copy of every CPU's
 * state as the models saw it (struct sr_decision.snap); costs a copy per
 * CPU and decision.  Default: SR_SNAP_NONE.
 */
void sr_replay_keep_snapshots(struct sr_replay *r, enum sr_snapshots which);

struct sr_why;
/**
 * sr_replay_keep_why - record at each decision what the first base model
 * read (include/schedreplay/why.h): wake_wide's flips and factor, the task's
 * PELT signal, the loads wake_affine compares, the groups the fork and
 * balance paths compared; costs a copy of a few numbers per evaluation
 */
void sr_replay_keep_why(struct sr_replay *r, int on);

/**
 * sr_replay_why - during the decision callback: what the first base model
 * read at that decision, or NULL (skipped, or not recorded)
 */
const struct sr_why *sr_replay_why(const struct sr_replay *r);

/**
 * sr_replay_hint_group - the snapshot's autogroup of a task (its
 * /proc/PID/autogroup id and nice; @autogroup <= 0: the root task group),
 * where autogroup is on and the task is in the root cpu cgroup
 * (schedreplay-models(7) §3.5)
 * Return: 0, or -SR_E_NOMEM.
 */
int sr_replay_hint_group(struct sr_replay *r, int pid, long autogroup, int nice);

/**
 * sr_replay_ngroups - the task groups the hints named
 * Return: how many (0: a flat hierarchy).
 */
int sr_replay_ngroups(const struct sr_replay *r);

/**
 * sr_replay_hint_affinity - the snapshot's Cpus_allowed_list of a task as a
 * mask of CPUs 0-63 (CPUs 64 and up count as allowed)
 */
int sr_replay_hint_affinity(struct sr_replay *r, int pid, uint64_t mask);

/*
 * Called once per finished decision with each model's evaluation
 * (evals[i] for models[i]).  A non-zero return stops the replay.
 */
typedef int (*sr_decision_cb)(const struct sr_decision *d, const struct sr_eval *evals,
			      int nevals, void *data);

void sr_replay_set_callback(struct sr_replay *r, sr_decision_cb cb, void *data);

/**
 * sr_replay_feed - apply one event
 *
 * An event with a CPU number (its own, target, orig, dest, prev or returned
 * cpu) outside the topology is ignored: the trace readers refuse CPUs beyond
 * the trace's count, so only a trace that declares no count gets here.
 *
 * Return: 0, or the callback's non-zero value, or a negated SR_E_* code.
 */
int sr_replay_feed(struct sr_replay *r, const struct sr_event *ev);

/**
 * sr_replay_finish - close decisions still open at the end of the trace
 */
int sr_replay_finish(struct sr_replay *r);

void sr_replay_free(struct sr_replay *r);

/* state accessors for models (never mutate) */
const struct sr_task *sr_replay_task(const struct sr_replay *r, int pid);

/* CPU load as the era reads it: mainline cpu_load (includes blocked),
 * v4.15 weighted_cpuload (enqueued only) */
long sr_view_cpu_load(const struct sr_view *v, int cpu, int runnable_only);

/**
 * sr_view_affine_load - cpu_load() of @cpu as wake_affine_weight() reads it:
 * over the view's task groups where it has them (schedreplay-models(7)
 * §3.5), else sr_view_cpu_load()
 * Return: the load, on the scale of a nice-0 task's weight.
 */
long sr_view_affine_load(const struct sr_view *v, int cpu, int runnable_only);

/**
 * sr_view_group_load - a root cfs_rq load_avg of @cpu read as of some time
 * (@flat: the engine's flat sum, e.g. as last updated) with the task
 * groups' entities in place of their tasks (schedreplay-models(7) §3.5),
 * the groups as of the view's decision
 * Return: that load; @flat itself in a flat view.
 */
long sr_view_group_load(const struct sr_view *v, int cpu, long flat);

/**
 * sr_view_task_h_load - task_h_load(@t): its load_avg scaled by its group's
 * share of the root's load on task_cpu(@t); with @runnable_only (v4.15's
 * runnable load) the flat hierarchy, as sr_view_affine_load()
 * Return: that load; in a flat view (no task groups) load_avg * h_load /
 * (cpu_load() + 1) on task_cpu(@t), h_load the root's cached value
 * (sr_rq.h_load) when it was taken in the view's jiffy, else cpu_load();
 * @t's own load_avg in the root group of a grouped view or with
 * @runnable_only, 0 for no task.
 */
long sr_view_task_h_load(const struct sr_view *v, const struct sr_task *t, int runnable_only);

/**
 * sr_view_h_load_jiffy - the view's jiffy as sr_rq.h_load_jiffy counts it:
 * now / (1 s / hz) + 1, the jiffy boundaries taken at multiples of the tick
 * in the trace's clock (their phase is not traced)
 * Return: that value, 0 when the view has no hz.
 */
uint64_t sr_view_h_load_jiffy(const struct sr_view *v);
/* cpu_util_cfs(): util_avg, with @util_est max(util_avg, util_est), capped */
unsigned long sr_view_cpu_util(const struct sr_view *v, int cpu, int util_est);
/* the cpu's root cfs_rq signal decayed to the decision time (a copy) */
void sr_view_cpu_signal(const struct sr_view *v, int cpu, struct sr_pelt *out);
/* the cpu's root cfs_rq signal as another CPU reads it: as last updated (view.c) */
void sr_view_cpu_signal_read(const struct sr_view *v, int cpu, struct sr_pelt *out);
int sr_view_idle_cpu(const struct sr_view *v, int cpu);
int sr_view_allowed(const struct sr_view *v, const struct sr_task *p, int cpu);

/* migration classes (schedreplay-models(7) §2.4) */
enum sr_migration_kind {
	SR_MIG_WAKEUP,
	SR_MIG_FORK,
	SR_MIG_LB_PERIODIC,
	SR_MIG_LB_NEWIDLE,
	SR_MIG_LB_NOHZ,
	SR_MIG_ACTIVE,
	SR_MIG_AFFINITY,
	SR_MIG_UNEXPLAINED,
	SR_MIG__COUNT,
};

const char *sr_migration_kind_name(enum sr_migration_kind k);

/* one sched_migrate_task, classified */
struct sr_migration {
	uint64_t ts;
	int pid;
	char comm[SR_COMM_LEN];
	int orig_cpu, dest_cpu;
	int emit_cpu;			/* the CPU that emitted the event */
	enum sr_migration_kind kind;
	long decision;			/* wakeup/fork: its decision's id, else -1 */
};

/*
 * Called once per classified migration (a pull is classified at the
 * puller's next switch, so calls can come out of time order).  A non-zero
 * return stops the replay.
 */
typedef int (*sr_migration_cb)(const struct sr_migration *m, void *data);

void sr_replay_set_migration_callback(struct sr_replay *r, sr_migration_cb cb, void *data);

/*
 * Facts the trace proves that contradicted the engine's state; the engine
 * then follows the trace and counts them (sr_replay_stats.reconciled)
 */
enum sr_reconcile {
	SR_REC_NEWIDLE_PULL,	/* a newidle pull: the puller's queue was empty */
	SR_REC_IDLE_SWITCH,	/* a newly idle switch to the idle task: the queue was empty */
	SR_REC_PROBE,		/* select_rq ran: the task was on no queue, task_cpu() prev_cpu */
	SR_REC_SWITCH,		/* a switch: prev ran on that CPU, next was queued there */
	SR_REC_DELAYED,		/* 6.12+: select_rq ran for a task taken as delayed, or
				 * did not for one taken as dequeued, or a balance
				 * moved one taken as dequeued */
	SR_REC__COUNT,
};

/* the database's reconciled.kind text */
const char *sr_reconcile_name(enum sr_reconcile k);

/* the rqstat fields the engine's inputs are compared on (struct sr_kin_err) */
enum sr_kin_field { SR_KIN_LOAD, SR_KIN_UTIL, SR_KIN_RUNNABLE, SR_KIN_UTIL_EST };

/*
 * The engine's own inputs against a probe's, per CPU read: [0] CPUs the
 * kernel ran tasks on, [1] idle ones (its nr_running 0); per field (enum
 * sr_kin_field) the CPUs compared, the sum of engine - kernel and of its
 * absolute value; and the CPUs whose nr_running the engine had otherwise
 */
struct sr_kin_err {
	uint64_t n[2][4];
	int64_t err[2][4], abs[2][4];
	uint64_t cpus[2], nr_differs[2];
	uint64_t warmup;		/* probe events in the trace's warm-up, left out */
	/*
	 * SIS_UTIL's budget (sd_llc_shared->nr_idle_scan) where the probe has
	 * it and the engine kept one: CPUs compared, the same value, and the
	 * same answer to whether select_idle_cpu() scans at all (budget > 0)
	 */
	uint64_t scan_n, scan_same, scan_go_same;
};

/*
 * The warm-up of those comparisons: the CPUs' PELT history from before the
 * trace is unknown to the engine and decays by half every LOAD_AVG_PERIOD
 * (32 periods of 1024 us); after seven half-lives what is left of up to
 * SCHED_CAPACITY is below 8
 */
#define SR_KIN_WARMUP_NS	(7ULL * 32 * 1024 * 1000)

struct sr_replay_stats {
	uint64_t events;
	uint64_t decisions[SR_DEC__COUNT];	/* by kind */
	uint64_t skipped[8];		/* by enum sr_skip */
	uint64_t probe_hits, probe_unmatched;
	uint64_t probe_flips;		/* select_rq events with the flips field */
	uint64_t probe_pelt;		/* wakeups whose task PELT the probe gave */
	uint64_t probe_prevload;	/* wakeups whose prev_cpu load the probe gave */
	uint64_t kernel_inputs;		/* placements that read every CPU from rqstat */
	uint64_t kernel_inputs_partial;	/* rqstat of fewer CPUs than the topology: not read */
	/* the engine's own inputs against rqstat's at those placements */
	struct sr_kin_err kin;
	/*
	 * and against lb_rqstat's (find_busiest_group()'s entry) at each
	 * load_balance(), the other CPUs than the balancing one, as the
	 * balance reads them
	 */
	struct sr_kin_err kin_lb;
	uint64_t lb_inputs;		/* lb_rqstat events compared */
	uint64_t lb_kernel_inputs;	/* balance evaluations that read every CPU from lb_rqstat */
	/*
	 * lb_task (validation): balances whose first model's migration type
	 * was compared with the kernel's, by the kernel's (0 load, 1 util,
	 * 2 task), and how many agreed
	 */
	uint64_t lb_mt_n[3], lb_mt_agree[3];
	uint64_t probe_opened;		/* wakeups opened at their probe (no sched_waking) */
	uint64_t probe_nopid;		/* wakeup hits (or hits without wake_flags) without
					 * the pid field: no wakeup to belong to without
					 * sched_waking */
	uint64_t fork_no_select;	/* forks without select_rq in a probed trace */
	uint64_t delayed_sleeps;	/* sleeps kept queued (6.12+ delayed dequeue) */
	uint64_t delayed_woken;		/* of those, woken still queued (ttwu_runnable) */
	/* newidle decisions (not skipped) at which load_balance ran at sd->level i */
	uint64_t newidle_level[8];
	/* newidle decisions at which a model passed a level over as NI_RANDOM's draw */
	uint64_t ni_random;
	/* balance_newidle decisions at which it did, below the level that pulled */
	uint64_t ni_random_pull;
	/*
	 * NI_RANDOM without the probes' levels, the first model, per domain
	 * index: newly idle switches and pulls at which it passed the domain
	 * over where its balance would have pulled (ni_skip_level), and newly
	 * idle pulls at that domain it made as the kernel did (ni_pull_level)
	 */
	uint64_t ni_skip_level[SR_MAX_DOMAIN_LEVELS];
	uint64_t ni_pull_level[SR_MAX_DOMAIN_LEVELS];
	/* self-pulls that followed another at once: the same balance, no decision */
	uint64_t lb_batched;
	uint64_t reconciled[SR_REC__COUNT];	/* by enum sr_reconcile */
	uint64_t migrations[SR_MIG__COUNT];
	uint64_t tasks_seen;
	uint64_t idle_scan_updates;	/* inferred LLC balances that wrote nr_idle_scan */
	uint64_t idle_scan_probed;	/* LLC balances the balance probes showed, the same */
	/* balances inferred from the tick for the sgc->imbalance marks (no balance probes) */
	uint64_t lb_inferred;
	uint64_t lb_inferred_marks;	/* ... at which the first model marked a group */
};

const struct sr_replay_stats *sr_replay_borrow_stats(const struct sr_replay *r);

struct sr_kgen;
/**
 * sr_replay_set_kernel - the recording kernel's generation (schedreplay/kgen.h),
 * whose behaviours the engine's bookkeeping follows (delayed dequeue, EEVDF
 * lag) and the models read through struct sr_view; before the first event.
 * Without it: none of them (6.1).
 */
void sr_replay_set_kernel(struct sr_replay *r, const struct sr_kgen *g);

#endif
