/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The engine's internals, shared by state.c (applying events) and the
 * view helpers the models call.
 */
#ifndef SCHEDREPLAY_REPLAY_LOCAL_H
#define SCHEDREPLAY_REPLAY_LOCAL_H

#include "schedreplay/balance.h"
#include "schedreplay/model.h"
#include "schedreplay/replay.h"

/*
 * A fork's select_rq probe on one CPU, waiting for the sched_wakeup_new it
 * belongs to: wake_up_new_task() runs select_task_rq() and then activates
 * the child with interrupts off, so that event is the next fork on the CPU.
 */
struct sr_fork_probe {
	int valid;
	struct sr_event ev;		/* the select_rq event (prev_cpu, wake_flags, pid, ...) */
	int ret;			/* select_rq_ret's cpu, -1 not seen */
};

struct sr_pending {
	struct sr_decision d;
	int selected;			/* the select_rq probe bound to it */
	const struct sr_task *cur;	/* the waker, for a deferred evaluation */
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
};

struct sr_replay {
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
	int no_affinity;		/* the trace's masks are withheld */
	int snapshots;
	struct sr_task **await;		/* per cpu: the wakee whose select_rq comes next */
	struct sr_pending **selected;	/* per cpu: the decision select_rq_ret answers */
	struct sr_fork_probe *fork_probe;	/* per cpu: a fork's probe, its wakeup_new next */
	/* self-pull migrations waiting to be told newidle or periodic */
	struct sr_migration *pull;	/* per cpu; pid 0: none */
	sr_migration_cb mig_cb;
	void *mig_data;
	struct sr_replay_stats stats;

	/* load balancing */
	unsigned touches[SR_MAX_MODELS];	/* 1 << kind the model is evaluated at */
	struct sr_task **lb_head, **lb_tail;	/* per cpu: cfs_tasks, MRU first */
	unsigned char *lb_imb[SR_MAX_MODELS];	/* per model: sgc->imbalance */
	int *lb_nr, *lb_cfs;			/* balance scratch (balance.c) */
	long *lb_load;
	uint64_t *lb_masks;
	struct sr_lb_pending **lbp;		/* per cpu, allocated when first used */
	uint64_t *last_local;			/* per cpu: ts of its last event */
	uint64_t *nohz_last;			/* per cpu: its last nohz migration */
	uint64_t *switch_ts;			/* per cpu: its last switch */
	uint64_t *pull_gap;			/* per cpu: its event before its pending pull */
	long nwaking;				/* tasks between waking and wakeup */
};

/* the length of comm's per-CPU kthread name prefix ("ksoftirqd/"), or 0 */
size_t sr_per_cpu_prefix(const char *comm);

#endif
