// SPDX-License-Identifier: GPL-2.0
/*
 * "schedreplay replay TRACE": the whole line.  Reads the trace, rebuilds
 * the scheduler state, evaluates every model at every wakeup and fork
 * placement, writes the decisions into a database and prints how often
 * each model agrees with what the recording kernel did (fidelity).
 */
#include "cmd.h"

#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "schedreplay/error.h"
#include "schedreplay/fidelity.h"
#include "schedreplay/kgen.h"
#include "schedreplay/model.h"
#include "schedreplay/patch.h"
#include "schedreplay/slices.h"
#include "schedreplay/store.h"
#include "schedreplay/trace.h"
#include "escape.h"
#include "meta.h"
#include "version.h"
#include "banned.h"

/*
 * A signal (cmd_catch_signals()) stops the replay loop, the engine's last
 * decisions and the store (its writer thread, the index build, the wait for
 * a lock, the append's copy), and nothing is written.  Once the run is
 * committed a signal changes nothing any more.
 */

/* ---- the progress line: on a terminal only ----------------------------------- */

struct progress {
	int on;
	double start, last;
	uint64_t total;			/* bytes of a trace file; 0 for a directory */
	uint64_t read0;			/* bytes the process had read at the start */
};

static double mono_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* the bytes this process has read so far (read and pread, as the readers do) */
static uint64_t bytes_read(void)
{
	unsigned long long v = 0;
	char line[128];
	FILE *f = fopen("/proc/self/io", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "rchar: %llu", &v) == 1)
			break;
	fclose(f);
	return v;
}

static void progress_start(struct progress *p, const char *path, int on)
{
	struct stat st;

	memset(p, 0, sizeof(*p));
	p->on = on;
	if (!on)
		return;
	/* the first line at the first 16384 events, then twice a second */
	p->start = mono_seconds();
	p->last = p->start - 1;
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
		p->total = (uint64_t)st.st_size;
	p->read0 = p->total ? bytes_read() : 0;
}

static void human_time(char *buf, size_t len, double s)
{
	long t = (long)(s + 0.5);

	if (t >= 3600)
		snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
}

/* "replay: 3145728 events, 41% of 812 MB, 1.2 M events/s, 0:07 left", twice a second */
static void progress_update(struct progress *p, uint64_t events)
{
	double now, el, rate, frac = -1;
	char pct[64] = "", eta[32] = "";

	if (!p->on || (events & 0x3fff))
		return;
	now = mono_seconds();
	if (now - p->last < 0.5)
		return;
	p->last = now;
	el = now - p->start;
	rate = el > 0 ? (double)events / el : 0;
	if (p->total) {
		frac = (double)(bytes_read() - p->read0) / (double)p->total;
		if (frac > 0.99)
			frac = 0.99;
		snprintf(pct, sizeof(pct), ", %d%% of %.0f MB", (int)(frac * 100),
			 (double)p->total / 1e6);
	}
	if (frac >= 0.01) {
		human_time(eta, sizeof(eta) - 6, el * (1 - frac) / frac);
		strncat(eta, " left", sizeof(eta) - strlen(eta) - 1);
	}
	fprintf(stderr, "\rreplay: %llu events%s, %.2f M events/s%s%s\033[K",
		(unsigned long long)events, pct, rate / 1e6, *eta ? ", " : "", eta);
}

/* a progress line for the last steps (the engine's end, the database) */
static void progress_phase(struct progress *p, const char *what)
{
	if (p->on)
		fprintf(stderr, "\rreplay: %s\033[K", what);
}

static void progress_end(struct progress *p)
{
	if (p->on)
		fprintf(stderr, "\r\033[K");
	p->on = 0;
}

/* ---- the database ----------------------------------------------------------------- */

static void store_notice(const char *msg, void *data)
{
	struct progress *p = data;

	if (p && p->on)
		fprintf(stderr, "\r\033[K");
	sr_error("replay: %s", msg);
}

#define MAX_PATCHES 8

/* which decisions get every CPU's state in the database (cpu_state) */
enum { SNAP_NONE, SNAP_DIVERGENT, SNAP_ALL };

struct replay_ctx {
	struct sr_store *store;
	struct sr_slices *slices;	/* the trace's run and wait slices, with a store */
	struct sr_fidelity *fid;
	/* base models */
	const struct sr_model *models[SR_MAX_MODELS];
	int nmodels;
	/* what the engine evaluates: the base models, then each patch's two sides */
	const struct sr_model *sides[SR_MAX_MODELS];
	unsigned touches[SR_MAX_MODELS];	/* 1 << decision kind */
	int nsides;
	const struct sr_patch *patches[MAX_PATCHES];
	int npatches;
	/* per pair (original side at sides[nmodels + 2 * k]) and decision kind */
	struct sr_patch_summary summary[SR_MAX_MODELS / 2][SR_DEC__COUNT];
	int snapshots;
	const struct sr_replay *r;	/* the engine, for what its decisions read */
	char *cause;
};

static int on_decision(const struct sr_decision *d, const struct sr_eval *evals, int nevals,
		       void *data)
{
	struct replay_ctx *rc = data;
	int i, diverged = 0, missed = 0;

	if (rc->store && sr_store_decision(rc->store, d, evals, nevals, &rc->cause))
		return -SR_E_IO;
	for (i = 0; i < nevals && i < rc->nmodels; i++)
		missed |= !sr_eval_matches(d, &evals[i]);
	for (i = 0; i < nevals && i < rc->nmodels; i++)
		if (sr_fidelity_add(rc->fid, rc->models[i]->name, d, &evals[i]))
			return -SR_E_NOMEM;
	for (i = rc->nmodels; i + 1 < nevals; i += 2) {
		struct sr_patch_summary *ps = &rc->summary[(i - rc->nmodels) / 2][d->kind];

		if (!(rc->touches[i] & (1u << d->kind)))
			continue;
		if (!sr_patch_summary_add(ps, d, &evals[i], &evals[i + 1]))
			continue;
		diverged = 1;
		if (rc->store && sr_store_divergent(rc->store, d->id, i, &rc->cause))
			return -SR_E_IO;
		if (!sr_decision_is_balance(d->kind) &&
		    sr_slices_estimate(rc->slices, d->id, d->pid, (int[]){ evals[i].cpu,
				       evals[i + 1].cpu, d->actual_cpu }, 3))
			return rc->cause ? -SR_E_IO : -SR_E_NOMEM;
	}
	/* after the pairs: a divergent decision's woken slice says so */
	if (!sr_decision_is_balance(d->kind))
		sr_slices_decision(rc->slices, d->pid, d->done_ts, d->id, diverged);
	if (rc->store && (diverged || rc->snapshots == SNAP_ALL) &&
	    sr_store_cpu_state(rc->store, d, &rc->cause))
		return -SR_E_IO;
	/* the inputs that decided, where it matters: a miss or a divergence */
	if (rc->store && (diverged || missed) &&
	    sr_store_why(rc->store, d->id, sr_replay_why(rc->r), &rc->cause))
		return -SR_E_IO;
	return 0;
}

static int on_slice(const struct sr_slice_row *row, void *data)
{
	struct replay_ctx *rc = data;

	return sr_store_slice(rc->store, row, &rc->cause) ? -SR_E_IO : 0;
}

static int on_migration(const struct sr_migration *m, void *data)
{
	struct replay_ctx *rc = data;

	if (rc->store && sr_store_migration(rc->store, m, &rc->cause))
		return -SR_E_IO;
	return 0;
}

