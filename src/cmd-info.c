// SPDX-License-Identifier: GPL-2.0
/*
 * "schedreplay info TRACE": the event stream with a counter on the end.
 * Prints what a trace is (format, host, kernel, CPUs, time span), how many
 * events of each kind it holds, how many tasks, and the events lost per CPU.
 */
#include "cmd.h"

#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "schedreplay/error.h"
#include "schedreplay/kgen.h"
#include "schedreplay/store.h"
#include "schedreplay/trace.h"
#include "escape.h"
#include "banned.h"

/* counts of pass-through events, keyed by interned name pointer */
struct name_count {
	const char *name;
	uint64_t n;
};

struct pidset {
	int *slot;		/* open addressing; value+1 stored, 0 = empty */
	size_t cap, n;
	int last[2];		/* the last two pids added */
};

/* what the trace gives replay beyond the tracepoints (schedreplay-record(1)) */
struct carried {
	uint64_t flags, flips, pelt, prevload;	/* select_rq events with each field */
	uint64_t wake_pid;			/* wakeup select_rq events with the pid field */
	uint64_t meta, topo_cpus, tasks, domains;	/* metadata lines */
	int hz;					/* from the metadata's kernel line; 0 none */
	char kernel[64];			/* the kernel line's release; "" none */
	char build[128];			/* the kernel-build line's text; "" none */
};

struct info_state {
	uint64_t kind[SR_EV__COUNT];
	struct carried c;
	uint64_t total;
	uint64_t first_ts, last_ts;
	struct name_count *other;
	size_t nother, cap_other;
	struct pidset pids;
	uint64_t lost_unknown;
};

static int pidset_add(struct pidset *s, int pid)
{
	size_t i;

	/* consecutive events mostly name the same tasks */
	if (pid < 0 || pid == s->last[0] || pid == s->last[1])
		return 0;
	s->last[1] = s->last[0];
	s->last[0] = pid;
	if ((s->n + 1) * 2 > s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 1024, j;
		int *ns = calloc(ncap, sizeof(*ns));

		if (!ns)
			return -1;
		for (j = 0; j < s->cap; j++) {
			if (!s->slot[j])
				continue;
			i = ((unsigned)s->slot[j] * 2654435761u) & (ncap - 1);
			while (ns[i])
				i = (i + 1) & (ncap - 1);
			ns[i] = s->slot[j];
		}
		free(s->slot);
		s->slot = ns;
		s->cap = ncap;
	}
	i = ((unsigned)(pid + 1) * 2654435761u) & (s->cap - 1);
	while (s->slot[i]) {
		if (s->slot[i] == pid + 1)
			return 0;
		i = (i + 1) & (s->cap - 1);
	}
	s->slot[i] = pid + 1;
	s->n++;
	return 0;
}

static int count_other(struct info_state *st, const char *name)
{
	size_t i;

	/* few distinct names; the last one hit is the likeliest again */
	for (i = st->nother; i-- > 0;)
		if (st->other[i].name == name) {
			st->other[i].n++;
			return 0;
		}
	if (st->nother == st->cap_other) {
		size_t ncap = st->cap_other ? st->cap_other * 2 : 16;
		struct name_count *no = realloc(st->other, ncap * sizeof(*no));

		if (!no)
			return -1;
		st->other = no;
		st->cap_other = ncap;
	}
	st->other[st->nother].name = name;
	st->other[st->nother].n = 1;
	st->nother++;
	return 0;
}

