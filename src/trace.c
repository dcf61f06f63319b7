// SPDX-License-Identifier: GPL-2.0
/*
 * The reader core: picks a reader for a path, and wraps every reader with
 * the checks all formats share (time order, cpu range, per-cpu counters,
 * error messages that name the file and the place).
 */
#include "schedreplay/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "schedreplay/error.h"
#include "reader-local.h"
#include "strtab.h"
#include "banned.h"

static const struct sr_reader_ops *const readers[] = {
	&sr_reader_tracedat,
	&sr_reader_ctf,
	&sr_reader_text,
};

const char *sr_intern(const char *s)
{
	static struct sr_strtab names;
	long i = sr_strtab_add(&names, s, strlen(s), NULL);

	if (i < 0)
		abort();
	return sr_strtab_str(&names, i);
}

struct sr_cpu_stats *sr_trace_cpu_stats(struct sr_trace *t, int cpu)
{
	struct sr_trace_info *info = &t->info;

	if (cpu < 0 || cpu >= SR_MAX_CPUS)
		return NULL;
	if (cpu >= info->ncpus) {
		int n = cpu + 1;
		struct sr_cpu_stats *c = realloc(info->cpu, n * sizeof(*c));

		if (!c)
			return NULL;
		memset(c + info->ncpus, 0, (n - info->ncpus) * sizeof(*c));
		info->cpu = c;
		info->ncpus = n;
	}
	return &info->cpu[cpu];
}

const struct sr_trace_info *sr_trace_borrow_info(const struct sr_trace *t)
{
	return &t->info;
}

/* prefix a reader's cause with the file name: "cannot read 'x': <cause>" */
static int wrap_cause(struct sr_trace *t, int err, char **cause, char *inner)
{
	if (cause)
		sr_cause_set(cause, "cannot read '%s': %s", t->info.path,
			     inner ? inner : sr_strerror(err));
	free(inner);
	return err < 0 ? err : -SR_E_CORRUPT;
}

int sr_trace_open(const char *path, const struct sr_trace_opts *opts,
		  struct sr_trace **out, char **cause)
{
	const struct sr_reader_ops *best = NULL;
	unsigned char head[4096];
	struct sr_trace *t;
	struct stat st;
	char *inner = NULL;
	ssize_t len = 0;
	int best_score = 0;
	int is_dir, ret;
	size_t i;

	*out = NULL;
	if (stat(path, &st) < 0) {
		sr_cause_set(cause, "cannot open '%s': %s", path, strerror(errno));
		return -SR_E_IO;
	}
	is_dir = S_ISDIR(st.st_mode);
	if (!is_dir && !S_ISREG(st.st_mode)) {
		sr_cause_set(cause, "cannot open '%s': not a regular file or directory", path);
		return -SR_E_USAGE;
	}
	if (!is_dir) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);

		if (fd < 0) {
			sr_cause_set(cause, "cannot open '%s': %s", path, strerror(errno));
			return -SR_E_IO;
		}
		len = read(fd, head, sizeof(head));
		if (len < 0) {
			sr_cause_set(cause, "cannot read '%s': %s", path, strerror(errno));
			close(fd);
			return -SR_E_IO;
		}
		close(fd);
		if (len == 0) {
			sr_cause_set(cause, "cannot read '%s': empty file", path);
			return -SR_E_FORMAT;
		}
	}

	for (i = 0; i < sizeof(readers) / sizeof(readers[0]); i++) {
		int score;

		if (opts && opts->format) {
			if (strcmp(opts->format, readers[i]->name))
				continue;
			/* a forced reader still needs the right kind of path */
			if (is_dir != !strcmp(readers[i]->name, "ctf")) {
				if (is_dir)
					sr_cause_set(cause, "cannot read '%s': is a directory, not a "
						     "%s file", path, strcmp(readers[i]->name, "text") ?
						     "trace.dat" : "text");
				else
					sr_cause_set(cause, "cannot read '%s': not a directory (a CTF "
						     "trace is a directory)", path);
				return -SR_E_FORMAT;
			}
			best = readers[i];
			break;
		}
		score = readers[i]->probe(path, is_dir, is_dir ? NULL : head, (size_t)len);
		if (score > best_score) {
			best_score = score;
			best = readers[i];
		}
	}
	if (!best) {
		if (opts && opts->format) {
			sr_cause_set(cause, "unknown reader '%s' (expected tracedat, ctf or text)",
				     opts->format);
			return -SR_E_USAGE;
		} else if (is_dir)
			sr_cause_set(cause, "cannot read '%s': directory holds no CTF trace "
				     "(no 'metadata' file)", path);
		else
			sr_cause_set(cause, "cannot read '%s': unknown trace format "
				     "(not trace.dat, CTF or ftrace text)", path);
		return -SR_E_FORMAT;
	}

	t = calloc(1, sizeof(*t));
	if (!t) {
		sr_cause_set(cause, "%s", sr_strerror(SR_E_NOMEM));
		return -SR_E_NOMEM;
	}
	t->ops = best;
	t->info.path = path;
	t->info.reader = best->name;
	t->info.ncpus_declared = -1;
	t->info.pstate_enc = SR_PSTATE_REPORT;
	ret = best->open(t, opts, &inner);
	if (ret < 0) {
		ret = wrap_cause(t, ret, cause, inner);
		if (best->close)
			best->close(t);
		free(t->info.cpu);
		free(t);
		return ret;
	}
	free(inner);
	if (t->info.ncpus_declared > SR_MAX_CPUS) {
		sr_cause_set(cause, "cannot read '%s': the trace declares %d CPUs, more than the %d "
			     "supported", path, t->info.ncpus_declared, SR_MAX_CPUS);
		sr_trace_free(t);
		return -SR_E_UNSUPPORTED;
	}
	if (t->info.ncpus_declared > 0 && !sr_trace_cpu_stats(t, t->info.ncpus_declared - 1)) {
		sr_trace_free(t);
		sr_cause_set(cause, "%s", sr_strerror(SR_E_NOMEM));
		return -SR_E_NOMEM;
	}
	*out = t;
	return 0;
}

