// SPDX-License-Identifier: GPL-2.0
/*
 * "schedreplay export [-o FILE] DB": one run of a results database as a
 * trace in the Trace Event Format (the JSON that chrome://tracing and
 * ui.perfetto.dev open).  Process 1 has one track per CPU with the running
 * slices of sched_slice and every decision as an instant event on the CPU
 * that made it; process 2 has one track per task with its runnable slices.
 * Times are µs with the trace's ns as three decimals.  A decision's name
 * says what to search for: "divergent" when a patch pair's sides differ,
 * "miss" when a base model did not choose the kernel's CPU.
 */
#include "cmd.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "schedreplay/error.h"
#include "schedreplay/store.h"
#include "escape.h"
#include "banned.h"

#define PID_CPUS	1
#define PID_TASKS	2

const struct cmd_entry cmd_export;

struct export {
	sqlite3 *db;
	const char *file;
	FILE *out;
	long run;
	long long from, to;		/* ns; -1: unbounded */
	int from_rel, to_rel;		/* given in seconds from the run's first event */
	const char *from_arg, *to_arg;	/* as given */
	long long last_ts;		/* the run's end, for the slices still open there */
	int first;			/* no event written yet */
	uint64_t runs, waits, decisions;
};

/*
 * A JSON string of text from the trace: escaped as for a terminal first
 * (escape.h: controls, and bytes that are not UTF-8, as \xHH), so that the
 * document is valid UTF-8 whatever a task called itself, then quoted by the
 * tree's one JSON string writer.
 */
static void json_str(FILE *f, const char *s)
{
	char *e;

	if (!sr_escape_needed(s)) {
		sr_json_string(s, f);
		return;
	}
	e = sr_escape_dup(s);
	sr_json_string(e ? e : "?", f);
	free(e);
}

/* ns as µs with three decimals */
static void json_us(FILE *f, long long ns)
{
	if (ns < 0) {
		fputc('-', f);
		ns = -ns;
	}
	fprintf(f, "%lld.%03lld", ns / 1000, ns % 1000);
}

/* "name": value of an integer column, or null */
static void json_int_col(FILE *f, const char *name, sqlite3_stmt *st, int i)
{
	fprintf(f, ",\"%s\":", name);
	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		fputs("null", f);
	else
		fprintf(f, "%lld", (long long)sqlite3_column_int64(st, i));
}

static void json_us_col(FILE *f, const char *name, sqlite3_stmt *st, int i)
{
	fprintf(f, ",\"%s\":", name);
	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		fputs("null", f);
	else
		json_us(f, sqlite3_column_int64(st, i));
}

static void json_text_col(FILE *f, const char *name, sqlite3_stmt *st, int i)
{
	fprintf(f, ",\"%s\":", name);
	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		fputs("null", f);
	else
		json_str(f, (const char *)sqlite3_column_text(st, i));
}

static void event_sep(struct export *x)
{
	fputs(x->first ? "\n" : ",\n", x->out);
	x->first = 0;
}

static int sql_error(struct export *x, const char *what)
{
	sr_error("cannot read '%s': %s: %s", x->file, what, sqlite3_errmsg(x->db));
	return -1;
}

/* prepare @sql with :run, :from, :to and :last bound */
static sqlite3_stmt *prepare(struct export *x, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int i;

	if (sqlite3_prepare_v2(x->db, sql, -1, &st, NULL) != SQLITE_OK) {
		sql_error(x, "prepare");
		sqlite3_finalize(st);
		return NULL;
	}
	if ((i = sqlite3_bind_parameter_index(st, ":run")))
		sqlite3_bind_int64(st, i, x->run);
	if ((i = sqlite3_bind_parameter_index(st, ":from")) && x->from >= 0)
		sqlite3_bind_int64(st, i, x->from);
	if ((i = sqlite3_bind_parameter_index(st, ":to")) && x->to >= 0)
		sqlite3_bind_int64(st, i, x->to);
	if ((i = sqlite3_bind_parameter_index(st, ":last")))
		sqlite3_bind_int64(st, i, x->last_ts);
	return st;
}