/* the sides the engine evaluates: base models, then each patch over each */
static int build_sides(struct replay_ctx *rc, char **cause)
{
	int i, k;

	for (i = 0; i < rc->nmodels; i++) {
		rc->sides[rc->nsides] = rc->models[i];
		rc->touches[rc->nsides++] = (1u << SR_DEC__COUNT) - 1;
	}
	for (i = 0; i < rc->nmodels; i++)
		for (k = 0; k < rc->npatches; k++) {
			const struct sr_patch *p = rc->patches[k];
			unsigned touch = 0;
			struct sr_patch_summary *ps;
			int v, j;

			for (j = 0; j < SR_DEC__COUNT; j++)
				touch |= (unsigned)sr_patch_touches(p, (enum sr_decision_kind)j) << j;
			if (rc->nsides + 2 > SR_MAX_MODELS) {
				sr_cause_set(cause, "%d models and %d patch pairs are %d evaluations "
					     "per decision (each model, and both sides of each pair "
					     "over each model), at most %d: fewer models or patches",
					     rc->nmodels, rc->npatches,
					     rc->nmodels * (1 + 2 * rc->npatches), SR_MAX_MODELS);
				return -SR_E_USAGE;
			}
			for (v = 0; v < 2; v++) {
				struct sr_model *m = sr_patch_side(p, rc->models[i], v);

				if (!m)
					return -SR_E_NOMEM;
				rc->sides[rc->nsides] = m;
				rc->touches[rc->nsides++] = touch;
			}
			ps = rc->summary[(rc->nsides - 2 - rc->nmodels) / 2];
			for (j = 0; j < SR_DEC__COUNT; j++) {
				ps[j].patch = p->name;
				ps[j].seed = p->seed;
				ps[j].model = rc->models[i]->name;
				ps[j].kind = sr_decision_kind_name((enum sr_decision_kind)j);
			}
		}
	return 0;
}

static void free_sides(struct replay_ctx *rc)
{
	int i;

	for (i = rc->nmodels; i < rc->nsides; i++)
		free((struct sr_model *)rc->sides[i]);
	rc->nsides = 0;
}

/* the patch summaries of the kinds each patch touches */
static int summaries(struct replay_ctx *rc, struct sr_patch_summary *out)
{
	int i, j, n = 0;

	for (i = rc->nmodels; i + 1 < rc->nsides; i += 2)
		for (j = 0; j < SR_DEC__COUNT; j++)
			if (rc->touches[i] & (1u << j))
				out[n++] = rc->summary[(i - rc->nmodels) / 2][j];
	return n;
}

static void pct(char *buf, size_t len, uint64_t a, uint64_t n)
{
	if (n)
		snprintf(buf, len, "%.1f", 100.0 * (double)a / (double)n);
	else
		snprintf(buf, len, "-");
}

static void print_patches(struct replay_ctx *rc, FILE *out)
{
	struct sr_patch_summary ps[SR_MAX_MODELS / 2 * SR_DEC__COUNT];
	int i, n = summaries(rc, ps);

	if (!n)
		return;
	fprintf(out, "\npatches: at the decisions where the two sides differ, which side matches "
		"the kernel\n");
	fprintf(out, "%-22s %-9s %-16s %10s %9s %8s %10s %10s\n", "patch", "model", "kind",
		"decisions", "divergent", "rate%", "orig_ok%", "patch_ok%");
	for (i = 0; i < n; i++) {
		char r[16], o[16], p[16];

		pct(r, sizeof(r), ps[i].divergent, ps[i].decisions);
		pct(o, sizeof(o), ps[i].original_exact, ps[i].divergent);
		pct(p, sizeof(p), ps[i].patched_exact, ps[i].divergent);
		fprintf(out, "%-22s %-9s %-16s %10llu %9llu %8s %10s %10s\n", ps[i].patch,
			ps[i].model, ps[i].kind, (unsigned long long)ps[i].decisions,
			(unsigned long long)ps[i].divergent, r, o, p);
	}
}

/* what was written, one line on stderr */
static void print_written(struct replay_ctx *rc, FILE *out)
{
	struct sr_patch_summary ps[SR_MAX_MODELS / 2 * SR_DEC__COUNT];
	int i, n = summaries(rc, ps);
	uint64_t div = 0;

	for (i = 0; i < n; i++)
		div += ps[i].divergent;
	fprintf(out, "%s: replay: run %ld %s '%s': %llu decisions", sr_progname,
		sr_store_run_id(rc->store),
		sr_store_appended(rc->store) ? "appended to" : "written to new",
		sr_store_path(rc->store), (unsigned long long)sr_store_decisions(rc->store));
	if (rc->npatches)
		fprintf(out, ", %llu divergences (a decision counts once per patch pair whose "
			"sides differ there)", (unsigned long long)div);
	fprintf(out, "\n");
}

/*
 * The topology the replay runs on, and where it comes from (run.topology):
 * -t NODESxCORESxTHREADS or -t FILE, else the recording's metadata, else a
 * flat machine with a loud warning first, for its LLC and node figures say
 * nothing.  A -t whose CPU count is not the trace's is refused.
 */
static struct sr_topology *load_topology(const char *path, const struct sr_trace_opts *opts,
					 const char *spec, const struct sr_meta *meta,
					 enum sr_sd_era era, const struct sr_trace_info *ti,
					 int *err, char **cause)
{
	struct sr_topology *topo;

	*err = -SR_E_USAGE;
	if (spec && cmd_is_topology_preset(spec)) {
		topo = sr_topology_new_preset(spec, era, cause);
	} else if (spec) {
		topo = sr_topology_new_file(spec, era, cause);
	} else if (meta->topo) {
		FILE *f = fmemopen(meta->topo, meta->topo_len, "r");

		topo = f ? sr_topology_new_stream(f, "recording", era, cause) : NULL;
		if (f)
			fclose(f);
		if (topo)
			snprintf(topo->source, sizeof(topo->source), "recording metadata");
	} else {
		int n = ti->ncpus_declared;

		if (n <= 0) {
			n = cmd_trace_cpus(path, opts, cause);
			if (n < 0) {
				*err = n;
				return NULL;
			}
		}
		if (n <= 0)
			n = 1;
		topo = sr_topology_new_flat(n, era);
		if (!topo) {
			*err = -SR_E_NOMEM;
			return NULL;
		}
		snprintf(topo->source, sizeof(topo->source),
			 "flat fallback (the trace carries no topology)");
		sr_warn("replay: '%s' carries no topology: replaying on a FLAT %d-CPU machine "
			"(one LLC, one node)", path, n);
		sr_warn("replay: same-LLC and same-node figures are then 100%% by construction, "
			"and no LLC or NUMA path of the models runs; give -t "
			"NODESxCORESxTHREADS or a topology file (schedreplay-replay(1), TOPOLOGY)");
	}
	if (!topo)
		return NULL;
	if (ti->ncpus_declared > 0 && (spec ? ti->ncpus_declared != topo->ncpus :
				       ti->ncpus_declared > topo->ncpus)) {
		sr_cause_set(cause, "topology '%s' does not fit '%s': the trace has %d CPUs, the "
			     "topology %d (give -t with %d CPUs in all, e.g. 1x%dx1, or the "
			     "recording machine's topology file)", spec ? spec : topo->source, path,
			     ti->ncpus_declared, topo->ncpus, ti->ncpus_declared,
			     ti->ncpus_declared);
		sr_topology_free(topo);
		return NULL;
	}
	return topo;
}

