/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The engine's internals, shared by state.c (applying events) and
 * decision.c (the decision points).  Nothing under the models (fair.c,
 * balance.c, patch*.c) includes it: they see the engine's state only
 * through struct sr_view.
 */
#ifndef SCHEDREPLAY_REPLAY_LOCAL_H
#define SCHEDREPLAY_REPLAY_LOCAL_H

#include "schedreplay/balance.h"
#include "schedreplay/kgen.h"
#include "schedreplay/model.h"
#include "schedreplay/replay.h"
#include "schedreplay/why.h"
#include "depend-local.h"

/*
 * A fork's select_rq probe on one CPU, waiting for the sched_wakeup_new it
 * belongs to: wake_up_new_task() runs select_task_rq() and then activates
 * the child with interrupts off, so that event is the next fork on the CPU.
 */
struct sr_fork_probe {
	int valid;
	struct sr_event ev;		/* the select_rq event (prev_cpu, wake_flags, pid, ...) */
	int ret;			/* select_rq_ret's cpu, -1 not seen */
	/* the fork decision opened at this CPU's last sched_process_fork,
	 * closed at the child's sched_wakeup_new (state.c, fork_open) */
	struct sr_pending *pd;
};

/*
 * cfs_rq->removed (schedreplay-models(7) §3.4): the averages of tasks that
 * died on a CPU, which its root cfs_rq still carries until its next update
 */
struct sr_removed {
	unsigned long load, util, runnable;
	uint64_t ts;			/* the last removal */
	int nr;				/* 0: nothing pending */
};

/* a task group below the root (tgroup.c): an autogroup and its tg->shares */
struct sr_tgroup {
	long id;
	unsigned long shares;
};

/*
 * A group's sched_entity on one CPU as the kernel keeps it (tgroup.c):
 * its weight as update_cfs_group() last set it and its own PELT signal
 * (se->avg: load_sum unweighted, the time it was on the root's queue, with
 * what update_tg_cfs_load() propagated into it), brought forward at each
 * change of its group's queue on that CPU
 */
struct sr_tg_se {
	struct sr_pelt pelt;
	unsigned long weight;		/* se->load.weight, scaled down */
	unsigned char on_rq;		/* since the last update: its cfs_rq had a task */
	unsigned char running;		/* ... and one of them was the CPU's curr */
	unsigned char init;		/* 0: not touched yet (sr_tg_compute() estimates) */
};

/* one group's cfs_rq on one CPU, summed from the engine's tasks (tgroup.c) */
struct sr_tg_grq {
	unsigned long load;		/* avg.load_avg: the attached tasks' load_avg */
	unsigned long weight;		/* load.weight: the queued tasks' weights */
	uint64_t wsum;			/* avg.load_sum: weight * load_sum, summed */
	uint64_t lsum;			/* the tasks' unweighted load_sum, summed */
	uint32_t usum;			/* their util_sum, summed */
	unsigned long frac;		/* their load_avg / weight, of SR_SCHED_CAPACITY, summed */
	int running;			/* one of them is the CPU's curr */
};

/* how many closed sr_pending blocks sr_dec_close() keeps to reuse */
#define SR_PENDING_SPARES 16

struct sr_pending {
	struct sr_decision d;
	int selected;			/* the select_rq probe bound to it */
	int evaluated;			/* a fork evaluated before its sched_wakeup_new */
	int delay_guess;		/* no probe: skipped as delayed unless the wakeup moves it */
	int pin_guess;			/* fork-pinned (aff_fork): skipped as bound unless it moves */
	int prev_idle;			/* prev_cpu idle (ttwu_pending none) as the evaluation saw it */
	/* the waker's record_wakee() state before this wakeup's (no probe):
	 * put back where the wakeup proves no select_task_rq() ran */
	int flips_saved;		/* 1: the fields below hold it */
	unsigned flips_was;
	uint64_t flip_decay_was;
	int last_wakee_was;
	const struct sr_task *cur;	/* the waker, for a deferred evaluation */
	/* what the first base model read (sr_replay_keep_why); the probe's
	 * sources are set before the evaluation */
	struct sr_why why;
	/* last: sr_dec_open() allocates room for the models evaluated only */
	struct sr_eval ev[SR_MAX_MODELS];
};

