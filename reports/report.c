// SPDX-License-Identifier: GPL-2.0
/*
 * The report's queries and tables: each table is filled by one aggregate
 * query over one run (named parameters :run, :top, :reasons, always bound,
 * never pasted), and rows of a second source are matched to the first by
 * their key, so the front end can print them side by side with deltas.
 * The SQL is kept in one array so that "report --print-sql" shows exactly
 * what runs here.
 */
#include "schedreplay/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "schedreplay/error.h"
#include "schedreplay/fidelity.h"
#include "schedreplay/patch.h"
#include "schedreplay/sql-reports.h"
#include "banned.h"

enum query {
	Q_RUNS, Q_HEADER, Q_KGEN, Q_KIND, Q_PATCH, Q_PATCH_MIG, Q_FIDELITY, Q_RECONCILED, Q_REASONS,
	Q_MIGRATION, Q_TASKS, Q_CPUS, Q_LATENCY,
	Q__COUNT
};

/* a statement of its own, or (sql NULL) the canned query reports/CANNED.sql */
static const struct {
	const char *name, *sql, *canned;
} queries[Q__COUNT] = {
	[Q_RUNS] = { "runs",
		"SELECT run_id FROM run ORDER BY run_id" },
	[Q_HEADER] = { "header",
		"SELECT r.trace, r.kernel, r.host,"
		" (SELECT count(*) FROM cpu c WHERE c.run_id = r.run_id) AS cpus,"
		" (SELECT count(DISTINCT c.llc_id) FROM cpu c WHERE c.run_id = r.run_id) AS llcs,"
		" (SELECT count(DISTINCT c.node) FROM cpu c WHERE c.run_id = r.run_id) AS nodes,"
		" r.model, r.patches, r.probes, r.events, r.decisions,"
		" r.decisions - (SELECT coalesce(sum(k.n), 0) FROM skipped k"
		" WHERE k.run_id = r.run_id) AS evaluated,"
		" r.migrations, r.lost_events, r.topology"
		" FROM run r WHERE r.run_id = :run" },
	/* a query of its own: files written before run.kernel_gen lack the column */
	[Q_KGEN] = { "kernel_generation",
		"SELECT kernel_gen FROM run WHERE run_id = :run" },
	/* and so do files written before simulated runs (run.kind) */
	[Q_KIND] = { "run_kind",
		"SELECT kind, variant, seed, fair FROM run WHERE run_id = :run" },
	/* the mig columns come from the canned query "migrations" (Q_PATCH_MIG) */
	[Q_PATCH] = { "patch_pairs",
		"SELECT patch, model, kind, decisions, divergent, original_exact, patched_exact"
		" FROM patch_summary WHERE run_id = :run ORDER BY rowid" },
	[Q_PATCH_MIG] = { "patch_pairs_migrations", NULL, "migrations" },
	[Q_FIDELITY] = { "fidelity",
		"SELECT s.model, f.kind, f.n, f.exact, f.same_llc, f.same_node, f.baseline_exact"
		" FROM fidelity f JOIN side s ON s.side_id = f.side_id"
		" WHERE f.run_id = :run AND f.path IS NULL"
		" ORDER BY s.side_id, CASE f.kind WHEN 'wakeup' THEN 1 WHEN 'wakeup_moved' THEN 2"
		" WHEN 'wakeup_kept' THEN 3 WHEN 'fork' THEN 4 WHEN 'fork_idle' THEN 5"
		" WHEN 'fork_busy' THEN 6 ELSE 7 END, f.kind" },
	[Q_RECONCILED] = { "reconciled",
		"SELECT kind, n FROM reconciled WHERE run_id = :run ORDER BY rowid" },
	[Q_REASONS] = { "wakeup_moved_reasons",
		"SELECT model, path, n, exact FROM ("
		" SELECT s.side_id, s.model, f.path, f.n, f.exact,"
		" row_number() OVER (PARTITION BY f.side_id ORDER BY f.n DESC, f.path) AS k"
		" FROM fidelity f JOIN side s ON s.side_id = f.side_id"
		" WHERE f.run_id = :run AND f.kind = 'wakeup_moved' AND f.path IS NOT NULL)"
		" WHERE k <= :reasons ORDER BY side_id, k" },
	[Q_MIGRATION] = { "migrations",
		"SELECT class, n FROM migration_summary WHERE run_id = :run ORDER BY n DESC, class" },
	/* one definition for the report and "sql -Q": the canned queries themselves */
	[Q_TASKS] = { "top_tasks", NULL, "top-tasks" },
	[Q_CPUS] = { "top_cpus", NULL, "top-cpus" },
	[Q_LATENCY] = { "latency", NULL, "latency" },
};