/* the CPUs of @topo as "cpu:core:llc:node,..." (run_topology's form); NULL without memory */
static char *topology_key(const struct sr_topology *topo)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int c;

	if (!m)
		return NULL;
	for (c = 0; c < topo->ncpus; c++)
		fprintf(m, "%s%d:%d:%d:%d", c ? "," : "", c, topo->cpu[c].core_id,
			topo->cpu[c].llc_id, topo->cpu[c].node);
	if (fclose(m)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/*
 * --append to a database whose runs used another topology: say so before
 * the run is added, since comparing such runs compares topologies too.  A
 * database that cannot be read here is left to the store to report.
 * Return: 1 when another writer held it (checked again once the run is in)
 */
static int check_append_topology(const char *db_path, const struct sr_topology *topo)
{
	sqlite3_stmt *st = NULL;
	char *key, *cause = NULL;
	int busy = 0;
	sqlite3 *db;

	if (access(db_path, F_OK))
		return 0;
	/* no wait: the append's own wait is the one --lock-timeout bounds */
	db = sr_db_open_wait(db_path, 0, 0, &cause, &busy);
	free(cause);
	key = topology_key(topo);
	if (!db || !key)
		goto out;
	if (sqlite3_prepare_v2(db, "SELECT r.run_id, coalesce(r.topology, '?'), count(c.cpu),"
			       " (SELECT group_concat(k, ',') FROM (SELECT x.cpu || ':' ||"
			       " x.core_id || ':' || x.llc_id || ':' || x.node AS k FROM cpu x"
			       " WHERE x.run_id = r.run_id ORDER BY x.cpu))"
			       " FROM run r LEFT JOIN cpu c ON c.run_id = r.run_id"
			       " GROUP BY r.run_id ORDER BY r.run_id", -1, &st, NULL) != SQLITE_OK)
		goto out;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *k = (const char *)sqlite3_column_text(st, 3);

		if (k && !strcmp(k, key))
			continue;
		sr_warn("replay: appending to '%s', whose run %lld has another topology (%s, %lld "
			"CPUs) than this run (%s, %d CPUs): comparing them compares the "
			"topologies too", db_path, (long long)sqlite3_column_int64(st, 0),
			(const char *)sqlite3_column_text(st, 1),
			(long long)sqlite3_column_int64(st, 2), topo->source, topo->ncpus);
	}
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
	free(key);
	return busy;
}

static const char inference_rules[] =
	"sync: WF_SYNC is not traced (without the select_rq probe): a wakeup is sync when\n"
	"  a task neither exiting nor a kernel thread wakes a task that is not a kernel\n"
	"  thread and did not block in D; other wakeups are non-sync\n"
	"wake list (without the probe): a sched_wakeup emitted on another CPU than its\n"
	"  sched_waking came through the wake list (a placement); one emitted on the\n"
	"  waker's CPU onto prev_cpu in another LLC is ttwu_runnable(), no placement\n"
	"exiting: a waker is exiting from its sched_process_exit until its final switch\n"
	"kthread: names ksoftirqd/N, migration/N, cpuhp/N, kworker/..., children of pid 2\n"
	"affinity: the snapshot's and setaffinity probe's masks where the trace has them\n"
	"  (without the probe a snapshot mask of every CPU does not stop the fork rule);\n"
	"  else a per-CPU name (ksoftirqd/N, kworker/N:M, ...) binds the task to CPU N;\n"
	"  such wakeups are not placements\n"
	"  else a task a newly idle balance would have pulled, three times over more than\n"
	"  a tick while the kernel pulled nothing, is pinned where it was seen (newidle only);\n"
	"  once where the balance probes show the kernel's load_balance() at that level\n"
	"  (a task seen on several CPUs then has the balancing CPU denied)\n"
	"  a pull in task context whose puller does not block next, or a move in task\n"
	"  context by another CPU's task, is that task's sched_setaffinity() of a queued\n"
	"  task: no balance, what was seen of the task before is forgotten,\n"
	"  the CPU it left is not allowed (wakeups, newidle) until it is seen there again\n"
	"  a parent whose forks kept three children on its CPU (fork rule) and those\n"
	"  children wake there without a placement unless the wakeup moves them\n"
	"pelt: tasks start with no history; a task's PELT is ours after its first wakeup\n"
	"groups: the snapshot's autogroups (autogroup 1, cgroup /), a child in its parent's,\n"
	"  an exiting task in the root; without a snapshot every task in the root group\n"
	"newidle: a switch whose prev blocked and left nothing to run but tasks woken\n"
	"  there from other CPUs since the CPU's previous event (they arrived during it)\n"
	"ttwu_pending: a wakeup whose waking ran on another CPU between the CPU's previous\n"
	"  event and its switch to idle arrives during that newidle balance\n"
	"tickless: an idle CPU idle for a tick (or never seen running) is nohz idle\n"
	"per-cpu kthread: KTHREAD_IS_PER_CPU from smpboot and bound-kworker names\n"
	"delayed (6.12+): a CFS task sleeping while its EEVDF vruntime (replayed from\n"
	"  the switches) is above V with another task queued stays queued until a pick:\n"
	"  a switch to idle, or a switch or a tick once it is eligible\n";

static void list_models(void)
{
	int i;

	for (i = 0; i < sr_model_count(); i++)
		printf("%-10s %s\n", sr_model_at(i)->name, sr_model_at(i)->summary);
}

static void list_patches(void)
{
	int i;

	for (i = 0; i < sr_patch_count(); i++) {
		const struct sr_patch *p = sr_patch_at(i);

		printf("%-24s %s\n", p->name, p->summary);
		printf("%-24s seed %s; replaces %s; %s\n", "", p->seed, p->function,
		       !p->scope ? "nothing to evaluate" :
		       p->scope == SR_SCOPE_WAKEUP ? "evaluated at wakeups" :
		       p->scope & SR_SCOPE_BALANCE ? "evaluated at load-balance decisions" :
		       "evaluated at wakeups and forks");
		if (p->merged)
			printf("%-24s in kernels since %s\n", "", p->merged);
		else if (p->replaced)
			printf("%-24s not merged; another form since %s\n", "", p->replaced);
		else if (p->abi > 1)
			printf("%-24s not merged\n", "");
	}
}

static const char replay_examples[] =
	"   schedreplay replay -t 2x26x2 trace.dat    fidelity of the mainline model\n"
	"   schedreplay replay -o run.db -m mainline -m v4.15 -p exit-sync-mel trace.dat\n"
	"   schedreplay replay -o run.db -a -p newidle-bail -t machine.topo trace.dat\n"
	"   schedreplay replay --list-patches\n";

static const char replay_options[] =
	"   -o, --output DB      write every decision into the SQLite database DB\n"
	"   -f, --force          replace DB if it exists\n"
	"   -a, --append         add this run to DB if it exists\n"
	"       --lock-timeout S wait up to S seconds for another writer's lock on DB\n"
	"                        (default 10)\n"
	"   -m, --model NAME     evaluate this model (repeatable; default: mainline)\n"
	"       --list-models    list the models and exit\n"
	"   -p, --patch NAME     evaluate both sides of this patch pair over each model\n"
	"                        (repeatable)\n"
	"       --list-patches   list the patch pairs and exit\n"
	"       --patch-file SO  load patch pairs from a shared object (repeatable)\n"
	"       --snapshots WHICH\n"
	"                        keep every CPU's state in DB for the 'divergent'\n"
	"                        decisions (default), 'all' or 'none'\n"
	"   -t, --topology SPEC  NODESxCORESxTHREADS (e.g. 2x26x2) or a topology file\n"
	"                        (default: what the recording says, else flat)\n"
	"       --hz N           CONFIG_HZ of the recording kernel (default: what the\n"
	"                        recording says, else 250)\n"
	"       --kernel RELEASE model the recording kernel as this release (6.12.117,\n"
	"                        6.1, ...): the generation whose scheduler behaviour the\n"
	"                        engine and the models follow (default: the trace's\n"
	"                        kernel release)\n"
	"       --fidelity       print the fidelity table (default without -o)\n"
	"       --json           print the fidelity table as JSON\n"
	"   -B, --buffer NAME    trace.dat buffer instance to read\n"
	"   -F, --format FMT     read TRACE as tracedat, ctf or text\n"
	"       --no-probes      ignore the select_rq probe events (tracepoints only)\n"
	"       --no-balance-probes  ignore the balance probe events (the newly idle\n"
	"                        levels, the balances whose group-imbalance marks\n"
	"                        the fork slow path reads, then inferred from the\n"
	"                        tick)\n"
	"       --no-input-probes  ignore the rqstat and lb_rqstat input probes\n"
	"                        (every CPU's load, util and queue as the placement\n"
	"                        or balance read them) and lb_task's\n"
	"                        nr_balance_failed: placements and balances read\n"
	"                        the engine's own state, and no inputs: line\n"
	"                        compares them with the engine's (lb_task's\n"
	"                        migration types still are)\n"
	"       --no-affinity    ignore the snapshot's masks and the setaffinity probe\n"
	"                        (affinity as another recorder's trace leaves it)\n"
	"       --no-groups      ignore the snapshot's autogroups: every task in the\n"
	"                        root task group (a flat hierarchy)\n"
	"   -q, --quiet          no progress line\n"
	"   -h, --help           show this help\n";

