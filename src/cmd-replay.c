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
#include "schedreplay/model.h"
#include "schedreplay/patch.h"
#include "schedreplay/store.h"
#include "schedreplay/trace.h"
#include "version.h"
#include "banned.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

/*
 * SIGINT and SIGTERM only set a flag: the replay loop, the engine's last
 * decisions and the store (its writer thread, the index build, the wait
 * for a lock, the append's copy) all stop on it, and nothing is written.
 * Once the run is committed a signal changes nothing any more.
 */
static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

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
	char *cause;
};

/*
 * Do the two sides of a pair differ?  At a wakeup or fork: the CPU.  At a
 * balance decision: the pull (receiving CPU, source CPU, task) or what the
 * balance did besides (SR_LBO_COMPARE: LBF_SOME_PINNED, a parent group's
 * imbalance hint set, a newly-idle bail-out), so that a pair whose effect
 * is on the flags (seed 000) or on the time spent (seed 003) shows where
 * it acts even when both sides pull nothing.
 */
static int sides_differ(const struct sr_decision *d, const struct sr_eval *o,
			const struct sr_eval *p)
{
	if (o->cpu != p->cpu)
		return 1;
	if (!sr_decision_is_balance(d->kind))
		return 0;
	return o->src_cpu != p->src_cpu || o->task != p->task ||
	       ((o->lbf ^ p->lbf) & SR_LBO_COMPARE);
}

/* a side matches the kernel: the same CPU; for a pull also the same source */
static int matches(const struct sr_decision *d, const struct sr_eval *e)
{
	if (e->cpu != d->actual_cpu)
		return 0;
	return !sr_decision_is_balance(d->kind) || d->actual_cpu < 0 || e->src_cpu == d->prev_cpu;
}

static int on_decision(const struct sr_decision *d, const struct sr_eval *evals, int nevals,
		       void *data)
{
	struct replay_ctx *rc = data;
	int i, diverged = 0;

	if (rc->store && sr_store_decision(rc->store, d, evals, nevals, &rc->cause))
		return -SR_E_IO;
	for (i = 0; i < nevals && i < rc->nmodels; i++)
		if (sr_fidelity_add(rc->fid, rc->models[i]->name, d, &evals[i]))
			return -SR_E_NOMEM;
	for (i = rc->nmodels; i + 1 < nevals; i += 2) {
		struct sr_patch_summary *ps = &rc->summary[(i - rc->nmodels) / 2][d->kind];

		if (!(rc->touches[i] & (1u << d->kind)))
			continue;
		ps->decisions++;
		if (!sides_differ(d, &evals[i], &evals[i + 1]))
			continue;
		ps->divergent++;
		ps->original_exact += matches(d, &evals[i]);
		ps->patched_exact += matches(d, &evals[i + 1]);
		diverged = 1;
		if (rc->store && sr_store_divergent(rc->store, d->id, i, &rc->cause))
			return -SR_E_IO;
	}
	if (rc->store && (diverged || rc->snapshots == SNAP_ALL) &&
	    sr_store_cpu_state(rc->store, d, &rc->cause))
		return -SR_E_IO;
	return 0;
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
				sr_cause_set(cause, "at most %d evaluations per decision: fewer "
					     "models or patches", SR_MAX_MODELS);
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
		fprintf(out, ", %llu where a patch pair's sides differ", (unsigned long long)div);
	fprintf(out, "\n");
}

static int is_preset(const char *s)
{
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || *s == 'x'))
			return 0;
	return 1;
}

/* the highest CPU number in the trace, for a flat topology when it says none */
static int count_cpus(const char *path, const struct sr_trace_opts *opts, char **cause)
{
	struct sr_trace *t = NULL;
	struct sr_event ev;
	int ret, max = -1;

	ret = sr_trace_open(path, opts, &t, cause);
	if (ret < 0)
		return ret;
	while ((ret = sr_trace_next(t, &ev, cause)) > 0)
		if (ev.cpu > max)
			max = ev.cpu;
	sr_trace_free(t);
	return ret < 0 ? ret : max + 1;
}