const struct sr_sql_report *sr_sql_report_find(const char *name)
{
	const struct sr_sql_report *r;

	for (r = sr_sql_reports; r->name; r++)
		if (!strcmp(r->name, name))
			return r;
	return NULL;
}

static const char *query_sql(enum query q)
{
	const struct sr_sql_report *c;

	if (queries[q].sql)
		return queries[q].sql;
	c = sr_sql_report_find(queries[q].canned);
	return c ? c->text : "SELECT 'no canned query' WHERE 0";
}

const char *sr_report_sql(int i, const char **name)
{
	if (i < 0 || i >= Q__COUNT)
		return NULL;
	if (name)
		*name = queries[i].name;
	return query_sql((enum query)i);
}

/* ---- table declarations ------------------------------------------------- */

static const char *const header_keys[] = { "field" };
static const char *const header_cols[] = { "value" };

static const char *const patch_keys[] = { "patch", "model", "kind" };
static const char *const patch_cols[] = {
	"decisions", "divergent", "rate%", "orig=kern%", "patch=kern%",
	"mig+", "mig+xLLC", "mig+xnode", "mig-", "mig-xLLC", "mig-xnode",
};
static const char *const patch_json[] = {
	"decisions", "divergent", "divergent_pct", "original_matches_pct", "patched_matches_pct",
	"migrations_added", "added_cross_llc", "added_cross_node",
	"migrations_avoided", "avoided_cross_llc", "avoided_cross_node",
};

static const char *const fid_keys[] = { "model", "kind" };
static const char *const fid_cols[] = { "n", "exact%", "same-LLC%", "same-node%", "baseline%" };
static const char *const fid_json[] = {
	"n", "exact_pct", "same_llc_pct", "same_node_pct", "baseline_exact_pct",
};

static const char *const rec_keys[] = { "kind" };
static const char *const rec_cols[] = { "n", "per-decision%" };
static const char *const rec_json[] = { "n", "decisions_pct" };

static const char *const reason_keys[] = { "model", "path" };
static const char *const reason_cols[] = { "n", "exact%" };
static const char *const reason_json[] = { "n", "exact_pct" };

static const char *const mig_keys[] = { "class" };
static const char *const mig_cols[] = { "n", "share%" };
static const char *const mig_json[] = { "n", "share_pct" };

static const char *const task_keys[] = { "tid", "comm" };
static const char *const cpu_keys[] = { "cpu" };
static const char *const top_cols[] = { "evaluated", "divergent", "rate%", "divergences" };
static const char *const top_json[] = { "evaluated", "divergent", "divergent_pct",
					"divergences" };

static const char *const lat_cols[] = { "wakeups", "avg_us", "p95_us", "p99_us", "max_us" };

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static void declare(struct sr_report_table *t, const char *name, const char *title,
		    const char *const *keys, int nkeys, const char *const *cols,
		    const char *const *json, int ncols)
{
	t->name = name;
	t->title = title;
	t->keys = keys;
	t->nkeys = nkeys;
	t->cols = cols;
	t->json_cols = json;
	t->ncols = ncols;
}