/* --lock-timeout: seconds (a fraction allowed) as milliseconds, -1 if invalid */
static int parse_lock_timeout(const char *arg)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || !(v >= 0 && v <= 86400)) {
		sr_error("replay: --lock-timeout takes seconds from 0 to 86400, not '%s'", arg);
		return -1;
	}
	return (int)(v * 1000 + 0.5);
}

/* options that only mean something together, or not together; 0 or -1 */
static int check_output_options(const char *out, int force, int append, int fidelity, int json)
{
	if (force && append) {
		sr_error("replay: --force and --append exclude each other");
		return -1;
	}
	if ((force || append) && !out) {
		sr_error("replay: --%s needs --output DB", force ? "force" : "append");
		return -1;
	}
	if (fidelity && json) {
		sr_error("replay: --fidelity and --json exclude each other (--json prints the "
			 "fidelity table as JSON)");
		return -1;
	}
	return 0;
}

/* the command line, as replay_parse() leaves it */
struct replay_args {
	struct sr_trace_opts opts;
	const char *out, *topo_spec, *path;
	int force, append, hz, hz_given, fidelity, json, quiet, no_probes, no_affinity, no_groups;
	int no_balance_probes;
	int no_input_probes;
	int lock_timeout_ms;
	const char *kernel;		/* --kernel RELEASE, or NULL */
	char models_text[256], patches_text[256];
};

/* what one run holds, from the trace's metadata to the engine; replay_release() frees it */
struct replay_run {
	struct sr_meta meta;
	struct sr_trace *t;
	struct sr_topology *topo;
	struct sr_replay *r;
	struct progress prog;
	int hz, probes, balance_probes;
	int grouped, ungrouped;		/* snapshot tasks put in an autogroup; in another cgroup */
	struct sr_kgen kgen;		/* the kernel generation modelled */
	char kgen_text[SR_KGEN_TEXT_MAX];	/* as sr_kgen_describe() says it */
	uint64_t events, first_ts, last_ts;
	int topo_recheck;		/* the --append target was locked at the check */
};

/* replay_run()'s return when a signal ended the run */
#define REPLAY_INTERRUPTED 1

/*
 * The options into @a, the models and patch pairs into @rc.  Return: -1 to
 * go on, else the EXIT_* code to exit with (help, a list, a usage error).
 */
static int replay_parse(int argc, char **argv, struct replay_args *a, struct replay_ctx *rc)
{
	static const struct option longopts[] = {
		{ "output",	required_argument,	NULL, 'o' },
		{ "force",	no_argument,		NULL, 'f' },
		{ "model",	required_argument,	NULL, 'm' },
		{ "list-models", no_argument,		NULL, 'L' },
		{ "append",	no_argument,		NULL, 'a' },
		{ "patch",	required_argument,	NULL, 'p' },
		{ "list-patches", no_argument,		NULL, 'K' },
		{ "patch-file",	required_argument,	NULL, 'k' },
		{ "snapshots",	required_argument,	NULL, 'S' },
		{ "topology",	required_argument,	NULL, 't' },
		{ "hz",		required_argument,	NULL, 'z' },
		{ "kernel",	required_argument,	NULL, 'Z' },
		{ "fidelity",	no_argument,		NULL, 'I' },
		{ "json",	no_argument,		NULL, 'j' },
		{ "buffer",	required_argument,	NULL, 'B' },
		{ "format",	required_argument,	NULL, 'F' },
		{ "quiet",	no_argument,		NULL, 'q' },
		{ "no-probes",	no_argument,		NULL, 'P' },
		{ "no-balance-probes", no_argument,	NULL, 'b' },
		{ "no-input-probes", no_argument,	NULL, 'R' },
		{ "lock-timeout", required_argument,	NULL, 'W' },
		{ "no-affinity", no_argument,		NULL, 'N' },
		{ "no-groups",	no_argument,		NULL, 'G' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *patch_names[MAX_PATCHES];
	int npatch_names = 0, list_p = 0, opt, i;
	char *cause = NULL;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "o:fam:p:t:B:F:qh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			a->out = optarg;
			break;
		case 'f':
			a->force = 1;
			break;
		case 'a':
			a->append = 1;
			break;
		case 'p':
			if (npatch_names == MAX_PATCHES) {
				sr_error("replay: at most %d patches", MAX_PATCHES);
				return EXIT_USAGE;
			}
			patch_names[npatch_names++] = optarg;
			break;
		case 'K':
			list_p = 1;
			break;
		case 'S':
			if (!strcmp(optarg, "none"))
				rc->snapshots = SNAP_NONE;
			else if (!strcmp(optarg, "divergent"))
				rc->snapshots = SNAP_DIVERGENT;
			else if (!strcmp(optarg, "all"))
				rc->snapshots = SNAP_ALL;
			else {
				sr_error("replay: --snapshots takes none, divergent or all, not '%s'",
					 optarg);
				return EXIT_USAGE;
			}
			break;
		case 'k':
			if (sr_patch_load(optarg, &cause) < 0) {
				sr_error("replay: %s", cause);
				free(cause);
				return EXIT_USAGE;
			}
			break;
		case 'm':
			if (rc->nmodels == SR_MAX_MODELS) {
				sr_error("replay: at most %d models", SR_MAX_MODELS);
				return EXIT_USAGE;
			}
			rc->models[rc->nmodels] = sr_model_find(optarg);
			if (!rc->models[rc->nmodels]) {
				sr_error("replay: unknown model '%s' (see --list-models)", optarg);
				return EXIT_USAGE;
			}
			rc->nmodels++;
			break;
		case 'L':
			list_models();
			return EXIT_OK;
		case 't':
			a->topo_spec = optarg;
			break;
		case 'Z':
			if (cmd_kernel_option("replay", optarg))
				return EXIT_USAGE;
			a->kernel = optarg;
			break;
		case 'z':
			a->hz = atoi(optarg);
			a->hz_given = 1;
			if (a->hz < 10 || a->hz > 10000) {
				sr_error("replay: --hz takes a CONFIG_HZ value such as 250, not '%s'",
					 optarg);
				return EXIT_USAGE;
			}
			break;
		case 'I':
			a->fidelity = 1;
			break;
		case 'j':
			a->json = 1;
			break;
		case 'B':
			a->opts.buffer = optarg;
			break;
		case 'F':
			a->opts.format = optarg;
			break;
		case 'q':
			a->quiet = 1;
			break;
		case 'P':
			a->no_probes = 1;
			break;
		case 'b':
			a->no_balance_probes = 1;
			break;
		case 'R':
			a->no_input_probes = 1;
			break;
		case 'W':
			a->lock_timeout_ms = parse_lock_timeout(optarg);
			if (a->lock_timeout_ms < 0)
				return EXIT_USAGE;
			break;
		case 'N':
			a->no_affinity = 1;
			break;
		case 'G':
			a->no_groups = 1;
			break;
		case 'h':
			cmd_usage(&cmd_replay, stdout);
			return EXIT_OK;
		default:
			return cmd_bad_option(&cmd_replay, argv[optind - 1]);
		}
	}
	if (list_p) {
		list_patches();
		return EXIT_OK;
	}
	for (i = 0; i < npatch_names; i++) {
		const struct sr_patch *p = sr_patch_find(patch_names[i]);
		size_t l = strlen(a->patches_text);

		if (!p) {
			sr_error("replay: unknown patch '%s' (see --list-patches)", patch_names[i]);
			return EXIT_USAGE;
		}
		if (!p->scope) {
			sr_error("replay: patch '%s' (%s) changes no decision: nothing to evaluate",
				 p->name, p->seed);
			return EXIT_USAGE;
		}
		rc->patches[rc->npatches++] = p;
		snprintf(a->patches_text + l, sizeof(a->patches_text) - l, "%s%s", i ? "," : "",
			 p->name);
	}
	if (check_output_options(a->out, a->force, a->append, a->fidelity, a->json))
		return EXIT_USAGE;
	if (cmd_one_trace(&cmd_replay, argc, optind))
		return EXIT_USAGE;
	a->path = argv[optind];
	if (!rc->nmodels)
		rc->models[rc->nmodels++] = sr_model_find("mainline");
	if (!a->out)
		a->fidelity = 1;
	for (i = 0; i < rc->nmodels; i++) {
		size_t l = strlen(a->models_text);

		snprintf(a->models_text + l, sizeof(a->models_text) - l, "%s%s", i ? "," : "",
			 rc->models[i]->name);
	}
	return -1;
}