/* what the recording's metadata lines (schedreplay-record(1)) tell replay */
struct meta {
	char *topo;			/* the topology lines, as a topology file */
	size_t topo_len;
	int hz;
	int found;
	int probes;			/* select_rq events seen in the scanned part */
	struct hint {
		int pid, tgid, kthread, bound;
		uint64_t mask;		/* Cpus_allowed_list, CPUs 0-63; 0 unknown */
		char comm[SR_COMM_LEN];
	} *hints;
	size_t nhints, cap;
};

/* undo the recorder's \xHH escapes, in place */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] == 'x' && s[2] && s[3]) {
			char hex[3] = { s[2], s[3], 0 };

			*o++ = (char)strtol(hex, NULL, 16);
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

/* "0-3,8" as a mask of CPUs 0-63 (CPUs above are left out); 0 if unreadable */
static uint64_t cpu_list_mask(const char *s)
{
	uint64_t mask = 0;

	while (*s) {
		char *end;
		long a = strtol(s, &end, 10), b = a, c;

		if (end == s || a < 0)
			return 0;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			if (end == s + 1 || b < a)
				return 0;
			s = end;
		}
		for (c = a; c <= b && c < 64; c++)
			mask |= 1ULL << c;
		if (*s == ',')
			s++;
		else if (*s)
			return 0;
	}
	return mask;
}

static void meta_task(struct meta *m, char *line)
{
	struct hint h = { .pid = -1, .tgid = -1, .kthread = -1, .bound = -1 };
	char *save = NULL, *k, *v;

	for (k = strtok_r(line, " ", &save); k; k = strtok_r(NULL, " ", &save)) {
		v = strtok_r(NULL, " ", &save);
		if (!v)
			break;
		if (!strcmp(k, "pid"))
			h.pid = atoi(v);
		else if (!strcmp(k, "tgid"))
			h.tgid = atoi(v);
		else if (!strcmp(k, "kthread"))
			h.kthread = atoi(v);
		else if (!strcmp(k, "cpus")) {
			h.mask = cpu_list_mask(v);
			if (!strpbrk(v, ",-"))
				h.bound = atoi(v);
		}
		else if (!strcmp(k, "comm")) {
			unescape(v);
			sr_strlcpy(h.comm, v, sizeof(h.comm));
		}
	}
	if (h.pid <= 0)
		return;
	if (m->nhints == m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 256;
		struct hint *nh = realloc(m->hints, ncap * sizeof(*nh));

		if (!nh)
			return;
		m->hints = nh;
		m->cap = ncap;
	}
	m->hints[m->nhints++] = h;
}

/*
 * The recorder writes its metadata through trace_marker before the first
 * scheduler event it cares about; read until "meta end" (or give up early
 * on traces without it).
 */
static int read_meta(const char *path, const struct sr_trace_opts *opts, struct meta *m,
		     char **cause)
{
	struct sr_trace *t = NULL;
	struct sr_event ev;
	uint64_t n = 0;
	int ret, scan_probes, meta_done = 0;

	ret = sr_trace_open(path, opts, &t, cause);
	if (ret < 0)
		return ret;
	/* a text trace cannot say up front that it holds the probe events */
	scan_probes = !sr_trace_borrow_info(t)->has_probes;

	while ((ret = sr_trace_next(t, &ev, cause)) > 0) {
		const char *s = ev.text;

		if (ev.kind == SR_EV_SELECT_RQ) {
			m->probes = 1;
			scan_probes = 0;
			if (meta_done)
				break;
		}
		if (++n > 50000 && (!m->found || meta_done))
			break;
		if (!s || strncmp(s, "schedreplay: ", 13))
			continue;
		s += 13;
		m->found = 1;
		if (!strncmp(s, "topology ", 9)) {
			size_t l = strlen(s + 9);
			char *nt = realloc(m->topo, m->topo_len + l + 2);

			if (!nt) {
				ret = -SR_E_NOMEM;
				break;
			}
			m->topo = nt;
			memcpy(m->topo + m->topo_len, s + 9, l);
			m->topo_len += l;
			m->topo[m->topo_len++] = '\n';
			m->topo[m->topo_len] = '\0';
		} else if (!strncmp(s, "kernel ", 7)) {
			const char *hz = strstr(s, " hz ");

			if (hz)
				m->hz = atoi(hz + 4);
		} else if (!strncmp(s, "task ", 5)) {
			char buf[1024];

			sr_strlcpy(buf, s + 5, sizeof(buf));
			meta_task(m, buf);
		} else if (!strncmp(s, "meta end", 8)) {
			meta_done = 1;
			if (!scan_probes)
				break;
		}
	}
	sr_trace_free(t);
	return ret < 0 ? ret : 0;
}