static int step_done(struct export *x, sqlite3_stmt *st, int rc, const char *what)
{
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : sql_error(x, what);
}

/* the window: slices that overlap [from, to], decisions within it */
#define WINDOW(ts, end) \
	" AND (:from IS NULL OR " end " >= :from) AND (:to IS NULL OR " ts " <= :to)"

/* the run's header and the track names */
static int write_meta(struct export *x)
{
	FILE *f = x->out;
	sqlite3_stmt *st;
	int rc;

	st = prepare(x, "SELECT trace, model, patches, first_ts, last_ts, kernel, host"
		     " FROM run WHERE run_id = :run");
	if (!st)
		return -1;
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		if (rc == SQLITE_DONE) {
			sr_error("'%s' has no run %ld", x->file, x->run);
			return -1;
		}
		return sql_error(x, "run");
	}
	x->last_ts = sqlite3_column_int64(st, 4);
	fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"tool\":\"schedreplay export\"", f);
	fprintf(f, ",\"run\":%ld", x->run);
	json_text_col(f, "trace", st, 0);
	json_text_col(f, "models", st, 1);
	json_text_col(f, "patches", st, 2);
	json_text_col(f, "kernel", st, 5);
	json_text_col(f, "host", st, 6);
	json_int_col(f, "first_ts_ns", st, 3);
	json_int_col(f, "last_ts_ns", st, 4);
	fputs("},\n\"traceEvents\":[", f);
	sqlite3_finalize(st);
	x->first = 1;
	event_sep(x);
	fprintf(f, "{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_name\",\"args\":{\"name\":"
		"\"CPUs: running slices and decisions\"}}", PID_CPUS);
	event_sep(x);
	fprintf(f, "{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_name\",\"args\":{\"name\":"
		"\"tasks: runnable slices\"}}", PID_TASKS);
	st = prepare(x, "SELECT cpu, node FROM cpu WHERE run_id = :run ORDER BY cpu");
	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int cpu = sqlite3_column_int(st, 0);

		event_sep(x);
		fprintf(f, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"thread_name\","
			"\"args\":{\"name\":\"CPU %d (node %d)\"}}", PID_CPUS, cpu, cpu,
			sqlite3_column_int(st, 1));
		event_sep(x);
		fprintf(f, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"thread_sort_index\","
			"\"args\":{\"sort_index\":%d}}", PID_CPUS, cpu, cpu);
	}
	if (step_done(x, st, rc, "cpu"))
		return -1;
	/* with a window, only the tasks whose runnable slices it holds get a name */
	st = prepare(x, "SELECT tid, comm FROM task WHERE run_id = :run AND"
		     " ((:from IS NULL AND :to IS NULL) OR tid IN (SELECT tid FROM task_state"
		     " WHERE run_id = :run AND state IN ('R', 'R+')"
		     WINDOW("ts", "ts + coalesce(dur, 0)") ")) ORDER BY tid");
	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		char name[64];

		snprintf(name, sizeof(name), "%s %d", sqlite3_column_type(st, 1) == SQLITE_NULL ?
			 "?" : (const char *)sqlite3_column_text(st, 1), sqlite3_column_int(st, 0));
		event_sep(x);
		fprintf(f, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"thread_name\","
			"\"args\":{\"name\":", PID_TASKS, sqlite3_column_int(st, 0));
		json_str(f, name);
		fputs("}}", f);
	}
	return step_done(x, st, rc, "task");
}

/* a complete event's start: category, track (pid, tid), ts and dur in µs */
static void slice_head(struct export *x, const char *cat, int pid, int tid, long long ts,
		       long long dur)
{
	event_sep(x);
	fprintf(x->out, "{\"ph\":\"X\",\"cat\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":", cat, pid,
		tid);
	json_us(x->out, ts);
	fputs(",\"dur\":", x->out);
	json_us(x->out, dur);
}