/*
 * The recording's metadata (HZ, the topology, the task hints), the trace
 * opened for the run, and the topology it runs on.  Return: 0 or a negative
 * SR_E_* code with *@cause set.
 */
static int replay_topology(const struct replay_args *a, const struct replay_ctx *rc,
			   struct replay_run *run, char **cause)
{
	int err;

	/* opened once: the metadata scan rewinds it */
	err = sr_trace_open(a->path, &a->opts, &run->t, cause);
	if (err < 0)
		return err;
	err = sr_meta_read(a->path, &a->opts, &run->t, &run->meta, cause);
	if (err < 0)
		return err;
	if (run->meta.hz > 0 && !a->hz_given)
		run->hz = run->meta.hz;
	{
		enum sr_sd_era era = rc->models[0]->sd_era;
		const struct sr_trace_info *ti = sr_trace_borrow_info(run->t);

		run->topo = load_topology(a->path, &a->opts, a->topo_spec, &run->meta, era, ti,
					  &err, cause);
		if (!run->topo)
			return err;
	}
	if (a->out && a->append)
		run->topo_recheck = check_append_topology(a->out, run->topo);
	/* the kernel generation the engine and the models follow */
	cmd_kgen("replay", "the engine and the models", a->path,
		 sr_trace_borrow_info(run->t)->kernel, run->meta.kernel, run->meta.kernel_build,
		 a->kernel, &run->kgen);
	sr_kgen_describe(&run->kgen, run->kgen_text, sizeof(run->kgen_text));
	return 0;
}

/* the engine for @run: its callbacks, the probes and the task hints.  Return: 0 or -SR_E_NOMEM */
static int replay_engine(const struct replay_args *a, struct replay_ctx *rc,
			 struct replay_run *run)
{
	const struct sr_topology *topo = run->topo;
	int i;

	rc->fid = sr_fidelity_new(topo);
	run->r = sr_replay_new(topo, run->hz, rc->sides, rc->nsides);
	if (!rc->fid || !run->r)
		return -SR_E_NOMEM;
	rc->r = run->r;
	sr_replay_keep_why(run->r, !!a->out);
	sr_replay_set_callback(run->r, on_decision, rc);
	sr_replay_set_touches(run->r, rc->touches);
	sr_replay_set_migration_callback(run->r, on_migration, rc);
	sr_replay_keep_snapshots(run->r, !a->out ? SR_SNAP_NONE :
				 rc->snapshots == SNAP_ALL ? SR_SNAP_ALL :
				 rc->snapshots == SNAP_DIVERGENT && rc->npatches ? SR_SNAP_DIVERGENT :
				 SR_SNAP_NONE);
	run->probes = (sr_trace_borrow_info(run->t)->has_probes || run->meta.probes) &&
		      !a->no_probes;
	sr_replay_use_probes(run->r, run->probes);
	sr_replay_trace_declares_waking(run->r, sr_trace_borrow_info(run->t)->has_waking);
	sr_replay_set_kernel(run->r, &run->kgen);
	run->balance_probes = (sr_trace_borrow_info(run->t)->has_balance_probes ||
			       run->meta.balance_probes) && !a->no_balance_probes;
	sr_replay_use_balance_probes(run->r, run->balance_probes);
	/* rqstat pairs with select_rq (state.c); lb_rqstat stands alone */
	sr_replay_use_input_probes(run->r, !a->no_input_probes);
	sr_replay_ignore_affinity(run->r, a->no_affinity);
	/*
	 * the recorder adds its setaffinity probe with select_rq (a text trace
	 * cannot declare it up front: its select_rq events stand for both);
	 * its uprobe form sees only the calls through the C library
	 */
	sr_replay_affinity_unseen(run->r, (!sr_trace_borrow_info(run->t)->has_setaffinity &&
					      !sr_trace_borrow_info(run->t)->has_probes &&
					      !run->meta.probes) || run->meta.affinity_uprobe);
	for (i = 0; i < (int)run->meta.nhints; i++) {
		struct sr_meta_hint *h = &run->meta.hints[i];

		if (h->bound >= topo->ncpus)
			h->bound = -1;
		if (sr_replay_hint_task(run->r, h->pid, h->tgid, h->comm, h->kthread, h->bound) < 0 ||
		    (h->mask && sr_replay_hint_affinity(run->r, h->pid, h->mask) < 0))
			return -SR_E_NOMEM;
		/*
		 * autogroup applies to a task of the root cpu cgroup only
		 * (task_wants_autogroup()); a task in another cgroup stays in
		 * the root here (schedreplay-models(7) §3.5)
		 */
		if (run->meta.autogroup != 1 || a->no_groups || h->autogroup <= 0)
			continue;
		if (!h->cgroup_root) {
			run->ungrouped++;
			continue;
		}
		if (sr_replay_hint_group(run->r, h->pid, h->autogroup, h->agnice) < 0)
			return -SR_E_NOMEM;
		run->grouped++;
	}
	return 0;
}

/*
 * The run: the engine, the database's run opened, every event fed, the last
 * decisions closed and the database committed.  Return: 0,
 * REPLAY_INTERRUPTED, or a negative SR_E_* code (*@cause set, or NULL for
 * out of memory).
 */
