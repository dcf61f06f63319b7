/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fidelity: how often a model, fed the reconstructed state, picks the CPU
 * the recording kernel picked.  Counted per model, per decision kind
 * (wakeup, wakeup_moved, wakeup_kept, fork, fork_idle, fork_busy, and the
 * balance kinds balance_periodic, balance_newidle, balance_nohz, newidle) and per
 * reason path, with the stay-on-prev / parent-CPU baseline beside it.
 */
#ifndef SCHEDREPLAY_FIDELITY_H
#define SCHEDREPLAY_FIDELITY_H

#include <stdint.h>
#include <stdio.h>

#include "schedreplay/replay.h"

struct sr_fidelity;

struct sr_fidelity_row {
	const char *model;
	const char *kind;
	const char *reason;	/* "" for the per-kind total */
	uint64_t n, exact, same_llc, same_node, baseline_exact;
	/* placements whose path turned on a near comparison (sr_eval.margin) */
	uint64_t near, near_exact;
	size_t reason_hash;	/* the table's own: its hash of reason */
};

struct sr_fidelity *sr_fidelity_new(const struct sr_topology *topo);
void sr_fidelity_free(struct sr_fidelity *f);

/* count one finished decision (skipped ones are counted apart) */
int sr_fidelity_add(struct sr_fidelity *f, const char *model, const struct sr_decision *d,
		    const struct sr_eval *e);

/* the rows, per-kind totals first (in kind order), then per reason path */
int sr_fidelity_rows(const struct sr_fidelity *f, const struct sr_fidelity_row **rows);

/* group a reason path: numbers become N, so equal paths count together */
void sr_reason_normalize(const char *reason, char *out, size_t len);

/**
 * sr_fidelity_check - is a model no better than the baseline on this trace?
 * For the total of a decision kind (wakeup, fork, a balance kind; not the
 * kinds split by what the kernel did, newidle among them, where the
 * baseline is 0 or 100 % by construction), @exact against @baseline_exact
 * of @n decisions.
 * Return: 1 with a one-line note in @buf, 0 when there is nothing to say.
 */
int sr_fidelity_check(const char *kind, uint64_t n, uint64_t exact, uint64_t baseline_exact,
		      char *buf, size_t len);

void sr_fidelity_print(const struct sr_fidelity *f, FILE *out, int max_reasons);

#endif