static int write_runs(struct export *x)
{
	FILE *f = x->out;
	sqlite3_stmt *st;
	int rc;

	st = prepare(x, "SELECT s.ts, coalesce(s.dur, max(:last - s.ts, 0)), s.cpu, s.tid, t.comm,"
		     " s.end_state, s.priority, s.wait, s.delay, s.dur IS NULL"
		     " FROM sched_slice s LEFT JOIN task t ON t.run_id = s.run_id AND t.tid = s.tid"
		     " WHERE s.run_id = :run" WINDOW("s.ts", "s.ts + coalesce(s.dur, 0)"));
	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		slice_head(x, "run", PID_CPUS, sqlite3_column_int(st, 2), sqlite3_column_int64(st, 0),
			   sqlite3_column_int64(st, 1));
		fputs(",\"name\":", f);
		json_str(f, sqlite3_column_type(st, 4) == SQLITE_NULL ? "?" :
			 (const char *)sqlite3_column_text(st, 4));
		fprintf(f, ",\"args\":{\"tid\":%d", sqlite3_column_int(st, 3));
		json_text_col(f, "end_state", st, 5);
		json_int_col(f, "prio", st, 6);
		json_us_col(f, "wait_us", st, 7);
		json_us_col(f, "sch_delay_us", st, 8);
		if (sqlite3_column_int(st, 9))
			fputs(",\"open\":\"still running at the end of the trace\"", f);
		fputs("}}", f);
		x->runs++;
	}
	return step_done(x, st, rc, "sched_slice");
}

static int write_waits(struct export *x)
{
	FILE *f = x->out;
	sqlite3_stmt *st;
	int rc;

	st = prepare(x, "SELECT ts, coalesce(dur, max(:last - ts, 0)), tid, state, cpu, waker_tid,"
		     " dur IS NULL FROM task_state WHERE run_id = :run AND state IN ('R', 'R+')"
		     WINDOW("ts", "ts + coalesce(dur, 0)"));
	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		slice_head(x, "runnable", PID_TASKS, sqlite3_column_int(st, 2),
			   sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1));
		fputs(",\"name\":", f);
		if (sqlite3_column_type(st, 4) == SQLITE_NULL)
			fputs("\"runnable\"", f);
		else
			fprintf(f, "\"runnable on CPU %d\"", sqlite3_column_int(st, 4));
		fputs(",\"args\":{", f);
		fputs("\"state\":", f);
		json_str(f, (const char *)sqlite3_column_text(st, 3));
		json_int_col(f, "cpu", st, 4);
		json_int_col(f, "waker_tid", st, 5);
		if (sqlite3_column_int(st, 6))
			fputs(",\"open\":\"still runnable at the end of the trace\"", f);
		fputs("}}", f);
		x->waits++;
	}
	return step_done(x, st, rc, "task_state");
}