static int replay_run(const struct replay_args *a, struct replay_ctx *rc, struct replay_run *run,
		      char **cause)
{
	const struct sr_topology *topo;
	struct sr_event ev;
	int err;

	err = replay_engine(a, rc, run);
	if (err < 0)
		return err;
	topo = run->topo;
	/* before the temporary file exists: a signal must not leave it behind */
	cmd_catch_signals();
	progress_start(&run->prog, a->path, !a->quiet && isatty(STDERR_FILENO));
	if (a->out) {
		struct sr_run_info ri = {
			.trace = a->path,
			.tinfo = sr_trace_borrow_info(run->t),
			.models = a->models_text,
			.patches = a->patches_text,
			.topology = topo->source,
			.kernel_gen = run->kgen_text,
			.version = SR_VERSION,
			.hz = run->hz,
			.probes = run->probes,
			.inference = inference_rules,
		};

		struct sr_store_opts so = {
			.force = a->force,
			.append = a->append,
			.lock_timeout_ms = a->lock_timeout_ms,
			.cancel = &cmd_interrupted,
			.notice = store_notice,
			.notice_data = &run->prog,
		};

		rc->store = sr_store_create(a->out, &so, cause);
		if (!rc->store)
			return cmd_interrupted ? -SR_E_INTR : -SR_E_IO;
		err = sr_store_begin_run(rc->store, &ri, topo, rc->sides, rc->touches, rc->nsides,
					 cause);
		if (err < 0)
			return err;
		rc->slices = sr_slices_new(topo, ri.tinfo->pstate_enc, on_slice, rc);
		if (!rc->slices)
			return -SR_E_NOMEM;
	}

	while (!cmd_interrupted && (err = sr_trace_next(run->t, &ev, cause)) > 0) {
		if (ev.cpu >= topo->ncpus) {
			sr_cause_set(cause, "event on cpu %d, but the topology has %d CPUs",
				     ev.cpu, topo->ncpus);
			err = -SR_E_USAGE;
			break;
		}
		if (!run->events)
			run->first_ts = ev.ts;
		run->last_ts = ev.ts;
		err = rc->slices ? sr_slices_feed(rc->slices, &ev) : 0;
		if (!err)
			err = sr_replay_feed(run->r, &ev);
		if (err) {
			if (rc->cause) {
				*cause = rc->cause;
				rc->cause = NULL;
			}
			break;
		}
		run->events++;
		progress_update(&run->prog, run->events);
	}
	if (cmd_interrupted)
		return REPLAY_INTERRUPTED;
	if (err < 0)
		return err;
	progress_phase(&run->prog, "the last decisions");
	err = sr_replay_finish(run->r);
	if (!err && rc->slices)
		err = sr_slices_finish(rc->slices, run->last_ts);
	if (err && rc->cause) {
		/* a callback's error (the store's) while the last decisions closed */
		free(*cause);
		*cause = rc->cause;
		rc->cause = NULL;
	}
	if (err < 0)
		return err;
	if (rc->store) {
		struct sr_patch_summary ps[SR_MAX_MODELS / 2 * SR_DEC__COUNT];
		int nps = summaries(rc, ps);

		if (cmd_interrupted)
			return REPLAY_INTERRUPTED;
		progress_phase(&run->prog, a->append ? "writing the run, then appending it" :
			       "writing the database and its indexes");
		err = sr_store_finish_run(rc->store, sr_trace_borrow_info(run->t),
					  sr_replay_borrow_stats(run->r), rc->fid, ps, nps,
					  run->events, run->first_ts, run->last_ts, cause);
		if (!err)
			err = sr_store_commit(rc->store, cause);
		if (err == -SR_E_INTR || (err < 0 && cmd_interrupted))
			return REPLAY_INTERRUPTED;
		if (err < 0)
			return err;
		/* committed: from here on a signal changes nothing */
		progress_end(&run->prog);
		if (run->topo_recheck)
			check_append_topology(a->out, run->topo);
		if (!a->quiet)
			print_written(rc, stderr);
		if (sr_store_migrated(rc->store))
			cmd_warn_migrated("replay", sr_store_path(rc->store), "by the append");
	} else if (cmd_interrupted) {
		return REPLAY_INTERRUPTED;
	}
	return 0;
}

/*
 * inputs: how far the engine's own per-CPU inputs were from a probe's, per
 * field the mean of engine - kernel and of its absolute value
 */
static void print_kin_error(const char *what, const struct sr_kin_err *ke)
{
	static const char *const name[] = { "load", "util", "runnable", "util_est" };
	static const char *const cls[] = { "busy", "idle" };
	int c, f;

	printf("inputs:     %s, mean difference / mean |difference|:", what);
	for (c = 0; c < 2; c++) {
		printf("%s %s CPUs %llu:", c ? ";" : "", cls[c], (unsigned long long)ke->cpus[c]);
		for (f = 0; f < 4; f++) {
			double n = (double)ke->n[c][f];

			if (!ke->n[c][f])
				continue;
			printf("%s %s %+.0f / %.0f", f ? "," : "", name[f],
			       (double)ke->err[c][f] / n, (double)ke->abs[c][f] / n);
		}
		printf(", nr_running otherwise %llu", (unsigned long long)ke->nr_differs[c]);
	}
	if (ke->scan_n)
		printf("; SIS_UTIL nr_idle_scan the same at %llu of %llu CPUs read, scan or not "
		       "the same at %llu", (unsigned long long)ke->scan_same,
		       (unsigned long long)ke->scan_n, (unsigned long long)ke->scan_go_same);
	printf("; %llu in the trace's first %llu ms left out (the CPUs' PELT history from "
	       "before the trace)\n", (unsigned long long)ke->warmup,
	       (unsigned long long)(SR_KIN_WARMUP_NS / 1000000));
}

