// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of the placements a patch side takes from its base model
 * (replay/depend-local.h): two engines replay the same real traces, both
 * with mainline and every side of the wakeup pairs; in the first the sides
 * derive from that mainline and take its answer where its evaluation did
 * not reach what they change, in the second they derive from a copy of it
 * (the same functions, another model), so every side is evaluated.  Every
 * side must answer alike in both at every decision: CPU, reason path and
 * the CPUs whose h_load it read.  numa-6.12-forks has an exiting sync
 * waker whose wakeup the exit-sync sides place apart (the flag the traced
 * copy notes), numa-6.1-messaging affine wakeups that reach
 * wake_affine_weight (the member wake-affine-equal replaces).  The first
 * engine keeps the snapshots of SR_SNAP_DIVERGENT, the second of
 * SR_SNAP_ALL: a wakeup has one in the first where two models chose apart
 * only, every decision one in the second.
 */
#include <stdlib.h>
#include <string.h>

#include "schedreplay/kgen.h"
#include "schedreplay/model.h"
#include "schedreplay/patch.h"
#include "schedreplay/replay.h"
#include "schedreplay/topology.h"
#include "schedreplay/trace.h"
#include "unit.h"

#define FIX "tests/fixtures/tracedat/numa/"
#define MAXM 7
#define MAXD 64

/* the decisions one engine closed during one event */
struct got {
	int n;
	long id[MAXD];
	int nevals[MAXD];
	int wakeup[MAXD];		/* a wakeup: the decision the sides are evaluated at */
	int snap[MAXD];			/* it has a snapshot */
	struct sr_eval ev[MAXD][MAXM];
	long balance_snaps[2];		/* balance decisions without, with a snapshot */
};

static int on_decision(const struct sr_decision *d, const struct sr_eval *e, int n, void *data)
{
	struct got *g = data;

	if (g->n == MAXD)
		return 0;
	g->balance_snaps[!!d->snap] += sr_decision_is_balance(d->kind);
	if (sr_decision_is_balance(d->kind))
		return 0;
	g->snap[g->n] = !!d->snap;
	g->id[g->n] = d->id;
	g->nevals[g->n] = n;
	g->wakeup[g->n] = d->kind == SR_DEC_WAKEUP;
	memcpy(g->ev[g->n], e, sizeof(*e) * (size_t)(n < MAXM ? n : MAXM));
	g->n++;
	return 0;
}

static struct sr_replay *engine(const struct sr_topology *topo, const struct sr_trace_info *ti,
				const struct sr_kgen *kg, const struct sr_model *const *m, int n,
				const unsigned *touches, enum sr_snapshots snaps, struct got *g)
{
	struct sr_replay *r = sr_replay_new(topo, 250, m, n);

	if (!r)
		return NULL;
	sr_replay_set_callback(r, on_decision, g);
	sr_replay_set_touches(r, touches);
	sr_replay_use_probes(r, ti->has_probes);
	sr_replay_trace_declares_waking(r, ti->has_waking);
	sr_replay_set_kernel(r, kg);
	sr_replay_keep_snapshots(r, snaps);
	return r;
}