static int cmp_other(const void *a, const void *b)
{
	const struct name_count *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* "LABEL text": text from the trace, escaped for the terminal */
static void print_field(const char *label, const char *text)
{
	fputs(label, stdout);
	sr_escape_fputs(text, stdout);
	fputc('\n', stdout);
}

static void print_ts(FILE *f, uint64_t ts)
{
	fprintf(f, "%llu.%09llu", (unsigned long long)(ts / 1000000000ULL),
		(unsigned long long)(ts % 1000000000ULL));
}

/* the names of the kinds info reports, in order, as tracepoint names */
static const struct {
	enum sr_event_kind kind;
	const char *tp;
} kinds[] = {
	{ SR_EV_SWITCH,		"sched_switch" },
	{ SR_EV_WAKING,		"sched_waking" },
	{ SR_EV_WAKEUP,		"sched_wakeup" },
	{ SR_EV_WAKEUP_NEW,	"sched_wakeup_new" },
	{ SR_EV_MIGRATE,	"sched_migrate_task" },
	{ SR_EV_FORK,		"sched_process_fork" },
	{ SR_EV_EXIT,		"sched_process_exit" },
	{ SR_EV_FREE,		"sched_process_free" },
};

#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

static int cpus_with_events(const struct sr_trace_info *info)
{
	int i, n = 0;

	for (i = 0; i < info->ncpus; i++)
		n += info->cpu[i].events > 0;
	return n;
}

/*
 * The flat machine replay and simulate fall back to (cmd_trace_cpus()): the
 * highest CPU with an event, plus one, not how many CPUs have events (a
 * trace with events on CPUs 0, 1 and 3 replays on 4); one without events.
 */
static int flat_cpus(const struct sr_trace_info *info)
{
	int i, n = 1;

	if (info->ncpus_declared > 0)
		return info->ncpus_declared;
	for (i = 0; i < info->ncpus; i++)
		if (info->cpu[i].events > 0)
			n = i + 1;
	return n;
}

/* count what an event carries for replay: probe fields, metadata lines */
static void note_carried(struct carried *c, const struct sr_event *ev)
{
	const char *s = ev->text;

	if (ev->kind == SR_EV_SELECT_RQ) {
		c->flags += ev->wake_flags >= 0;
		c->flips += ev->flips >= 0;
		c->pelt += ev->tload >= 0;
		c->prevload += ev->prevload >= 0;
		c->wake_pid += ev->pid > 0 && ev->wake_flags >= 0 && (ev->wake_flags & 0x08);
	}
	if (!s || strncmp(s, "schedreplay: ", 13))
		return;
	s += 13;
	c->meta++;
	if (!strncmp(s, "topology cpu ", 13))
		c->topo_cpus++;
	else if (!strncmp(s, "task ", 5))
		c->tasks++;
	else if (!strncmp(s, "domain ", 7))
		c->domains++;
	else if (!strncmp(s, "kernel ", 7)) {
		if (strstr(s, " hz "))
			c->hz = atoi(strstr(s, " hz ") + 4);
		snprintf(c->kernel, sizeof(c->kernel), "%.*s", (int)strcspn(s + 7, " "), s + 7);
	} else if (!strncmp(s, "kernel-build ", 13))
		sr_strlcpy(c->build, s + 13, sizeof(c->build));
}

/*
 * What the trace gives replay and what it lacks, with the consequence: one
 * line per input, "missing" where replay infers or cannot decide.
 */
static void print_replay_text(const struct sr_trace_info *info, const struct info_state *st)
{
	const struct carried *c = &st->c;
	uint64_t srq = st->kind[SR_EV_SELECT_RQ];

	printf("for replay:\n");
	if (st->kind[SR_EV_WAKING])
		printf("  wakeups    %llu sched_waking: where wakeup decisions start\n",
		       (unsigned long long)st->kind[SR_EV_WAKING]);
	else if (c->wake_pid)
		printf("  wakeups    missing: no sched_waking: replay opens each wakeup decision "
		       "at its select_rq probe (%llu with the wakee's pid and WF_TTWU)\n",
		       (unsigned long long)c->wake_pid);
	else if (st->kind[SR_EV_WAKEUP])
		printf("  wakeups    missing: %llu sched_wakeup but no sched_waking: replay infers "
		       "each wakeup decision from the task's sched_migrate_task or sched_wakeup "
		       "(the waker's CPU is a guess; record sched_waking too, kernel 4.3 or "
		       "later)\n",
		       (unsigned long long)st->kind[SR_EV_WAKEUP]);
	else
		printf("  wakeups    missing: no sched_waking, no sched_wakeup: no wakeup decisions\n");
	if (st->kind[SR_EV_WAKEUP_NEW])
		printf("  forks      %llu sched_wakeup_new: where fork decisions start\n",
		       (unsigned long long)st->kind[SR_EV_WAKEUP_NEW]);
	else
		printf("  forks      missing: no sched_wakeup_new: no fork decisions\n");
	if (!st->kind[SR_EV_SWITCH])
		printf("  switches   missing: no sched_switch: no runqueue state, no balance "
		       "decisions\n");
	if (!st->kind[SR_EV_MIGRATE])
		printf("  migrations missing: no sched_migrate_task: balance pulls are not seen\n");
	if (srq)
		printf("  probes     %llu select_rq, %llu select_rq_ret; fields: wake flags %s, "
		       "wakee flips %s, wakee PELT %s, prev_cpu load %s\n",
		       (unsigned long long)srq, (unsigned long long)st->kind[SR_EV_SELECT_RQ_RET],
		       c->flags ? "yes" : "no", c->flips ? "yes" : "no (inferred)",
		       c->pelt ? "yes" : "no (warmed up from the trace)",
		       c->prevload ? "yes" : "no (from the replayed state)");
	else
		printf("  probes     missing: no select_rq: WF_SYNC is inferred (user task wakes user "
		       "task) and the "
		       "kernel's choice is read from sched_wakeup\n");
	if (c->meta && c->hz > 0)
		printf("  metadata   %llu schedreplay lines, CONFIG_HZ %d\n",
		       (unsigned long long)c->meta, c->hz);
	else if (c->meta)
		printf("  metadata   %llu schedreplay lines, no readable CONFIG_HZ: 250 is "
		       "assumed (--hz)\n", (unsigned long long)c->meta);
	else
		printf("  metadata   missing: not recorded by schedreplay record: CONFIG_HZ 250 is "
		       "assumed (--hz)\n");
	{
		struct sr_kgen g;
		char gen[SR_KGEN_TEXT_MAX];

		sr_kgen_recording(info->kernel, c->kernel, c->build, &g);
		sr_kgen_describe(&g, gen, sizeof(gen));
		printf("  generation %s\n", gen);
	}
	if (c->topo_cpus)
		printf("  topology   %llu CPUs in the metadata%s: replay uses it\n",
		       (unsigned long long)c->topo_cpus, c->domains ? ", with sched domains" : "");
	else
		printf("  topology   missing: replay runs on a flat %d-CPU machine (one LLC, one "
		       "node) unless -t gives one\n", flat_cpus(info));
	if (st->kind[SR_EV_SETAFFINITY] || c->tasks)
		printf("  affinity   %llu setaffinity calls, a snapshot of %llu tasks\n",
		       (unsigned long long)st->kind[SR_EV_SETAFFINITY], (unsigned long long)c->tasks);
	else
		printf("  affinity   missing: no setaffinity probe, no task snapshot: per-CPU "
		       "names (ksoftirqd/N, kworker/N:M) bind a task to CPU N, every other task "
		       "may run anywhere\n");
}

static void print_replay_json(const struct sr_trace_info *info, const struct info_state *st)
{
	const struct carried *c = &st->c;
	/*
	 * where replay opens its wakeup decisions, as the text's "wakeups"
	 * line says: at sched_waking, else at a select_rq probe with the
	 * wakee's pid, else inferred from sched_wakeup; none without any
	 */
	const char *from = st->kind[SR_EV_WAKING] ? "\"sched_waking\"" :
			   c->wake_pid ? "\"select_rq\"" :
			   st->kind[SR_EV_WAKEUP] ? "\"sched_wakeup\"" : "null";

	printf(",\n  \"replay\": {\"wakeup_decisions\": %s, \"wakeup_decisions_from\": %s, "
	       "\"fork_decisions\": %s, "
	       "\"select_rq\": %llu, \"select_rq_ret\": %llu, "
	       "\"probe_fields\": {\"wake_flags\": %llu, \"wakee_flips\": %llu, "
	       "\"wakee_pelt\": %llu, \"prev_load\": %llu}, \"metadata_lines\": %llu, "
	       "\"hz\": ", strcmp(from, "null") ? "true" : "false", from,
	       st->kind[SR_EV_WAKEUP_NEW] ? "true" : "false",
	       (unsigned long long)st->kind[SR_EV_SELECT_RQ],
	       (unsigned long long)st->kind[SR_EV_SELECT_RQ_RET],
	       (unsigned long long)c->flags, (unsigned long long)c->flips,
	       (unsigned long long)c->pelt, (unsigned long long)c->prevload,
	       (unsigned long long)c->meta);
	if (c->hz > 0)
		printf("%d", c->hz);
	else
		printf("null");
	printf(", \"topology_cpus\": %llu, \"setaffinity\": %llu, \"snapshot_tasks\": %llu",
	       (unsigned long long)c->topo_cpus, (unsigned long long)st->kind[SR_EV_SETAFFINITY],
	       (unsigned long long)c->tasks);
	{
		struct sr_kgen g;
		char gen[SR_KGEN_TEXT_MAX];

		sr_kgen_recording(info->kernel, c->kernel, c->build, &g);
		sr_kgen_describe(&g, gen, sizeof(gen));
		printf(", \"generation\": ");
		sr_json_string(gen, stdout);
	}
	printf("}");
}

static void print_text(const struct sr_trace_info *info, struct info_state *st)
{
	uint64_t lost = 0, markers = 0, packets = 0, overrun = 0;
	char name[256];
	size_t i;
	int c, namew = 22;

	print_field("file:       ", info->path);
	print_field("format:     ", info->format);
	if (info->buffer[0])
		print_field("buffer:     ", info->buffer);
	print_field("host:       ", info->hostname[0] ? info->hostname : "(not recorded)");
	print_field("kernel:     ", info->kernel[0] ? info->kernel : "(not recorded)");
	if (info->clock[0])
		print_field("clock:      ", info->clock);
	if (info->ncpus_declared > 0)
		printf("cpus:       %d declared, %d with events\n", info->ncpus_declared,
		       cpus_with_events(info));
	else
		printf("cpus:       not declared, %d with events\n", cpus_with_events(info));
	if (st->total) {
		printf("time span:  ");
		print_ts(stdout, st->first_ts);
		printf(" .. ");
		print_ts(stdout, st->last_ts);
		printf(" (");
		print_ts(stdout, st->last_ts - st->first_ts);
		printf(" s)\n");
	} else {
		printf("time span:  (no events)\n");
	}
	printf("events:     %llu\n", (unsigned long long)st->total);
	/*
	 * one column of counts: the names as wide as the longest (LTTng's
	 * lttng_statedump_process_state is 29), up to 48
	 */
	for (i = 0; i < st->nother; i++) {
		int w = (int)strlen(sr_escape_buf(name, sizeof(name), st->other[i].name));

		if (w > namew)
			namew = w < 48 ? w : 48;
	}
	for (i = 0; i < NKINDS; i++)
		printf("  %-*s %10llu\n", namew, kinds[i].tp,
		       (unsigned long long)st->kind[kinds[i].kind]);
	if (st->nother)
		qsort(st->other, st->nother, sizeof(*st->other), cmp_other);
	for (i = 0; i < st->nother; i++)
		printf("  %-*s %10llu\n", namew, sr_escape_buf(name, sizeof(name), st->other[i].name),
		       (unsigned long long)st->other[i].n);
	printf("tasks:      %zu\n", st->pids.n);

	for (c = 0; c < info->ncpus; c++) {
		lost += sr_cpu_lost(&info->cpu[c]);
		overrun += info->cpu[c].overrun;
		markers += info->cpu[c].lost_markers;
		packets += info->cpu[c].lost_packets;
	}
	if (!lost && !markers && !packets) {
		printf("lost:       none\n");
	} else {
		printf("lost:       %llu events", (unsigned long long)lost);
		if (markers)
			printf(", %llu gaps in the stream%s", (unsigned long long)markers,
			       st->lost_unknown ? " (some without a count)" : "");
		if (packets)
			printf(", %llu packets discarded", (unsigned long long)packets);
		if (overrun)
			printf(" (ring-buffer overrun/drop counters saved with the file)");
		printf("\n  %4s %12s %10s %8s\n", "cpu", "events", "lost", "gaps");
		for (c = 0; c < info->ncpus; c++)
			printf("  %4d %12llu %10llu %8llu\n", c,
			       (unsigned long long)info->cpu[c].events,
			       (unsigned long long)sr_cpu_lost(&info->cpu[c]),
			       (unsigned long long)info->cpu[c].lost_markers);
	}
	print_replay_text(info, st);
}

static void print_json(const struct sr_trace_info *info, struct info_state *st)
{
	size_t i;
	int c;

	printf("{\n  \"file\": ");
	sr_json_string(info->path, stdout);
	printf(",\n  \"reader\": ");
	sr_json_string(info->reader, stdout);
	printf(",\n  \"format\": ");
	sr_json_string(info->format, stdout);
	printf(",\n  \"buffer\": ");
	sr_json_string(info->buffer, stdout);
	printf(",\n  \"host\": ");
	if (info->hostname[0])
		sr_json_string(info->hostname, stdout);
	else
		printf("null");
	printf(",\n  \"kernel\": ");
	if (info->kernel[0])
		sr_json_string(info->kernel, stdout);
	else
		printf("null");
	printf(",\n  \"clock\": ");
	if (info->clock[0])
		sr_json_string(info->clock, stdout);
	else
		printf("null");
	if (info->ncpus_declared > 0)
		printf(",\n  \"cpus_declared\": %d", info->ncpus_declared);
	else
		printf(",\n  \"cpus_declared\": null");
	printf(",\n  \"cpus_with_events\": %d", cpus_with_events(info));
	if (st->total)
		printf(",\n  \"first_ts_ns\": %llu,\n  \"last_ts_ns\": %llu",
		       (unsigned long long)st->first_ts, (unsigned long long)st->last_ts);
	else
		printf(",\n  \"first_ts_ns\": null,\n  \"last_ts_ns\": null");
	printf(",\n  \"events\": %llu,\n  \"counts\": {", (unsigned long long)st->total);
	for (i = 0; i < NKINDS; i++)
		printf("%s\n    \"%s\": %llu", i ? "," : "", kinds[i].tp,
		       (unsigned long long)st->kind[kinds[i].kind]);
	if (st->nother)
		qsort(st->other, st->nother, sizeof(*st->other), cmp_other);
	for (i = 0; i < st->nother; i++) {
		printf(",\n    ");
		sr_json_string(st->other[i].name, stdout);
		printf(": %llu", (unsigned long long)st->other[i].n);
	}
	printf("\n  },\n  \"has_sched_waking\": %s", info->has_waking ? "true" : "false");
	printf(",\n  \"tasks\": %zu", st->pids.n);
	print_replay_json(info, st);
	printf(",\n  \"per_cpu\": [");
	for (c = 0; c < info->ncpus; c++)
		printf("%s\n    {\"cpu\": %d, \"events\": %llu, \"lost\": %llu, \"lost_in_stream\": %llu, "
		       "\"overrun\": %llu, \"lost_markers\": %llu, \"discarded_packets\": %llu}",
		       c ? "," : "", c,
		       (unsigned long long)info->cpu[c].events,
		       (unsigned long long)sr_cpu_lost(&info->cpu[c]),
		       (unsigned long long)info->cpu[c].lost,
		       (unsigned long long)info->cpu[c].overrun,
		       (unsigned long long)info->cpu[c].lost_markers,
		       (unsigned long long)info->cpu[c].lost_packets);
	printf("\n  ]\n}\n");
}

/* a text field of a TSV row: escaped, so that no tab or line end splits it */
static void tsv_text(const char *s)
{
	putchar('\t');
	sr_escape_fputs(s, stdout);
}

/* one normalized event as a TSV row: ts_ns cpu event fields... */
static void print_event_row(const struct sr_event *ev)
{
	printf("%llu\t%d\t", (unsigned long long)ev->ts, ev->cpu);
	switch (ev->kind) {
	case SR_EV_SWITCH:
		fputs("sched_switch", stdout);
		tsv_text(ev->comm);
		printf("\t%d\t%d\t%lld", ev->pid, ev->prio, ev->prev_state_raw);
		tsv_text(ev->comm2);
		printf("\t%d\t%d\n", ev->pid2, ev->prio2);
		break;
	case SR_EV_WAKING:
	case SR_EV_WAKEUP:
	case SR_EV_WAKEUP_NEW:
		fputs(ev->kind == SR_EV_WAKING ? "sched_waking" :
		      ev->kind == SR_EV_WAKEUP ? "sched_wakeup" : "sched_wakeup_new", stdout);
		tsv_text(ev->comm);
		printf("\t%d\t%d\t%d\n", ev->pid, ev->prio, ev->target_cpu);
		break;
	case SR_EV_MIGRATE:
		fputs("sched_migrate_task", stdout);
		tsv_text(ev->comm);
		printf("\t%d\t%d\t%d\t%d\n", ev->pid, ev->prio, ev->target_cpu, ev->dest_cpu);
		break;
	case SR_EV_FORK:
		fputs("sched_process_fork", stdout);
		tsv_text(ev->comm);
		printf("\t%d", ev->pid);
		tsv_text(ev->comm2);
		printf("\t%d\n", ev->pid2);
		break;
	case SR_EV_EXIT:
	case SR_EV_FREE:
		fputs(ev->kind == SR_EV_EXIT ? "sched_process_exit" : "sched_process_free", stdout);
		tsv_text(ev->comm);
		printf("\t%d\t%d\n", ev->pid, ev->prio);
		break;
	case SR_EV_LOST:
		printf("lost\t%lld\n", ev->lost);
		break;
	/* the recorder's probes (schedreplay-record(1)) */
	case SR_EV_SELECT_RQ:
		printf("select_rq\t%d\t%d\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld\n", ev->pid,
		       ev->target_cpu, ev->wake_flags, ev->flips, ev->tload, ev->tutil, ev->trunnable,
		       ev->prevload);
		break;
	case SR_EV_SELECT_RQ_RET:
		printf("select_rq_ret\t%d\n", ev->dest_cpu);
		break;
	case SR_EV_SETAFFINITY:
		printf("setaffinity\t%d\t0x%llx\n", ev->pid, (unsigned long long)ev->cpumask);
		break;
	default:
		sr_escape_fputs(ev->name ? ev->name : "?", stdout);
		putchar('\n');
		break;
	}
}

/* does @path start like an SQLite file (a replay database, not a trace)? */
static int is_sqlite(const char *path)
{
	char head[16];
	struct stat sb;
	FILE *f;
	int yes;

	/* a FIFO or a device would block here: the readers refuse those */
	if (stat(path, &sb) || !S_ISREG(sb.st_mode))
		return 0;
	f = fopen(path, "rb");
	if (!f)
		return 0;
	yes = fread(head, 1, sizeof(head), f) == sizeof(head) &&
	      !memcmp(head, "SQLite format 3", sizeof(head));
	fclose(f);
	return yes;
}

/*
 * "info run.db": a replay database is no trace; say what it holds (runs,
 * models, patches, decisions), as text or one JSON object built by SQLite.
 */
static int info_db(const char *path, int json)
{
	/* KGEN: run.kernel_gen, or NULL in a file written before it */
#define RUNS_SQL(KGEN) \
		"SELECT json_object('run', run_id, 'trace', trace, 'kernel', kernel," \
		" 'generation', " KGEN ", 'models', model," \
		" 'patches', nullif(patches, ''), 'topology', topology, 'decisions', decisions," \
		" 'divergent', (SELECT count(DISTINCT v.decision_id) FROM diverged v" \
		"  JOIN side s ON s.side_id = v.side_id WHERE s.run_id = r.run_id)," \
		" 'migrations', migrations)," \
		" run_id, trace, coalesce(kernel, '(not recorded)'), model," \
		" coalesce(nullif(patches, ''), 'none'), coalesce(topology, '(not recorded)')," \
		" decisions, (SELECT count(DISTINCT v.decision_id) FROM diverged v" \
		"  JOIN side s ON s.side_id = v.side_id WHERE s.run_id = r.run_id)," \
		" coalesce(" KGEN ", '(not recorded)')" \
		" FROM run r ORDER BY run_id"
	static const char runs_sql[] = RUNS_SQL("kernel_gen"), runs_old_sql[] = RUNS_SQL("NULL");
	sqlite3_stmt *st = NULL;
	char *cause = NULL;
	sqlite3 *db = sr_db_open(path, 0, &cause);
	int n = 0, rc, ver = SR_DB_SCHEMA_VERSION;

	if (!db) {
		sr_error("%s (info describes traces and schedreplay databases)",
			 cause ? cause : sr_strerror(-SR_E_IO));
		free(cause);
		return EXIT_FAIL;
	}
	/* the file's own schema (sr_db_open reads the older ones too) */
	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		ver = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_prepare_v2(db, runs_sql, -1, &st, NULL) != SQLITE_OK &&
	    sqlite3_prepare_v2(db, runs_old_sql, -1, &st, NULL) != SQLITE_OK) {
		sr_error("cannot read '%s': %s", path, sqlite3_errmsg(db));
		sqlite3_close(db);
		return EXIT_FAIL;
	}
	if (json) {
		printf("{\n  \"file\": ");
		sr_json_string(path, stdout);
		printf(",\n  \"format\": \"schedreplay database\",\n  \"schema\": %d,\n"
		       "  \"runs\": [", ver);
	} else {
		printf("file:       %s\n", path);
		printf("format:     schedreplay database (schema %d): replay results, not a trace;\n"
		       "            read it with report, sql or tui\n", ver);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (json) {
			printf("%s\n    %s", n ? "," : "", sqlite3_column_text(st, 0));
		} else {
			printf("run %lld:\n", (long long)sqlite3_column_int64(st, 1));
			printf("  trace      %s\n", sqlite3_column_text(st, 2));
			printf("  kernel     %s\n", sqlite3_column_text(st, 3));
			printf("  generation %s\n", sqlite3_column_text(st, 9));
			printf("  models     %s\n", sqlite3_column_text(st, 4));
			printf("  patches    %s\n", sqlite3_column_text(st, 5));
			printf("  topology   %s\n", sqlite3_column_text(st, 6));
			printf("  decisions  %lld, %lld divergent\n",
			       (long long)sqlite3_column_int64(st, 7),
			       (long long)sqlite3_column_int64(st, 8));
		}
		n++;
	}
	if (json)
		printf("\n  ]\n}\n");
	else if (!n)
		printf("runs:       none\n");
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		sr_error("cannot read '%s': %s", path, sqlite3_errmsg(db));
		sqlite3_close(db);
		return EXIT_FAIL;
	}
	sqlite3_close(db);
	return EXIT_OK;
}