/* one decision: its instant event, the sides' answers as args */
static int write_decisions(struct export *x)
{
	FILE *f = x->out;
	sqlite3_stmt *st;
	long long cur = 0;
	char name[128];
	int rc, miss = 0, have = 0;

	/*
	 * The sides of each decision in one pass, decision by decision; a
	 * decision's name needs its miss and divergence before its args, so
	 * both come from the first row (aggregates over its evaluations).
	 */
	/*
	 * The two decision tables at the top level (schedreplay-db(5)); the
	 * runnable wakeups of decision_runnable have no evaluation.
	 */
	st = prepare(x, "SELECT d.decision_id AS decision_id, d.kind, d.ts, d.tid, d.comm,"
		     " d.waker_tid, d.this_cpu, d.prev_cpu, d.actual_cpu, d.kernel_cpu, d.skip,"
		     " EXISTS (SELECT 1 FROM diverged v WHERE v.decision_id = d.decision_id),"
		     " (SELECT group_concat(s2.model) FROM evaluation e2 JOIN side s2"
		     "  ON s2.side_id = e2.side_id WHERE e2.decision_id = d.decision_id"
		     "  AND s2.variant = 'base' AND e2.cpu IS NOT d.actual_cpu),"
		     " s.model, s.patch, s.variant, e.cpu, r.path, r.text, e.side_id AS side_id"
		     " FROM decision_row d LEFT JOIN evaluation e ON e.decision_id = d.decision_id"
		     " LEFT JOIN side s ON s.side_id = e.side_id"
		     " LEFT JOIN reason r ON r.reason_id = e.reason_id"
		     " WHERE d.run_id = :run" WINDOW("d.ts", "d.ts")
		     " UNION ALL SELECT d.decision_id, d.kind, d.ts, d.tid, d.comm, d.waker_tid,"
		     " d.this_cpu, d.prev_cpu, d.actual_cpu, d.kernel_cpu, d.skip, 0, NULL,"
		     " NULL, NULL, NULL, NULL, NULL, NULL, NULL"
		     " FROM decision_runnable d"
		     " WHERE d.run_id = :run" WINDOW("d.ts", "d.ts")
		     " ORDER BY decision_id, side_id");
	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		long long id = sqlite3_column_int64(st, 0);
		int cpu;

		if (!have || id != cur) {
			if (have)
				fputs("}}}", f);
			have = 1;
			cur = id;
			miss = sqlite3_column_type(st, 12) != SQLITE_NULL;
			snprintf(name, sizeof(name), "%s%s%s%s", sqlite3_column_text(st, 1),
				 sqlite3_column_int(st, 11) ? " divergent" : "",
				 miss ? " miss" : "",
				 sqlite3_column_type(st, 10) != SQLITE_NULL ? " skipped" : "");
			cpu = sqlite3_column_type(st, 6) != SQLITE_NULL ? sqlite3_column_int(st, 6) :
			      sqlite3_column_int(st, 8);
			event_sep(x);
			fprintf(f, "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"decision\",\"pid\":%d,"
				"\"tid\":%d,\"ts\":", PID_CPUS, cpu);
			json_us(f, sqlite3_column_int64(st, 2));
			fprintf(f, ",\"name\":\"%s\",\"args\":{\"decision_id\":%lld", name, id);
			json_int_col(f, "tid", st, 3);
			json_text_col(f, "comm", st, 4);
			json_int_col(f, "waker_tid", st, 5);
			json_int_col(f, "this_cpu", st, 6);
			json_int_col(f, "prev_cpu", st, 7);
			json_int_col(f, "actual_cpu", st, 8);
			json_int_col(f, "kernel_cpu", st, 9);
			json_text_col(f, "skip", st, 10);
			json_text_col(f, "missed_by", st, 12);
			fputs(",\"sides\":{", f);
			x->decisions++;
		} else {
			fputc(',', f);
		}
		if (sqlite3_column_type(st, 13) == SQLITE_NULL) {
			/* a decision without evaluations (skipped) */
			fputs("\"none\":{\"cpu\":null}", f);
			continue;
		}
		{
			char side[256];

			if (sqlite3_column_type(st, 14) == SQLITE_NULL)
				snprintf(side, sizeof(side), "%s", sqlite3_column_text(st, 13));
			else
				snprintf(side, sizeof(side), "%s %s over %s",
					 sqlite3_column_text(st, 14), sqlite3_column_text(st, 15),
					 sqlite3_column_text(st, 13));
			json_str(f, side);
		}
		fputs(":{\"cpu\":", f);
		if (sqlite3_column_type(st, 16) == SQLITE_NULL)
			fputs("null", f);
		else
			fprintf(f, "%d", sqlite3_column_int(st, 16));
		json_text_col(f, "path", st, 17);
		json_text_col(f, "reason", st, 18);
		fputc('}', f);
	}
	if (have)
		fputs("}}}", f);
	return step_done(x, st, rc, "decision");
}

static const char export_examples[] =
	"   schedreplay export -o run.json run.db      then open run.json in ui.perfetto.dev\n"
	"   schedreplay export -r 2 --from 24040000000 --to 24060000000 run.db > window.json\n"
	"   schedreplay export --from 1.5 --to 1.52 -o window.json run.db\n";