/*
 * A balance decision open on one CPU (replay/state.c): evaluated when its
 * inputs were there, under up to two hypotheses the trace settles later
 * (newidle or periodic for a pull by a busy CPU; a wakeup arriving during
 * a newidle balance or not), closed when it is settled.
 */
struct sr_lb_pending {
	int open;
	int nhyp;
	struct sr_decision d;
	struct sr_lb_input in[2];
	struct sr_eval *ev[2];		/* nmodels each */
	uint64_t gap_start;		/* newidle: the CPU's previous event */
	struct sr_why why[2];		/* per hypothesis (sr_replay_keep_why) */
};

/* what an lb_task showed of one load_balance() */
#define SR_LBT_MAX 8
struct sr_lb_task_seen {
	int n;
	struct {
		uint64_t ts;
		int level;		/* sd->level */
		int mt;			/* migration_type: 0 load, 1 util, 2 task, 3 misfit */
	} b[SR_LBT_MAX];
};

/* the domain rank of sd->level @level on @cpu (bit i: its i-th domain), 0 not known */
unsigned sr_dec_lb_rank(const struct sr_replay *r, int cpu, int level);

struct sr_replay {
	uint64_t first_ts;			/* the first event fed (sr_replay_feed) */
	/* closed wakeup and fork decisions kept for the next ones (decision.c) */
	struct sr_pending *spare[SR_PENDING_SPARES];
	int nspare;
	const struct sr_topology *topo;
	int hz;
	const struct sr_model *const *models;
	int nmodels;
	sr_decision_cb cb;
	void *cb_data;

	struct sr_rq *rq;
	struct sr_task *idle;		/* per-cpu swapper, for record_wakee in IRQ */
	struct sr_task **tasks;		/* open addressing on pid */
	size_t cap, ntasks;

