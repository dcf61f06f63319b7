// SPDX-License-Identifier: GPL-2.0
/*
 * "schedreplay simulate TRACE": closed-loop what-if.  Extracts the recorded
 * demand (replay/demand.c), measures the recorded run, simulates the
 * demand under the base model and each side of every patch pair given
 * (replay/sim.c) and prints the figures side by side; --export-demand
 * writes the demand as an rt-app workload.
 */
#include "cmd.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "schedreplay/demand.h"
#include "schedreplay/error.h"
#include "schedreplay/kgen.h"
#include "schedreplay/model.h"
#include "schedreplay/patch.h"
#include "schedreplay/runmetrics.h"
#include "schedreplay/sim.h"
#include "schedreplay/slices.h"
#include "schedreplay/store.h"
#include "schedreplay/topology.h"
#include "schedreplay/trace.h"
#include "meta.h"
#include "version.h"
#include "banned.h"

#define MAX_PATCHES 8
#define MAX_SIDES (1 + 2 * MAX_PATCHES)
#define MAX_RUNS 100
#define JITTER 0.01

/* --fair: the fair class's rules, by kernel generation (struct sr_sim_opts.eevdf) */
static const char *const fair_names[] = { "cfs", "eevdf", "eevdf-delay" };

struct side {
	const struct sr_model *m;
	struct sr_model *owned;
	const char *patch;		/* NULL: the base */
	const char *variant;		/* "base", "original", "patched" */
	struct sr_run_metrics *run;	/* per run */
	struct sr_run_metrics med, lo, hi;
	struct sr_sim_stats st;		/* of the first run */
	/* a pair's side: decisions where the other side chose otherwise, per run */
	double *div;
	double div_med, div_lo, div_hi;
};

static const char simulate_options[] =
	"   -m, --model MODEL  the base model: mainline (default) or v4.15\n"
	"   -p, --patch PATCH  also simulate both sides of this patch pair (repeatable)\n"
	"   -t, --topology T   NODESxCORESxTHREADS or a topology file (default: the\n"
	"                      recording's metadata, else a flat machine, with a warning)\n"
	"       --hz N         CONFIG_HZ of the recording kernel (default: the metadata's,\n"
	"                      else 250)\n"
	"       --kernel RELEASE\n"
	"                      simulate this kernel release (6.12.117, 6.1, ...): the\n"
	"                      generation whose scheduler behaviour the simulated\n"
	"                      machine and the models follow (default: the trace's\n"
	"                      kernel release, else the recording's metadata)\n"
	"       --fair RULES   the fair class's rules: cfs, eevdf or eevdf-delay (default:\n"
	"                      by the kernel generation: before 6.6, to 6.11, 6.12 on)\n"
	"       --runs N       simulate each side N times with perturbed timing (1-100,\n"
	"                      default 1): medians, and the spread\n"
	"       --seed S       seed of the timing perturbation (default 1)\n"
	"       --json         print one JSON object instead of the table\n"
	"   -o, --output DB    also write each side's simulated run (its decisions,\n"
	"                      migrations and slices) into the SQLite database DB\n"
	"   -f, --force        replace DB if it exists\n"
	"   -a, --append       add the runs to DB if it exists\n"
	"       --export-demand FILE\n"
	"                      also write the recorded demand as an rt-app workload\n"
	"       --kthreads     write kernel threads into the export too\n"
	"   -h, --help         show this help\n";