static void check_trace(const char *name)
{
	static const char *const pairs[] = { "wake-affine-equal", "exit-sync-mel",
					     "exit-sync-peterz" };
	char dat[256], topo_path[256], *cause = NULL;
	const struct sr_model *mainline = sr_model_find("mainline");
	struct sr_model copy = *mainline, *side[2][MAXM];
	const struct sr_model *ma[MAXM], *mb[MAXM];
	unsigned touches[MAXM];
	struct got *ga = calloc(1, sizeof(*ga)), *gb = calloc(1, sizeof(*gb));
	struct sr_topology *topo;
	struct sr_trace *t = NULL;
	struct sr_replay *a = NULL, *b = NULL;
	struct sr_event ev;
	struct sr_kgen kg;
	long decisions = 0, differ = 0, apart = 0, snaps = 0, bad_snaps = 0;
	int n = 1, i, k, ret;

	snprintf(dat, sizeof(dat), FIX "%s.dat", name);
	snprintf(topo_path, sizeof(topo_path), FIX "%s.topo", name);
	topo = sr_topology_new_file(topo_path, SR_ERA_MAINLINE, &cause);
	CHECK(topo && !sr_topology_build_domains(topo), "%s: topology (%s)", name,
	      cause ? cause : "ok");
	ret = sr_trace_open(dat, NULL, &t, &cause);
	CHECK(!ret, "%s: open (%s)", name, cause ? cause : "ok");
	if (!topo || ret || !ga || !gb)
		goto out;
	sr_kgen_parse(sr_trace_borrow_info(t)->kernel, SR_KGEN_SRC_RECORDING, &kg);
	ma[0] = mb[0] = mainline;
	touches[0] = ~0u;
	for (i = 0; i < 3; i++) {
		for (k = 0; k < 2; k++) {
			side[0][n] = sr_patch_side(sr_patch_find(pairs[i]), mainline, k);
			side[1][n] = sr_patch_side(sr_patch_find(pairs[i]), mainline, k);
			if (!side[0][n] || !side[1][n])
				goto out;
			/* derived from the copy: nothing to take an answer from */
			side[1][n]->base = &copy;
			ma[n] = side[0][n];
			mb[n] = side[1][n];
			touches[n++] = 1u << SR_DEC_WAKEUP;
		}
	}
	a = engine(topo, sr_trace_borrow_info(t), &kg, ma, n, touches, SR_SNAP_DIVERGENT, ga);
	b = engine(topo, sr_trace_borrow_info(t), &kg, mb, n, touches, SR_SNAP_ALL, gb);
	if (!a || !b)
		goto out;
	while ((ret = sr_trace_next(t, &ev, &cause)) == 1) {
		ga->n = gb->n = 0;
		sr_replay_feed(a, &ev);
		sr_replay_feed(b, &ev);
		if (ga->n != gb->n) {
			differ++;
			continue;
		}
		for (i = 0; i < ga->n; i++) {
			if (ga->id[i] != gb->id[i] || ga->nevals[i] != gb->nevals[i]) {
				differ++;
				continue;
			}
			if (!ga->nevals[i] || !ga->wakeup[i])
				continue;
			decisions++;
			bad_snaps += !gb->snap[i];
			snaps += ga->snap[i];
			for (k = 1; k < n && ga->ev[i][k].cpu == ga->ev[i][0].cpu; k++)
				;
			bad_snaps += ga->snap[i] != (k < n);
			for (k = 1; k < n; k++) {
				const struct sr_eval *x = &ga->ev[i][k], *y = &gb->ev[i][k];

				if (x->cpu != y->cpu || strcmp(x->reason, y->reason) ||
				    x->h_load_read != y->h_load_read) {
					if (differ++ < 3)
						printf("# decision %ld, side %d: %d '%s' against %d '%s'\n",
						       ga->id[i], k, x->cpu, x->reason, y->cpu,
						       y->reason);
				}
				apart += x->cpu != ga->ev[i][0].cpu;
			}
		}
	}
	CHECK(!ret, "%s: read to the end (%s)", name, cause ? cause : "ok");
	CHECK(decisions > 1000, "%s: %ld placements compared", name, decisions);
	CHECK(apart > 0, "%s: %ld side evaluations placed apart from mainline", name, apart);
	CHECK_EQ(differ, 0, "%s: every side answers alike, taken from mainline or evaluated",
		 name);
	CHECK(snaps > 0, "%s: %ld wakeups with a snapshot (sides apart)", name, snaps);
	CHECK_EQ(bad_snaps, 0, "%s: a wakeup has a snapshot where its sides chose apart "
		 "(divergent) and always (all)", name);
	CHECK(ga->balance_snaps[0] == 0 && gb->balance_snaps[0] == 0,
	      "%s: every balance decision has a snapshot (%ld, %ld)", name,
	      ga->balance_snaps[1], gb->balance_snaps[1]);
out:
	sr_replay_free(a);
	sr_replay_free(b);
	for (k = 1; k < n; k++) {
		free(side[0][k]);
		free(side[1][k]);
	}
	sr_trace_free(t);
	sr_topology_free(topo);
	free(cause);
	free(ga);
	free(gb);
}

int main(void)
{
	check_trace("numa-6.12-forks");
	check_trace("numa-6.1-messaging");
	return unit_done();
}