struct sr_report *sr_report_new(void)
{
	struct sr_report *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	declare(&r->header, "header", "run", header_keys, 1, header_cols, header_cols, 1);
	declare(&r->patch, "patch_pairs", "patch pairs", patch_keys, N(patch_keys), patch_cols,
		patch_json, N(patch_cols));
	r->patch.def = "divergent: decisions where the two sides differ (the CPU; at a balance also "
		"the pull or its flags), as sql -Q divergences; =kern: of those, the side chose the "
		"kernel's CPU; mig+/mig-: where the sides chose different CPUs, migrations the patch "
		"adds/avoids, x: crossing LLC/node, as sql -Q migrations";
	declare(&r->fidelity, "fidelity", "fidelity per base model", fid_keys, N(fid_keys),
		fid_cols, fid_json, N(fid_cols));
	declare(&r->reconciled, "reconciled", "engine state reconciled with the trace", rec_keys,
		N(rec_keys), rec_cols, rec_json, N(rec_cols));
	r->reconciled.def = "n: how often the trace proved a fact the engine's state contradicted "
		"(newidle_pull, idle_switch, probe, switch, delayed; replay(1)) and the engine took the "
		"trace's word; per-decision: n per 100 decisions of the run; as the reconciled table";
	declare(&r->reasons, "wakeup_moved_reasons", "top reason paths of wakeup_moved",
		reason_keys, N(reason_keys), reason_cols, reason_json, N(reason_cols));
	r->reasons.key_last = 1;
	declare(&r->migration, "migrations", "migrations by class", mig_keys, N(mig_keys),
		mig_cols, mig_json, N(mig_cols));
	declare(&r->tasks, "top_tasks", "top tasks by divergent decisions", task_keys,
		N(task_keys), top_cols, top_json, N(top_cols));
	r->tasks.def = "evaluated: the task's evaluated decisions; divergent: those where a patch "
		"pair's sides differ; divergences: one per decision, patch and base model; as sql "
		"-Q top-tasks";
	declare(&r->cpus, "top_cpus", "top CPUs by divergent decisions made on them (this_cpu)",
		cpu_keys, N(cpu_keys), top_cols, top_json, N(top_cols));
	r->cpus.def = "the same per CPU the decision ran on, listing the CPUs divergent decisions "
		"involve; as sql -Q top-cpus";
	declare(&r->latency, "latency", "scheduling latency: the tasks with the longest delay",
		task_keys, N(task_keys), lat_cols, lat_cols, N(lat_cols));
	r->latency.def = "from a sched_wakeup or sched_wakeup_new of a sleeping task to its next "
		"switch in, as perf sched latency; µs (rounded), percentiles by nearest rank; "
		"as sql -Q latency";
	r->fidelity.def = "exact: the model chose the kernel's CPU; baseline: doing nothing "
		"(prev_cpu, the parent's CPU, no pull) did; as sql -Q fidelity";
	return r;
}

const struct sr_report_table *sr_report_table_at(const struct sr_report *r, int i)
{
	const struct sr_report_table *const all[] = {
		&r->header, &r->patch, &r->fidelity, &r->reconciled, &r->reasons, &r->migration,
		&r->tasks, &r->cpus, &r->latency,
	};

	return i >= 0 && i < N(all) ? all[i] : NULL;
}

static void table_release(struct sr_report_table *t)
{
	int i, k, c;

	for (i = 0; i < t->nrows; i++) {
		struct sr_report_row *row = &t->rows[i];

		for (k = 0; k < SR_REPORT_MAX_KEYS; k++)
			free(row->key[k]);
		for (k = 0; k < SR_REPORT_MAX_SOURCES; k++) {
			if (!row->val[k])
				continue;
			for (c = 0; c < t->ncols; c++)
				free(row->val[k][c].s);
			free(row->val[k]);
		}
	}
	free(t->rows);
	t->rows = NULL;
	t->nrows = t->cap = 0;
	for (i = 0; i < t->nnotes; i++)
		free(t->notes[i].text);
	free(t->notes);
	t->notes = NULL;
	t->nnotes = 0;
}

void sr_report_free(struct sr_report *r)
{
	int i;

	if (!r)
		return;
	for (i = 0; sr_report_table_at(r, i); i++)
		table_release((struct sr_report_table *)sr_report_table_at(r, i));
	free(r);
}

/*
 * The cells of source @src in the row keyed @keys: the row of the other
 * source with the same key, else a new row at the end.  NULL without memory.
 */
static struct sr_cell *row_cells(struct sr_report_table *t, int src, const char *const *keys)
{
	struct sr_report_row *row = NULL;
	int i, k;

	for (i = 0; i < t->nrows && !row; i++) {
		if (t->rows[i].val[src])
			continue;
		for (k = 0; k < t->nkeys; k++)
			if (strcmp(t->rows[i].key[k], keys[k]))
				break;
		if (k == t->nkeys)
			row = &t->rows[i];
	}
	if (!row) {
		if (t->nrows == t->cap) {
			int cap = t->cap ? t->cap * 2 : 16;
			struct sr_report_row *nr = realloc(t->rows, (size_t)cap * sizeof(*nr));

			if (!nr)
				return NULL;
			t->rows = nr;
			t->cap = cap;
		}
		row = &t->rows[t->nrows];
		memset(row, 0, sizeof(*row));
		for (k = 0; k < t->nkeys; k++) {
			row->key[k] = strdup(keys[k]);
			if (!row->key[k]) {
				while (k-- > 0)
					free(row->key[k]);
				return NULL;
			}
		}
		t->nrows++;
	}
	row->val[src] = calloc((size_t)t->ncols, sizeof(struct sr_cell));
	return row->val[src];
}