static const char simulate_examples[] =
	"   schedreplay simulate -t numa.topo trace.dat\n"
	"   schedreplay simulate -t 2x2x1 -p nohz-first --runs 5 --json trace.dat\n"
	"   schedreplay simulate -t numa.topo --kernel 6.1 trace-6.12.dat\n"
	"   schedreplay simulate -p nohz-first -o sim.db trace.dat && schedreplay report sim.db\n"
	"   schedreplay simulate --export-demand load.json trace.dat && rt-app load.json\n";

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* the median, min and max of field @off of @n runs */
static void summarize(const struct sr_run_metrics *runs, int n, size_t off, double *med,
		      double *lo, double *hi)
{
	double v[MAX_RUNS];
	int i;

	for (i = 0; i < n; i++)
		v[i] = *(const double *)((const char *)&runs[i] + off);
	qsort(v, (size_t)n, sizeof(v[0]), cmp_double);
	*lo = v[0];
	*hi = v[n - 1];
	*med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void summarize_u64(const struct sr_run_metrics *runs, int n, size_t off, uint64_t *med,
			  uint64_t *lo, uint64_t *hi)
{
	double v[MAX_RUNS];
	int i;

	for (i = 0; i < n; i++)
		v[i] = (double)*(const uint64_t *)((const char *)&runs[i] + off);
	qsort(v, (size_t)n, sizeof(v[0]), cmp_double);
	*lo = (uint64_t)v[0];
	*hi = (uint64_t)v[n - 1];
	*med = (uint64_t)llround(n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2);
}

#define D(f) offsetof(struct sr_run_metrics, f)

static void sorted_stats(double *v, int n, double *med, double *lo, double *hi)
{
	qsort(v, (size_t)n, sizeof(v[0]), cmp_double);
	*lo = v[0];
	*hi = v[n - 1];
	*med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void side_summary(struct side *sd, int n)
{
	int k;

	if (sd->patch)
		sorted_stats(sd->div, n, &sd->div_med, &sd->div_lo, &sd->div_hi);
	sd->med = sd->lo = sd->hi = sd->run[0];
	summarize(sd->run, n, D(makespan_s), &sd->med.makespan_s, &sd->lo.makespan_s,
		  &sd->hi.makespan_s);
	summarize_u64(sd->run, n, D(migrations), &sd->med.migrations, &sd->lo.migrations,
		      &sd->hi.migrations);
	summarize_u64(sd->run, n, D(migrations_cross_llc), &sd->med.migrations_cross_llc,
		      &sd->lo.migrations_cross_llc, &sd->hi.migrations_cross_llc);
	summarize_u64(sd->run, n, D(migrations_cross_node), &sd->med.migrations_cross_node,
		      &sd->lo.migrations_cross_node, &sd->hi.migrations_cross_node);
	summarize_u64(sd->run, n, D(wakeups), &sd->med.wakeups, &sd->lo.wakeups, &sd->hi.wakeups);
	summarize(sd->run, n, D(lat_p50_us), &sd->med.lat_p50_us, &sd->lo.lat_p50_us,
		  &sd->hi.lat_p50_us);
	summarize(sd->run, n, D(lat_p99_us), &sd->med.lat_p99_us, &sd->lo.lat_p99_us,
		  &sd->hi.lat_p99_us);
	summarize(sd->run, n, D(lat_mean_us), &sd->med.lat_mean_us, &sd->lo.lat_mean_us,
		  &sd->hi.lat_mean_us);
	summarize(sd->run, n, D(lat_max_us), &sd->med.lat_max_us, &sd->lo.lat_max_us,
		  &sd->hi.lat_max_us);
	for (k = 0; k < sd->med.nnodes; k++)
		summarize(sd->run, n, D(busy_pct_per_node) + (size_t)k * sizeof(double),
			  &sd->med.busy_pct_per_node[k], &sd->lo.busy_pct_per_node[k],
			  &sd->hi.busy_pct_per_node[k]);
	summarize(sd->run, n, D(idle_while_waiting_s), &sd->med.idle_while_waiting_s,
		  &sd->lo.idle_while_waiting_s, &sd->hi.idle_while_waiting_s);
}

static void json_metrics(const struct sr_run_metrics *m, FILE *f)
{
	int k;

	fprintf(f, "\"makespan_s\": %.6f, \"migrations\": %llu, \"migrations_cross_llc\": %llu, "
		"\"migrations_cross_node\": %llu, ",
		m->makespan_s, (unsigned long long)m->migrations,
		(unsigned long long)m->migrations_cross_llc,
		(unsigned long long)m->migrations_cross_node);
	/* no wakeup, no latency: null, not a latency of 0 */
	if (m->wakeups)
		fprintf(f, "\"wakeup_latency_us\": {\"p50\": %.1f, \"p99\": %.1f, \"mean\": %.1f, "
			"\"max\": %.1f}, ", m->lat_p50_us, m->lat_p99_us, m->lat_mean_us,
			m->lat_max_us);
	else
		fprintf(f, "\"wakeup_latency_us\": {\"p50\": null, \"p99\": null, \"mean\": null, "
			"\"max\": null}, ");
	fprintf(f, "\"wakeups\": %llu, \"busy_pct_per_node\": [",
		(unsigned long long)m->wakeups);
	for (k = 0; k < m->nnodes; k++)
		fprintf(f, "%s%.1f", k ? ", " : "", m->busy_pct_per_node[k]);
	fprintf(f, "], \"idle_while_waiting_s\": %.6f", m->idle_while_waiting_s);
}

/* a pair side's divergent decisions (null for the base) */
static void json_div(const struct side *sd, double v, FILE *f)
{
	if (sd->patch)
		fprintf(f, ", \"divergent_decisions\": %.0f", v);
	else
		fprintf(f, ", \"divergent_decisions\": null");
}

static void print_json(const struct sr_run_metrics *rec, const struct side *sides, int nsides,
		       int runs, int eevdf, FILE *f)
{
	int i;

	fprintf(f, "{\"recorded\": {");
	json_metrics(rec, f);
	fprintf(f, "}, \"runs\": %d, \"fair\": \"%s\", \"sides\": [", runs,
		fair_names[eevdf]);
	for (i = 0; i < nsides; i++) {
		const struct side *sd = &sides[i];

		fprintf(f, "%s{\"model\": \"%s\", \"patch\": ", i ? ", " : "",
			sd->m->base ? sd->m->base->name : sd->m->name);
		if (sd->patch)
			fprintf(f, "\"%s\"", sd->patch);
		else
			fprintf(f, "null");
		fprintf(f, ", \"variant\": \"%s\", ", sd->variant);
		json_metrics(&sd->med, f);
		json_div(sd, sd->div_med, f);
		if (runs > 1) {
			fprintf(f, ", \"spread\": {\"min\": {");
			json_metrics(&sd->lo, f);
			json_div(sd, sd->div_lo, f);
			fprintf(f, "}, \"max\": {");
			json_metrics(&sd->hi, f);
			json_div(sd, sd->div_hi, f);
			fprintf(f, "}}");
		}
		fprintf(f, "}");
	}
	fprintf(f, "]}\n");
}

/*
 * A figure as the table prints it: "-" for a latency over no wakeup (a trace
 * without wakeup events, a side whose run woke nothing), not 0.0.
 */
static void fig(char *buf, size_t len, const struct sr_run_metrics *m, size_t off, int is_u64,
		int prec, int per_wakeup)
{
	double v = is_u64 ? (double)*(const uint64_t *)((const char *)m + off) :
		   *(const double *)((const char *)m + off);

	if (per_wakeup && !m->wakeups)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.*f", prec, v);
}

/* one table row: the recorded value, then each side's (median [min..max]) */
static void row(const char *name, const struct sr_run_metrics *rec, const struct side *sides,
		int nsides, int runs, size_t off, int is_u64, int prec)
{
	int per_wakeup = off >= D(lat_p50_us) && off <= D(lat_max_us);
	char buf[40];
	int i;

	printf("%-24s", name);
	fig(buf, sizeof(buf), rec, off, is_u64, prec, per_wakeup);
	printf(" %14s", buf);
	for (i = 0; i < nsides; i++) {
		char s[160];

		fig(buf, sizeof(buf), &sides[i].med, off, is_u64, prec, per_wakeup);
		if (runs > 1) {
			char lo[40], hi[40];

			fig(lo, sizeof(lo), &sides[i].lo, off, is_u64, prec, per_wakeup);
			fig(hi, sizeof(hi), &sides[i].hi, off, is_u64, prec, per_wakeup);
			snprintf(s, sizeof(s), "%s [%s..%s]", buf, lo, hi);
		} else {
			snprintf(s, sizeof(s), "%s", buf);
		}
		printf(" %*s", runs > 1 ? 30 : 14, s);
	}
	printf("\n");
}

static void print_table(const char *trace, const struct sr_demand *d,
			const struct sr_run_metrics *rec, const struct side *sides, int nsides,
			int runs, const char *topo_src, int hz, int eevdf, const struct sr_kgen *kgen)
{
	char label[96];
	int i, k;

	printf("simulate: '%s' on %s, HZ %d, %s, kernel %s%s, %d tasks, %d run%s per side\n",
	       trace, topo_src, hz, fair_names[eevdf], kgen->major ? kgen->release : "unknown",
	       kgen->source == SR_KGEN_SRC_OPTION ? " (--kernel)" : "", d->ntasks, runs,
	       runs == 1 ? "" : "s");
	printf("demand: %llu bursts, %llu sleeps (%llu ended by a task, %llu timer, %llu unknown, "
	       "%llu never), %llu forks, %llu exits; idle wakeup %.1f us (local %.1f us), "
	       "preempting wakeup %.1f us, "
	       "idle fork %.1f us, idle move %.1f us, newidle balance %.1f us (%llu)\n",
	       (unsigned long long)d->stats.bursts, (unsigned long long)d->stats.sleeps,
	       (unsigned long long)d->stats.by_task, (unsigned long long)d->stats.by_timer,
	       (unsigned long long)d->stats.by_unknown, (unsigned long long)d->stats.never,
	       (unsigned long long)d->stats.forks, (unsigned long long)d->stats.exits,
	       (double)d->idle_wake_ns / 1e3,
	       (double)(d->idle_wake_local_samples ? d->idle_wake_local_ns : d->idle_wake_ns) / 1e3,
	       (double)d->preempt_wake_ns / 1e3,
	       (double)(d->idle_fork_samples ? d->idle_fork_ns : d->idle_wake_ns) / 1e3,
	       (double)(d->idle_move_samples ? d->idle_move_ns : d->idle_wake_ns) / 1e3,
	       (double)d->newidle_ns / 1e3, (unsigned long long)d->newidle_samples);
	printf("%-24s %14s", "", "recorded");
	for (i = 0; i < nsides; i++) {
		if (sides[i].patch)
			snprintf(label, sizeof(label), "%s:%s", sides[i].patch, sides[i].variant);
		else
			snprintf(label, sizeof(label), "%s", sides[i].m->name);
		printf(" %*s", runs > 1 ? 30 : 14, label);
	}
	printf("\n");
	row("makespan_s", rec, sides, nsides, runs, D(makespan_s), 0, 3);
	row("migrations", rec, sides, nsides, runs, D(migrations), 1, 0);
	row("migrations_cross_llc", rec, sides, nsides, runs, D(migrations_cross_llc), 1, 0);
	row("migrations_cross_node", rec, sides, nsides, runs, D(migrations_cross_node), 1, 0);
	row("wakeups", rec, sides, nsides, runs, D(wakeups), 1, 0);
	row("wakeup_latency_us p50", rec, sides, nsides, runs, D(lat_p50_us), 0, 1);
	row("wakeup_latency_us p99", rec, sides, nsides, runs, D(lat_p99_us), 0, 1);
	row("wakeup_latency_us mean", rec, sides, nsides, runs, D(lat_mean_us), 0, 1);
	row("wakeup_latency_us max", rec, sides, nsides, runs, D(lat_max_us), 0, 1);
	for (k = 0; k < rec->nnodes; k++) {
		snprintf(label, sizeof(label), "busy_pct node %d", k);
		row(label, rec, sides, nsides, runs, D(busy_pct_per_node) + (size_t)k * sizeof(double),
		    0, 1);
	}
	row("idle_while_waiting_s", rec, sides, nsides, runs, D(idle_while_waiting_s), 0, 3);
	printf("%-24s %14s", "divergent_decisions", "");
	for (i = 0; i < nsides; i++) {
		char s[96];

		if (!sides[i].patch)
			snprintf(s, sizeof(s), "-");
		else if (runs > 1)
			snprintf(s, sizeof(s), "%.0f [%.0f..%.0f]", sides[i].div_med, sides[i].div_lo,
				 sides[i].div_hi);
		else
			snprintf(s, sizeof(s), "%.0f", sides[i].div_med);
		printf(" %*s", runs > 1 ? 30 : 14, s);
	}
	printf("\n");
	/*
	 * The recorded latency starts where the demand's wakeup does; replay's
	 * wakeup table starts at sched_wakeup, later by the time the kernel
	 * took to queue the task (a remote wakeup's IPI): say which is which.
	 */
	printf("wakeup_latency_us: from a wakeup's sched_waking (its sched_wakeup in a trace "
	       "without sched_waking) to the switch-in; replay's wakeup table (sql -Q latency, "
	       "report) counts from sched_wakeup\n");
}

/*
 * The recorder's task snapshot (schedreplay-record(1)): for the tasks that
 * existed when the recording started, whether each is a kernel thread, the
 * CPU it is bound to and its mask, where the trace itself did not tell.
 */
static void apply_hints(struct sr_demand *d, const struct sr_meta *meta, int ncpus)
{
	size_t i;

	for (i = 0; i < meta->nhints; i++) {
		const struct sr_meta_hint *h = &meta->hints[i];
		int t = sr_demand_find(d, h->pid);
		struct sr_dm_task *dt;

		if (t < 0)
			continue;
		dt = &d->task[t];
		if (dt->origin == SR_DM_ORIGIN_FORKED)
			continue;
		if (h->kthread >= 0)
			dt->kthread = h->kthread;
		if (h->bound >= 0 && h->bound < ncpus)
			dt->bound_cpu = h->bound;
		if (h->mask && !dt->mask_known) {
			dt->mask = h->mask;
			dt->mask_known = 1;
		}
	}
}

static int export_demand(const struct sr_demand *d, const char *path, int kthreads)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f) {
		sr_error("simulate: cannot write '%s': %s", path, strerror(errno));
		return EXIT_FAIL;
	}
	ret = sr_demand_write_rtapp(d, f, kthreads);
	if (fclose(f) || ret) {
		sr_error("simulate: cannot write '%s': %s", path, sr_strerror(ret ? ret : -SR_E_IO));
		remove(path);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/* ---- -o DB: each side's simulated run in the database (schedreplay-db(5)) ---- */

static void store_notice(const char *msg, void *data)
{
	(void)data;
	sr_error("simulate: %s", msg);
}

/*
 * One simulated run on its way into the database.  Its sides are those a
 * replay with the same -p would have: the base model's alone, or for a
 * pair's side the base model, the original and the patched side (whose
 * evaluations the simulator makes beside the side that decides), so that
 * the evaluation, divergence and patch_summary tables read as for a replay.
 */
struct sim_db {
	struct sr_store *store;
	struct sr_slices *slices;
	const struct sr_model *sides[3];
	unsigned touches[3];
	int nsides;
	int self;			/* the store's index of the side that decides */
	struct sr_patch_summary ps[SR_DEC__COUNT];
	/* the last placement, for the woken slice of its sched_wakeup */
	int pend_pid;
	uint64_t pend_ts;
	long pend_id;
	int pend_diverged;		/* its pair's sides diverged */
	uint64_t events;
	char *cause;
};

static int db_decision(const struct sr_decision *d, const struct sr_eval *e, int nevals,
		       void *data)
{
	struct sim_db *db = data;
	struct sr_eval ev[3];
	int diverged = 0;

	if (cmd_interrupted)
		return -SR_E_INTR;
	/* the simulator's order (the side, its pair's other side, the base) in the store's */
	if (db->nsides == 1 || nevals < 3) {
		/* a side alone: the others chose nothing */
		ev[0] = e[0];
		ev[1].cpu = ev[2].cpu = -1;
		ev[1].reason[0] = ev[2].reason[0] = '\0';
	} else {
		ev[0] = e[2];
		ev[db->self] = e[0];
		ev[db->self == 1 ? 2 : 1] = e[1];
	}
	if (sr_store_decision(db->store, d, ev, db->nsides, &db->cause))
		return -SR_E_IO;
	if (db->nsides == 3 && (db->touches[1] & (1u << d->kind))) {
		struct sr_patch_summary *ps = &db->ps[d->kind];

		if (sr_patch_summary_add(ps, d, &ev[1], &ev[2])) {
			diverged = 1;
			if (sr_store_divergent(db->store, d->id, 1, &db->cause))
				return -SR_E_IO;
		}
	}
	if (!sr_decision_is_balance(d->kind)) {
		db->pend_pid = d->pid;
		db->pend_ts = d->done_ts;
		db->pend_id = d->id;
		db->pend_diverged = diverged;
	}
	return 0;
}

static int db_slice(const struct sr_slice_row *row, void *data)
{
	struct sim_db *db = data;

	return sr_store_slice(db->store, row, &db->cause) ? -SR_E_IO : 0;
}

static int db_event(const struct sr_event *ev, void *data)
{
	struct sim_db *db = data;
	int ret;

	if (cmd_interrupted)
		return -SR_E_INTR;
	db->events++;
	ret = sr_slices_feed(db->slices, ev);
	if (ret)
		return ret;
	/* the woken slice names its placement decision, as in a replay */
	if ((ev->kind == SR_EV_WAKEUP || ev->kind == SR_EV_WAKEUP_NEW) &&
	    ev->pid == db->pend_pid && ev->ts == db->pend_ts) {
		sr_slices_decision(db->slices, ev->pid, ev->ts, db->pend_id, db->pend_diverged);
		db->pend_pid = 0;
	}
	return 0;
}

static int db_migration(const struct sr_migration *m, void *data)
{
	struct sim_db *db = data;

	return sr_store_migration(db->store, m, &db->cause) ? -SR_E_IO : 0;
}

/* the sides of @sd's simulated run, in the store's order (struct sim_db) */
static void db_sides(struct sim_db *db, const struct side *sides, int i)
{
	const struct side *sd = &sides[i];
	int k;

	memset(db->ps, 0, sizeof(db->ps));
	if (!sd->patch) {
		db->sides[0] = sd->m;
		db->touches[0] = (1u << SR_DEC__COUNT) - 1;
		db->nsides = 1;
		db->self = 0;
		return;
	}
	/* the pair's original side is at i or i - 1 */
	if (!strcmp(sd->variant, "patched"))
		i--;
	db->sides[0] = sides[i].m->base;
	db->sides[1] = sides[i].m;
	db->sides[2] = sides[i + 1].m;
	db->touches[0] = (1u << SR_DEC__COUNT) - 1;
	db->touches[1] = db->touches[2] = 0;
	for (k = 0; k < SR_DEC__COUNT; k++)
		if (sr_patch_touches(sr_patch_find(sd->patch), (enum sr_decision_kind)k))
			db->touches[1] |= 1u << k;
	db->touches[2] = db->touches[1];
	db->nsides = 3;
	db->self = &sides[i] == sd ? 1 : 2;
	for (k = 0; k < SR_DEC__COUNT; k++) {
		db->ps[k].patch = sd->patch;
		db->ps[k].seed = sr_patch_find(sd->patch)->seed;
		db->ps[k].model = db->sides[0]->name;
		db->ps[k].kind = sr_decision_kind_name((enum sr_decision_kind)k);
	}
}

/* the kinds the pair touches, as replay writes them */
static int db_summaries(const struct sim_db *db, struct sr_patch_summary *out)
{
	int k, n = 0;

	for (k = 0; db->nsides == 3 && k < SR_DEC__COUNT; k++)
		if (db->touches[1] & (1u << k))
			out[n++] = db->ps[k];
	return n;
}

/* the run of side @i: its row (kind 'simulate'), CPUs and sides; the slices */
static int db_begin(struct sim_db *db, const struct side *sides, int i, const char *trace,
		    const struct sr_trace_info *tinfo, const struct sr_topology *topo,
		    const struct sr_kgen *kgen, int hz, uint64_t seed, int fair, char **cause)
{
	char kgen_text[SR_KGEN_TEXT_MAX];
	struct sr_run_info ri = {
		.trace = trace,
		.tinfo = tinfo,
		.topology = topo->source,
		.kernel_gen = kgen_text,
		.version = SR_VERSION,
		.hz = hz,
	};
	struct sr_sim_run_info si = {
		.variant = sides[i].variant,
		.seed = seed,
		.fair = fair_names[fair],
	};
	int err;

	db_sides(db, sides, i);
	ri.models = db->sides[0]->name;
	ri.patches = sides[i].patch;
	sr_kgen_describe(kgen, kgen_text, sizeof(kgen_text));
	err = sr_store_begin_run(db->store, &ri, topo, db->sides, db->touches, db->nsides, cause);
	if (!err)
		err = sr_store_mark_simulated(db->store, &si, cause);
	if (err)
		return err;
	db->events = 0;
	db->pend_pid = 0;
	db->slices = sr_slices_new(topo, SR_PSTATE_REPORT, db_slice, db);
	return db->slices ? 0 : -SR_E_NOMEM;
}

/* the run's end: the open slices, the totals; @more: another run follows */
static int db_end(struct sim_db *db, const struct sr_trace_info *tinfo, uint64_t t0,
		  uint64_t t_end, int more, char **cause)
{
	struct sr_patch_summary ps[SR_DEC__COUNT];
	struct sr_replay_stats st;
	struct sr_fidelity *fid;
	int err;

	err = sr_slices_finish(db->slices, t_end);
	sr_slices_free(db->slices);
	db->slices = NULL;
	if (err)
		return err;
	/* no fidelity (the simulated machine is its side's own choices) and nothing skipped */
	memset(&st, 0, sizeof(st));
	fid = sr_fidelity_new(NULL);
	if (!fid)
		return -SR_E_NOMEM;
	err = sr_store_finish_run(db->store, tinfo, &st, fid, ps, db_summaries(db, ps),
				  db->events, t0, t_end, cause);
	sr_fidelity_free(fid);
	if (!err && more)
		err = sr_store_next_run(db->store, cause);
	return err;
}

static int simulate_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "model",		required_argument,	NULL, 'm' },
		{ "patch",		required_argument,	NULL, 'p' },
		{ "topology",		required_argument,	NULL, 't' },
		{ "hz",			required_argument,	NULL, 'z' },
		{ "runs",		required_argument,	NULL, 'r' },
		{ "seed",		required_argument,	NULL, 's' },
		{ "json",		no_argument,		NULL, 'j' },
		{ "export-demand",	required_argument,	NULL, 'e' },
		{ "kthreads",		no_argument,		NULL, 'k' },
		{ "fair",		required_argument,	NULL, 'F' },
		{ "kernel",		required_argument,	NULL, 'Z' },
		{ "output",		required_argument,	NULL, 'o' },
		{ "force",		no_argument,		NULL, 'f' },
		{ "append",		no_argument,		NULL, 'a' },
		{ "help",		no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *model = "mainline", *topo_spec = NULL, *export = NULL, *trace, *out = NULL;
	const char *kernel_opt = NULL;
	struct sim_db db;
	struct sr_trace_info tinfo;
	int force = 0, append = 0;
	const char *patches[MAX_PATCHES];
	struct side sides[MAX_SIDES];
	struct sr_topology *topo = NULL;
	struct sr_demand *d = NULL;
	struct sr_trace *tr = NULL;
	struct sr_rm *rm = NULL;
	struct sr_run_metrics rec;
	const struct sr_model *base;
	char *cause = NULL, *end;
	int npatches = 0, nsides = 0, runs = 1, hz = 250, json = 0, kthreads = 0, fair = -1;
	int ncpus = 0, hz_given = 0, model_given = 0;
	char kernel[160];
	struct sr_meta meta;
	struct sr_kgen kgen;
	int opt, ret = EXIT_FAIL, i, r;
	unsigned long long seed = 1;

	memset(sides, 0, sizeof(sides));
	memset(&meta, 0, sizeof(meta));
	memset(&db, 0, sizeof(db));
	memset(&tinfo, 0, sizeof(tinfo));
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "m:p:t:o:fah", longopts, NULL)) != -1) {
		switch (opt) {
		case 'm':
			/* one base model a run, unlike replay's repeatable -m */
			if (model_given) {
				sr_error("simulate: one base model per run, not '%s' and '%s' "
					 "(run simulate once per model)", model, optarg);
				return EXIT_USAGE;
			}
			model = optarg;
			model_given = 1;
			break;
		case 'p':
			if (npatches == MAX_PATCHES) {
				sr_error("simulate: at most %d patch pairs", MAX_PATCHES);
				return EXIT_USAGE;
			}
			patches[npatches++] = optarg;
			break;
		case 't':
			topo_spec = optarg;
			break;
		case 'z':
			hz_given = 1;
			hz = (int)strtol(optarg, &end, 10);
			if (*end || hz < 10 || hz > 10000) {
				sr_error("simulate: invalid HZ '%s' (10 to 10000)", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'r':
			runs = (int)strtol(optarg, &end, 10);
			if (*end || runs < 1 || runs > MAX_RUNS) {
				sr_error("simulate: invalid --runs '%s' (1 to %d)", optarg, MAX_RUNS);
				return EXIT_USAGE;
			}
			break;
		case 's':
			seed = strtoull(optarg, &end, 10);
			if (*end || !*optarg) {
				sr_error("simulate: invalid --seed '%s' (a number)", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'j':
			json = 1;
			break;
		case 'e':
			export = optarg;
			break;
		case 'k':
			kthreads = 1;
			break;
		case 'o':
			out = optarg;
			break;
		case 'f':
			force = 1;
			break;
		case 'a':
			append = 1;
			break;
		case 'Z':
			if (cmd_kernel_option("simulate", optarg))
				return EXIT_USAGE;
			kernel_opt = optarg;
			break;
		case 'F':
			for (fair = 0; fair < 3; fair++)
				if (!strcmp(optarg, fair_names[fair]))
					break;
			if (fair < 3)
				break;
			sr_error("simulate: invalid --fair '%s' (cfs, eevdf or eevdf-delay)", optarg);
			return EXIT_USAGE;
		case 'h':
			cmd_usage(&cmd_simulate, stdout);
			return EXIT_OK;
		default:
			return cmd_bad_option(&cmd_simulate, argv[optind - 1]);
		}
	}
	if (cmd_one_trace(&cmd_simulate, argc, optind))
		return EXIT_USAGE;
	if ((force || append) && !out) {
		sr_error("simulate: --%s needs --output DB", force ? "force" : "append");
		return EXIT_USAGE;
	}
	if (kthreads && !export) {
		sr_error("simulate: --kthreads needs --export-demand FILE (it selects what the "
			 "rt-app export holds)");
		return EXIT_USAGE;
	}
	if (force && append) {
		sr_error("simulate: --force and --append exclude each other");
		return EXIT_USAGE;
	}
	trace = argv[optind];
	if (out) {
		struct sr_store_opts so = { .force = force, .append = append };

		/* at once, not after the whole trace is read and simulated */
		if (sr_store_refuses(out, &so, &cause)) {
			sr_error("simulate: %s", cause ? cause : sr_strerror(-SR_E_NOMEM));
			free(cause);
			return EXIT_FAIL;
		}
	}
	base = sr_model_find(model);
	if (!base) {
		sr_error("simulate: unknown model '%s' (see 'schedreplay replay --list-models')",
			 model);
		return EXIT_USAGE;
	}
	for (i = 0; i < npatches; i++)
		if (!sr_patch_find(patches[i])) {
			sr_error("simulate: unknown patch '%s' (see 'schedreplay replay "
				 "--list-patches')", patches[i]);
			return EXIT_USAGE;
		}

	/* the machine */
	if (topo_spec)
		topo = cmd_is_topology_preset(topo_spec) ? sr_topology_new_preset(topo_spec, base->sd_era, &cause) :
		       sr_topology_new_file(topo_spec, base->sd_era, &cause);
	if (topo_spec && !topo) {
		sr_error("%s", cause ? cause : "simulate: cannot load the topology");
		free(cause);
		return EXIT_USAGE;
	}

	/*
	 * The trace is opened once (each open checks its event formats): what
	 * it says of itself (its CPUs, its kernel's release), then the
	 * recording's metadata (schedreplay record: HZ, the topology, the task
	 * snapshot), which leaves it at its first event again, then the demand
	 */
	{
		const struct sr_trace_info *ti;

		ret = sr_trace_open(trace, NULL, &tr, &cause);
		if (ret) {
			sr_error("%s", cause ? cause : sr_strerror(ret));
			free(cause);
			sr_topology_free(topo);
			return EXIT_FAIL;
		}
		ti = sr_trace_borrow_info(tr);
		ncpus = ti->ncpus_declared;
		sr_strlcpy(kernel, ti->kernel, sizeof(kernel));
		/* for the database's run rows: the recording's format, host, kernel, clock */
		tinfo = *ti;
		tinfo.path = NULL;
		tinfo.reader = NULL;
		tinfo.cpu = NULL;
		tinfo.ncpus = 0;
	}
	r = sr_meta_read(trace, NULL, &tr, &meta, &cause);
	if (r) {
		sr_error("%s", cause ? cause : sr_strerror(r));
		free(cause);
		sr_trace_free(tr);
		sr_topology_free(topo);
		sr_meta_release(&meta);
		return EXIT_FAIL;
	}
	/*
	 * The kernel generation (schedreplay/kgen.h) the simulated machine and
	 * the models follow, as replay takes it; by default it chooses the
	 * fair class's rules too
	 */
	cmd_kgen("simulate", "the simulated machine and the models", trace, kernel, meta.kernel,
		 meta.kernel_build, kernel_opt, &kgen);
	if (fair < 0)
		fair = !sr_kgen_has(&kgen, SR_KF_EEVDF) ? 0 :
		       !sr_kgen_has(&kgen, SR_KF_DELAY_DEQUEUE) ? 1 : 2;
	if (meta.hz > 0 && !hz_given)
		hz = meta.hz;
	if (!topo && meta.topo) {
		FILE *f = fmemopen(meta.topo, meta.topo_len, "r");

		topo = f ? sr_topology_new_stream(f, "recording", base->sd_era, &cause) : NULL;
		if (f)
			fclose(f);
		if (!topo) {
			sr_error("%s", cause ? cause : sr_strerror(-SR_E_NOMEM));
			ret = EXIT_FAIL;
			goto out;
		}
		snprintf(topo->source, sizeof(topo->source), "recording metadata");
	}

	/* the demand, and the recorded run's figures on the same machine */
	if (!topo && ncpus <= 0) {
		ncpus = cmd_trace_cpus(trace, NULL, &cause);
		if (ncpus < 0) {
			sr_error("%s", cause ? cause : sr_strerror(ncpus));
			goto out;
		}
	}
	if (!topo) {
		topo = sr_topology_new_flat(ncpus, base->sd_era);
		if (!topo || sr_topology_build_domains(topo)) {
			sr_error("simulate: %s", sr_strerror(-SR_E_NOMEM));
			goto out;
		}
		snprintf(topo->source, sizeof(topo->source), "flat fallback");
		sr_warn("simulate: '%s' carries no topology and no -t was given: simulating on a FLAT "
			"%d-CPU machine (one LLC, one node); give the recording machine's topology",
			trace, topo->ncpus);
	} else if (sr_topology_build_domains(topo)) {
		sr_error("simulate: the topology '%s' has too many levels or a bad node",
			 topo->source);
		ret = EXIT_USAGE;
		goto out;
	}
	ret = EXIT_FAIL;
	rm = sr_rm_new(topo, 64, 0);
	if (!rm) {
		sr_error("simulate: %s", sr_strerror(-SR_E_NOMEM));
		goto out;
	}
	r = sr_demand_from_open_trace(tr, trace, rm, &d, &cause);
	sr_trace_free(tr);
	tr = NULL;
	if (r) {
		sr_error("%s", cause ? cause : sr_strerror(r));
		goto out;
	}
	if (d->ncpus > topo->ncpus) {
		sr_error("simulate: topology '%s' has %d CPU%s, the trace '%s' uses %d",
			 topo->source, topo->ncpus, topo->ncpus == 1 ? "" : "s", trace, d->ncpus);
		ret = EXIT_USAGE;
		goto out;
	}
	sr_rm_finish(rm, d->t1, &rec);
	apply_hints(d, &meta, topo->ncpus);
	if (!d->ntasks)
		sr_warn("simulate: '%s' has no task (no scheduler event): there is no demand to "
			"simulate%s", trace, export ? ", and the rt-app workload runs nothing" : "");
	if (export) {
		ret = export_demand(d, export, kthreads);
		if (ret)
			goto out;
		ret = EXIT_FAIL;
	}

	/* the sides: the base model, then each pair's original and patched */
	sides[nsides].m = base;
	sides[nsides++].variant = "base";
	for (i = 0; i < npatches; i++) {
		const struct sr_patch *p = sr_patch_find(patches[i]);
		int h;

		for (h = 0; h < 2; h++) {
			struct side *sd = &sides[nsides++];

			sd->owned = sr_patch_side(p, base, h);
			if (!sd->owned) {
				sr_error("simulate: %s", sr_strerror(-SR_E_NOMEM));
				goto out;
			}
			sd->m = sd->owned;
			sd->patch = p->name;
			sd->variant = h ? "patched" : "original";
		}
	}
	if (out) {
		struct sr_store_opts so = {
			.force = force,
			.append = append,
			.lock_timeout_ms = SR_DB_LOCK_TIMEOUT_MS,
			.cancel = &cmd_interrupted,
			.notice = store_notice,
		};

		/* before the temporary file exists: a signal must not leave it behind */
		cmd_catch_signals();
		db.store = sr_store_create(out, &so, &cause);
		if (!db.store) {
			sr_error("simulate: %s", cause ? cause : "cannot create the database");
			goto out;
		}
	}
	for (i = 0; i < nsides; i++) {
		struct side *sd = &sides[i];

		sd->run = calloc((size_t)runs, sizeof(*sd->run));
		sd->div = calloc((size_t)runs, sizeof(*sd->div));
		if (!sd->run || !sd->div) {
			sr_error("simulate: %s", sr_strerror(-SR_E_NOMEM));
			goto out;
		}
		for (r = 0; r < runs; r++) {
			struct sr_sim_opts o = {
				.topo = topo,
				.hz = hz,
				.model = sd->m,
				.seed = seed + (uint64_t)r,
				.jitter = JITTER,
				.eevdf = fair,
				.kgen = &kgen,
				/* a pair's other side, for the divergent decisions */
				.shadow = !sd->patch ? NULL :
					  !strcmp(sd->variant, "original") ? sides[i + 1].m : sides[i - 1].m,
			};
			struct sr_sim_stats st;
			int err, k;

			/* -o: the first run of each side (seed S) goes into the database */
			if (db.store && !r) {
				err = db_begin(&db, sides, i, trace, &tinfo, topo, &kgen, hz,
					       seed, fair, &cause);
				if (err)
					goto db_fail;
				o.observer = sd->patch ? base : NULL;
				o.decision = db_decision;
				o.event = db_event;
				o.migration = db_migration;
				o.data = &db;
			}
			err = sr_sim_run(d, &o, &sd->run[r], &st, &cause);
			if (db.store && !r) {
				if (!err)
					err = db_end(&db, &tinfo, d->t0, st.t_end, i + 1 < nsides,
						     &cause);
				if (err && db.cause) {
					free(cause);
					cause = db.cause;
					db.cause = NULL;
				}
			}
			if (err) {
db_fail:
				if (err == -SR_E_INTR || cmd_interrupted)
					goto intr;
				sr_error("%s", cause ? cause : sr_strerror(err));
				goto out;
			}
			for (k = 0; k < SR_DEC__COUNT; k++)
				sd->div[r] += (double)st.diverged[k];
			sd->div[r] += (double)st.exec_diverged;
			if (!r)
				sd->st = st;
		}
		side_summary(sd, runs);
	}
	/*
	 * Latencies over other wakeups are not comparable: say so where the
	 * closed loop lost or made many (the latency tolerance of the
	 * validation, 30 %, as the bound)
	 */
	for (i = 0; i < nsides; i++) {
		double w = (double)sides[i].med.wakeups, rw = (double)rec.wakeups;

		if (rw > 0 && (w < 0.7 * rw || w > 1.3 * rw))
			sr_warn("simulate: %s%s%s%s had %llu wakeups against the recording's %llu: "
				"its latency figures are over other wakeups than the recording's",
				sides[i].m->base ? sides[i].m->base->name : sides[i].m->name,
				sides[i].patch ? " " : "", sides[i].patch ? sides[i].patch : "",
				sides[i].patch ? (sides[i].variant[0] == 'p' ? " patched" :
						  " original") : "",
				(unsigned long long)sides[i].med.wakeups,
				(unsigned long long)rec.wakeups);
	}
	/*
	 * A run that stopped short (tasks left waiting for a wakeup the
	 * simulated order never made, their forks never made): its figures
	 * are over part of the demand; say how much (more than 1 % of it)
	 */
	for (i = 0; i < nsides; i++) {
		const struct sr_sim_stats *st = &sides[i].st;

		if (st->unrun_ns * 100 > st->demand_ns && st->demand_ns)
			sr_warn("simulate: %s%s%s%s left %.3f of the demand's %.3f recorded CPU-s "
				"un-run (%.1f %%, first run): %llu tasks with CPU time left, %llu of "
				"them never forked, %llu waiting for a wakeup that never came "
				"(schedreplay-simulate(1), INCOMPLETE RUNS); its figures are over "
				"the part that ran",
				sides[i].m->base ? sides[i].m->base->name : sides[i].m->name,
				sides[i].patch ? " " : "", sides[i].patch ? sides[i].patch : "",
				sides[i].patch ? (sides[i].variant[0] == 'p' ? " patched" :
						  " original") : "",
				(double)st->unrun_ns / 1e9, (double)st->demand_ns / 1e9,
				100.0 * (double)st->unrun_ns / (double)st->demand_ns,
				(unsigned long long)st->unrun_tasks,
				(unsigned long long)st->unforked,
				(unsigned long long)st->stuck);
	}
	if (!rec.wakeups && nsides && sides[0].med.wakeups)
		sr_warn("simulate: '%s' has no wakeup the recording measured (no sched_waking or "
			"sched_wakeup of a sleeping task): its latency figures are '-', and the "
			"simulated sides' wakeups (%llu for %s) have none to compare with", trace,
			(unsigned long long)sides[0].med.wakeups,
			sides[0].m->base ? sides[0].m->base->name : sides[0].m->name);
	if (db.store) {
		r = cmd_interrupted ? -SR_E_INTR : sr_store_commit(db.store, &cause);
		if (r == -SR_E_INTR || cmd_interrupted)
			goto intr;
		if (r) {
			sr_error("simulate: %s", cause ? cause : sr_strerror(r));
			goto out;
		}
		fprintf(stderr, "%s: simulate: runs %ld-%ld (%d simulated side%s) %s '%s'\n",
			sr_progname, sr_store_run_id(db.store),
			sr_store_run_id(db.store) + nsides - 1, nsides, nsides == 1 ? "" : "s",
			sr_store_appended(db.store) ? "appended to" : "written to new",
			sr_store_path(db.store));
		if (sr_store_migrated(db.store))
			cmd_warn_migrated("simulate", sr_store_path(db.store), "by the append");
	}
	if (json)
		print_json(&rec, sides, nsides, runs, fair, stdout);
	else
		print_table(trace, d, &rec, sides, nsides, runs, topo->source, hz, fair, &kgen);
	ret = EXIT_OK;
	goto out;
intr:
	/* as replay: nothing written, and the signal's exit status */
	sr_error("simulate: interrupted, nothing written to '%s'", out);
	ret = 128 + (cmd_interrupted ? cmd_interrupted : SIGINT);
out:
	sr_trace_free(tr);
	sr_slices_free(db.slices);
	sr_store_free(db.store);
	free(db.cause);
	free(cause);
	for (i = 0; i < nsides; i++) {
		free(sides[i].owned);
		free(sides[i].run);
		free(sides[i].div);
	}
	sr_demand_free(d);
	sr_rm_free(rm);
	sr_topology_free(topo);
	sr_meta_release(&meta);
	return ret;
}

const struct cmd_entry cmd_simulate = {
	.name = "simulate",
	.synopsis = "[-o DB [-f | -a]] [-m MODEL] [-p PATCH]... [-t TOPOLOGY] [--hz N] [--kernel RELEASE] [--fair RULES] [--runs N] [--seed S] "
		    "[--json] [--export-demand FILE [--kthreads]] TRACE",
	.summary = "closed-loop what-if: re-run the recorded demand on a simulated machine under "
		   "a model and patch sides, beside the recorded run",
	.options = simulate_options,
	.examples = simulate_examples,
	.exec = simulate_exec,
};