/* the fidelity table (--fidelity, the default without -o) with what the run saw */
static void print_fidelity(const struct replay_args *a, struct replay_ctx *rc,
			   const struct replay_run *run)
{
	const struct sr_replay_stats *st = sr_replay_borrow_stats(run->r);
	uint64_t mig = 0;
	int k;

	printf("trace:      %s\n", a->path);
	printf("topology:   %s\n", run->topo->source);
	printf("kernel:     %s\n", run->kgen_text);
	printf("events:     %llu\n", (unsigned long long)run->events);
	if (!run->probes)
		printf("probes:     none: WF_SYNC and skipped placements inferred\n");
	else
		printf("probes:     select_rq: wake flags%s%s%s and placement from the kernel\n",
		       st->probe_flips ? ", wakee flips" : "",
		       st->probe_pelt ? ", the wakee's PELT" : "",
		       st->probe_prevload ? ", prev_cpu's load" : "");
	if (st->kernel_inputs || st->kernel_inputs_partial)
		printf("inputs:     rqstat: %llu placements read every CPU's load, util and queue "
		       "as the kernel had them (--no-input-probes: the engine's); %llu events of "
		       "fewer CPUs than the topology not read\n",
		       (unsigned long long)st->kernel_inputs,
		       (unsigned long long)st->kernel_inputs_partial);
	if (st->lb_kernel_inputs)
		printf("inputs:     lb_rqstat: %llu balance evaluations read every CPU's load, util "
		       "and queue as the kernel's find_busiest_group() had them "
		       "(--no-input-probes: the engine's)\n",
		       (unsigned long long)st->lb_kernel_inputs);
	if (st->lb_mt_n[0] + st->lb_mt_n[1] + st->lb_mt_n[2])
		printf("inputs:     lb_task: the first model's migration type against the kernel's at "
		       "%llu balances: %llu agree (the kernel's load %llu of %llu, util %llu of %llu, "
		       "task %llu of %llu)\n",
		       (unsigned long long)(st->lb_mt_n[0] + st->lb_mt_n[1] + st->lb_mt_n[2]),
		       (unsigned long long)(st->lb_mt_agree[0] + st->lb_mt_agree[1] +
					    st->lb_mt_agree[2]),
		       (unsigned long long)st->lb_mt_agree[0], (unsigned long long)st->lb_mt_n[0],
		       (unsigned long long)st->lb_mt_agree[1], (unsigned long long)st->lb_mt_n[1],
		       (unsigned long long)st->lb_mt_agree[2], (unsigned long long)st->lb_mt_n[2]);
	if (st->kin.cpus[0] + st->kin.cpus[1] + st->kin.warmup)
		print_kin_error("the engine's against rqstat", &st->kin);
	if (st->kin_lb.cpus[0] + st->kin_lb.cpus[1] + st->kin_lb.warmup) {
		char what[96];

		snprintf(what, sizeof(what),
			 "balance: the engine's other CPUs against lb_rqstat (%llu)",
			 (unsigned long long)st->lb_inputs);
		print_kin_error(what, &st->kin_lb);
	}
	printf("decisions:  %llu wakeup, %llu fork placements; not placements: "
	       "%llu runnable, %llu bound, %llu not fair, %llu unknown, %llu without "
	       "select_rq\n",
	       (unsigned long long)st->decisions[SR_DEC_WAKEUP],
	       (unsigned long long)st->decisions[SR_DEC_FORK],
	       (unsigned long long)st->skipped[SR_SKIP_RUNNABLE],
	       (unsigned long long)st->skipped[SR_SKIP_BOUND],
	       (unsigned long long)st->skipped[SR_SKIP_NOT_FAIR],
	       (unsigned long long)st->skipped[SR_SKIP_UNKNOWN_TASK],
	       (unsigned long long)st->skipped[SR_SKIP_NO_SELECT]);
	if (a->no_groups)
		printf("groups:     ignored (--no-groups): every task in the root task group\n");
	else if (sr_replay_ngroups(run->r))
		printf("groups:     %d autogroups of %d snapshot tasks (and their children): "
		       "wake_affine_weight() reads cpu_load() and task_h_load() through them, "
		       "the fork slow path cpu_load(), EEVDF lag and eligibility each task's "
		       "own cfs_rq%s\n",
		       sr_replay_ngroups(run->r), run->grouped,
		       run->ungrouped ? "; tasks in other cpu cgroups flat" : "");
	else if (run->meta.autogroup == 1)
		printf("groups:     autogroup on, every snapshot task in the root task group%s\n",
		       run->ungrouped ? " or another cpu cgroup (flat)" : "");
	else if (run->meta.autogroup == 0)
		printf("groups:     autogroup off: every task in the root task group\n");
	else
		printf("groups:     not known (no task snapshot): a flat hierarchy, where a kernel "
		       "with autogroup on groups every session\n");
	if (st->fork_no_select)
		printf("forks:      %llu without select_rq, not placements: select_task_rq() "
		       "takes cpumask_any() for a child with one allowed CPU or migration "
		       "disabled (core.c, 6.1/6.12)\n",
		       (unsigned long long)st->fork_no_select);
	printf("balance:    %llu pulls by the puller (%llu newidle, %llu periodic; %llu more "
	       "tasks moved by the same balances), %llu nohz passes, %llu newly idle without a "
	       "pull\n",
	       (unsigned long long)(st->decisions[SR_DEC_LB_NEWIDLE] +
				    st->decisions[SR_DEC_LB_PERIODIC]),
	       (unsigned long long)st->decisions[SR_DEC_LB_NEWIDLE],
	       (unsigned long long)st->decisions[SR_DEC_LB_PERIODIC],
	       (unsigned long long)st->lb_batched,
	       (unsigned long long)st->decisions[SR_DEC_LB_NOHZ],
	       (unsigned long long)st->decisions[SR_DEC_NEWIDLE]);
	printf("idle scan:  %llu LLC-level balances inferred from the tick and %llu shown by the "
	       "balance probes wrote SIS_UTIL's nr_idle_scan (update_idle_cpu_scan())\n",
	       (unsigned long long)st->idle_scan_updates,
	       (unsigned long long)st->idle_scan_probed);
	if (st->lb_inferred)
		printf("marks:      %llu load_balance() passes inferred from the tick (no balance "
		       "probes) kept the sgc->imbalance marks that fork and exec placements read; "
		       "the first model marked a group at %llu\n",
		       (unsigned long long)st->lb_inferred,
		       (unsigned long long)st->lb_inferred_marks);
	if (sr_kgen_has(&run->kgen, SR_KF_DELAY_DEQUEUE))
		printf("delayed:    %llu sleeps kept queued (dequeue_entity(), 6.12+: not "
		       "eligible), %llu woken still queued (ttwu_runnable(): no placement)\n",
		       (unsigned long long)st->delayed_sleeps,
		       (unsigned long long)st->delayed_woken);
	if (run->balance_probes) {
		printf("newidle:    balance probes: %llu newly idle switches without a "
		       "load_balance, not decisions; load_balance at sd->level:",
		       (unsigned long long)st->skipped[SR_SKIP_NO_BALANCE]);
		for (k = 0; k < 8; k++)
			if (st->newidle_level[k])
				printf(" %d: %llu", k, (unsigned long long)st->newidle_level[k]);
		printf(" (of %llu without a pull)\n", (unsigned long long)st->decisions[SR_DEC_NEWIDLE]);
	} else if (sr_kgen_has(&run->kgen, SR_KF_NI_RANDOM)) {
		const struct sr_cpu_topo *ct = &run->topo->cpu[0];

		printf("newidle:    NI_RANDOM: at %llu of %llu newly idle switches without a pull "
		       "and at %llu of %llu newly idle pulls (below the level that pulled) "
		       "a domain whose balance would have pulled was passed over as the "
		       "kernel's draw, which no trace shows (marked ni_random; record "
		       "--balance-probes to see the levels the kernel balanced at)\n",
		       (unsigned long long)st->ni_random,
		       (unsigned long long)st->decisions[SR_DEC_NEWIDLE],
		       (unsigned long long)st->ni_random_pull,
		       (unsigned long long)st->decisions[SR_DEC_LB_NEWIDLE]);
		/*
		 * the check the trace still allows: of the chances the model
		 * saw to pull at a domain, the kernel took the draw's share
		 */
		printf("newidle:    NI_RANDOM check, per domain (passed over / pulled as the "
		       "kernel did; with the model right, the kernel's share is the draw's "
		       "chance, about 1/2 at newidle_ratio 512, less where avg_idle kept "
		       "the kernel from balancing; far below it, the model pulls where the "
		       "kernel's balance finds nothing):");
		for (k = 0; k < SR_MAX_DOMAIN_LEVELS && k < ct->ndomains; k++) {
			uint64_t n = st->ni_skip_level[k] + st->ni_pull_level[k];

			printf(" %s %llu / %llu", ct->dom[k].name,
			       (unsigned long long)st->ni_skip_level[k],
			       (unsigned long long)st->ni_pull_level[k]);
			if (n)
				printf(" (%.0f%%)", 100.0 * (double)st->ni_pull_level[k] / (double)n);
		}
		printf("\n");
	}
	printf("reconciled:");
	for (k = 0; k < SR_REC__COUNT; k++)
		printf("%s %llu %s", k ? "," : "", (unsigned long long)st->reconciled[k],
		       sr_reconcile_name(k));
	printf(" (the engine's state contradicted by the trace, which it then followed)\n");
	/*
	 * a trace without wakeup events: a task that runs again after it
	 * slept was never seen woken, and its switch-in is such a contradiction
	 */
	if (st->reconciled[SR_REC_SWITCH] && !st->decisions[SR_DEC_WAKEUP] &&
	    !st->skipped[SR_SKIP_RUNNABLE] && !st->skipped[SR_SKIP_BOUND] &&
	    !st->skipped[SR_SKIP_NOT_FAIR] && !st->skipped[SR_SKIP_UNKNOWN_TASK])
		printf("            the trace shows no wakeup: each switch-in of a task after "
		       "its sleep is one of the %llu switches\n",
		       (unsigned long long)st->reconciled[SR_REC_SWITCH]);
	for (k = 0; k < SR_MIG__COUNT; k++)
		mig += st->migrations[k];
	/*
	 * replay counts the sched_migrate_task events: none is no figure of
	 * 0 migrations (a trace without that event, e.g. ftrace text of
	 * switches and wakeups only, hides where its tasks moved)
	 */
	if (!mig)
		printf("migrations: 0 (the trace has no sched_migrate_task event)\n");
	else
		printf("migrations: %llu:", (unsigned long long)mig);
	for (k = 0; mig && k < SR_MIG__COUNT; k++)
		if (st->migrations[k])
			printf(" %s %llu", sr_migration_kind_name(k),
			       (unsigned long long)st->migrations[k]);
	if (mig)
		printf(" (unexplained %.1f%%)\n",
		       100.0 * (double)st->migrations[SR_MIG_UNEXPLAINED] / (double)mig);
	sr_fidelity_print(rc->fid, stdout, 8);
	print_patches(rc, stdout);
}