static const char export_options[] =
	"   -o, --output FILE  write the trace to FILE, replacing it (default: standard\n"
	"                      output)\n"
	"   -r, --run N        export run N (default: the last run of DB)\n"
	"       --from TIME    only what overlaps TIME and after: ns of the trace clock, or\n"
	"                      seconds like 1.5 from the run's first event (as tui prints)\n"
	"       --to TIME      only what overlaps TIME and before\n"
	"   -h, --help         show this help\n";

static int parse_num(const char *opt, const char *s, long long min, long long *v)
{
	char *end;

	errno = 0;
	*v = strtoll(s, &end, 10);
	if (errno || end == s || *end || *v < min) {
		sr_error("export: %s wants a whole number >= %lld, not '%s'", opt, min, s);
		cmd_usage(&cmd_export, stderr);
		return -1;
	}
	return 0;
}

/*
 * --from and --to: ns of the trace's clock, as the database holds them, or
 * (with a decimal point) seconds from the run's first event, as the TUI and
 * sql print them.
 */
static int parse_time(const char *opt, const char *s, long long *v, int *rel)
{
	char *end;

	*rel = strchr(s, '.') != NULL;
	if (!*rel) {
		errno = 0;
		*v = strtoll(s, &end, 10);
		if (!errno && end != s && !*end && *v >= 0)
			return 0;
	}
	if (!*rel || cmd_parse_secs(s, strlen(s), v)) {
		sr_error("export: %s wants ns (a whole number) or seconds like 1.5 from the "
			 "run's first event, not '%s'", opt, s);
		cmd_usage(&cmd_export, stderr);
		return -1;
	}
	return 0;
}

/*
 * Seconds from the start become the trace's ns; a window outside the run's
 * trace is a valid, empty export: say so.  Return: -1 when the window,
 * resolved, ends before it starts.
 */