	long next_id;
	uint64_t now;
	int probes;
	int balance_probes;		/* use the balance_rq probe events */
	int waking_declared;		/* the trace declares sched_waking */
	int waking_seen;		/* a sched_waking came */
	unsigned *nib_levels;		/* per cpu: 1 << sd->level of each newly idle
					 * load_balance since its last switch (bit 31:
					 * one without a level) */
	unsigned lb_levels_seen;	/* 1 << sd->level of every balance_rq event */
	unsigned *pb_levels;		/* per cpu: 1 << sd->level of each load_balance
					 * of its periodic pass under way (bit 31: one
					 * without a level) */
	uint64_t *pb_ts;		/* per cpu: that pass's last balance_rq */
	/* per cpu * SR_MAX_DOMAIN_LEVELS: the window ni_run_estimate() reads */
	unsigned *ni_call, *ni_pull;
	int no_affinity;		/* the trace's masks are withheld */
	int aff_unseen;			/* no setaffinity probe: masks change unseen */
	struct sr_kgen kgen;		/* the recording kernel's generation */
	enum sr_snapshots snapshots;
	int keep_why;			/* record the inputs that decided (why.h) */
	const struct sr_why *why_cur;	/* the closing decision's, during the callback */
	struct sr_task **await;		/* per cpu: the wakee whose select_rq comes next */
	struct sr_pending **selected;	/* per cpu: the decision select_rq_ret answers */
	struct sr_fork_probe *fork_probe;	/* per cpu: a fork's probe, its wakeup_new next */
	/*
	 * The rqstat input probe (sr_replay_use_input_probes(), decision.c
	 * kin_apply()): per cpu the last event and its KIN_* state (fresh
	 * until a select_rq there takes it; a fork's until the fork is
	 * evaluated); kin_cur the one the decision under evaluation reads,
	 * kin_rq the runqueues of its view.  Allocated at the first event.
	 */
	int input_probes;
	struct sr_rqstat *kin;
	unsigned char *kin_state;
	const struct sr_rqstat *kin_cur;
	struct sr_rq *kin_rq;
	/*
	 * lb_rqstat (find_busiest_group()'s entry): per balancing cpu the last
	 * one, its time (0: none, or a later balance_rq began another
	 * load_balance()) and the id of the decision that read it (-1: none
	 * yet); the first balance decision opened on that cpu within a tick
	 * reads it (decision.c lb_kernel_inputs())
	 */
	struct sr_rqstat *lbk;
	uint64_t *lbk_ts;
	int64_t *lbk_owner;
	/*
	 * lb_task (can_migrate_task(), the first of each load_balance()):
	 * per dst cpu the kernel's migration types of the balances since
	 * the last balance decision there (decision.c lb_mt_compare());
	 * lbt_armed: a balance_rq came and its first lb_task has not
	 */
	struct sr_lb_task_seen *lbt;
	unsigned char *lbt_armed;
	/*
	 * sd->nr_balance_failed as the last lb_task at each domain showed it
	 * (level * ncpus + cpu; 0 where none did), the balances' nr_failed
	 * once one did (lbt_nbf_seen; lb_evaluate())
	 */
	unsigned char *lbt_nbf;
	int lbt_nbf_seen;
	struct sr_removed *removed;		/* per cpu: load of tasks that died or woke
					 * elsewhere, not yet removed */
	int nremoved;				/* CPUs with a removal pending */
	/*
	 * left out of avg_vruntime() during a switch (state.c, delay_switch()):
	 * [0] the task a newidle balance pulled for it, [1] the blocking prev
	 * once it has left the queue, before the pick
	 */
	const struct sr_task *v_skip[2];
	uint64_t removed_next;			/* no pending removal is due before */
	/*
	 * per cpu: what the engine's tick rule (removed_due()) took off since
	 * the trace last showed that CPU; and how often a probe's prevload
	 * showed such a removal still on (held) or gone (state.c, tick_held())
	 */
	struct sr_removed *tick_rm;
	struct sr_pelt *tick_saved;		/* per cpu: fork_inputs_as_read()'s */
	unsigned tick_rm_held, tick_rm_gone;
	/* per cpu: ksoftirqd/N woken and not yet switched in (softirq_tick()) */
	unsigned char *ksoftirqd_woken;

	/* self-pull migrations waiting to be told newidle or periodic */
	struct sr_migration *pull;	/* per cpu; pid 0: none */
	sr_migration_cb mig_cb;
	void *mig_data;
	struct sr_replay_stats stats;