static const char info_examples[] =
	"   schedreplay info trace.dat               what the trace holds, and what replay gets\n"
	"   schedreplay info --json ~/lttng-traces/s/kernel\n"
	"   schedreplay info --events trace.txt | awk -F'\\t' '$3 == \"sched_migrate_task\"'\n"
	"   schedreplay info run.db                  the runs of a replay database\n";

static const char info_options[] =
	"   --json             print one JSON object instead of text\n"
	"   --events           print every event, normalized, as tab-separated rows\n"
	"                      (ts_ns cpu event fields...) instead of the summary\n"
	"   -B, --buffer NAME  read the trace.dat buffer instance NAME (default: the top\n"
	"                      buffer, or the only instance that holds events)\n"
	"   -F, --format FMT   do not probe: read TRACE as tracedat, ctf or text\n"
	"   -h, --help         show this help\n";

static int info_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json",	no_argument,		NULL, 'j' },
		{ "events",	no_argument,		NULL, 'e' },
		{ "buffer",	required_argument,	NULL, 'B' },
		{ "format",	required_argument,	NULL, 'F' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sr_trace_opts opts = { 0 };
	struct info_state st = { .pids.last = { -1, -1 } };
	struct sr_trace *t = NULL;
	struct sr_event ev;
	char *cause = NULL;
	int json = 0, events = 0, opt, ret;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "B:F:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = 1;
			break;
		case 'e':
			events = 1;
			break;
		case 'B':
			opts.buffer = optarg;
			break;
		case 'F':
			opts.format = optarg;
			break;
		case 'h':
			cmd_usage(&cmd_info, stdout);
			return EXIT_OK;
		default:
			return cmd_bad_option(&cmd_info, argv[optind - 1]);
		}
	}
	if (json && events) {
		sr_error("info: --json and --events exclude each other (--events prints "
			 "tab-separated rows, --json one summary object)");
		cmd_usage(&cmd_info, stderr);
		return EXIT_USAGE;
	}
	if (cmd_one_trace(&cmd_info, argc, optind))
		return EXIT_USAGE;
	if (!events && !opts.format && is_sqlite(argv[optind]))
		return info_db(argv[optind], json);

	ret = sr_trace_open(argv[optind], &opts, &t, &cause);
	if (ret < 0) {
		sr_error("%s", cause ? cause : sr_strerror(ret));
		free(cause);
		return ret == -SR_E_USAGE ? EXIT_USAGE : EXIT_FAIL;
	}
	while ((ret = sr_trace_next(t, &ev, &cause)) > 0) {
		if (events)
			print_event_row(&ev);
		if (ev.kind == SR_EV_LOST) {
			if (ev.lost < 0)
				st.lost_unknown++;
			continue;
		}
		note_carried(&st.c, &ev);
		if (!st.total)
			st.first_ts = ev.ts;
		st.last_ts = ev.ts;
		st.total++;
		st.kind[ev.kind]++;
		if ((ev.kind == SR_EV_OTHER || sr_event_kind_is_probe(ev.kind)) &&
		    count_other(&st, ev.name) < 0) {
			ret = -SR_E_NOMEM;
			break;
		}
		if (ev.kind < SR_EV_SELECT_RQ &&
		    (pidset_add(&st.pids, ev.pid > 0 ? ev.pid : -1) < 0 ||
		     pidset_add(&st.pids, ev.pid2 > 0 ? ev.pid2 : -1) < 0)) {
			ret = -SR_E_NOMEM;
			break;
		}
	}
	if (ret < 0) {
		sr_error("%s", cause ? cause : sr_strerror(ret));
		free(cause);
		ret = EXIT_FAIL;
	} else if (events) {
		ret = EXIT_OK;
	} else {
		if (json)
			print_json(sr_trace_borrow_info(t), &st);
		else
			print_text(sr_trace_borrow_info(t), &st);
		ret = EXIT_OK;
	}
	sr_trace_free(t);
	free(st.other);
	free(st.pids.slot);
	return ret;
}

const struct cmd_entry cmd_info = {
	.name = "info",
	.synopsis = "[--json | --events] [-B NAME] [-F FMT] TRACE",
	.summary = "describe a trace: format, host, CPUs, time span, events per type, tasks, "
		   "lost events",
	.options = info_options,
	.examples = info_examples,
	.exec = info_exec,
};
