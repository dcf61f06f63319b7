/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One reader interface for every trace format.  sr_trace_open() looks at the
 * path (trace.dat file, CTF directory, ftrace text) and picks the reader;
 * sr_trace_next() then hands out normalized events in global timestamp
 * order, one at a time, with memory bounded by CPUs and event types, never
 * by the length of the trace.
 */
#ifndef SCHEDREPLAY_TRACE_H
#define SCHEDREPLAY_TRACE_H

#include <stdint.h>
#include "schedreplay/event.h"

struct sr_trace;

struct sr_trace_opts {
	const char *buffer;	/* trace.dat: buffer instance name; NULL = automatic */
	const char *format;	/* force a reader: "tracedat", "ctf", "text"; NULL = probe */
};

/* Per-CPU counters the readers keep while streaming. */
struct sr_cpu_stats {
	uint64_t events;	/* events delivered from this cpu */
	uint64_t lost;		/* events known lost (overrun, discarded) */
	uint64_t lost_markers;	/* lost markers seen, including those without a count */
	uint64_t lost_packets;	/* CTF: discarded packets */
	uint64_t overrun;	/* trace.dat: lost per the ring buffer's own statistics
				 * saved with the file (overrun + dropped events) */
};

/* events lost on a cpu: markers in the stream and end-of-run statistics
 * count the same losses, so the larger of the two is the figure */
static inline uint64_t sr_cpu_lost(const struct sr_cpu_stats *cs)
{
	return cs->lost > cs->overrun ? cs->lost : cs->overrun;
}

struct sr_trace_info {
	const char *path;
	const char *reader;		/* "tracedat", "ctf", "text" */
	char format[96];		/* e.g. "trace.dat v7 (zstd)", "CTF 1.8 (lttng-modules 2.10)" */
	char hostname[128];		/* empty when the trace does not say */
	char kernel[160];		/* kernel release, empty when unknown */
	char buffer[128];		/* trace.dat: instance read ("" = top) */
	char clock[64];			/* trace clock when known */
	int ncpus_declared;		/* cpus the trace declares, -1 unknown */
	int ncpus;			/* cpu slots in @cpu: max(declared, highest cpu seen + 1) */
	struct sr_cpu_stats *cpu;	/* ncpus entries */
	enum sr_pstate_enc pstate_enc;	/* how numeric prev_state is read */
	int has_waking;			/* the trace declares sched_waking */
	int has_probes;			/* the trace declares schedreplay/select_rq(_ret) */
	int has_balance_probes;		/* the trace declares schedreplay/balance_rq */
	int has_setaffinity;		/* the trace declares schedreplay/setaffinity */
	/* bit per sr_event_kind its events can have, read off the formats it
	 * declares before any event (trace.dat); 0: not known, any kind */
	unsigned kinds;
};

/**
 * sr_trace_open - open a trace of any supported format
 * @path: trace.dat file, CTF trace directory, or ftrace text file ("-" is not accepted)
 * @opts: options, may be NULL
 * @out: receives the handle
 * @cause: receives a caller-freed message naming the file and the place, may be NULL
 *
 * Return: 0 on success, a negated SR_E_* code on failure.
 */
int sr_trace_open(const char *path, const struct sr_trace_opts *opts,
		  struct sr_trace **out, char **cause);

/**
 * sr_trace_next - the next event in global timestamp order
 * @t: the trace
 * @ev: filled on success; string pointers stay valid until sr_trace_free()
 * @cause: receives a caller-freed message on failure, may be NULL
 *
 * Return: 1 for an event, 0 at the end, a negated SR_E_* code on error.
 * After an error the trace must only be freed.
 */
int sr_trace_next(struct sr_trace *t, struct sr_event *ev, char **cause);

/**
 * sr_trace_rewind - back to the first event, as if just opened
 * @t: the trace; @cause: the reason of a failure
 *
 * Cheaper than closing and opening again: the headers and formats are not
 * read a second time.  The per-cpu event counters start again from 0.
 *
 * Return: 0; -SR_E_UNSUPPORTED when the reader cannot (open the trace
 * again); another -SR_E_* with @cause after which @t only takes
 * sr_trace_free().
 */
int sr_trace_rewind(struct sr_trace *t, char **cause);

/**
 * sr_trace_borrow_info - what the trace says about itself
 * Return: owned by @t; the per-cpu counters grow while events are read.
 */
const struct sr_trace_info *sr_trace_borrow_info(const struct sr_trace *t);

/**
 * sr_trace_free - close the trace and release everything; NULL is ignored
 */
void sr_trace_free(struct sr_trace *t);

#endif
