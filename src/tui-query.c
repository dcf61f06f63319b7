// SPDX-License-Identifier: GPL-2.0
/*
 * The TUI's query layer: the filter language, the SQL of a list (the
 * divergence view or every decision of a run) for a filter, a sort and a
 * window, the count and search queries beside it, and the list's SQL as
 * sqlite3 shell input (the CSV export is escape.h's writer).  Every value a user
 * typed becomes a named parameter (:kind, :comm, ...); the SQL text is built
 * only from fixed strings, so what "y" shows is what runs.
 */
#include "tui-local.h"
#include "cmd.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "schedreplay/error.h"
#include "schedreplay/replay.h"
#include "schedreplay/store.h"
#include "banned.h"

void tui_filter_init(struct tui_filter *f)
{
	memset(f, 0, sizeof(*f));
	f->pid = -1;
	f->cpu = -1;
	f->miss = f->div = -1;
}

void tui_filter_release(struct tui_filter *f)
{
	free(f->patch);
	free(f->kind);
	free(f->comm);
	free(f->text);
	tui_filter_init(f);
}

static int parse_long(const char *s, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return errno || end == s || *end || *v < 0 ? -1 : 0;
}

/* the decision kinds are replay's (sr_decision_kind_name), not a list of our own */
int tui_kind_find(const char *name)
{
	int k;

	for (k = 0; k < SR_DEC__COUNT; k++)
		if (!strcmp(name, sr_decision_kind_name((enum sr_decision_kind)k)))
			return k;
	return -1;
}