static void cell_int(struct sr_cell *c, long long v)
{
	c->type = SR_CELL_INT;
	c->i = v;
}

/* a percentage of @den; no value when @den is 0 */
static void cell_pct(struct sr_cell *c, long long num, long long den)
{
	if (den <= 0) {
		c->type = SR_CELL_NONE;
		return;
	}
	c->type = SR_CELL_PCT;
	c->d = 100.0 * (double)num / (double)den;
}

static int cell_text(struct sr_cell *c, const char *s)
{
	c->type = SR_CELL_TEXT;
	c->s = strdup(s ? s : "");
	return c->s ? 0 : -SR_E_NOMEM;
}

static int prepare(sqlite3 *db, const char *file, enum query q, const struct sr_report_opts *o,
		   long run, sqlite3_stmt **st, char **cause)
{
	int i;

	if (sqlite3_prepare_v2(db, query_sql(q), -1, st, NULL) != SQLITE_OK) {
		sr_cause_set(cause, "cannot read '%s': %s query: %s", file, queries[q].name,
			     sqlite3_errmsg(db));
		sqlite3_finalize(*st);
		*st = NULL;
		return -SR_E_IO;
	}
	if ((i = sqlite3_bind_parameter_index(*st, ":run")) > 0)
		sqlite3_bind_int64(*st, i, run);
	if ((i = sqlite3_bind_parameter_index(*st, ":top")) > 0)
		sqlite3_bind_int64(*st, i, o ? o->top : 10);
	if ((i = sqlite3_bind_parameter_index(*st, ":reasons")) > 0)
		sqlite3_bind_int64(*st, i, o ? o->reasons : 5);
	/* the canned queries: :limit is --top, their filters (:patch, :comm) stay NULL */
	if ((i = sqlite3_bind_parameter_index(*st, ":limit")) > 0)
		sqlite3_bind_int64(*st, i, o ? o->top : 10);
	return 0;
}

static int step_error(sqlite3 *db, const char *file, enum query q, int rc, char **cause)
{
	if (rc == SQLITE_DONE)
		return 0;
	sr_cause_set(cause, "cannot read '%s': %s query: %s", file, queries[q].name,
		     sqlite3_errmsg(db));
	return -SR_E_IO;
}

static const char *col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s ? (const char *)s : "";
}

int sr_report_runs(sqlite3 *db, const char *file, long **runs, char **cause)
{
	sqlite3_stmt *st = NULL;
	long *v = NULL;
	int n = 0, cap = 0, rc, err;

	*runs = NULL;
	err = prepare(db, file, Q_RUNS, NULL, 0, &st, cause);
	if (err)
		return err;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == cap) {
			long *nv;

			cap = cap ? cap * 2 : 8;
			nv = realloc(v, (size_t)cap * sizeof(*nv));
			if (!nv) {
				free(v);
				sqlite3_finalize(st);
				return -SR_E_NOMEM;
			}
			v = nv;
		}
		v[n++] = (long)sqlite3_column_int64(st, 0);
	}
	err = step_error(db, file, Q_RUNS, rc, cause);
	sqlite3_finalize(st);
	if (err) {
		free(v);
		return err;
	}
	*runs = v;
	return n;
}

/* ---- filling the tables --------------------------------------------------- */

/* the header's kernel generation: "(not recorded)" in a file from before it */
static int add_kgen(struct sr_report *r, int src, sqlite3 *db, long run)
{
	static const char *const key[] = { "generation" };
	sqlite3_stmt *st = NULL;
	struct sr_cell *c = row_cells(&r->header, src, key);
	int err;

	if (!c)
		return -SR_E_NOMEM;
	if (prepare(db, "", Q_KGEN, NULL, run, &st, NULL) || sqlite3_step(st) != SQLITE_ROW ||
	    sqlite3_column_type(st, 0) == SQLITE_NULL)
		err = cell_text(c, "(not recorded)");
	else
		err = cell_text(c, col_text(st, 0));
	sqlite3_finalize(st);
	return err;
}

