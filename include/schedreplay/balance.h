/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The load-balance surrogate (replay/balance.c, schedreplay-models(7) §6-§8):
 * what one balance evaluation reads (struct sr_lb_input, from the engine),
 * the state of one load_balance() call (struct sr_lb_env) and the helpers
 * the balance functions of base models and patch pairs share.  Groups are
 * classified by nr_running and the imbalance is a number of tasks (a busy
 * local group's migrate_load is in load where the engine keeps
 * sd->nr_balance_failed: simulate, sr_lb_input nr_failed);
 * overloaded groups compare their CPUs' PELT load_avg (cpu_load(), the
 * mainline model) or the queued tasks' weights (v4.15).  The per-model
 * group-imbalance hints
 * (sgc->imbalance) live in the engine and change only through the
 * effects an evaluation returns.
 */
#ifndef SCHEDREPLAY_BALANCE_H
#define SCHEDREPLAY_BALANCE_H

#include <stdint.h>

#include "schedreplay/model.h"

/* enum cpu_idle_type */
enum sr_lb_idle {
	SR_LB_NOT_IDLE,
	SR_LB_IDLE,
	SR_LB_NEWLY_IDLE,
};

/* load_balance() flags (LBF_*) */
enum sr_lbf {
	SR_LBF_ALL_PINNED	= 1 << 0,
	SR_LBF_DST_PINNED	= 1 << 1,
	SR_LBF_SOME_PINNED	= 1 << 2,
	/* calculate_imbalance() chose migrate_load (can_migrate_task(), 6.14+) */
	SR_LBF_MIGRATE_LOAD	= 1 << 3,
	/* calculate_imbalance() chose migrate_util: env->imbalance is spare util */
	SR_LBF_MIGRATE_UTIL	= 1 << 4,
};

/* what the engine hands one balance evaluation */
struct sr_lb_input {
	enum sr_decision_kind kind;	/* SR_DEC_LB_* or SR_DEC_NEWIDLE */
	int cpu;			/* the balancing CPU: dst, or the ILB of a nohz pass */
	enum sr_lb_idle idle;		/* periodic: IDLE or NOT_IDLE; newidle: NEWLY_IDLE */
	int curr_leaving;		/* newidle: cpu's curr is blocking (cpu not idle) */
	/* taken off cpu's counts: the blocking curr, wakeups that land later */
	int nr_sub, cfs_sub;
	long load_sub;
	long util_est_sub;		/* and off its util_est (a blocking task's
					 * util_avg stays, as blocked util) */
	int arrival;			/* a wakeup for cpu arrives during the balance: it
					 * is visible (ttwu_pending) after the first
					 * find_busiest round */
	const unsigned char *sgc_imb;	/* the model's sgc->imbalance, level * ncpus + first cpu */
	/*
	 * sd->nr_balance_failed, level * ncpus + cpu: simulate keeps it from
	 * sr_eval lb_failed / lb_reset, replay takes the lb_task probe's;
	 * NULL: not known (taken as 0 where it is read)
	 */
	const unsigned char *nr_failed;
	/*
	 * newidle: the domain levels (bit i: the CPU's i-th domain, bottom
	 * up) at which the trace's balance probes show the kernel's
	 * load_balance(CPU_NEWLY_IDLE); 0: not known (every level is tried)
	 */
	unsigned levels;
	/*
	 * periodic and nohz (simulate): per CPU, the domain levels whose
	 * balance interval has elapsed (sd->last_balance + interval, kept by
	 * the engine); rebalance_domains() balances those only.  NULL: every
	 * level is taken as due (replay: the trace shows the balance happened)
	 */
	const unsigned *due;
	/*
	 * periodic (replay): the domain levels at which the trace's balance
	 * probes show this pass of rebalance_domains() calling load_balance()
	 * (bit i: the CPU's i-th domain), with every level above the last one
	 * shown (the walk had not reached them at the pull); the others are
	 * passed over as not due.  0: not known (every level is tried)
	 */
	unsigned pass;
	/*
	 * newidle without a pull, on a kernel with NI_RANDOM and without the
	 * probes' levels: ni_random is set and ni_run[i] is the engine's
	 * estimate (of 1024) that the draw let the i-th domain balance; below
	 * 1024 a domain whose balance would pull is passed over as the draw
	 * (the trace shows it pulled nothing; sr_lb_newidle_balance())
	 */
	int ni_random;
	int ni_run[SR_MAX_DOMAIN_LEVELS];
};