	/* load balancing */
	unsigned touches[SR_MAX_MODELS];	/* 1 << kind the model is evaluated at */
	/* per model: the first model placing wakeups and forks as it does */
	int same_place[SR_MAX_MODELS];
	/*
	 * per model: the base model whose placement a side takes where the
	 * base's evaluation did not reach what the side changes (-1: none),
	 * and what it changes (depend-local.h)
	 */
	int dep_base[SR_MAX_MODELS];
	unsigned dep_diff[SR_MAX_MODELS];
	unsigned dep_traced;			/* bit i: model i is evaluated traced */
	struct sr_dep_model dep_model[SR_MAX_MODELS];	/* ... through this copy */
	struct sr_task **lb_head, **lb_tail;	/* per cpu: cfs_tasks, MRU first */
	unsigned char *lb_imb[SR_MAX_MODELS];	/* per model: sgc->imbalance */
	int lb_hints;				/* sr_dec_lb_hints() has kept them */
	int lb_marks_inferred;			/* ... or sr_dec_lb_infer() */
	int base_of[SR_MAX_MODELS];		/* per model: its base model's index (itself: a base) */
	struct sr_lb_scratch *lb_scratch;	/* the models' balance scratch */
	struct sr_lb_pending **lbp;		/* per cpu, allocated when first used */
	uint64_t *last_local;			/* per cpu: ts of its last event */
	uint64_t *nohz_last;			/* per cpu: its last nohz migration */
	uint64_t *switch_ts;			/* per cpu: its last switch */
	uint64_t *pull_gap;			/* per cpu: its event before its pending pull */
	uint64_t *pull_batch;			/* per cpu: ts of its last self-pull */
	uint64_t *last_kind_ts;			/* per cpu: its last event but unread ones and lb probes */
	int *pull_task;				/* per cpu: the task in whose context its pending pull came, 0 */
	unsigned char *pull_ran;		/* per cpu: that task emitted an event since, not a switch */
	unsigned char *pull_delayed;		/* per cpu: its pending pull moved a sched_delayed task */
	/*
	 * per cpu, with the balance probes: 1 + the idle type of its last
	 * load_balance() on itself (balance_rq), and when; its pending
	 * pull's, 0: not shown
	 */
	unsigned char *lb_probe_idle;
	uint64_t *lb_probe_ts;
	unsigned char *pull_probed;
	unsigned char *pull_again;		/* per cpu: a pull again in its pending pull's task context (pull_again()) */
	long nwaking;				/* tasks between waking and wakeup */
	/* the inferred LLC-level balances (idle-scan.c) */
	uint64_t jiffy_seen;			/* the last jiffy replayed, 0: none yet */
	uint64_t *lb_llc_last;			/* per cpu: the jiffy of its last one */
	/*
	 * the balances inferred for the sgc->imbalance marks, without the
	 * balance probes: per cpu the clock
	 */
	struct sr_lb_clock *lb_clk;
	int lb_infer;				/* they are inferred (set at the first jiffy) */
	unsigned char *ticking;			/* per cpu: scratch */
	/* task groups (tgroup.c): the autogroups of the task snapshot */
	struct sr_tgroup *tgroups;
	int ntgroups;
	struct sr_task **tg_tasks;		/* the tasks with tg > 0 (tg_pos indexes it) */
	size_t ntg_tasks, tg_tasks_cap;
	struct sr_tg_cpu *tgc;			/* ntgroups * ncpus, at the last decision */
	size_t tgc_cap;
	long *tg_root;				/* per cpu: cpu_load() over the groups */
	long *tg_sub, *tg_add;			/* per cpu: what that took out, put in */
	struct sr_tg_view tgv;
	struct sr_tg_se *tgse;			/* ntgse * ncpus: the group entities */
	int ntgse;
	struct sr_tg_grq *tg_grq;		/* per cpu: scratch of one group's cfs_rqs */
	uint64_t *prevload_ts;			/* per cpu: when a probe gave its cpu_load() */
};

/**
 * sr_idle_scan_advance - replay the jiffies up to @now (before the event at
 * @now is applied): the LLC-level balances inferred at each, which write
 * each LLC's SIS_UTIL budget (struct sr_rq sis_nr), and without the
 * balance probes the balances at every level that keep the models'
 * sgc->imbalance marks
 */
void sr_idle_scan_advance(struct sr_replay *r, uint64_t now);

/**
 * sr_idle_scan_cpu_idle - @cpu switched to idle: sched_balance_newidle() (6.12;
 * newidle_balance() 6.1) moves rq->next_balance forward to the soonest of
 * its levels' sd->last_balance + the idle interval, whether it balanced or
 * not ("Move the next balance forward"), so that the idle CPU's next
 * periodic balance (the nohz pass's) comes at the idle intervals
 */
void sr_idle_scan_cpu_idle(struct sr_replay *r, int cpu);