/*
 * A simulated run (schedreplay simulate -o) says so under the trace: its
 * decisions, migrations and slices are the simulated machine's.  A replay
 * (or a file from before run.kind) has no such row.
 */
static int add_kind(struct sr_report *r, int src, sqlite3 *db, long run)
{
	static const char *const key[] = { "simulated" };
	sqlite3_stmt *st = NULL;
	struct sr_cell *c;
	char text[256];
	int err = 0;

	if (!prepare(db, "", Q_KIND, NULL, run, &st, NULL) && sqlite3_step(st) == SQLITE_ROW &&
	    !strcmp(col_text(st, 0), "simulate")) {
		snprintf(text, sizeof(text), "yes: the %s side, seed %lld, %s rules; its decisions, "
			 "migrations and slices are the simulator's, not the kernel's",
			 col_text(st, 1), sqlite3_column_int64(st, 2), col_text(st, 3));
		c = row_cells(&r->header, src, key);
		err = !c ? -SR_E_NOMEM : cell_text(c, text);
	}
	sqlite3_finalize(st);
	return err;
}

static int add_header(struct sr_report *r, int src, sqlite3_stmt *st, sqlite3 *db, long run)
{
	static const char *const text_fields[] = { "trace", "kernel", "host" };
	static const char *const count_fields[] = { "CPUs", "LLCs", "nodes" };
	static const char *const late_fields[] = {
		"events", "decisions", "evaluated", "migrations", "lost events",
	};
	struct sr_cell *c;
	const char *key[1];
	int i;

	for (i = 0; i < 3; i++) {
		key[0] = text_fields[i];
		c = row_cells(&r->header, src, key);
		if (!c || cell_text(c, sqlite3_column_type(st, i) == SQLITE_NULL ?
				    "(not recorded)" : col_text(st, i)))
			return -SR_E_NOMEM;
		if (i == 0 && add_kind(r, src, db, run))
			return -SR_E_NOMEM;
		/* the generation the replay modelled, under the trace's release */
		if (i == 1 && add_kgen(r, src, db, run))
			return -SR_E_NOMEM;
	}
	for (i = 0; i < 3; i++) {
		key[0] = count_fields[i];
		c = row_cells(&r->header, src, key);
		if (!c)
			return -SR_E_NOMEM;
		cell_int(c, sqlite3_column_int64(st, 3 + i));
	}
	key[0] = "topology";
	c = row_cells(&r->header, src, key);
	if (!c || cell_text(c, sqlite3_column_type(st, 14) == SQLITE_NULL ? "(not recorded)" :
			    col_text(st, 14)))
		return -SR_E_NOMEM;
	sr_strlcpy(r->src[src].kernel, col_text(st, 1), sizeof(r->src[src].kernel));
	sr_strlcpy(r->src[src].topology, col_text(st, 14), sizeof(r->src[src].topology));
	key[0] = "models";
	c = row_cells(&r->header, src, key);
	if (!c || cell_text(c, col_text(st, 6)))
		return -SR_E_NOMEM;
	key[0] = "patches";
	c = row_cells(&r->header, src, key);
	r->src[src].patches = sqlite3_column_type(st, 7) != SQLITE_NULL &&
			      *col_text(st, 7);
	if (!c || cell_text(c, r->src[src].patches ? col_text(st, 7) : "none"))
		return -SR_E_NOMEM;
	key[0] = "probes";
	c = row_cells(&r->header, src, key);
	if (!c || cell_text(c, sqlite3_column_int(st, 8) ? "yes" : "no"))
		return -SR_E_NOMEM;
	for (i = 0; i < N(late_fields); i++) {
		key[0] = late_fields[i];
		c = row_cells(&r->header, src, key);
		if (!c)
			return -SR_E_NOMEM;
		cell_int(c, sqlite3_column_int64(st, 9 + i));
	}
	r->src[src].decisions = sqlite3_column_int64(st, 10);
	return 0;
}