/* one load_balance() call (struct lb_env) */
struct sr_lb_env {
	int dst_cpu;
	int level;
	const struct sr_domain *sd;
	enum sr_lb_idle idle;
	unsigned flags;			/* enum sr_lbf */
	int new_dst_cpu;
	long imbalance;			/* tasks; load for SR_LBF_MIGRATE_LOAD and util for
					 * SR_LBF_MIGRATE_UTIL (mainline) */
	int nr_failed;			/* sd->nr_balance_failed (sr_lb_input nr_failed) */
	int rounds;			/* find_busiest rounds of this call (1 + redos) */
	uint64_t *cpus;			/* env->cpus */
	const uint64_t *dst_grpmask;
};

/* group_type (mainline: group_classify(); v4.15's balance: by tasks) */
enum sr_lb_group_type {
	SR_GROUP_HAS_SPARE,
	SR_GROUP_FULLY_BUSY,
	SR_GROUP_IMBALANCED,		/* a child domain's pinned tasks (sgc->imbalance) */
	SR_GROUP_OVERLOADED,
};

/*
 * group_classify() (6.1, 6.12), for the balance and the fork slow path:
 * group_is_overloaded() (more tasks than CPUs, and util or runnable past
 * the capacity @cap by imbalance_pct @pct), then sg_imbalanced()
 * (@imbalanced), then !group_has_capacity() (as many tasks as CPUs or more,
 * and runnable past the capacity or util at it); misfit, asym packing and
 * group_smt_balance are not modelled
 */
enum sr_lb_group_type sr_group_classify(int nr, int weight, long cap, long util, long runnable,
					long pct, int imbalanced);

/* struct sg_lb_stats of one group */
struct sr_lb_sg {
	int first;			/* its first CPU, -1: no group */
	int weight;			/* CPUs */
	int nr, cfs;			/* tasks, CFS tasks (env->cpus only) */
	int idle;			/* idle CPUs */
	enum sr_lb_group_type type;
	long load;			/* load per CPU: PELT load_avg (v4.15: weight) */
	/* mainline: group_util, group_runnable, group_capacity, and avg_load
	 * (group_load scaled to the capacity, overloaded groups only) */
	long util, runnable, capacity, avg_load;
	long load_sum;			/* group_load */
};

/* struct sd_lb_stats: the local group and the busiest found */
struct sr_lb_sds {
	struct sr_lb_sg local;
	struct sr_lb_sg busiest;
	long avg_load;			/* the domain's load per CPU (sds->avg_load) */
	long total_load, total_capacity;	/* mainline */
};

struct sr_lb_moved {
	int pid, from, to;
};

#define SR_LB_MAX_MOVED 64

struct sr_lb_ctx {
	const struct sr_view *v;
	const struct sr_model *m;
	const struct sr_policy *pol;	/* &m->pol */
	const struct sr_lb_input *in;
	struct sr_eval *out;
	struct sr_lb_env *env;		/* the load_balance() running, or NULL */
	int stop;			/* should_we_balance said no: *continue_balancing = 0 */
	int rounds;			/* find_busiest rounds so far, all calls */
	/* scratch: the state as this evaluation changed it (pulls) */
	int *nr;			/* nr_running per cpu */
	int *cfs;			/* cfs h_nr_running per cpu */
	long *load;			/* cpu_load() per cpu (v4.15: queued weight) */
	long *util, *run;		/* cpu_util_cfs(), cpu_runnable() per cpu (mainline) */
	long *util_saved, *run_saved;
	uint64_t *masks;		/* room for 4 cpumasks */
	int *nr_saved, *cfs_saved;	/* nr, cfs and load as a level found them, */
	long *load_saved;		/* for a level passed over to be undone */
	int nmoved;
	struct sr_lb_moved moved[SR_LB_MAX_MOVED];
};