/* a share in percent, 0 of nothing */
static double fid_pct(uint64_t a, uint64_t n)
{
	return n ? 100.0 * (double)a / (double)n : 0.0;
}

/* --json: the fidelity rows as a JSON array, strings through the one JSON writer */
static void print_fidelity_json(const struct sr_fidelity *f, FILE *out)
{
	const struct sr_fidelity_row *rows;
	int n = sr_fidelity_rows(f, &rows), i;

	fprintf(out, "[");
	for (i = 0; i < n; i++) {
		const struct sr_fidelity_row *r = &rows[i];

		fprintf(out, "%s\n  {\"model\": ", i ? "," : "");
		sr_json_string(r->model, out);
		fprintf(out, ", \"kind\": ");
		sr_json_string(r->kind, out);
		fprintf(out, ", \"reason\": ");
		if (r->reason[0])
			sr_json_string(r->reason, out);
		else
			fprintf(out, "null");
		fprintf(out, ", \"n\": %llu, \"exact_pct\": %.2f, \"same_llc_pct\": %.2f, "
			"\"same_node_pct\": %.2f, \"baseline_exact_pct\": %.2f",
			(unsigned long long)r->n, fid_pct(r->exact, r->n),
			fid_pct(r->same_llc, r->n), fid_pct(r->same_node, r->n),
			fid_pct(r->baseline_exact, r->n));
		/* a placement kind's total: how its near decisions fared */
		if (!r->reason[0] && strncmp(r->kind, "balance_", 8) && strcmp(r->kind, "newidle"))
			fprintf(out, ", \"near\": %llu, \"near_exact_pct\": %.2f",
				(unsigned long long)r->near, fid_pct(r->near_exact, r->near));
		fprintf(out, "}");
	}
	fprintf(out, "\n]\n");
}

/*
 * after a run: the warning a trace without sched_waking needs, then the table
 * asked for; a run that made no wakeup decision and read no probe (a trace
 * without wakeup events) has nothing inferred to warn of
 */
static void replay_print(const struct replay_args *a, struct replay_ctx *rc,
			 const struct replay_run *run)
{
	const struct sr_replay_stats *stats = sr_replay_borrow_stats(run->r);

	int infers = stats->decisions[SR_DEC_WAKEUP] || stats->probe_hits;

	if (!run->events)
		sr_warn("replay: '%s' holds no event: the run is empty (see 'schedreplay info')",
			a->path);
	if (!infers)
		goto table;
	if (!sr_trace_borrow_info(run->t)->has_waking && !run->probes)
		sr_warn("replay: '%s' has no sched_waking events: each wakeup decision is "
			"inferred from the task's sched_migrate_task or sched_wakeup, on the "
			"CPU that emitted it (prev_cpu in decision.inferred); see "
			"'schedreplay info'", a->path);
	else if (!sr_trace_borrow_info(run->t)->has_waking && stats->probe_opened)
		sr_warn("replay: '%s' has select_rq probes but no sched_waking events: each "
			"wakeup decision opens at its select_rq probe (the wakee's pid, prev_cpu "
			"and wake_flags from the probe, the probe's current task the waker)",
			a->path);
	else if (!sr_trace_borrow_info(run->t)->has_waking && stats->probe_nopid)
		sr_warn("replay: '%s' has select_rq probes but no sched_waking events, and "
			"the probe has no pid field: a probe hit has no wakeup to belong to, so "
			"no wakeup decision is made; --no-probes infers them from "
			"sched_migrate_task and sched_wakeup", a->path);
table:
	if (a->json)
		print_fidelity_json(rc->fid, stdout);
	else if (a->fidelity)
		print_fidelity(a, rc, run);
}

static void replay_release(struct replay_ctx *rc, struct replay_run *run)
{
	free(rc->cause);
	sr_slices_free(rc->slices);
	sr_store_free(rc->store);
	sr_replay_free(run->r);
	sr_fidelity_free(rc->fid);
	free_sides(rc);
	sr_topology_free(run->topo);
	sr_trace_free(run->t);
	sr_meta_release(&run->meta);
}

static int replay_exec(int argc, char **argv)
{
	struct replay_args a = { .hz = 250, .lock_timeout_ms = SR_DB_LOCK_TIMEOUT_MS };
	struct replay_ctx rc = { .snapshots = SNAP_DIVERGENT };
	struct replay_run run = { 0 };
	char *cause = NULL;
	int ret, err;

	ret = replay_parse(argc, argv, &a, &rc);
	if (ret >= 0)
		return ret;
	run.hz = a.hz;
	err = build_sides(&rc, &cause);
	if (!err)
		err = replay_topology(&a, &rc, &run, &cause);
	if (!err)
		err = replay_run(&a, &rc, &run, &cause);
	if (err == REPLAY_INTERRUPTED) {
		progress_end(&run.prog);
		if (a.out)
			sr_error("replay: interrupted, nothing written to '%s'", a.out);
		else
			sr_error("replay: interrupted");
		ret = 128 + (cmd_interrupted ? cmd_interrupted : SIGINT);
	} else if (err < 0) {
		progress_end(&run.prog);
		if (!cause && err == -SR_E_NOMEM)
			sr_error("replay: out of memory after %llu events of '%s'%s",
				 (unsigned long long)run.events, a.path,
				 a.out ? "; nothing written" : "");
		else
			sr_error("%s", cause ? cause : sr_strerror(err));
		ret = err == -SR_E_USAGE ? EXIT_USAGE : EXIT_FAIL;
	} else {
		progress_end(&run.prog);
		replay_print(&a, &rc, &run);
		ret = EXIT_OK;
	}
	free(cause);
	replay_release(&rc, &run);
	return ret;
}

const struct cmd_entry cmd_replay = {
	.name = "replay",
	.synopsis = "[-o DB [-f | -a [--lock-timeout S]]] [-m MODEL]... [-p PATCH]... [--patch-file SO]... [--snapshots WHICH] [-t TOPOLOGY] [--hz N] [--kernel RELEASE] [-B NAME] [-F FMT] [--no-probes] [--no-balance-probes] [--no-input-probes] [--no-affinity] [--no-groups] [-q] [--fidelity | --json] TRACE",
	.summary = "re-evaluate every wakeup, fork and load-balance decision of a trace under "
		   "scheduler models and patch pairs, and measure their fidelity",
	.options = replay_options,
	.examples = replay_examples,
	.exec = replay_exec,
};