/* a note on the row of source @src keyed @keys (the row just filled); NULL keys: the table */
static int add_note(struct sr_report_table *t, int src,
		    const char *const *keys, const char *text)
{
	char head[256] = "", *s;
	struct sr_report_note *nn;
	size_t o = 0;
	int i, k;

	for (k = 0; keys && k < t->nkeys; k++)
		o += (size_t)snprintf(head + o, o < sizeof(head) ? sizeof(head) - o : 0, "%s%s",
				      k ? " " : "", keys[k]);
	if (!keys)
		snprintf(head, sizeof(head), "every row");
	nn = realloc(t->notes, (size_t)(t->nnotes + 1) * sizeof(*nn));
	if (!nn)
		return -SR_E_NOMEM;
	t->notes = nn;
	if (asprintf(&s, "%s: %s", head, text) < 0)
		return -SR_E_NOMEM;
	t->notes[t->nnotes].src = src;
	t->notes[t->nnotes++].text = s;
	for (i = t->nrows - 1; keys && i >= 0; i--) {
		for (k = 0; k < t->nkeys && !strcmp(t->rows[i].key[k], keys[k]); k++)
			;
		if (k == t->nkeys && t->rows[i].val[src]) {
			t->rows[i].note[src] = t->nnotes;
			break;
		}
	}
	return 0;
}

static int add_patch(struct sr_report *r, int src, sqlite3_stmt *st)
{
	const char *key[3] = { col_text(st, 0), col_text(st, 1), col_text(st, 2) };
	struct sr_cell *c = row_cells(&r->patch, src, key);
	long long dec = sqlite3_column_int64(st, 3), div = sqlite3_column_int64(st, 4);
	const struct sr_patch *p;
	char note[512];
	int i;

	if (!c)
		return -SR_E_NOMEM;
	cell_int(&c[0], dec);
	cell_int(&c[1], div);
	cell_pct(&c[2], div, dec);
	cell_pct(&c[3], sqlite3_column_int64(st, 5), div);
	cell_pct(&c[4], sqlite3_column_int64(st, 6), div);
	for (i = 0; i < 6; i++)
		cell_int(&c[5 + i], 0);
	p = sr_patch_find(key[0]);
	if (p && sr_patch_check(p, r->src[src].kernel, div, sqlite3_column_int64(st, 5),
				sqlite3_column_int64(st, 6), note, sizeof(note)))
		return add_note(&r->patch, src, key, note);
	return 0;
}

/* the index of the result column called @name; -1 if there is none */
static int col_named(sqlite3_stmt *st, const char *name)
{
	int i;

	for (i = 0; i < sqlite3_column_count(st); i++)
		if (!strcmp(sqlite3_column_name(st, i), name))
			return i;
	return -1;
}

static long long col_int(sqlite3_stmt *st, const char *name)
{
	int i = col_named(st, name);

	return i < 0 ? 0 : sqlite3_column_int64(st, i);
}

/* the migrations of the canned query "migrations" into the patch row of the same key */
static int add_patch_mig(struct sr_report *r, int src, sqlite3_stmt *st)
{
	static const char *const cols[] = {
		"migrations_added", "added_cross_llc", "added_cross_node",
		"migrations_avoided", "avoided_cross_llc", "avoided_cross_node",
	};
	const char *key[3] = { col_text(st, 0), col_text(st, 1), col_text(st, 2) };
	struct sr_report_table *t = &r->patch;
	int i, k;

	for (i = 0; i < t->nrows; i++) {
		if (!t->rows[i].val[src])
			continue;
		for (k = 0; k < 3 && !strcmp(t->rows[i].key[k], key[k]); k++)
			;
		if (k < 3)
			continue;
		for (k = 0; k < N(cols); k++)
			cell_int(&t->rows[i].val[src][5 + k], col_int(st, cols[k]));
		break;
	}
	return 0;
}

static int add_fidelity(struct sr_report *r, int src, sqlite3_stmt *st)
{
	const char *key[2] = { col_text(st, 0), col_text(st, 1) };
	struct sr_cell *c = row_cells(&r->fidelity, src, key);
	long long n = sqlite3_column_int64(st, 2);
	char note[512];
	int i;

	if (!c)
		return -SR_E_NOMEM;
	cell_int(&c[0], n);
	for (i = 0; i < 4; i++)
		cell_pct(&c[1 + i], sqlite3_column_int64(st, 3 + i), n);
	if (sr_fidelity_check(key[1], (uint64_t)n, (uint64_t)sqlite3_column_int64(st, 3),
			      (uint64_t)sqlite3_column_int64(st, 6), note, sizeof(note)))
		return add_note(&r->fidelity, src, key, note);
	return 0;
}