char *tui_kind_list(const char *sep, const char *last)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int k;

	if (!m)
		return NULL;
	for (k = 0; k < SR_DEC__COUNT; k++)
		fprintf(m, "%s%s", !k ? "" : k == SR_DEC__COUNT - 1 ? last : sep,
			sr_decision_kind_name((enum sr_decision_kind)k));
	if (fclose(m)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int set_str(char **dst, const char *v)
{
	char *s = strdup(v);

	if (!s)
		return -1;
	free(*dst);
	*dst = s;
	return 0;
}

/* one token: key=value or a bare word, value quoted with "" or '' */
static const char *next_token(const char *p, char *key, size_t klen, char *val, size_t vlen,
			      int *has_key)
{
	size_t k = 0, v = 0;
	char quote;

	while (isspace((unsigned char)*p))
		p++;
	if (!*p)
		return NULL;
	*has_key = 0;
	/* the key: up to '=', when the word has one before any quote or blank */
	{
		const char *q = p;

		while (*q && *q != '=' && !isspace((unsigned char)*q) && *q != '"' && *q != '\'')
			q++;
		if (*q == '=' && q > p) {
			*has_key = 1;
			for (; p < q && k + 1 < klen; p++)
				key[k++] = (char)tolower((unsigned char)*p);
			p = q + 1;
		}
	}
	key[k] = '\0';
	while (*p && !isspace((unsigned char)*p)) {
		if (*p == '"' || *p == '\'') {
			quote = *p++;
			while (*p && *p != quote) {
				if (v + 1 < vlen)
					val[v++] = *p;
				p++;
			}
			if (*p)
				p++;
			continue;
		}
		if (v + 1 < vlen)
			val[v++] = *p;
		p++;
	}
	val[v] = '\0';
	return p;
}

int tui_filter_parse(const char *expr, struct tui_filter *out, char **cause)
{
	struct tui_filter f;
	char key[32], val[256], text[256] = "";
	const char *p = expr ? expr : "";
	int has_key;
	long n;

	tui_filter_init(&f);
	while ((p = next_token(p, key, sizeof(key), val, sizeof(val), &has_key))) {
		if (!has_key || !strcmp(key, "text")) {
			size_t tl = strlen(text), i;

			if (tl && tl + 1 < sizeof(text))
				text[tl++] = ' ';
			for (i = 0; val[i] && tl + 1 < sizeof(text); i++)
				text[tl++] = val[i];
			text[tl] = '\0';
			continue;
		}
		if (!val[0]) {
			sr_cause_set(cause, "filter '%s': no value", key);
			goto bad;
		}
		if (!strcmp(key, "patch")) {
			if (set_str(&f.patch, val))
				goto oom;
		} else if (!strcmp(key, "kind")) {
			if (tui_kind_find(val) < 0) {
				char *kinds = tui_kind_list(", ", " or ");

				sr_cause_set(cause, "filter 'kind=%s': expected %s", val,
					     kinds ? kinds : "a decision kind");
				free(kinds);
				goto bad;
			}
			if (set_str(&f.kind, val))
				goto oom;
		} else if (!strcmp(key, "comm") ||
			   (!strcmp(key, "task") && parse_long(val, &n))) {
			if (set_str(&f.comm, val))
				goto oom;
		} else if (!strcmp(key, "pid") || !strcmp(key, "tid") || !strcmp(key, "task")) {
			if (parse_long(val, &n)) {
				sr_cause_set(cause, "filter '%s=%s': expected a number", key, val);
				goto bad;
			}
			f.pid = n;
		} else if (!strcmp(key, "cpu")) {
			if (parse_long(val, &n) || n > 1 << 20) {
				sr_cause_set(cause, "filter 'cpu=%s': expected a CPU number", val);
				goto bad;
			}
			f.cpu = (int)n;
		} else if (!strcmp(key, "cross")) {
			if (!strcmp(val, "llc"))
				f.cross = TUI_CROSS_LLC;
			else if (!strcmp(val, "node"))
				f.cross = TUI_CROSS_NODE;
			else if (!strcmp(val, "none"))
				f.cross = TUI_CROSS_NONE;
			else if (!strcmp(val, "any"))
				f.cross = TUI_CROSS_ANY;
			else {
				sr_cause_set(cause, "filter 'cross=%s': expected llc, node, none or "
					     "any", val);
				goto bad;
			}
		} else if (!strcmp(key, "miss") || !strcmp(key, "div")) {
			int v = !strcmp(val, "yes") || !strcmp(val, "1") ? 1 :
				!strcmp(val, "no") || !strcmp(val, "0") ? 0 : -2;

			if (v == -2) {
				sr_cause_set(cause, "filter '%s=%s': expected yes or no", key, val);
				goto bad;
			}
			*(key[0] == 'm' ? &f.miss : &f.div) = v;
		} else if (!strcmp(key, "t") || !strcmp(key, "time")) {
			const char *dash = strchr(val, '-');
			int rc = 0;

			f.has_t0 = f.has_t1 = 0;
			if (!dash) {
				sr_cause_set(cause, "filter 't=%s': expected FROM-TO in seconds "
					     "(either may be left out)", val);
				goto bad;
			}
			if (dash > val) {
				rc = cmd_parse_secs(val, (size_t)(dash - val), &f.t0);
				f.has_t0 = !rc;
			}
			if (!rc && dash[1]) {
				rc = cmd_parse_secs(dash + 1, strlen(dash + 1), &f.t1);
				f.has_t1 = !rc;
			}
			if (rc == -2) {
				sr_cause_set(cause, "filter 't=%s': out of range (at most "
					     "9223372036.854775807 s)", val);
				goto bad;
			}
			if (rc)
				goto bad_t;
			if (f.has_t0 && f.has_t1 && f.t1 < f.t0) {
				sr_cause_set(cause, "filter 't=%s': the end is before the start", val);
				goto bad;
			}
		} else {
			sr_cause_set(cause, "unknown filter '%s': expected patch, kind, comm, pid, "
				     "task, cpu, cross, miss, div, t or text", key);
			goto bad;
		}
	}
	if (text[0] && set_str(&f.text, text))
		goto oom;
	tui_filter_release(out);
	*out = f;
	return 0;
bad_t:
	sr_cause_set(cause, "filter 't=%s': expected seconds like 1.5-2.000250 (digits, "
		     "up to 9 after the point)", val);
	goto bad;
oom:
	sr_cause_set(cause, "out of memory");
bad:
	tui_filter_release(&f);
	return -1;
}

/* a value as one token of the filter language */
static void put_value(FILE *m, const char *s)
{
	const char *c;

	for (c = s; *c; c++)
		if (isspace((unsigned char)*c) || *c == '"' || *c == '\'' || *c == '=')
			break;
	if (!*c && *s) {
		fputs(s, m);
		return;
	}
	/* no quote inside a quoted value can be written: drop the other kind */
	fputc(strchr(s, '"') ? '\'' : '"', m);
	for (c = s; *c; c++)
		if (*c != (strchr(s, '"') ? '\'' : '"'))
			fputc(*c, m);
	fputc(strchr(s, '"') ? '\'' : '"', m);
}

/* nanoseconds as the t= filter writes them: seconds, the fraction without trailing zeros */
static void put_secs(FILE *m, long long ns)
{
	char frac[16];
	int n;

	fprintf(m, "%lld", ns / 1000000000LL);
	if (!(ns % 1000000000LL))
		return;
	n = snprintf(frac, sizeof(frac), "%09lld", ns % 1000000000LL);
	while (n > 0 && frac[n - 1] == '0')
		frac[--n] = '\0';
	fprintf(m, ".%s", frac);
}

char *tui_filter_format(const struct tui_filter *f)
{
	static const char *const cross[] = { "", "llc", "node", "none" };
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	const char *sep = "";

	if (!m)
		return NULL;
	if (f->patch) {
		fputs("patch=", m);
		put_value(m, f->patch);
		sep = " ";
	}
	if (f->kind) {
		fprintf(m, "%skind=%s", sep, f->kind);
		sep = " ";
	}
	if (f->comm) {
		fprintf(m, "%scomm=", sep);
		put_value(m, f->comm);
		sep = " ";
	}
	if (f->pid >= 0) {
		fprintf(m, "%spid=%ld", sep, f->pid);
		sep = " ";
	}
	if (f->cpu >= 0) {
		fprintf(m, "%scpu=%d", sep, f->cpu);
		sep = " ";
	}
	if (f->cross != TUI_CROSS_ANY) {
		fprintf(m, "%scross=%s", sep, cross[f->cross]);
		sep = " ";
	}
	if (f->miss >= 0) {
		fprintf(m, "%smiss=%s", sep, f->miss ? "yes" : "no");
		sep = " ";
	}
	if (f->div >= 0) {
		fprintf(m, "%sdiv=%s", sep, f->div ? "yes" : "no");
		sep = " ";
	}
	if (f->has_t0 || f->has_t1) {
		fprintf(m, "%st=", sep);
		if (f->has_t0)
			put_secs(m, f->t0);
		fputc('-', m);
		if (f->has_t1)
			put_secs(m, f->t1);
		sep = " ";
	}
	if (f->text) {
		fprintf(m, "%stext=", sep);
		put_value(m, f->text);
	}
	if (fclose(m)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* ---- columns ------------------------------------------------------------- */

/*
 * A patch side's CPU and reason in the list of every decision.  The
 * database stores a patch side's evaluation only where it differs from its
 * base side's (schedreplay-db(5), eval_row): xo/xp is that row, if any;
 * otherwise the side answered what the base model (eb0) answered, at the
 * kinds its pair evaluates (so.kinds).
 */
#define SIDE_VAL(x, sd, col)							\
	"(CASE WHEN " x ".side_id IS NOT NULL THEN " x "." col " WHEN eb0.side_id IS NOT NULL"	\
	" AND instr(',' || " sd ".kinds || ',', ',' || d.kind || ',') THEN eb0." col " END)"
#define EO_CPU		SIDE_VAL("xo", "so", "cpu")
#define EP_CPU		SIDE_VAL("xp", "sp", "cpu")
#define EO_REASON	SIDE_VAL("xo", "so", "reason_id")
#define EP_REASON	SIDE_VAL("xp", "sp", "reason_id")

/* the decisions of the diverged table's patches, by name */
#define DIVERGED							\
	"(SELECT group_concat(DISTINCT xs.patch) FROM diverged x JOIN side xs"	\
	" USING (side_id) WHERE x.decision_id = d.decision_id)"

/*
 * The list of every decision is a compound of one SELECT per decision table
 * (schedreplay-db(5): decision_row, decision_runnable), so its ORDER BY
 * names result columns (.all), each the value of .expr in both arms.
 */
static const struct {
	const char *name;
	const char *div;		/* ORDER BY term in the divergence list */
	const char *all;		/* ... in the list of every decision */
	const char *expr;		/* what .all is, in a decision table "d" */
} cols[TUI_COL__COUNT] = {
	[TUI_COL_TIME]		= { "time",	"ts",		"ts",		"d.ts" },
	[TUI_COL_TASK]		= { "task",	"comm",		"comm",		"d.comm" },
	[TUI_COL_PID]		= { "pid",	"tid",		"tid",		"d.tid" },
	[TUI_COL_KIND]		= { "kind",	"kind",		"kind",		"d.kind" },
	[TUI_COL_THIS]		= { "this",	"this_cpu",	"this_cpu",	"d.this_cpu" },
	[TUI_COL_PREV]		= { "prev",	"prev_cpu",	"prev_cpu",	"d.prev_cpu" },
	[TUI_COL_ACTUAL]	= { "actual",	"actual_cpu",	"actual_cpu",	"d.actual_cpu" },
	[TUI_COL_ORIGINAL]	= { "original",	"original_cpu",	"original_cpu",	EO_CPU },
	[TUI_COL_PATCHED]	= { "patched",	"patched_cpu",	"patched_cpu",	EP_CPU },
	[TUI_COL_PATCH]		= { "patch",	"patch",	"diverged",	DIVERGED },
	[TUI_COL_BASE]		= { "base",	"ts",		"base0_cpu",	"eb0.cpu" },
};

/* the decision tables, each an arm of the list of every decision */
static const char *const dec_table[] = { "decision_row", "decision_runnable" };

const char *tui_col_name(enum tui_col c)
{
	return (unsigned)c < TUI_COL__COUNT ? cols[c].name : "?";
}

int tui_col_find(const char *name)
{
	int i;

	for (i = 0; i < TUI_COL__COUNT; i++)
		if (!strcmp(cols[i].name, name))
			return i;
	return -1;
}

/* ---- the views' fixed queries --------------------------------------------------- */

static const char *const fixed[TUI_Q__COUNT] = {
	[TUI_Q_RUNS] =
		"SELECT run_id, trace, kernel, model, patches, first_ts, last_ts, decisions, "
		"events, migrations, lost_events, (SELECT count(*) FROM cpu c WHERE c.run_id "
		"= run.run_id) FROM run ORDER BY run_id",
	[TUI_Q_BASE_MODELS] =
		"SELECT model FROM side WHERE run_id = ? AND variant = 'base' ORDER BY "
		"side_id",
	[TUI_Q_PATCHES] =
		"SELECT patch FROM side WHERE run_id = ? AND patch IS NOT NULL GROUP BY "
		"patch ORDER BY min(side_id)",
	[TUI_Q_MAX_CPU] =
		"SELECT max(cpu) FROM cpu WHERE run_id = ?",
	[TUI_Q_CPUS] =
		"SELECT cpu, core_id, llc_id, node, capacity FROM cpu WHERE run_id = ?",
	[TUI_Q_NDIVERGENT] =
		/* CROSS JOIN: from the few divergent rows, not every decision of the run */
		"SELECT count(*) FROM diverged x CROSS JOIN decision_row d ON d.decision_id = "
		"x.decision_id WHERE d.run_id = ?",
	/* every decision: the two decision tables at the top level, not their view */
	[TUI_Q_TIMELINE_DECISIONS] =
		"SELECT ts, actual_cpu, kind FROM decision_row WHERE run_id = ?1 AND ts "
		"BETWEEN ?2 AND ?3 UNION ALL SELECT ts, actual_cpu, kind FROM "
		"decision_runnable WHERE run_id = ?1 AND ts BETWEEN ?2 AND ?3",
	[TUI_Q_TIMELINE_MIGRATIONS] =
		"SELECT ts, orig_cpu, dest_cpu FROM migration WHERE run_id = ? AND ts "
		"BETWEEN ? AND ?",
	[TUI_Q_DETAIL_SIDES] =
		"SELECT v.patch, v.model, v.variant, v.cpu FROM evaluation_v v WHERE "
		"v.decision_id = ?1 AND v.patch IS NOT NULL ORDER BY v.patch IS NOT ?2, "
		"v.model IS NOT ?3, NOT EXISTS (SELECT 1 FROM diverged x JOIN side s USING "
		"(side_id) WHERE x.decision_id = v.decision_id AND s.patch = v.patch AND "
		"s.model = v.model), v.side_id",
	[TUI_Q_DETAIL_DECISION] =
		"SELECT kind, ts, tid, comm, waker_tid, waker_comm, this_cpu, prev_cpu, "
		"actual_cpu, kernel_cpu, sync, wake_flags, waker_exiting, skip, inferred, "
		"this_nr, prev_nr, actual_nr, idle_cpus FROM decision_row WHERE decision_id = "
		"?1 UNION ALL SELECT kind, ts, tid, comm, waker_tid, waker_comm, this_cpu, "
		"prev_cpu, actual_cpu, kernel_cpu, sync, wake_flags, waker_exiting, skip, "
		"inferred, this_nr, prev_nr, actual_nr, idle_cpus FROM decision_runnable "
		"WHERE decision_id = ?1",
	[TUI_Q_DETAIL_CPU_STATE] =
		"SELECT cpu, nr_running, cfs_nr, curr_tid, curr_comm, idle, load, util FROM "
		"cpu_state WHERE decision_id = ?",
	[TUI_Q_DETAIL_REASONS] =
		"SELECT model, patch, variant, cpu, reason FROM evaluation_v WHERE "
		"decision_id = ? ORDER BY side_id",
	[TUI_Q_NLLC] =
		"SELECT count(DISTINCT llc_id) FROM cpu WHERE run_id = ?",
	[TUI_Q_TOPOLOGY] =
		"SELECT topology FROM run WHERE run_id = ?",
	/* files written before run.kind fail to prepare it: replays */
	[TUI_Q_KIND] =
		"SELECT variant, seed, fair FROM run WHERE run_id = ? AND kind = 'simulate'",
	[TUI_Q_PATCH_SUMMARY] =
		"SELECT patch, model, kind, decisions, divergent, original_exact, "
		"patched_exact FROM patch_summary WHERE run_id = ? ORDER BY rowid",
	[TUI_Q_FIDELITY] =
		"SELECT s.model, f.kind, f.n, f.exact, f.same_llc, f.same_node, "
		"f.baseline_exact FROM fidelity f JOIN side s USING (side_id) WHERE f.run_id "
		"= ? AND f.path IS NULL AND s.variant = 'base' ORDER BY f.side_id, f.kind "
		"DESC",
	[TUI_Q_HAS_INPUTS] =
		"SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN "
		"('decision_input', 'group_stat', 'sched_domain')",
	[TUI_Q_DETAIL_INPUT] =
		"SELECT i.wakee_flips, i.waker_flips, i.wake_wide_factor, i.flips_source, "
		"i.task_load, i.task_util, i.task_runnable, i.pelt_source, i.waker_load, "
		"i.this_load, i.prev_load, i.prev_load_source, i.groups_dropped, s.model FROM "
		"decision_input i LEFT JOIN side s USING (side_id) WHERE i.decision_id = ?",
	[TUI_Q_DETAIL_GROUPS] =
		"SELECT call, fn, cpu, level, first_cpu, local, picked, type, weight, "
		"nr_running, cfs_nr, idle_cpus, load, avg_load, util, runnable FROM group_stat "
		"WHERE decision_id = ? ORDER BY call, local DESC, first_cpu",
	[TUI_Q_DOMAINS] =
		"SELECT level, name, flags, flag_names, imbalance_pct, span_weight, span, "
		"imb_numa_nr FROM sched_domain WHERE run_id = ? AND cpu = ? ORDER BY level",
	[TUI_Q_SLICE_RANGE] =
		"SELECT min(rowid), max(rowid), max(delay) FROM sched_slice WHERE run_id = ?",
	[TUI_Q_SLICE_END] =
		"SELECT rowid, ts + coalesce(dur, 9223372036854775807 - ts) FROM sched_slice "
		"WHERE rowid >= ? ORDER BY rowid LIMIT 1",
	[TUI_Q_SLICE_SCAN] =
		"SELECT ts, dur, cpu, tid, delay, queue_cpu FROM sched_slice WHERE rowid "
		"BETWEEN ? AND ? ORDER BY rowid",
	[TUI_Q_NEXT_DECISION] =
		"SELECT decision_id, ts FROM decision_row WHERE run_id = ?1 AND (ts > ?2 OR "
		"(ts = ?2 AND decision_id > ?3)) UNION ALL SELECT decision_id, ts FROM "
		"decision_runnable WHERE run_id = ?1 AND (ts > ?2 OR (ts = ?2 AND "
		"decision_id > ?3)) ORDER BY ts, decision_id LIMIT 1",
	[TUI_Q_PREV_DECISION] =
		"SELECT decision_id, ts FROM decision_row WHERE run_id = ?1 AND (ts < ?2 OR "
		"(ts = ?2 AND decision_id < ?3)) UNION ALL SELECT decision_id, ts FROM "
		"decision_runnable WHERE run_id = ?1 AND (ts < ?2 OR (ts = ?2 AND "
		"decision_id < ?3)) ORDER BY ts DESC, decision_id DESC LIMIT 1",
	[TUI_Q_FIND_ID] =
		"SELECT run_id FROM decision_row WHERE decision_id = ?1 UNION ALL SELECT "
		"run_id FROM decision_runnable WHERE decision_id = ?1",
	[TUI_Q_FIND_TS] =
		"SELECT decision_id, ts FROM decision_row WHERE run_id = ?1 AND ts >= ?2 "
		"UNION ALL SELECT decision_id, ts FROM decision_runnable WHERE run_id = ?1 "
		"AND ts >= ?2 ORDER BY ts, decision_id LIMIT 1",
};

const char *tui_q(enum tui_q q)
{
	return (unsigned)q < TUI_Q__COUNT ? fixed[q] : "SELECT NULL WHERE 0";
}

/* ---- SQL ------------------------------------------------------------------ */

void tui_sql_release(struct tui_sql *q)
{
	int i;

	free(q->text);
	for (i = 0; i < q->n; i++)
		free(q->p[i].s);
	memset(q, 0, sizeof(*q));
}

static int add_int(struct tui_sql *q, const char *name, long long v)
{
	int i;

	for (i = 0; i < q->n; i++)
		if (!strcmp(q->p[i].name, name))
			return 0;
	if (q->n == TUI_MAX_PARAMS)
		return -1;
	q->p[q->n].name = name;
	q->p[q->n].is_text = 0;
	q->p[q->n].i = v;
	q->p[q->n].s = NULL;
	q->n++;
	return 0;
}

static int add_text(struct tui_sql *q, const char *name, const char *v)
{
	int i;

	for (i = 0; i < q->n; i++)
		if (!strcmp(q->p[i].name, name))
			return 0;
	if (q->n == TUI_MAX_PARAMS)
		return -1;
	q->p[q->n].s = strdup(v ? v : "");
	if (!q->p[q->n].s)
		return -1;
	q->p[q->n].name = name;
	q->p[q->n].is_text = 1;
	q->n++;
	return 0;
}

static const char *const base_param[TUI_MAX_BASE] = { ":base0", ":base1", ":base2", ":base3" };

static int has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* the run's first_ts plus @ns, saturated: a time beyond the int64 range matches nothing */
static long long secs_to_ts(const struct tui_scope *sc, long long ns)
{
	return sc->first_ts > 0 && ns > LLONG_MAX - sc->first_ts ? LLONG_MAX : sc->first_ts + ns;
}

/* whether the filter of a list of every decision looks at the evaluations */
static int filter_joins(const struct tui_filter *f)
{
	return f->patch || f->cpu >= 0 || f->cross != TUI_CROSS_ANY || f->text || f->miss >= 0;
}

/* the base model of a divergent row missed the kernel's CPU */
#define DIV_MISS								\
	"EXISTS (SELECT 1 FROM eval_row e JOIN side s ON s.side_id = e.side_id"	\
	" WHERE e.decision_id = divergence.decision_id AND s.run_id = divergence.run_id"	\
	" AND s.variant = 'base' AND s.model = divergence.model"		\
	" AND e.cpu IS NOT divergence.actual_cpu)"

static int sort_joins(const struct tui_query *qu)
{
	return qu->sort == TUI_COL_ORIGINAL || qu->sort == TUI_COL_PATCHED ||
	       qu->sort == TUI_COL_PATCH || qu->sort == TUI_COL_BASE;
}

/* the evaluations a list of every decision shows beside each decision */
static int all_joins(FILE *m, struct tui_sql *q, const struct tui_scope *sc,
		     const struct tui_filter *f)
{
	int i, err = 0, nbase = sc->nbase > 0 ? sc->nbase : 1;

	for (i = 0; i < nbase && i < TUI_MAX_BASE; i++) {
		fprintf(m, "\n  LEFT JOIN eval_row eb%d ON eb%d.decision_id = d.decision_id"
			" AND eb%d.side_id = (SELECT side_id FROM side WHERE run_id = :run"
			" AND variant = 'base' AND model = %s)", i, i, i, base_param[i]);
		err |= add_text(q, base_param[i], sc->nbase ? sc->base[i] : "");
	}
	fputs("\n  LEFT JOIN side so ON so.run_id = :run AND so.patch = :sides"
	      " AND so.variant = 'original' AND so.model = :base0"
	      "\n  LEFT JOIN side sp ON sp.run_id = :run AND sp.patch = :sides"
	      " AND sp.variant = 'patched' AND sp.model = :base0"
	      "\n  LEFT JOIN eval_row xo ON xo.decision_id = d.decision_id AND xo.side_id = so.side_id"
	      "\n  LEFT JOIN eval_row xp ON xp.decision_id = d.decision_id AND xp.side_id = sp.side_id",
	      m);
	err |= add_text(q, ":sides", f->patch ? f->patch : sc->patch ? sc->patch : "");
	return err;
}

/* the comm or any side's reason contains @param, case-blind (filter and search) */
static void text_match(FILE *m, int all, const char *p)
{
	if (all)
		fprintf(m, "instr(lower(d.comm), lower(%1$s))"
			" OR instr(lower((SELECT text FROM reason WHERE reason_id = eb0.reason_id)),"
			" lower(%1$s))"
			" OR instr(lower((SELECT text FROM reason WHERE reason_id = " EO_REASON ")),"
			" lower(%1$s))"
			" OR instr(lower((SELECT text FROM reason WHERE reason_id = " EP_REASON ")),"
			" lower(%1$s))", p);
	else
		fprintf(m, "instr(lower(comm), lower(%1$s))"
			" OR instr(lower(original_reason), lower(%1$s))"
			" OR instr(lower(patched_reason), lower(%1$s))", p);
}

/*
 * The FROM and WHERE of a list: the same for rows, count and search.  In
 * the list of every decision, @joins 0 leaves the evaluations out when the
 * filter does not need them: counting a million rows then reads one index;
 * @table: the decision table of this arm (dec_table[]).
 */
static int from_where(FILE *m, struct tui_sql *q, const struct tui_scope *sc,
		      const struct tui_query *qu, int joins, const char *table)
{
	const struct tui_filter *f = qu->filter;
	int all = qu->mode == TUI_ALL, i, err = 0;
	int nbase = sc->nbase > 0 ? sc->nbase : 1;

	if (!all) {
		fputs("\nFROM divergence\nWHERE run_id = :run", m);
	} else {
		fprintf(m, "\nFROM %s d", table);
		if (joins || filter_joins(f))
			err |= all_joins(m, q, sc, f);
		fputs("\nWHERE d.run_id = :run", m);
	}
	err |= add_int(q, ":run", sc->run_id);
	if (f->patch) {
		fputs(all ? "\n  AND " EO_CPU " IS NOT NULL" : "\n  AND patch = :patch", m);
		if (!all)
			err |= add_text(q, ":patch", f->patch);
	}
	if (f->kind) {
		fprintf(m, "\n  AND %skind = :kind", all ? "d." : "");
		err |= add_text(q, ":kind", f->kind);
	}
	if (f->comm) {
		fprintf(m, "\n  AND %scomm %s :comm", all ? "d." : "", has_glob(f->comm) ? "GLOB" : "=");
		err |= add_text(q, ":comm", f->comm);
	}
	if (f->pid >= 0) {
		fprintf(m, "\n  AND %stid = :pid", all ? "d." : "");
		err |= add_int(q, ":pid", f->pid);
	}
	if (f->cpu >= 0) {
		if (all) {
			fputs("\n  AND :cpu IN (d.this_cpu, d.prev_cpu, d.actual_cpu, " EO_CPU ", " EP_CPU, m);
			for (i = 0; i < nbase && i < TUI_MAX_BASE; i++)
				fprintf(m, ", eb%d.cpu", i);
			fputc(')', m);
		} else {
			fputs("\n  AND :cpu IN (this_cpu, prev_cpu, actual_cpu, original_cpu,"
			      " patched_cpu)", m);
		}
		err |= add_int(q, ":cpu", f->cpu);
	}
	if (f->cross != TUI_CROSS_ANY) {
		if (!all) {
			static const char *const div_cross[] = {
				"", "(original_cross_llc OR patched_cross_llc)",
				"(original_cross_node OR patched_cross_node)",
				"NOT (original_cross_llc OR original_cross_node OR patched_cross_llc"
				" OR patched_cross_node)",
			};
			fprintf(m, "\n  AND %s", div_cross[f->cross]);
		} else {
			/* the kernel's CPU, the base model's or a patch side's */
			fprintf(m, "\n  AND %sEXISTS (SELECT 1 FROM cpu p JOIN cpu c ON c.run_id = p.run_id"
				" WHERE p.run_id = d.run_id AND p.cpu = d.prev_cpu"
				" AND c.cpu IN (d.actual_cpu, eb0.cpu, " EO_CPU ", " EP_CPU ") AND %s)",
				f->cross == TUI_CROSS_NONE ? "NOT " : "",
				f->cross == TUI_CROSS_NODE ? "c.node IS NOT p.node" :
				"(c.llc_id IS NOT p.llc_id OR c.node IS NOT p.node)");
		}
	}
	if (f->miss >= 0) {
		/* a decision the base model evaluated and placed elsewhere than the kernel */
		if (all)
			fprintf(m, "\n  AND eb0.side_id IS NOT NULL AND eb0.cpu IS %sd.actual_cpu",
				f->miss ? "NOT " : "");
		else
			fprintf(m, "\n  AND %s" DIV_MISS, f->miss ? "" : "NOT ");
	}
	if (f->div >= 0) {
		if (all)
			fprintf(m, "\n  AND %sEXISTS (SELECT 1 FROM diverged x WHERE x.decision_id ="
				" d.decision_id)", f->div ? "" : "NOT ");
		else if (!f->div)
			fputs("\n  AND 0", m);
	}
	if (f->has_t0) {
		fprintf(m, "\n  AND %sts >= :t0", all ? "d." : "");
		err |= add_int(q, ":t0", secs_to_ts(sc, f->t0));
	}
	if (f->has_t1) {
		fprintf(m, "\n  AND %sts <= :t1", all ? "d." : "");
		err |= add_int(q, ":t1", secs_to_ts(sc, f->t1));
	}
	if (f->text) {
		fputs("\n  AND (", m);
		text_match(m, all, ":text");
		fputs(")", m);
		err |= add_text(q, ":text", f->text);
	}
	return err ? -1 : 0;
}

static void order_by(FILE *m, const struct tui_scope *sc, const struct tui_query *qu)
{
	const char *dir = qu->desc ? " DESC" : "";
	enum tui_col c = (unsigned)qu->sort < TUI_COL__COUNT ? qu->sort : TUI_COL_TIME;

	if (qu->mode == TUI_ALL && c == TUI_COL_TIME)
		fprintf(m, "\nORDER BY ts%s, decision_id%s", dir, dir);
	else if (qu->mode == TUI_ALL)
		fprintf(m, "\nORDER BY %s%s, ts%s, decision_id%s", cols[c].all, dir, dir, dir);
	else if (c == TUI_COL_TIME)
		fprintf(m, "\nORDER BY ts%s, decision_id%s, patch%s, model%s", dir, dir, dir, dir);
	else
		fprintf(m, "\nORDER BY %s%s, ts%s, decision_id%s, patch%s, model%s", cols[c].div, dir,
			dir, dir, dir, dir);
}

static void select_cols(FILE *m, const struct tui_scope *sc, const struct tui_query *qu)
{
	int i, nbase = sc->nbase > 0 ? sc->nbase : 1;

	if (qu->mode == TUI_DIVERGENT) {
		fputs("SELECT decision_id, ts, tid, comm, kind, this_cpu, prev_cpu, actual_cpu,"
		      " original_cpu, patched_cpu, patch, original_reason, patched_reason, model,"
		      "\n  (SELECT e.cpu FROM eval_row e JOIN side s ON s.side_id = e.side_id"
		      " WHERE e.decision_id = divergence.decision_id AND s.run_id = divergence.run_id"
		      " AND s.variant = 'base' AND s.model = divergence.model) AS base_cpu", m);
		return;
	}
	/* named: the compound's ORDER BY names them (decision_id is eval_row's too) */
	fputs("SELECT d.decision_id AS decision_id, d.ts AS ts, d.tid AS tid, d.comm AS comm,"
	      " d.kind AS kind, d.this_cpu AS this_cpu, d.prev_cpu AS prev_cpu,"
	      " d.actual_cpu AS actual_cpu, " EO_CPU " AS original_cpu, " EP_CPU " AS patched_cpu,"
	      "\n  " DIVERGED " AS diverged,"
	      "\n  (SELECT text FROM reason WHERE reason_id = eb0.reason_id) AS base_reason", m);
	for (i = 0; i < nbase && i < TUI_MAX_BASE; i++)
		fprintf(m, ", eb%d.cpu AS base%d_cpu", i, i);
}

static int finish(FILE *m, char **buf, struct tui_sql *out, int err)
{
	if (fclose(m) || err) {
		free(*buf);
		tui_sql_release(out);
		return -1;
	}
	out->text = *buf;
	return 0;
}

/* a statement's text is written into a memory stream, then finish() takes it */
static FILE *sql_open(struct tui_sql *out, char **buf, size_t *len)
{
	memset(out, 0, sizeof(*out));
	return open_memstream(buf, len);
}

/*
 * Whether the list of every decision needs its decision_runnable arm: not
 * when the filter keeps only evaluated decisions (a runnable wakeup has
 * no evaluation, schedreplay-db(5)) or another kind than a wakeup
 */
static int runnable_arm(const struct tui_query *qu)
{
	const struct tui_filter *f = qu->filter;

	return !f->patch && f->miss < 0 && f->div != 1 &&
	       (!f->kind || !strcmp(f->kind, sr_decision_kind_name(SR_DEC_WAKEUP)));
}

/* the arms of the list of every decision: 1 or 2 */
static int arms(const struct tui_query *qu)
{
	return qu->mode == TUI_ALL && runnable_arm(qu) ? 2 : 1;
}

int tui_sql_rows(struct tui_sql *out, const struct tui_scope *sc, const struct tui_query *qu,
		 long limit, long offset)
{
	enum tui_col c = (unsigned)qu->sort < TUI_COL__COUNT ? qu->sort : TUI_COL_TIME;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = sql_open(out, &buf, &len);
	int err = 0, i, n = arms(qu);

	if (!m)
		return -1;
	if (qu->mode == TUI_ALL && limit >= 0) {
		/*
		 * The window: the decisions' ids and sort keys alone (without
		 * the evaluations unless the filter or the sort reads them; a
		 * window far down the list then skips rows in the indexes),
		 * then only the window's rows get the rest of their columns.
		 */
		fputs("WITH w AS (", m);
		for (i = 0; i < n; i++) {
			fprintf(m, "%sSELECT d.decision_id AS decision_id, d.ts AS ts",
				i ? "\n  UNION ALL " : "");
			if (c != TUI_COL_TIME)
				fprintf(m, ", %s AS %s", cols[c].expr, cols[c].all);
			err |= from_where(m, out, sc, qu, sort_joins(qu), dec_table[i]);
		}
		order_by(m, sc, qu);
		fputs("\n  LIMIT :limit OFFSET :offset)\n", m);
		err |= add_int(out, ":limit", limit);
		err |= add_int(out, ":offset", offset);
		for (i = 0; i < n; i++) {
			if (i)
				fputs("\nUNION ALL\n", m);
			select_cols(m, sc, qu);
			fprintf(m, "\nFROM w CROSS JOIN %s d ON d.decision_id = w.decision_id",
				dec_table[i]);
			err |= all_joins(m, out, sc, qu->filter);
		}
		order_by(m, sc, qu);
		return finish(m, &buf, out, err);
	}
	for (i = 0; i < n; i++) {
		if (i)
			fputs("\nUNION ALL\n", m);
		select_cols(m, sc, qu);
		err |= from_where(m, out, sc, qu, 1, dec_table[i]);
	}
	order_by(m, sc, qu);
	if (limit >= 0) {
		fputs("\nLIMIT :limit OFFSET :offset", m);
		err |= add_int(out, ":limit", limit);
		err |= add_int(out, ":offset", offset);
	}
	return finish(m, &buf, out, err);
}

int tui_sql_count(struct tui_sql *out, const struct tui_scope *sc, const struct tui_query *qu)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = sql_open(out, &buf, &len);
	int err = 0, i, n = arms(qu);

	if (!m)
		return -1;
	if (qu->mode != TUI_ALL) {
		fputs("SELECT count(*)", m);
		err = from_where(m, out, sc, qu, 0, NULL);
		return finish(m, &buf, out, err);
	}
	/* the sum of each table's count */
	fputs("SELECT ", m);
	for (i = 0; i < n; i++) {
		fprintf(m, "%s(SELECT count(*)", i ? "\n  + " : "");
		err |= from_where(m, out, sc, qu, 0, dec_table[i]);
		fputc(')', m);
	}
	return finish(m, &buf, out, err);
}

int tui_sql_search(struct tui_sql *out, const struct tui_scope *sc, const struct tui_query *qu,
		   const char *text, long from, int dir)
{
	enum tui_col c = (unsigned)qu->sort < TUI_COL__COUNT ? qu->sort : TUI_COL_TIME;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = sql_open(out, &buf, &len);
	int err, i, n = arms(qu);

	if (!m)
		return -1;
	fputs("SELECT rn FROM (SELECT row_number() OVER (", m);
	order_by(m, sc, qu);
	fputs(") - 1 AS rn, ", m);
	err = add_text(out, ":search", text);
	if (qu->mode != TUI_ALL) {
		text_match(m, 0, ":search");
		fputs(" AS hit", m);
		err |= from_where(m, out, sc, qu, 1, NULL);
	} else {
		/* each arm's sort keys and hits, numbered in the list's order */
		fputs("hit FROM (", m);
		for (i = 0; i < n; i++) {
			fprintf(m, "%sSELECT d.decision_id AS decision_id, d.ts AS ts",
				i ? "\n  UNION ALL " : "");
			if (c != TUI_COL_TIME)
				fprintf(m, ", %s AS %s", cols[c].expr, cols[c].all);
			fputs(", ", m);
			text_match(m, 1, ":search");
			fputs(" AS hit", m);
			err |= from_where(m, out, sc, qu, 1, dec_table[i]);
		}
		fputc(')', m);
	}
	fprintf(m, ")\nWHERE hit AND rn %s :from ORDER BY rn%s LIMIT 1", dir > 0 ? ">" : "<",
		dir > 0 ? "" : " DESC");
	err |= add_int(out, ":from", from);
	return finish(m, &buf, out, err);
}

sqlite3_stmt *tui_sql_prepare(sqlite3 *db, const struct tui_sql *q, char **cause)
{
	sqlite3_stmt *st = NULL;
	int i, idx;

	if (sqlite3_prepare_v2(db, q->text, -1, &st, NULL) != SQLITE_OK) {
		sr_cause_set(cause, "cannot query the database: %s", sqlite3_errmsg(db));
		return NULL;
	}
	for (i = 0; i < q->n; i++) {
		idx = sqlite3_bind_parameter_index(st, q->p[i].name);
		if (!idx)
			continue;
		if (q->p[i].is_text)
			sqlite3_bind_text(st, idx, q->p[i].s, -1, SQLITE_TRANSIENT);
		else
			sqlite3_bind_int64(st, idx, q->p[i].i);
	}
	return st;
}

/* a text value for the sqlite3 shell: an SQL literal inside a "" argument */
static void print_shell_text(FILE *out, const char *s)
{
	fputs("\"'", out);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("''", out);
		else if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", out);
		else
			fputc(*s, out);
	}
	fputs("'\"", out);
}

/* @db: the views a file of an older schema reads through come first */
void tui_sql_print(const struct tui_sql *q, sqlite3 *db, FILE *out)
{
	int i;

	if (db)
		fputs(sr_db_reader_views(db), out);
	fputs(".parameter init\n", out);
	for (i = 0; i < q->n; i++) {
		fprintf(out, ".parameter set %s ", q->p[i].name);
		if (q->p[i].is_text)
			print_shell_text(out, q->p[i].s);
		else
			fprintf(out, "%lld", q->p[i].i);
		fputc('\n', out);
	}
	fprintf(out, "%s;\n", q->text);
}
