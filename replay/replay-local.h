/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The engine's internals, shared by state.c (applying events) and the
 * view helpers the models call.
 */
#ifndef SCHEDREPLAY_REPLAY_LOCAL_H
#define SCHEDREPLAY_REPLAY_LOCAL_H

#include "schedreplay/model.h"
#include "schedreplay/replay.h"

struct sr_pending {
	struct sr_decision d;
	int selected;			/* the select_rq probe bound to it */
	const struct sr_task *cur;	/* the waker, for a deferred evaluation */
	struct sr_eval ev[SR_MAX_MODELS];
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
	int snapshots;
	struct sr_task **await;		/* per cpu: the wakee whose select_rq comes next */
	struct sr_pending **selected;	/* per cpu: the decision select_rq_ret answers */
	/* self-pull migrations waiting to be told newidle or periodic */
	struct sr_migration *pull;	/* per cpu; pid 0: none */
	sr_migration_cb mig_cb;
	void *mig_data;
	struct sr_replay_stats stats;
};

#endif