static int add_reason(struct sr_report *r, int src, sqlite3_stmt *st)
{
	const char *key[2] = { col_text(st, 0), col_text(st, 1) };
	struct sr_cell *c = row_cells(&r->reasons, src, key);
	long long n = sqlite3_column_int64(st, 2);

	if (!c)
		return -SR_E_NOMEM;
	cell_int(&c[0], n);
	cell_pct(&c[1], sqlite3_column_int64(st, 3), n);
	return 0;
}

/* a row of the canned top-tasks or top-cpus query */
static int add_top(struct sr_report_table *t, int src, sqlite3_stmt *st, const char **key)
{
	struct sr_cell *c = row_cells(t, src, key);
	long long evaluated = col_int(st, "evaluated"), div = col_int(st, "divergent");

	if (!c)
		return -SR_E_NOMEM;
	cell_int(&c[0], evaluated);
	cell_int(&c[1], div);
	cell_pct(&c[2], div, evaluated);
	cell_int(&c[3], col_int(st, "divergences"));
	return 0;
}

static int add_task(struct sr_report *r, int src, sqlite3_stmt *st)
{
	const char *key[2] = { col_text(st, col_named(st, "tid")),
			       col_text(st, col_named(st, "comm")) };

	return add_top(&r->tasks, src, st, key);
}

static int add_cpu(struct sr_report *r, int src, sqlite3_stmt *st)
{
	const char *key[1] = { col_text(st, col_named(st, "cpu")) };

	return add_top(&r->cpus, src, st, key);
}

/* µs with the ns resolution of the query, rounded to the µs */
static long long col_us(sqlite3_stmt *st, const char *name)
{
	int i = col_named(st, name);

	return i < 0 ? 0 : llround(sqlite3_column_double(st, i));
}

static int add_latency(struct sr_report *r, int src, sqlite3_stmt *st)
{
	const char *key[2] = { col_text(st, col_named(st, "tid")),
			       col_text(st, col_named(st, "comm")) };
	struct sr_cell *c = row_cells(&r->latency, src, key);
	int i;

	if (!c)
		return -SR_E_NOMEM;
	cell_int(&c[0], col_int(st, "wakeups"));
	for (i = 1; i < N(lat_cols); i++)
		cell_int(&c[i], col_us(st, lat_cols[i]));
	return 0;
}

/* a file written before the slice tables existed has no latency */
static int has_slices(sqlite3 *db)
{
	return sqlite3_table_column_metadata(db, NULL, "sched_slice", "woken", NULL, NULL, NULL,
					     NULL, NULL) == SQLITE_OK;
}

/* a run on the flat fallback: its LLC and node figures say nothing */
static int note_flat(struct sr_report *r, int src)
{
	if (strncmp(r->src[src].topology, "flat", 4) || !r->fidelity.nrows)
		return 0;
	return add_note(&r->fidelity, src, NULL, "the trace carries no topology and replay ran "
			"on the flat fallback (one LLC, one node): same-LLC% and same-node% are 100 "
			"by construction and say nothing; replay -t gives one");
}

/* each kind of reconciliation per 100 decisions, and their sum */
static int add_reconciled(struct sr_report *r, int src, sqlite3_stmt *st, int *rc)
{
	struct sr_report_table *t = &r->reconciled;
	long long total = 0, dec = r->src[src].decisions;
	const char *key[1];
	struct sr_cell *c;

	while ((*rc = sqlite3_step(st)) == SQLITE_ROW) {
		key[0] = col_text(st, 0);
		c = row_cells(t, src, key);
		if (!c)
			return -SR_E_NOMEM;
		cell_int(&c[0], sqlite3_column_int64(st, 1));
		cell_pct(&c[1], c[0].i, dec);
		total += c[0].i;
	}
	if (*rc != SQLITE_DONE || !t->nrows)
		return 0;
	key[0] = "all";
	c = row_cells(t, src, key);
	if (!c)
		return -SR_E_NOMEM;
	cell_int(&c[0], total);
	cell_pct(&c[1], total, dec);
	return 0;
}

/* a file written before the reconciled table existed: no table, no rows */
static int has_table(sqlite3 *db, const char *name)
{
	sqlite3_stmt *st = NULL;
	int found = 0;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
			       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		found = sqlite3_step(st) == SQLITE_ROW;
	}
	sqlite3_finalize(st);
	return found;
}