static int resolve_window(struct export *x)
{
	sqlite3_stmt *st = NULL;
	long long first, last;
	int ret = 0;

	if ((x->from < 0 && x->to < 0) ||
	    sqlite3_prepare_v2(x->db, "SELECT first_ts, last_ts FROM run WHERE run_id = ?", -1,
			       &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_int64(st, 1, x->run);
	if (sqlite3_step(st) != SQLITE_ROW || sqlite3_column_type(st, 0) == SQLITE_NULL ||
	    sqlite3_column_type(st, 1) == SQLITE_NULL)
		goto out;
	first = sqlite3_column_int64(st, 0);
	last = sqlite3_column_int64(st, 1);
	if (x->from_rel)
		x->from += first;
	if (x->to_rel)
		x->to += first;
	if (x->from >= 0 && x->to >= 0 && x->from > x->to) {
		sr_error("export: --from %s is after --to %s (%lld > %lld ns of the trace "
			 "clock): an empty window", x->from_arg, x->to_arg, x->from, x->to);
		ret = -1;
	} else if (x->from >= 0 && x->from > last) {
		sr_warn("export: --from %lld is after the end of run %ld of '%s' (it spans "
			"%lld..%lld ns): nothing to export", x->from, x->run, x->file, first, last);
	} else if (x->to >= 0 && x->to < first) {
		sr_warn("export: --to %lld is before the start of run %ld of '%s' (it spans "
			"%lld..%lld ns): nothing to export", x->to, x->run, x->file, first, last);
	}
out:
	sqlite3_finalize(st);
	return ret;
}

static int export_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output",	required_argument,	NULL, 'o' },
		{ "run",	required_argument,	NULL, 'r' },
		{ "from",	required_argument,	NULL, 'F' },
		{ "to",		required_argument,	NULL, 'T' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct export x = { .from = -1, .to = -1 };
	const char *out = NULL;
	char *cause = NULL, *tmp = NULL;
	long long v;
	int opt, ret = EXIT_FAIL, err;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "o:r:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			out = optarg;
			break;
		case 'r':
			if (parse_num("--run", optarg, 1, &v))
				return EXIT_USAGE;
			x.run = (long)v;
			break;
		case 'F':
			x.from_arg = optarg;
			if (parse_time("--from", optarg, &x.from, &x.from_rel))
				return EXIT_USAGE;
			break;
		case 'T':
			x.to_arg = optarg;
			if (parse_time("--to", optarg, &x.to, &x.to_rel))
				return EXIT_USAGE;
			break;
		case 'h':
			cmd_usage(&cmd_export, stdout);
			return EXIT_OK;
		default:
			return cmd_bad_option(&cmd_export, argv[optind - 1]);
		}
	}
	if (argc - optind != 1) {
		sr_error("export: expected one DB, got %d arguments", argc - optind);
		cmd_usage(&cmd_export, stderr);
		return EXIT_USAGE;
	}
	if (x.from >= 0 && x.to >= 0 && x.from_rel == x.to_rel && x.from > x.to) {
		sr_error("export: --from %s is after --to %s: an empty window", x.from_arg,
			 x.to_arg);
		return EXIT_USAGE;
	}
	x.file = argv[optind];
	x.db = sr_db_open(x.file, 0, &cause);
	if (!x.db) {
		sr_error("%s", cause ? cause : sr_strerror(-SR_E_IO));
		free(cause);
		return EXIT_FAIL;
	}
	if (sqlite3_table_column_metadata(x.db, NULL, "sched_slice", "woken", NULL, NULL, NULL,
					  NULL, NULL) != SQLITE_OK) {
		sr_error("'%s' has no slice tables (written by an older schedreplay): replay the "
			 "trace again to export it", x.file);
		goto out;
	}
	if (!x.run) {
		sqlite3_stmt *st = NULL;

		if (sqlite3_prepare_v2(x.db, "SELECT max(run_id) FROM run", -1, &st, NULL) ==
		    SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
			x.run = (long)sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
		if (!x.run) {
			sr_error("'%s' holds no run", x.file);
			goto out;
		}
	}
	if (resolve_window(&x)) {
		ret = EXIT_USAGE;
		goto out;
	}
	/* a file appears whole or not at all */
	if (out) {
		if (asprintf(&tmp, "%s.tmp-%d", out, (int)getpid()) < 0) {
			tmp = NULL;
			sr_error("%s", sr_strerror(-SR_E_NOMEM));
			goto out;
		}
		x.out = fopen(tmp, "w");
		if (!x.out) {
			sr_error("cannot create '%s' (written as '%s' first): %s", out, tmp,
				 strerror(errno));
			goto out;
		}
	} else {
		x.out = stdout;
	}
	err = write_meta(&x);
	if (!err)
		err = write_runs(&x);
	if (!err)
		err = write_waits(&x);
	if (!err)
		err = write_decisions(&x);
	if (err)
		goto out;
	fputs("\n]}\n", x.out);
	if (out) {
		FILE *f = x.out;

		x.out = NULL;
		if (ferror(f) | fclose(f)) {
			sr_error("cannot write '%s': %s", tmp, strerror(errno));
			goto out;
		}
		if (rename(tmp, out) < 0) {
			sr_error("cannot create '%s': %s", out, strerror(errno));
			goto out;
		}
		fprintf(stderr, "schedreplay: export: run %ld of '%s' to '%s': %llu running slices, "
			"%llu runnable slices, %llu decisions\n", x.run, x.file, out,
			(unsigned long long)x.runs, (unsigned long long)x.waits,
			(unsigned long long)x.decisions);
	}
	ret = EXIT_OK;
out:
	if (x.out && x.out != stdout)
		fclose(x.out);
	if (tmp && ret != EXIT_OK)
		unlink(tmp);
	free(tmp);
	sqlite3_close(x.db);
	return ret;
}

const struct cmd_entry cmd_export = {
	.name = "export",
	.synopsis = "[-o FILE] [-r N] [--from TIME] [--to TIME] DB",
	.summary = "write a replayed run's timeline as a trace for Perfetto's UI (JSON trace "
		   "events)",
	.options = export_options,
	.examples = export_examples,
	.exec = export_exec,
};