/*
 * The room one balance evaluation works in (per-CPU task counts and loads
 * as its pulls change them, four cpumasks), for views of up to @ncpus
 * CPUs: made once by whoever makes the views, reused by every evaluation.
 */
struct sr_lb_scratch;
struct sr_lb_scratch *sr_lb_scratch_new(int ncpus);
void sr_lb_scratch_free(struct sr_lb_scratch *s);

/**
 * sr_model_balance - evaluate @m's balance functions at one decision
 * @scratch: from sr_lb_scratch_new() for at least the view's CPUs; NULL:
 *	one is made for this call
 * Return: 0, or -1 when out of memory (@out then says no pull).
 */
int sr_model_balance(const struct sr_model *m, const struct sr_view *v,
		     const struct sr_lb_input *in, struct sr_lb_scratch *scratch,
		     struct sr_eval *out);

/* append a reason token (printf format) */
void sr_lb_reason(struct sr_lb_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* state as this evaluation sees it */
int sr_lb_nr_running(const struct sr_lb_ctx *c, int cpu);
int sr_lb_ttwu_pending(const struct sr_lb_ctx *c, int cpu);
int sr_lb_idle_cpu(const struct sr_lb_ctx *c, int cpu);
/* p is allowed on cpu (snapshot or name-inferred affinity) */
int sr_lb_allowed(const struct sr_lb_ctx *c, const struct sr_task *p, int cpu);
/* the length of comm's per-CPU kthread name prefix ("ksoftirqd/"), or 0 */
size_t sr_per_cpu_prefix(const char *comm);
/* the smpboot / bound-kworker name rule of schedreplay-models(7) §6.6 */
int sr_lb_per_cpu_name(const char *comm);
/* mainline's kthread_is_per_cpu(): a kernel thread with a per-CPU name (above) */
int sr_lb_kthread_per_cpu_name(struct sr_lb_ctx *c, const struct sr_task *p);
/*
 * should_we_balance() past its newly-idle case (schedreplay-models(7) §8.1): the first idle CPU
 * of the local group balances, else the group's first CPU
 */
int sr_lb_should_we_balance_busy(struct sr_lb_ctx *c);

/*
 * The base models' balance functions (struct sr_policy's members), for a
 * pair to put in place or call; the _vN forms are older kernels'.
 */
int sr_lb_kthread_per_cpu_none(struct sr_lb_ctx *c, const struct sr_task *p);
int sr_lb_task_hot(struct sr_lb_ctx *c, const struct sr_task *p);
int sr_lb_can_migrate_task(struct sr_lb_ctx *c, const struct sr_task *p, int src);
int sr_lb_detach_tasks(struct sr_lb_ctx *c, int src);
int sr_lb_should_we_balance_v5(struct sr_lb_ctx *c);
int sr_lb_should_we_balance_v60(struct sr_lb_ctx *c);
void sr_lb_update_sg_lb_stats(struct sr_lb_ctx *c, const uint64_t *span, int level,
			      struct sr_lb_sg *sg);
int sr_lb_update_sd_pick_busiest(struct sr_lb_ctx *c, const struct sr_lb_sg *sg,
				 const struct sr_lb_sg *busiest);
int sr_lb_find_busiest_group(struct sr_lb_ctx *c, struct sr_lb_sds *sds);
void sr_lb_calculate_imbalance(struct sr_lb_ctx *c, struct sr_lb_sds *sds);
int sr_lb_find_busiest_queue(struct sr_lb_ctx *c, const struct sr_lb_sg *busiest);
int sr_lb_load_balance(struct sr_lb_ctx *c, int dst, int level, int idle);
/*
 * rebalance_domains(cpu, idle) (6.1; sched_balance_domains() in 6.12) as
 * the surrogate runs it: the levels in in->due[cpu] (every level when
 * in->due is NULL); stops at the first level that pulls.  Return: tasks
 * pulled.
 */
int sr_lb_rebalance_domains(struct sr_lb_ctx *c, int cpu, int idle);
int sr_lb_newidle_balance(struct sr_lb_ctx *c, int cpu);
int sr_lb_nohz_idle_balance(struct sr_lb_ctx *c, int ilb);
int sr_lb_nohz_idle_balance_v4(struct sr_lb_ctx *c, int ilb);
int sr_lb_run_rebalance_domains(struct sr_lb_ctx *c, int ilb);
int sr_lb_run_rebalance_domains_v41(struct sr_lb_ctx *c, int ilb);

/* the idle CPUs a nohz pass visits: idle and tickless (idle >= 1 tick) */
int sr_lb_nohz_idle(const struct sr_lb_ctx *c, int cpu);
/*
 * one CPU of a nohz pass: rebalance_domains(cpu, CPU_IDLE), pulls going
 * to @cpu; its reason tokens stay only if it pulled.  Return: pulled.
 */
int sr_lb_nohz_balance_cpu(struct sr_lb_ctx *c, int cpu);

/*
 * The periodic balance's clock of one CPU, as rebalance_domains() (6.1) /
 * sched_balance_domains() (6.12) keeps it: per domain level
 * sd->last_balance and sd->balance_interval, and rq->next_balance.  The
 * simulator runs its balances by it; replay infers by it the balances a
 * trace without the balance probes does not show.
 */
struct sr_lb_clock {
	uint64_t next_balance;				/* rq->next_balance (ns) */
	uint64_t last_balance[SR_MAX_DOMAIN_LEVELS];	/* ns; UINT64_MAX: not yet */
	unsigned interval_ms[SR_MAX_DOMAIN_LEVELS];	/* 0: min_interval (the span) */
};

/* not balanced yet at any level, the first pass due at @now */
void sr_lb_clock_init(struct sr_lb_clock *k, uint64_t now);

/*
 * get_sd_balance_interval() (6.1, 6.12) of @ct's domain @level, in ns of
 * whole jiffies at @hz on a machine of @ncpus: sd->balance_interval, times
 * busy_factor when @busy (one jiffy less), clamped to 1 jiffy ..
 * max_load_balance_interval (HZ * CPUs / 10)
 */
uint64_t sr_lb_clock_interval(const struct sr_lb_clock *k, const struct sr_cpu_topo *ct,
			      int level, int busy, int hz, int ncpus);

/* the levels due at @now: time_after_eq(jiffies, sd->last_balance + interval) */
unsigned sr_lb_clock_due(const struct sr_lb_clock *k, const struct sr_cpu_topo *ct, uint64_t now,
			 int busy, int hz, int ncpus);

/*
 * After a pass over the levels @due at @now: sd->last_balance = jiffies
 * there; load_balance() resets balance_interval to min_interval where it
 * found an imbalance (@pulled or @failed, bit per level), doubles it up to
 * max_interval (twice the span) where balanced, up to MAX_PINNED_INTERVAL
 * (512 ms) where only pinned tasks were found (@pinned); rq->next_balance
 * becomes the soonest next of the levels @walked (the walk's, up to where
 * should_we_balance() stopped it; ~0u: every level)
 */
void sr_lb_clock_done(struct sr_lb_clock *k, const struct sr_cpu_topo *ct, unsigned due,
		      unsigned walked, int busy, uint64_t now, int hz, int ncpus, unsigned pulled,
		      unsigned failed, unsigned pinned);

#endif