/* the classes with their share of all migrations, "unexplained" always listed */
static int add_migrations(struct sr_report *r, int src, sqlite3_stmt *st, int *rc)
{
	struct sr_report_table *t = &r->migration;
	long long total = 0;
	const char *key[1];
	struct sr_cell *c;
	int i, unexplained = 0;

	while ((*rc = sqlite3_step(st)) == SQLITE_ROW) {
		key[0] = col_text(st, 0);
		c = row_cells(t, src, key);
		if (!c)
			return -SR_E_NOMEM;
		cell_int(&c[0], sqlite3_column_int64(st, 1));
		total += c[0].i;
		unexplained |= !strcmp(key[0], "unexplained");
	}
	if (*rc != SQLITE_DONE)
		return 0;
	if (!unexplained) {
		key[0] = "unexplained";
		c = row_cells(t, src, key);
		if (!c)
			return -SR_E_NOMEM;
		cell_int(&c[0], 0);
	}
	key[0] = "all";
	c = row_cells(t, src, key);
	if (!c)
		return -SR_E_NOMEM;
	cell_int(&c[0], total);
	for (i = 0; i < t->nrows; i++)
		if (t->rows[i].val[src])
			cell_pct(&t->rows[i].val[src][1], t->rows[i].val[src][0].i, total);
	return 0;
}

static int fill(struct sr_report *r, int src, sqlite3 *db, const char *file, enum query q,
		const struct sr_report_opts *o, long run,
		int (*add)(struct sr_report *, int, sqlite3_stmt *), char **cause)
{
	sqlite3_stmt *st = NULL;
	int rc, err;

	err = prepare(db, file, q, o, run, &st, cause);
	if (err)
		return err;
	if (q == Q_MIGRATION) {
		err = add_migrations(r, src, st, &rc);
	} else if (q == Q_RECONCILED) {
		err = add_reconciled(r, src, st, &rc);
	} else {
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			if ((err = add(r, src, st)))
				break;
	}
	if (!err)
		err = step_error(db, file, q, rc, cause);
	sqlite3_finalize(st);
	return err;
}

int sr_report_add(struct sr_report *r, sqlite3 *db, const char *file, long run,
		  const struct sr_report_opts *o, char **cause)
{
	struct sr_report_source *s;
	sqlite3_stmt *st = NULL;
	int src = r->nsrc, rc, err;

	if (src >= SR_REPORT_MAX_SOURCES) {
		sr_cause_set(cause, "a report compares at most %d runs", SR_REPORT_MAX_SOURCES);
		return -SR_E_USAGE;
	}
	s = &r->src[src];
	s->file = file;
	s->run = run;
	err = prepare(db, file, Q_HEADER, o, run, &st, cause);
	if (err)
		return err;
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		sqlite3_finalize(st);
		sr_cause_set(cause, "'%s' has no run %ld", file, run);
		return -SR_E_USAGE;
	}
	err = rc == SQLITE_ROW ? add_header(r, src, st, db, run) :
				 step_error(db, file, Q_HEADER, rc, cause);
	sqlite3_finalize(st);
	if (err)
		return err;
	r->nsrc++;
	/* an empty run has a header and nothing else */
	if (!s->decisions)
		return 0;
	if ((err = fill(r, src, db, file, Q_PATCH, o, run, add_patch, cause)) ||
	    (err = fill(r, src, db, file, Q_PATCH_MIG, o, run, add_patch_mig, cause)) ||
	    (err = fill(r, src, db, file, Q_FIDELITY, o, run, add_fidelity, cause)) ||
	    (err = note_flat(r, src)) ||
	    (has_table(db, "reconciled") &&
	     (err = fill(r, src, db, file, Q_RECONCILED, o, run, NULL, cause))) ||
	    (err = fill(r, src, db, file, Q_REASONS, o, run, add_reason, cause)) ||
	    (err = fill(r, src, db, file, Q_MIGRATION, o, run, NULL, cause)) ||
	    (err = fill(r, src, db, file, Q_TASKS, o, run, add_task, cause)) ||
	    (err = fill(r, src, db, file, Q_CPUS, o, run, add_cpu, cause)) ||
	    (has_slices(db) && (err = fill(r, src, db, file, Q_LATENCY, o, run, add_latency,
					   cause))))
		return err;
	return 0;
}