/*
 * A CPU-valued field: absent (SR_CPU_NONE) or below the trace's CPU count.
 * Returns the name of the first bad field of @ev (the value in *@bad), or NULL.
 */
static const char *bad_cpu_field(const struct sr_event *ev, int limit, int *bad)
{
	const char *target = "target_cpu", *dest = "dest_cpu";

	if (ev->cpu < 0 || ev->cpu >= limit) {
		*bad = ev->cpu;
		return "cpu";
	}
	switch (ev->kind) {
	case SR_EV_MIGRATE:
		target = "orig_cpu";
		break;
	case SR_EV_SELECT_RQ:
		target = "prev_cpu";
		break;
	case SR_EV_SELECT_RQ_RET:
		dest = "returned cpu";
		break;
	default:
		break;
	}
	if (ev->target_cpu != SR_CPU_NONE && (ev->target_cpu < 0 || ev->target_cpu >= limit)) {
		*bad = ev->target_cpu;
		return target;
	}
	if (ev->dest_cpu != SR_CPU_NONE && (ev->dest_cpu < 0 || ev->dest_cpu >= limit)) {
		*bad = ev->dest_cpu;
		return dest;
	}
	return NULL;
}

/*
 * Every CPU number of every event is checked here, for every reader: the
 * replay engine indexes its per-CPU state with them.  The bound is the
 * CPU count the trace declares, SR_MAX_CPUS when it declares none.
 */
static int check_cpus(struct sr_trace *t, const struct sr_event *ev, char **cause)
{
	int declared = t->info.ncpus_declared > 0;
	int limit = declared ? t->info.ncpus_declared : SR_MAX_CPUS, bad = 0;
	const char *field = bad_cpu_field(ev, limit, &bad);
	char where[96];

	if (!field)
		return 0;
	t->failed = 1;
	where[0] = '\0';
	t->ops->where(t, where, sizeof(where));
	sr_cause_set(cause, "cannot read '%s': %s (event %llu, at %llu.%09llu s): %s %s %d is out "
		     "of range (%s %d CPUs)", t->info.path, where,
		     (unsigned long long)t->nevents + 1, (unsigned long long)(ev->ts / 1000000000),
		     (unsigned long long)(ev->ts % 1000000000),
		     ev->kind == SR_EV_OTHER && ev->name ? ev->name :
		     sr_event_kind_tp(ev->kind), field, bad,
		     declared ? "the trace declares" : "a trace has at most", limit);
	return -SR_E_CORRUPT;
}

int sr_trace_next(struct sr_trace *t, struct sr_event *ev, char **cause)
{
	struct sr_cpu_stats *cs;
	char *inner = NULL;
	char where[96];
	int ret;

	if (t->failed)
		return -SR_E_USAGE;
	ret = t->ops->next(t, ev, &inner);
	if (ret <= 0) {
		if (ret < 0) {
			t->failed = 1;
			return wrap_cause(t, ret, cause, inner);
		}
		free(inner);
		return 0;
	}
	ret = check_cpus(t, ev, cause);
	if (ret)
		return ret;
	cs = ev->cpu < t->info.ncpus ? &t->info.cpu[ev->cpu] : sr_trace_cpu_stats(t, ev->cpu);
	if (!cs) {
		t->failed = 1;
		sr_cause_set(cause, "%s", sr_strerror(SR_E_NOMEM));
		return -SR_E_NOMEM;
	}
	if (t->have_last && ev->ts < t->last_ts) {
		t->failed = 1;
		where[0] = '\0';
		t->ops->where(t, where, sizeof(where));
		sr_cause_set(cause, "cannot read '%s': %s: timestamp %llu ns is before the "
			     "previous event's %llu ns", t->info.path, where,
			     (unsigned long long)ev->ts, (unsigned long long)t->last_ts);
		return -SR_E_ORDER;
	}
	t->have_last = 1;
	t->last_ts = ev->ts;
	t->nevents++;
	if (ev->kind == SR_EV_LOST) {
		cs->lost_markers++;
		if (ev->lost > 0)
			cs->lost += (uint64_t)ev->lost;
	} else {
		cs->events++;
	}
	return 1;
}

void sr_trace_free(struct sr_trace *t)
{
	if (!t)
		return;
	if (t->ops && t->ops->close)
		t->ops->close(t);
	free(t->info.cpu);
	free(t);
}