/*
 * The topology the replay runs on, and where it comes from (run.topology):
 * -t NODESxCORESxTHREADS or -t FILE, else the recording's metadata, else a
 * flat machine with a loud warning first, for its LLC and node figures say
 * nothing.  A -t whose CPU count is not the trace's is refused.
 */
static struct sr_topology *load_topology(const char *path, const struct sr_trace_opts *opts,
					 const char *spec, const struct meta *meta,
					 enum sr_sd_era era, const struct sr_trace_info *ti,
					 int *err, char **cause)
{
	struct sr_topology *topo;

	*err = -SR_E_USAGE;
	if (spec && is_preset(spec)) {
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
			n = count_cpus(path, opts, cause);
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
 */
static void check_append_topology(const char *db_path, const struct sr_topology *topo)
{
	sqlite3_stmt *st = NULL;
	char *key, *cause = NULL;
	sqlite3 *db;

	if (access(db_path, F_OK))
		return;
	db = sr_db_open(db_path, 0, &cause);
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
}

static const char inference_rules[] =
	"sync: WF_SYNC is not traced; every wakeup is taken as non-sync\n"
	"exiting: a waker is exiting from its sched_process_exit until its final switch\n"
	"kthread: names ksoftirqd/N, migration/N, cpuhp/N, kworker/..., children of pid 2\n"
	"affinity: the snapshot's and setaffinity probe's masks where the trace has them;\n"
	"  else a per-CPU name (ksoftirqd/N, kworker/N:M, ...) binds the task to CPU N;\n"
	"  such wakeups are not placements\n"
	"  else a task a newly idle balance would have pulled, three times over more than\n"
	"  a tick while the kernel pulled nothing, is pinned where it was seen (newidle only)\n"
	"pelt: tasks start with no history; a task's PELT is ours after its first wakeup\n"
	"newidle: a switch whose prev blocked and left nothing to run but tasks woken\n"
	"  there from other CPUs since the CPU's previous event (they arrived during it)\n"
	"ttwu_pending: a wakeup whose waking ran on another CPU between the CPU's previous\n"
	"  event and its switch to idle arrives during that newidle balance\n"
	"tickless: an idle CPU idle for a tick (or never seen running) is nohz idle\n"
	"per-cpu kthread: KTHREAD_IS_PER_CPU from smpboot and bound-kworker names\n";

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
	"       --fidelity       print the fidelity table (default without -o)\n"
	"       --json           print the fidelity table as JSON\n"
	"   -B, --buffer NAME    trace.dat buffer instance to read\n"
	"   -F, --format FMT     read TRACE as tracedat, ctf or text\n"
	"       --no-probes      ignore the select_rq probe events (tracepoints only)\n"
	"       --no-affinity    ignore the snapshot's masks and the setaffinity probe\n"
	"                        (affinity as another recorder's trace leaves it)\n"
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

static int replay_exec(int argc, char **argv)
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
		{ "fidelity",	no_argument,		NULL, 'I' },
		{ "json",	no_argument,		NULL, 'j' },
		{ "buffer",	required_argument,	NULL, 'B' },
		{ "format",	required_argument,	NULL, 'F' },
		{ "quiet",	no_argument,		NULL, 'q' },
		{ "no-probes",	no_argument,		NULL, 'P' },
		{ "lock-timeout", required_argument,	NULL, 'W' },
		{ "no-affinity", no_argument,		NULL, 'N' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sr_trace_opts opts = { 0 };
	struct replay_ctx rc = { .snapshots = SNAP_DIVERGENT };
	struct meta meta = { 0 };
	int hz_given = 0;
	struct sr_topology *topo = NULL;
	struct sr_replay *r = NULL;
	struct sr_trace *t = NULL;
	const char *out = NULL, *topo_spec = NULL, *path;
	char models_text[256] = "";
	int force = 0, append = 0, hz = 250, fidelity = 0, json = 0, quiet = 0, no_probes = 0;
	int lock_timeout_ms = SR_DB_LOCK_TIMEOUT_MS;
	struct progress prog = { 0 };
	int no_affinity = 0;
	const char *patch_names[MAX_PATCHES];
	char patches_text[256] = "";
	int npatch_names = 0, list_p = 0, probes = 0;
	int opt, ret = EXIT_FAIL, err, i;
	uint64_t events = 0, first_ts = 0, last_ts = 0;
	struct sr_event ev;
	char *cause = NULL;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "o:fam:p:t:B:F:qh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			out = optarg;
			break;
		case 'f':
			force = 1;
			break;
		case 'a':
			append = 1;
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
				rc.snapshots = SNAP_NONE;
			else if (!strcmp(optarg, "divergent"))
				rc.snapshots = SNAP_DIVERGENT;
			else if (!strcmp(optarg, "all"))
				rc.snapshots = SNAP_ALL;
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
			if (rc.nmodels == SR_MAX_MODELS) {
				sr_error("replay: at most %d models", SR_MAX_MODELS);
				return EXIT_USAGE;
			}
			rc.models[rc.nmodels] = sr_model_find(optarg);
			if (!rc.models[rc.nmodels]) {
				sr_error("replay: unknown model '%s' (see --list-models)", optarg);
				return EXIT_USAGE;
			}
			rc.nmodels++;
			break;
		case 'L':
			list_models();
			return EXIT_OK;
		case 't':
			topo_spec = optarg;
			break;
		case 'z':
			hz = atoi(optarg);
			hz_given = 1;
			if (hz < 10 || hz > 10000) {
				sr_error("replay: --hz takes a CONFIG_HZ value such as 250, not '%s'",
					 optarg);
				return EXIT_USAGE;
			}
			break;
		case 'I':
			fidelity = 1;
			break;
		case 'j':
			json = 1;
			break;
		case 'B':
			opts.buffer = optarg;
			break;
		case 'F':
			opts.format = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'P':
			no_probes = 1;
			break;
		case 'W':
			lock_timeout_ms = parse_lock_timeout(optarg);
			if (lock_timeout_ms < 0)
				return EXIT_USAGE;
			break;
		case 'N':
			no_affinity = 1;
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
		size_t l = strlen(patches_text);

		if (!p) {
			sr_error("replay: unknown patch '%s' (see --list-patches)", patch_names[i]);
			return EXIT_USAGE;
		}
		if (!p->scope) {
			sr_error("replay: patch '%s' (%s) changes no decision: nothing to evaluate",
				 p->name, p->seed);
			return EXIT_USAGE;
		}
		rc.patches[rc.npatches++] = p;
		snprintf(patches_text + l, sizeof(patches_text) - l, "%s%s", i ? "," : "",
			 p->name);
	}
	if (check_output_options(out, force, append, fidelity, json))
		return EXIT_USAGE;
	if (cmd_one_trace(&cmd_replay, argc, optind))
		return EXIT_USAGE;
	path = argv[optind];
	if (!rc.nmodels)
		rc.models[rc.nmodels++] = sr_model_find("mainline");
	err = build_sides(&rc, &cause);
	if (err < 0)
		goto fail;
	if (!out)
		fidelity = 1;
	for (i = 0; i < rc.nmodels; i++) {
		size_t l = strlen(models_text);

		snprintf(models_text + l, sizeof(models_text) - l, "%s%s", i ? "," : "",
			 rc.models[i]->name);
	}

	err = read_meta(path, &opts, &meta, &cause);
	if (err < 0)
		goto fail;
	if (meta.hz > 0 && !hz_given)
		hz = meta.hz;
	err = sr_trace_open(path, &opts, &t, &cause);
	if (err < 0)
		goto fail;
	{
		enum sr_sd_era era = rc.models[0]->sd_era;
		const struct sr_trace_info *ti = sr_trace_borrow_info(t);

		topo = load_topology(path, &opts, topo_spec, &meta, era, ti, &err, &cause);
		if (!topo)
			goto fail;
	}
	if (out && append)
		check_append_topology(out, topo);

	rc.fid = sr_fidelity_new(topo);
	r = sr_replay_new(topo, hz, rc.sides, rc.nsides);
	if (!rc.fid || !r) {
		err = -SR_E_NOMEM;
		goto fail;
	}
	sr_replay_set_callback(r, on_decision, &rc);
	sr_replay_set_touches(r, rc.touches);
	sr_replay_set_migration_callback(r, on_migration, &rc);
	sr_replay_keep_snapshots(r, out && (rc.snapshots == SNAP_ALL ||
					    (rc.snapshots == SNAP_DIVERGENT && rc.npatches)));
	probes = (sr_trace_borrow_info(t)->has_probes || meta.probes) && !no_probes;
	sr_replay_use_probes(r, probes);
	sr_replay_ignore_affinity(r, no_affinity);
	for (i = 0; i < (int)meta.nhints; i++) {
		struct hint *h = &meta.hints[i];

		if (h->bound >= topo->ncpus)
			h->bound = -1;
		if (sr_replay_hint_task(r, h->pid, h->tgid, h->comm, h->kthread, h->bound) < 0 ||
		    (h->mask && sr_replay_hint_affinity(r, h->pid, h->mask) < 0)) {
			err = -SR_E_NOMEM;
			goto fail;
		}
	}
	/* before the temporary file exists: a signal must not leave it behind */
	catch_signals();
	progress_start(&prog, path, !quiet && isatty(STDERR_FILENO));
	if (out) {
		struct sr_run_info ri = {
			.trace = path,
			.tinfo = sr_trace_borrow_info(t),
			.models = models_text,
			.patches = patches_text,
			.topology = topo->source,
			.version = SR_VERSION,
			.hz = hz,
			.probes = probes,
			.inference = inference_rules,
		};

		struct sr_store_opts so = {
			.force = force,
			.append = append,
			.lock_timeout_ms = lock_timeout_ms,
			.cancel = &interrupted,
			.notice = store_notice,
			.notice_data = &prog,
		};

		rc.store = sr_store_create(out, &so, &cause);
		if (!rc.store) {
			err = interrupted ? -SR_E_INTR : -SR_E_IO;
			goto fail;
		}
		err = sr_store_begin_run(rc.store, &ri, topo, rc.sides, rc.touches, rc.nsides,
					 &cause);
		if (err < 0)
			goto fail;
	}

	while (!interrupted && (err = sr_trace_next(t, &ev, &cause)) > 0) {
		if (ev.cpu >= topo->ncpus) {
			sr_cause_set(&cause, "event on cpu %d, but the topology has %d CPUs",
				     ev.cpu, topo->ncpus);
			err = -SR_E_USAGE;
			break;
		}
		if (!events)
			first_ts = ev.ts;
		last_ts = ev.ts;
		err = sr_replay_feed(r, &ev);
		if (err) {
			if (rc.cause) {
				cause = rc.cause;
				rc.cause = NULL;
			}
			break;
		}
		events++;
		progress_update(&prog, events);
	}
	if (interrupted)
		goto interrupted;
	if (err < 0)
		goto fail;
	progress_phase(&prog, "the last decisions");
	err = sr_replay_finish(r);
	if (err && rc.cause) {
		/* a callback's error (the store's) while the last decisions closed */
		free(cause);
		cause = rc.cause;
		rc.cause = NULL;
	}
	if (err < 0)
		goto fail;
	if (rc.store) {
		struct sr_patch_summary ps[SR_MAX_MODELS / 2 * SR_DEC__COUNT];
		int nps = summaries(&rc, ps);

		if (interrupted)
			goto interrupted;
		progress_phase(&prog, append ? "writing the run, then appending it" :
			       "writing the database and its indexes");
		err = sr_store_finish_run(rc.store, sr_trace_borrow_info(t),
					  sr_replay_borrow_stats(r), rc.fid, ps, nps, events,
					  first_ts, last_ts, &cause);
		if (!err)
			err = sr_store_commit(rc.store, &cause);
		if (err == -SR_E_INTR || (err < 0 && interrupted))
			goto interrupted;
		if (err < 0)
			goto fail;
		/* committed: from here on a signal changes nothing */
		progress_end(&prog);
		if (!quiet)
			print_written(&rc, stderr);
	} else if (interrupted) {
		goto interrupted;
	}
	progress_end(&prog);
	if (!sr_trace_borrow_info(t)->has_waking)
		sr_warn("replay: '%s' has no sched_waking events: 0 wakeup decisions (a wakeup "
			"decision starts at sched_waking, where the kernel chooses the CPU; "
			"sched_wakeup only shows where the task went); see 'schedreplay info'", path);
	if (json) {
		sr_fidelity_print_json(rc.fid, stdout);
	} else if (fidelity) {
		const struct sr_replay_stats *st = sr_replay_borrow_stats(r);
		uint64_t mig = 0;
		int k;

		printf("trace:      %s\n", path);
		printf("topology:   %s\n", topo->source);
		printf("events:     %llu\n", (unsigned long long)events);
		if (!probes)
			printf("probes:     none: WF_SYNC and skipped placements inferred\n");
		else
			printf("probes:     select_rq: wake flags%s%s%s and placement from the kernel\n",
			       st->probe_flips ? ", wakee flips" : "",
			       st->probe_pelt ? ", the wakee's PELT" : "",
			       st->probe_prevload ? ", prev_cpu's load" : "");
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
		if (st->fork_no_select)
			printf("forks:      %llu without select_rq, not placements: select_task_rq() "
			       "takes cpumask_any() for a child with one allowed CPU or migration "
			       "disabled (core.c, 6.1/6.12)\n",
			       (unsigned long long)st->fork_no_select);
		printf("balance:    %llu pulls by the puller (%llu newidle, %llu periodic), %llu nohz "
		       "passes, %llu newly idle without a pull\n",
		       (unsigned long long)(st->decisions[SR_DEC_LB_NEWIDLE] +
					    st->decisions[SR_DEC_LB_PERIODIC]),
		       (unsigned long long)st->decisions[SR_DEC_LB_NEWIDLE],
		       (unsigned long long)st->decisions[SR_DEC_LB_PERIODIC],
		       (unsigned long long)st->decisions[SR_DEC_LB_NOHZ],
		       (unsigned long long)st->decisions[SR_DEC_NEWIDLE]);
		printf("reconciled:");
		for (k = 0; k < SR_REC__COUNT; k++)
			printf("%s %llu %s", k ? "," : "", (unsigned long long)st->reconciled[k],
			       sr_reconcile_name(k));
		printf(" (the engine's state contradicted by the trace, which it then followed)\n");
		for (k = 0; k < SR_MIG__COUNT; k++)
			mig += st->migrations[k];
		printf("migrations: %llu:", (unsigned long long)mig);
		for (k = 0; k < SR_MIG__COUNT; k++)
			if (st->migrations[k])
				printf(" %s %llu", sr_migration_kind_name(k),
				       (unsigned long long)st->migrations[k]);
		printf(" (unexplained %.1f%%)\n",
		       mig ? 100.0 * (double)st->migrations[SR_MIG_UNEXPLAINED] / (double)mig : 0.0);
		sr_fidelity_print(rc.fid, stdout, 8);
		print_patches(&rc, stdout);
	}
	ret = EXIT_OK;
	goto out;
interrupted:
	progress_end(&prog);
	if (out)
		sr_error("replay: interrupted, nothing written to '%s'", out);
	else
		sr_error("replay: interrupted");
	ret = 128 + (interrupted ? interrupted : SIGINT);
	goto out;
fail:
	progress_end(&prog);
	if (!cause && err == -SR_E_NOMEM)
		sr_error("replay: out of memory after %llu events of '%s'%s",
			 (unsigned long long)events, path, out ? "; nothing written" : "");
	else
		sr_error("%s", cause ? cause : sr_strerror(err));
	ret = err == -SR_E_USAGE ? EXIT_USAGE : EXIT_FAIL;
out:
	free(cause);
	free(rc.cause);
	sr_store_free(rc.store);
	sr_replay_free(r);
	sr_fidelity_free(rc.fid);
	free_sides(&rc);
	sr_topology_free(topo);
	sr_trace_free(t);
	free(meta.topo);
	free(meta.hints);
	return ret;
}

const struct cmd_entry cmd_replay = {
	.name = "replay",
	.synopsis = "[-o DB [-f | -a [--lock-timeout S]]] [-m MODEL]... [-p PATCH]... [--patch-file SO]... [--snapshots WHICH] [-t TOPOLOGY] [--hz N] [-B NAME] [-F FMT] [--no-probes] [--no-affinity] [-q] [--fidelity | --json] TRACE",
	.summary = "re-evaluate every wakeup, fork and load-balance decision of a trace under "
		   "scheduler models and patch pairs, and measure their fidelity",
	.options = replay_options,
	.examples = replay_examples,
	.exec = replay_exec,
};