/**
 * sr_idle_scan_balanced - a balance_rq probe of a periodic or nohz balance
 * of @cpu at sd->level @level (@fresh: in another CPU's nohz pass): at the
 * LLC's level, update_idle_cpu_scan() at @now
 * @r:     the replay
 * @cpu:   env->dst_cpu
 * @level: the probe's sd->level
 * @fresh: every CPU's blocked averages were just updated
 * @now:   the probe's time
 */
void sr_idle_scan_balanced(struct sr_replay *r, int cpu, int level, int fresh, uint64_t now);


#define BALANCE_KINDS ((1u << SR_DEC_LB_PERIODIC) | (1u << SR_DEC_LB_NEWIDLE) | \
		       (1u << SR_DEC_LB_NOHZ) | (1u << SR_DEC_NEWIDLE))

/*
 * Inferred affinity (schedreplay-replay(1), INFERENCE RULES): where the
 * trace does not tell a task's mask, a task a newly idle balance would have
 * pulled, while the kernel pulled nothing, was refused (aff_refused);
 * AFF_REFUSALS refusals on the same CPU, over more than a tick (with the
 * balance probes' levels, one), pin it to the CPUs it was seen on since its
 * mask may last have changed, for newly idle balances only (balance.c).
 * Seeing it queued or running on a CPU allows that CPU again; a migration
 * it makes itself (setaffinity, exec) or the stopper makes for it starts
 * afresh.
 */
#define AFF_REFUSALS 3

/* ---- the task table and task predicates (state.c and decision.c) ---- */

/* struct sr_replay kin_state bits */
#define KIN_FRESH 1	/* no select_rq has taken it yet */
#define KIN_FORK 2	/* a fork's select_rq took it, for the fork's evaluation */

static inline size_t slot_of(size_t cap, int pid)
{
	return ((unsigned)pid * 2654435761u) & (cap - 1);
}

static inline struct sr_task **task_slot(const struct sr_replay *r, int pid)
{
	size_t i = slot_of(r->cap, pid);

	while (r->tasks[i] && r->tasks[i]->pid != pid)
		i = (i + 1) & (r->cap - 1);
	return &r->tasks[i];
}

/* a CPU number the per-CPU state has */
static inline int cpu_in(const struct sr_replay *r, int cpu)
{
	return cpu >= 0 && cpu < r->topo->ncpus;
}

static inline int aff_unknown(const struct sr_task *t)
{
	return !t->aff_observed && !t->allowed_known && t->bound_cpu < 0;
}

/* the wakeup mask rule (aff_wake_refused()) starts afresh: its count and its pin go */
static inline void aff_wake_forget(struct sr_task *t)
{
	t->aff_wake = 0;
	t->aff_wake_refusals = 0;
}

static inline int is_fair(const struct sr_task *t)
{
	return t->prio >= 100;
}

static inline int on_rq(const struct sr_task *t)
{
	return t->state == SR_TASK_RUNNING || t->state == SR_TASK_QUEUED;
}

/*
 * The decision points (replay/decision.c): state.c calls these, they call
 * the models and never state.c.
 */
void sr_dec_pending_free(struct sr_pending *pd);

/*
 * 6.12+: the delayed tasks of @cpu a pick the trace does not show has
 * dequeued by @now (replay/state.c); the decision points run it on every
 * CPU before a view is taken
 */
void sr_state_delay_expire(struct sr_replay *r, int cpu, uint64_t now);

/* sr_state_task_get - the task @pid, created if unseen; NULL without memory */
struct sr_task *sr_state_task_get(struct sr_replay *r, int pid);

/**
 * sr_tg_set - put @t in task group @g (0: the root task group), keeping the
 * list of grouped tasks sr_tg_compute() reads
 * Return: 0, or -SR_E_NOMEM (then @t stays where it was).
 */
int sr_tg_set(struct sr_replay *r, struct sr_task *t, int g);

/*
 * sr_tg_update - task group @g's entity on @cpu after its cfs_rq changed at
 * @now (tgroup.c): brought forward over the time since its last update as
 * it was then, @prop propagated into it (update_tg_cfs_load(): > 0 the
 * load_sum of a task attached, < 0 a task detached, 0 none), and with
 * @reweight (an enqueue or a dequeue: update_cfs_group()) its weight
 * recomputed.  A no-op for the root task group (@g 0) or without memory.
 */
void sr_tg_update(struct sr_replay *r, int g, int cpu, uint64_t now, long long prop, int reweight);

/**
 * sr_tg_compute - the task groups' state at @now for a decision's view
 * (tgroup.c, schedreplay-models(7) §3.5), kept in @r until the next call
 * Return: the groups, or NULL where there are none (a flat hierarchy) or
 * without memory.
 */
const struct sr_tg_view *sr_tg_compute(struct sr_replay *r, uint64_t now);
/* a wakeup or fork decision for @p, not yet evaluated */
struct sr_pending *sr_dec_open(struct sr_replay *r, struct sr_task *p,
			       enum sr_decision_kind kind, uint64_t now);
/* the decision's this_nr, prev_nr and idle_cpus with the state as it is */
void sr_dec_snapshot(struct sr_replay *r, struct sr_decision *d, const struct sr_task *p,
		     uint64_t now);
/* evaluate every model on the state as it is now */
/* fill r->same_place and r->dep_* from r->models (once, when the engine is made) */
void sr_dec_same_placement(struct sr_replay *r);
void sr_dec_evaluate(struct sr_replay *r, struct sr_pending *pd, const struct sr_task *p,
		     const struct sr_task *cur, uint64_t now);
/* the kernel chose @actual: hand the decision to the callback and free it */
int sr_dec_close(struct sr_replay *r, struct sr_pending *pd, int actual, uint64_t now);
/* the open balance decision of @cpu: hypothesis @h held, its kind is @kind */
void sr_dec_ni_init(struct sr_replay *r);
int sr_dec_lb_close(struct sr_replay *r, int cpu, int h, enum sr_decision_kind kind,
		    uint64_t now);
/* a newidle decision still waiting for a remote wakeup: none came */
int sr_dec_lb_close_newidle(struct sr_replay *r, int cpu, uint64_t now);
/* the open balance decision of @cpu was none (a pull by sched_setaffinity()): dropped */
void sr_dec_lb_drop(struct sr_replay *r, int cpu);
/* an lb_rqstat on @cpu: the engine's other CPUs against the kernel's (stats.kin_lb) */
void sr_dec_lb_inputs(struct sr_replay *r, const struct sr_rqstat *k, int cpu);
/* a pull by @cpu (the migration emitted on the destination by @emitter: pid, 0 idle, -1 not known) */
int sr_dec_lb_open_pull(struct sr_replay *r, const struct sr_task *p, int orig, int cpu,
			int emitter, uint64_t now);
/* a nohz pass on the idle @ilb, its first pull @orig -> @dest: evaluated and closed */
int sr_dec_lb_nohz(struct sr_replay *r, const struct sr_task *p, int ilb, int orig, int dest,
		   uint64_t now);
/* a newly idle switch on @cpu away from the blocking @prev */
int sr_dec_lb_newidle(struct sr_replay *r, struct sr_task *prev, int cpu, uint64_t now);
/* the sgc->imbalance marks of a periodic or nohz balance the probes show */
void sr_dec_lb_hints(struct sr_replay *r, int cpu, int level, uint64_t now);
/* a balance pass inferred from the tick, for the sgc->imbalance marks alone */
void sr_dec_lb_infer(struct sr_replay *r, int cpu, unsigned pass, int idle, uint64_t now,
		     unsigned *done, unsigned *failed, unsigned *pinned);
/* a wakeup lands on @cpu: does it settle an open newidle decision there? */
int sr_dec_lb_wakeup_lands(struct sr_replay *r, const struct sr_task *p, int cpu, uint64_t now);

#endif
