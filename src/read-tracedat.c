// SPDX-License-Identifier: GPL-2.0
/*
 * trace.dat reader (file versions 6 and 7, compressed or not).  libtracecmd
 * parses the headers and the event formats; the ring-buffer pages are read
 * here, a block of pages (or one compressed chunk) per cpu at a time, and
 * walked with libtraceevent's kbuffer, so that memory stays the same
 * however long the trace is (libtracecmd 1.3 keeps every decompressed chunk
 * of a cpu in memory, and every page it mapped).  Files whose timestamps
 * libtracecmd corrects on reading (OFFSET, TSC2NSEC, TIME_SHIFT, GUEST
 * options) are read through libtracecmd's own record iteration.  Field
 * positions come from each event's format in the file; per-cpu streams are
 * merged by timestamp with a small heap so that the cost per event does not
 * grow with the number of CPUs.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event-parse.h>
#include <kbuffer.h>
#include <trace-cmd/trace-cmd.h>

#include "schedreplay/error.h"
#include "reader-local.h"
#include "tracecmd-private.h"
#include "tracedat-check.h"
#include "banned.h"

/*
 * Exported by libtracecmd 1.3 but declared only in its private header (see
 * tracecmd-private.h); weak, so that the check below is skipped if absent.
 */
unsigned long long tracecmd_get_cursor(struct tracecmd_input *handle, int cpu)
	__attribute__((weak));
int tracecmd_page_size(struct tracecmd_input *handle) __attribute__((weak));

static const unsigned char tracedat_magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

/*
 * libtraceevent routes every library warning through tep_vprint(), a weak
 * symbol meant to be overridden by the application (trace-cmd does the
 * same).  Keep the last message instead of printing it, so that a failure
 * becomes one line of ours that quotes the library's reason.
 */
static char tep_last_msg[256];

/*
 * The open file's byte order differs from ours: numbers need swapping.
 * One trace.dat is read at a time per process (set at open).
 */
static int file_swapped;

int tep_vprint(const char *name, enum tep_loglevel level, bool print_err,
	       const char *fmt, va_list ap) __attribute__((format(printf, 4, 0)));
int tep_vprint(const char *name, enum tep_loglevel level, bool print_err,
	       const char *fmt, va_list ap)
{
	int n;

	(void)name;
	(void)print_err;
	if (level > TEP_LOG_WARNING)
		return 0;
	n = vsnprintf(tep_last_msg, sizeof(tep_last_msg), fmt, ap);
	/* drop a trailing newline */
	while (n > 0 && (size_t)n < sizeof(tep_last_msg) && tep_last_msg[n - 1] == '\n')
		tep_last_msg[--n] = '\0';
	return n;
}

/*
 * libtracecmd parses a trace.dat's kallsyms section into the tep handle as
 * it opens the file (tep_parse_kallsyms(), which it calls through the
 * dynamic linker), for the function names of printed events.  No reader of
 * ours prints an event through libtraceevent or looks up an address, and
 * the parse (a sscanf() a line) took a third of libtracecmd's open of the
 * 1.14 M-event bench trace, before the first event is read: this definition
 * takes its place and keeps nothing.  The section is still checked
 * (tracedat-check.c) and read by libtracecmd.
 */
int tep_parse_kallsyms(struct tep_handle *tep, const char *kallsyms)
{
	(void)tep;
	(void)kallsyms;
	return 0;
}

/*
 * libtracecmd parses every event format of the file as it opens it
 * (tep_parse_event(), which it calls through the dynamic linker, like
 * tep_parse_kallsyms() above).  A file that trace-cmd extract or record
 * wrote holds the formats of every event of the kernel (2323 of 101 systems
 * on the 6.18 bench host), and their parse was most of the open of the
 * 1.11 M-event bench trace: the readers use the sched, schedreplay and
 * ftrace events, and an event of another system only if the trace holds
 * one.  While dat_open() runs libtracecmd's open, this definition parses
 * those three systems at once (sr_tracedat_parsed_at_open()) and keeps the
 * text of every other format; lookup_type() parses a kept one the first
 * time a record of its id comes, with the same text into the same tep
 * handle, so the events read are those libtracecmd would have parsed.  A
 * format is parsed here only after a child process parsed it: those of the
 * three systems in sr_tracedat_check(), a kept one in
 * sr_tracedat_format_check().  Outside dat_open() every call goes straight
 * to libtraceevent's.
 */
struct dat_kept {
	int id;
	char *sys;
	char *text;
	unsigned long len;
};

/* the formats kept by the open that runs (one at a time: dat_open() is not reentrant) */
static struct {
	int on;
	struct dat_kept *v;
	size_t n, cap;
} keeping;

typedef enum tep_errno (*parse_event_fn)(struct tep_handle *tep, const char *buf,
					  unsigned long size, const char *sys);

static enum tep_errno real_parse_event(struct tep_handle *tep, const char *buf,
				       unsigned long size, const char *sys)
{
	static parse_event_fn fn;

	if (!fn)
		fn = (parse_event_fn)dlsym(RTLD_NEXT, "tep_parse_event");
	return fn ? fn(tep, buf, size, sys) : TEP_ERRNO__MEM_ALLOC_FAILED;
}

/* the "ID: N" line of a format text, or -1 */
static int format_id(const char *buf, unsigned long size)
{
	unsigned long i = 0;
	long v = -1;

	while (i + 3 < size) {
		if (!memcmp(buf + i, "ID:", 3)) {
			for (i += 3; i < size && (buf[i] == ' ' || buf[i] == '\t'); i++)
				;
			for (v = 0; i < size && buf[i] >= '0' && buf[i] <= '9' && v <= 0xffff; i++)
				v = v * 10 + (buf[i] - '0');
			return v <= 0xffff ? (int)v : -1;
		}
		while (i < size && buf[i] != '\n')
			i++;
		i++;
	}
	return -1;
}

static int keep_format(const char *buf, unsigned long size, const char *sys)
{
	struct dat_kept *k;
	int id = format_id(buf, size);

	if (id < 0)
		return -1;
	if (keeping.n == keeping.cap) {
		size_t cap = keeping.cap ? keeping.cap * 2 : 256;
		struct dat_kept *v = realloc(keeping.v, cap * sizeof(*v));

		if (!v)
			return -1;
		keeping.v = v;
		keeping.cap = cap;
	}
	k = &keeping.v[keeping.n];
	k->id = id;
	k->len = size;
	k->sys = strdup(sys);
	k->text = malloc(size ? size : 1);
	if (!k->sys || !k->text) {
		free(k->sys);
		free(k->text);
		return -1;
	}
	memcpy(k->text, buf, size);
	keeping.n++;
	return 0;
}

enum tep_errno tep_parse_event(struct tep_handle *tep, const char *buf, unsigned long size,
			       const char *sys)
{
	if (keeping.on && sys && !sr_tracedat_parsed_at_open(sys)) {
		if (!keep_format(buf, size, sys))
			return 0;
		/* a text without an ID, or no memory: parsed now, as libtracecmd would */
	}
	return real_parse_event(tep, buf, size, sys);
}

static void kept_free(struct dat_kept *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].sys);
		free(v[i].text);
	}
	free(v);
}

/* What we know about one event type id, looked up once. */
struct dat_type {
	int known;
	enum sr_event_kind kind;
	const char *name;
	struct tep_format_field *f[9];
	/* integer fields, looked up once: offset, size (1/2/4/8), signedness */
	struct num_slot {
		int off, size, sign;
	} n[9];
	/* rqstat: the fields of CPU i, SR_RQ_* order, at rq[i * SR_RQ_NFIELDS] */
	struct num_slot *rq;
	int nrq;
};

/* field slots in struct dat_type.f */
enum {
	F_COMM, F_PID, F_PRIO, F_COMM2, F_PID2, F_PRIO2, F_STATE, F_TARGET, F_DEST,
};
/* select_rq's optional fields (SR_PROBE_*) reuse slots it has no other use for */
static const int probe_slot[SR_PROBE_NFIELDS] = {
	[SR_PROBE_FLIPS] = F_PRIO,
	[SR_PROBE_LOAD] = F_PID2,
	[SR_PROBE_UTIL] = F_PRIO2,
	[SR_PROBE_RUNNABLE] = F_DEST,
	[SR_PROBE_PREVLOAD] = F_COMM2,
};
/* the wakeup family's success field reuses F_DEST */
#define F_SUCCESS F_DEST

/* uncompressed data is read this many pages at a time */
#define PAGES_PER_READ 64

/* one cpu's data, read page by page (the direct reader) */
struct dat_stream {
	const struct sr_tracedat_cpu *lay;
	struct kbuffer *kb;
	uint64_t pos, end;		/* the next bytes of the cpu data in the file */
	uint64_t chunks;		/* compressed: chunks not read yet */
	uint64_t chunk_no;		/* compressed: the chunk in buf, from 1 */
	uint64_t data_off;		/* offset of buf[0] in the cpu's (uncompressed) data */
	unsigned char *buf;		/* pages read */
	size_t cap, len, next;		/* buf's size, bytes in it, the next page in it */
	uint64_t page_off;		/* where the current page is (record offsets) */
	int has;			/* rec holds the stream's next record */
	struct tep_record rec;
};

struct dat_priv {
	struct tracecmd_input *top;
	struct tracecmd_input *in;	/* the buffer read: top or an instance */
	struct tep_handle *tep;
	int ncpus;
	struct tep_record **rec;	/* next record of each cpu */
	int *heap;			/* cpus with a record, min-heap on ts */
	int nheap;
	struct dat_type *types;
	int ntypes;
	struct dat_kept *kept;		/* formats not parsed yet (tep_parse_event() above) */
	size_t nkept;
	char *kept_cause;		/* why a kept format was refused */
	struct tep_record *cur;		/* the record handed out last */
	int cur_cpu;
	int lost_pending;		/* a lost marker was delivered for cur */
	unsigned long long off;		/* offset of the last record */
	char text[4096];		/* the last print event's text */
	int type_off, type_size;	/* common_type and common_pid, from the formats */
	int flags_off;			/* common_flags (one byte), -1 absent */
	int pid_off, pid_size;
	/* the direct reader: the layout, its streams (heap entries index them) */
	int direct;
	struct sr_tracedat_layout lay;
	struct dat_stream *st;
	int nst;
	int fd;
	struct tracecmd_compression *z;
	int commit_size, big;
	uint64_t lay_file_size;
	char clock[64];			/* the buffer's clock (v7 instances) */
	struct sr_rqstat rqstat;	/* the last rqstat event's fields */
};

static int dat_probe(const char *path, int is_dir, const unsigned char *head, size_t len)
{
	(void)path;
	if (is_dir || len < sizeof(tracedat_magic))
		return 0;
	return memcmp(head, tracedat_magic, sizeof(tracedat_magic)) ? 0 : 100;
}

static inline unsigned long long rec_ts(struct dat_priv *d, int cpu)
{
	return d->rec[cpu]->ts;
}

/* merge order: timestamp, then lower cpu first, as trace-cmd report does */
static inline int heap_less(struct dat_priv *d, int a, int b)
{
	unsigned long long ta = rec_ts(d, a), tb = rec_ts(d, b);

	return ta < tb || (ta == tb && a < b);
}

static void heap_down(struct dat_priv *d, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i, tmp;

		if (l < d->nheap && heap_less(d, d->heap[l], d->heap[m]))
			m = l;
		if (r < d->nheap && heap_less(d, d->heap[r], d->heap[m]))
			m = r;
		if (m == i)
			return;
		tmp = d->heap[i];
		d->heap[i] = d->heap[m];
		d->heap[m] = tmp;
		i = m;
	}
}

static void heap_build(struct dat_priv *d)
{
	int i;

	for (i = d->nheap / 2 - 1; i >= 0; i--)
		heap_down(d, i);
}

/* does this buffer hold at least one record? */
static int buffer_has_data(struct tracecmd_input *in, int ncpus)
{
	int cpu;

	for (cpu = 0; cpu < ncpus; cpu++) {
		struct tep_record *r = tracecmd_read_cpu_first(in, cpu);

		if (r) {
			tracecmd_free_record(r);
			return 1;
		}
	}
	return 0;
}

static int handle_cpus(struct tracecmd_input *in)
{
	int n = tracecmd_cpus ? tracecmd_cpus(in) : 0;

	if (n <= 0)
		n = tep_get_cpus(tracecmd_get_tep(in));
	return n;
}

static int pick_buffer(struct sr_trace *t, struct dat_priv *d, const char *want, char **cause)
{
	int n = tracecmd_buffer_instances(d->top);
	int i, found = -1, with_data = 0;

	if (want && *want) {
		for (i = 0; i < n; i++)
			if (!strcmp(tracecmd_buffer_instance_name(d->top, i), want))
				found = i;
		if (found < 0) {
			char list[256] = "";
			size_t used = 0;

			for (i = 0; i < n && used < sizeof(list); i++)
				used += snprintf(list + used, sizeof(list) - used, "%s'%s'",
						 i ? ", " : "",
						 tracecmd_buffer_instance_name(d->top, i));
			sr_cause_set(cause, "no buffer instance '%s' (the file has %s%s)", want,
				     n ? "" : "only the top buffer", list);
			return -SR_E_USAGE;
		}
	} else if (!buffer_has_data(d->top, handle_cpus(d->top))) {
		/* events only in instances, as "trace-cmd extract -B name" writes them */
		for (i = 0; i < n; i++) {
			struct tracecmd_input *b = tracecmd_buffer_instance_handle(d->top, i);

			if (!b)
				continue;
			if (buffer_has_data(b, handle_cpus(b))) {
				if (found < 0 ||
				    !strcmp(tracecmd_buffer_instance_name(d->top, i), "schedreplay"))
					found = i;
				with_data++;
			}
			tracecmd_close(b);
		}
		if (with_data > 1 &&
		    strcmp(tracecmd_buffer_instance_name(d->top, found), "schedreplay")) {
			sr_cause_set(cause, "events are in %d buffer instances and none in the top "
				     "buffer: choose one with --buffer", with_data);
			return -SR_E_USAGE;
		}
	}
	if (found < 0) {
		d->in = d->top;
		return 0;
	}
	d->in = tracecmd_buffer_instance_handle(d->top, found);
	if (!d->in) {
		sr_cause_set(cause, "cannot open buffer instance '%s'%s%s",
			     tracecmd_buffer_instance_name(d->top, found),
			     tep_last_msg[0] ? ": " : "", tep_last_msg);
		return -SR_E_CORRUPT;
	}
	sr_strlcpy(t->info.buffer, tracecmd_buffer_instance_name(d->top, found),
		   sizeof(t->info.buffer));
	return 0;
}


/* ---- the direct reader: ring-buffer pages through kbuffer ------------------- */

static uint64_t file_num(const struct dat_priv *d, const unsigned char *p, int n)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)p[d->big ? n - 1 - i : i] << (8 * i);
	return v;
}

static void stream_place(const struct dat_stream *s, char *buf, size_t len)
{
	if (s->lay->buffer[0])
		snprintf(buf, len, "cpu %d data of buffer '%s'", s->lay->cpu, s->lay->buffer);
	else
		snprintf(buf, len, "cpu %d data", s->lay->cpu);
}

static int read_at(struct dat_priv *d, const struct dat_stream *s, void *buf, size_t n,
		   uint64_t off, char **cause)
{
	char place[128];
	size_t got = 0;
	ssize_t r;

	while (got < n) {
		r = pread(d->fd, (char *)buf + got, n - got, (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	if (got == n)
		return 0;
	stream_place(s, place, sizeof(place));
	sr_cause_set(cause, "%s at offset 0x%llx: %s", place, (unsigned long long)(off + got),
		     got < n && errno ? strerror(errno) : "the file ends early");
	return -SR_E_IO;
}

static int stream_room(struct dat_stream *s, size_t n)
{
	unsigned char *nb;

	if (s->cap >= n)
		return 0;
	nb = realloc(s->buf, n);
	if (!nb)
		return -SR_E_NOMEM;
	s->buf = nb;
	s->cap = n;
	return 0;
}

/* the next pages of @s into its buffer: 1, 0 at the end of its data, <0 */
static int stream_fill(struct dat_priv *d, struct dat_stream *s, char **cause)
{
	unsigned ps = s->lay->page_size;
	unsigned char h[8];
	char place[128];
	uint64_t z, u;
	int ret;

	s->data_off += s->len;
	s->len = s->next = 0;
	if (!s->lay->zipped) {
		uint64_t n = s->end - s->pos;

		if (!n)
			return 0;
		if (n > (uint64_t)ps * PAGES_PER_READ)
			n = (uint64_t)ps * PAGES_PER_READ;
		ret = stream_room(s, (size_t)n);
		if (!ret)
			ret = read_at(d, s, s->buf, (size_t)n, s->pos, cause);
		if (ret)
			return ret;
		s->pos += n;
		s->len = (size_t)n;
		return 1;
	}
	if (!s->chunks)
		return 0;
	ret = read_at(d, s, h, sizeof(h), s->pos, cause);
	if (ret)
		return ret;
	z = file_num(d, h, 4);
	u = file_num(d, h + 4, 4);
	stream_place(s, place, sizeof(place));
	/* sizes the structural check saw already; kept in bounds here too */
	if (!z || !u || u % ps || u > (256u << 20) || z > s->end - s->pos) {
		sr_cause_set(cause, "%s: chunk %llu at offset 0x%llx: sizes %llu and %llu are not "
			     "those of a chunk of pages", place, (unsigned long long)s->chunk_no + 1,
			     (unsigned long long)s->pos, (unsigned long long)z,
			     (unsigned long long)u);
		return -SR_E_CORRUPT;
	}
	ret = stream_room(s, (size_t)u);
	if (ret)
		return ret;
	{
		struct tracecmd_compress_chunk chunk = {
			.size = (unsigned)u, .zsize = (unsigned)z, .zoffset = (off_t)s->pos,
		};

		if (tracecmd_uncompress_chunk(d->z, &chunk, (char *)s->buf) < 0) {
			sr_cause_set(cause, "%s: chunk %llu at offset 0x%llx: %llu compressed bytes "
				     "do not decompress to %llu bytes", place,
				     (unsigned long long)s->chunk_no + 1, (unsigned long long)s->pos,
				     (unsigned long long)z, (unsigned long long)u);
			return -SR_E_CORRUPT;
		}
	}
	s->pos += 8 + z;
	s->chunks--;
	s->chunk_no++;
	s->len = (size_t)u;
	return 1;
}

/* the next record of @s into s->rec: 1, 0 at the end of its data, <0 */
static int stream_next(struct dat_priv *d, struct dat_stream *s, char **cause)
{
	unsigned ps = s->lay->page_size;
	unsigned long long ts;
	void *ev = NULL;
	int ret;

	if (s->has)
		ev = kbuffer_next_event(s->kb, &ts);
	while (!ev) {
		unsigned char *page;

		if (s->next + ps > s->len) {
			ret = stream_fill(d, s, cause);
			if (ret <= 0) {
				s->has = 0;
				return ret;
			}
			continue;
		}
		page = s->buf + s->next;
		s->page_off = s->lay->off + s->data_off + s->next;
		s->next += ps;
		if (s->lay->zipped) {
			const char *why;

			/* decompressed pages were not checked before: kbuffer trusts them */
			if (sr_tracedat_page_ok(page, ps, d->commit_size, d->big, &why) < 0) {
				char place[128];

				stream_place(s, place, sizeof(place));
				sr_cause_set(cause, "%s: page %llu (in chunk %llu, before offset "
					     "0x%llx): %s", place,
					     (unsigned long long)((s->data_off + s->next) / ps - 1),
					     (unsigned long long)s->chunk_no,
					     (unsigned long long)s->pos, why);
				return -SR_E_CORRUPT;
			}
		}
		if (kbuffer_load_subbuffer(s->kb, page) < 0) {
			char place[128];

			stream_place(s, place, sizeof(place));
			sr_cause_set(cause, "%s: the page at offset 0x%llx cannot be read", place,
				     (unsigned long long)s->page_off);
			return -SR_E_CORRUPT;
		}
		ev = kbuffer_read_event(s->kb, &ts);
	}
	s->rec.ts = ts;
	s->rec.cpu = s->lay->cpu;
	s->rec.data = ev;
	s->rec.size = kbuffer_event_size(s->kb);
	/* an event's length comes from the page: it must end inside the page */
	if (s->rec.size < 0 || (unsigned char *)ev < s->buf + s->next - ps ||
	    (unsigned char *)ev + s->rec.size > s->buf + s->next) {
		char place[128];

		stream_place(s, place, sizeof(place));
		sr_cause_set(cause, "%s: the page at offset 0x%llx has an event of %d bytes that "
			     "runs past its end", place, (unsigned long long)s->page_off,
			     s->rec.size);
		s->has = 0;
		return -SR_E_CORRUPT;
	}
	s->rec.offset = s->page_off + (unsigned long long)kbuffer_curr_offset(s->kb);
	s->rec.missed_events = kbuffer_missed_events(s->kb);
	s->has = 1;
	return 1;
}

static void stream_release(struct dat_stream *s)
{
	if (s->kb)
		kbuffer_free(s->kb);
	free(s->buf);
	memset(s, 0, sizeof(*s));
}

/* @s at the start of its cpu's data, its first record read: 1, 0 if it has none, <0 */
static int stream_start(struct dat_priv *d, struct dat_stream *s, const struct sr_tracedat_cpu *c,
			char **cause)
{
	int ret;

	if (!s->kb) {
		s->kb = kbuffer_alloc(d->commit_size == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
				      d->big ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
		if (!s->kb)
			return -SR_E_NOMEM;
		if (tep_is_old_format(d->tep))
			kbuffer_set_old_format(s->kb);
	}
	s->lay = c;
	s->pos = c->off;
	s->end = c->off + c->size;
	s->len = s->next = 0;
	s->data_off = 0;
	s->has = 0;
	s->chunk_no = 0;
	if (c->zipped) {
		unsigned char b[4];

		ret = read_at(d, s, b, sizeof(b), c->off, cause);
		if (ret)
			return ret;
		s->chunks = file_num(d, b, 4);
		s->pos += 4;
		s->end += 4;	/* trace-cmd 3.x counts the size without the chunk count */
		if (s->end > d->lay_file_size)
			s->end = d->lay_file_size;
	}
	return stream_next(d, s, cause);
}

static int cpu_cmp(const void *a, const void *b)
{
	const struct sr_tracedat_cpu *x = *(const struct sr_tracedat_cpu *const *)a;
	const struct sr_tracedat_cpu *y = *(const struct sr_tracedat_cpu *const *)b;

	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

/* does buffer @name hold a record?  1, 0, <0 */
static int direct_has_data(struct dat_priv *d, const char *name, char **cause)
{
	struct dat_stream s = { 0 };
	int i, ret = 0;

	for (i = 0; i < d->lay.ncpu && !ret; i++)
		if (!strcmp(d->lay.cpu[i].buffer, name))
			ret = stream_start(d, &s, &d->lay.cpu[i], cause);
	stream_release(&s);
	return ret;
}

/* the streams of buffer @name, each at its first record, in cpu order */
static int direct_streams(struct dat_priv *d, const char *name, char **cause)
{
	const struct sr_tracedat_cpu **list;
	int i, n = 0, ret = 0;

	list = calloc((size_t)d->lay.ncpu + 1, sizeof(*list));
	d->st = calloc((size_t)d->lay.ncpu + 1, sizeof(*d->st));
	d->rec = calloc((size_t)d->lay.ncpu + 1, sizeof(*d->rec));
	d->heap = calloc((size_t)d->lay.ncpu + 1, sizeof(*d->heap));
	if (!list || !d->st || !d->rec || !d->heap) {
		free(list);
		return -SR_E_NOMEM;
	}
	for (i = 0; i < d->lay.ncpu; i++)
		if (!strcmp(d->lay.cpu[i].buffer, name))
			list[n++] = &d->lay.cpu[i];
	qsort(list, (size_t)n, sizeof(*list), cpu_cmp);
	for (i = 0; i < n && ret >= 0; i++) {
		if (list[i]->cpu >= d->ncpus) {
			sr_cause_set(cause, "cpu %d data: the file declares %d CPUs", list[i]->cpu,
				     d->ncpus);
			ret = -SR_E_CORRUPT;
			break;
		}
		ret = stream_start(d, &d->st[d->nst], list[i], cause);
		d->rec[d->nst] = &d->st[d->nst].rec;
		if (ret > 0)
			d->heap[d->nheap++] = d->nst;
		d->nst++;
	}
	free(list);
	if (ret < 0)
		return ret;
	heap_build(d);
	return 0;
}

/*
 * The kinds lookup_type() can give this file's events: those of the sched
 * and schedreplay formats, which dat_open() parses (every other system
 * gives SR_EV_OTHER), lost-event markers and the others
 */
static unsigned declared_kinds(struct tep_handle *tep)
{
	unsigned kinds = 1u << SR_EV_OTHER | 1u << SR_EV_LOST;
	int i, n = tep_get_events_count(tep);

	for (i = 0; i < n; i++) {
		struct tep_event *e = tep_get_event(tep, i);

		if (e && (!strcmp(e->system, "sched") || !strcmp(e->system, "schedreplay")))
			kinds |= 1u << sr_event_kind_from_name(e->name);
	}
	return kinds;
}
/* the buffer to read, as pick_buffer() chooses it, from the layout */
static int direct_pick(struct sr_trace *t, struct dat_priv *d, const char *want,
		       const struct sr_tracedat_buffer **out, char **cause)
{
	const struct sr_tracedat_buffer *found = NULL, *top = NULL;
	int i, with_data = 0, ret;

	for (i = 0; i < d->lay.nbuf; i++)
		if (!d->lay.buf[i].name[0])
			top = &d->lay.buf[i];
	if (want && *want) {
		for (i = 0; i < d->lay.nbuf; i++)
			if (d->lay.buf[i].name[0] && !strcmp(d->lay.buf[i].name, want))
				found = &d->lay.buf[i];
		if (!found) {
			char list[256] = "";
			size_t used = 0;
			int n = 0;

			for (i = 0; i < d->lay.nbuf && used < sizeof(list); i++)
				if (d->lay.buf[i].name[0])
					used += snprintf(list + used, sizeof(list) - used, "%s'%s'",
							 n++ ? ", " : "", d->lay.buf[i].name);
			sr_cause_set(cause, "no buffer instance '%s' (the file has %s%s)", want,
				     n ? "" : "only the top buffer", list);
			return -SR_E_USAGE;
		}
	} else {
		ret = direct_has_data(d, "", cause);
		if (ret < 0)
			return ret;
		for (i = 0; !ret && i < d->lay.nbuf; i++) {
			int has;

			if (!d->lay.buf[i].name[0])
				continue;
			has = direct_has_data(d, d->lay.buf[i].name, cause);
			if (has < 0)
				return has;
			if (has) {
				if (!found || !strcmp(d->lay.buf[i].name, "schedreplay"))
					found = &d->lay.buf[i];
				with_data++;
			}
		}
		if (with_data > 1 && strcmp(found->name, "schedreplay")) {
			sr_cause_set(cause, "events are in %d buffer instances and none in the top "
				     "buffer: choose one with --buffer", with_data);
			return -SR_E_USAGE;
		}
	}
	if (found)
		sr_strlcpy(t->info.buffer, found->name, sizeof(t->info.buffer));
	*out = found ? found : top;
	return 0;
}

static struct tep_format_field *field(struct tep_event *e, const char *name)
{
	return tep_find_field(e, name);
}

static enum sr_pstate_enc switch_encoding(struct tep_handle *tep)
{
	struct tep_event *e = tep_find_event_by_name(tep, "sched", "sched_switch");
	const char *fmt;

	if (!e || !e->print_fmt.format)
		return SR_PSTATE_REPORT;
	fmt = e->print_fmt.format;
	/* before 4.14 the raw state is printed, TASK_DEAD as "x" */
	if (strstr(fmt, "\"x\"") && !strstr(fmt, "\"I\""))
		return SR_PSTATE_RAW_OLD;
	return SR_PSTATE_REPORT;
}

static void fill_info(struct sr_trace *t, struct dat_priv *d)
{
	struct sr_trace_info *info = &t->info;
	const char *name = NULL, *ver = NULL, *s;
	unsigned long v = tracecmd_get_in_file_version ? tracecmd_get_in_file_version(d->top) : 0;

	if (v && tracecmd_get_file_compress_proto &&
	    !tracecmd_get_file_compress_proto(d->top, &name, &ver) && name && *name &&
	    strcmp(name, "none"))
		snprintf(info->format, sizeof(info->format), "trace.dat v%lu (%s %s)", v, name,
			 ver ? ver : "");
	else if (v)
		snprintf(info->format, sizeof(info->format), "trace.dat v%lu", v);
	else
		snprintf(info->format, sizeof(info->format), "trace.dat");

	s = tracecmd_get_uname ? tracecmd_get_uname(d->top) : NULL;
	if (s && *s) {
		/* "Linux host 6.1.0-13-amd64 #1 SMP ..." as uname -a prints it */
		char buf[256], *host, *rel, *save = NULL;

		sr_strlcpy(buf, s, sizeof(buf));
		if (strtok_r(buf, " ", &save) && (host = strtok_r(NULL, " ", &save)) &&
		    (rel = strtok_r(NULL, " ", &save))) {
			sr_strlcpy(info->hostname, host, sizeof(info->hostname));
			sr_strlcpy(info->kernel, rel, sizeof(info->kernel));
		}
	}
	s = d->clock[0] ? d->clock : tracecmd_get_trace_clock ? tracecmd_get_trace_clock(d->in) : NULL;
	if (s && *s) {
		/* the saved trace_clock file looks like "[local] global counter" */
		const char *open = strchr(s, '['), *close = open ? strchr(open, ']') : NULL;

		if (open && close && (size_t)(close - open) < sizeof(info->clock)) {
			memcpy(info->clock, open + 1, close - open - 1);
			info->clock[close - open - 1] = '\0';
		} else {
			sr_strlcpy(info->clock, s, sizeof(info->clock));
			info->clock[strcspn(info->clock, "\n")] = '\0';
		}
	}
	info->ncpus_declared = d->ncpus;
	info->pstate_enc = switch_encoding(d->tep);
	info->has_waking = tep_find_event_by_name(d->tep, "sched", "sched_waking") != NULL;
	info->has_probes = tep_find_event_by_name(d->tep, "schedreplay", "select_rq") != NULL &&
			   tep_find_event_by_name(d->tep, "schedreplay", "select_rq_ret") != NULL;
	info->has_balance_probes =
		tep_find_event_by_name(d->tep, "schedreplay", "balance_rq") != NULL;
	info->has_setaffinity = tep_find_event_by_name(d->tep, "schedreplay", "setaffinity") != NULL;
	info->kinds = declared_kinds(d->tep);
}

/*
 * The file keeps each buffer's ring-buffer statistics from the end of the
 * recording ("CPU: 0\noverrun: 12\n...dropped events: 0"), all buffers in
 * the top handle's text, instances after a "Buffer: NAME" line.  Events
 * overwritten (overrun) or refused (dropped) never reach the file and leave
 * no marker when the buffer was read after the fact (trace-cmd extract).
 */
static int parse_cpustats(struct sr_trace *t, struct dat_priv *d)
{
	const char *s = tracecmd_get_cpustats ? tracecmd_get_cpustats(d->top) : NULL;
	const char *want = t->info.buffer;
	int in_buffer = !want[0], cpu = -1;

	if (!s)
		return 0;
	while (*s) {
		const char *eol = strchr(s, '\n');
		size_t len = eol ? (size_t)(eol - s) : strlen(s);
		unsigned long long v;
		char name[128];

		if (len > 8 && !strncmp(s, "Buffer: ", 8)) {
			size_t n = len - 8 < sizeof(name) - 1 ? len - 8 : sizeof(name) - 1;

			memcpy(name, s + 8, n);
			name[n] = '\0';
			in_buffer = want[0] && !strcmp(name, want);
			cpu = -1;
		} else if (in_buffer && sscanf(s, "CPU: %d", &cpu) == 1) {
			/* cpu set */
		} else if (in_buffer && cpu >= 0 &&
			   (sscanf(s, "overrun: %llu", &v) == 1 ||
			    sscanf(s, "dropped events: %llu", &v) == 1)) {
			struct sr_cpu_stats *cs = sr_trace_cpu_stats(t, cpu);

			if (!cs)
				return -SR_E_NOMEM;
			cs->overrun += v;
		}
		s += len;
		if (*s == '\n')
			s++;
	}
	return 0;
}

/*
 * The kept format of @id (@id -1: every kept format) parsed into the tep
 * handle, as libtracecmd's open would have, once a child process parsed it
 * (a format that takes the child down is not parsed: d->kept_cause says
 * why).  Return: whether one was
 */
static int parse_kept(struct dat_priv *d, int id)
{
	char msg[sizeof(tep_last_msg)];
	int big = tep_is_file_bigendian(d->tep), lsize = tep_get_long_size(d->tep);
	char *why;
	size_t i, j;
	int found = 0;

	/* a warning of the parser is not the message of a later failure */
	memcpy(msg, tep_last_msg, sizeof(msg));
	for (i = j = 0; i < d->nkept; i++) {
		struct dat_kept *k = &d->kept[i];

		if (id >= 0 && k->id != id) {
			d->kept[j++] = *k;
			continue;
		}
		why = NULL;
		if (!sr_tracedat_format_check(k->text, k->len, k->sys, k->id, big, lsize, &why)) {
			real_parse_event(d->tep, k->text, k->len, k->sys);
			found = 1;
		} else {
			free(d->kept_cause);
			d->kept_cause = why;
		}
		free(k->sys);
		free(k->text);
	}
	d->nkept = j;
	memcpy(tep_last_msg, msg, sizeof(msg));
	return found;
}

/* where every record keeps its type and pid (the common header) */
static int common_fields(struct dat_priv *d, char **cause)
{
	struct tep_event **events;
	struct tep_format_field *ft = NULL, *fp = NULL, *ff = NULL;

	/* the common fields of a file without an event of the systems parsed at open */
	if (!tep_get_events_count(d->tep))
		parse_kept(d, -1);
	events = tep_list_events(d->tep, TEP_EVENT_SORT_ID);

	if (events && events[0]) {
		ft = tep_find_common_field(events[0], "common_type");
		fp = tep_find_common_field(events[0], "common_pid");
		ff = tep_find_common_field(events[0], "common_flags");
	}
	if (!ft || ft->size < 1 || ft->size > 8 || ft->offset < 0) {
		sr_cause_set(cause, "event formats have no usable common_type field");
		return -SR_E_CORRUPT;
	}
	d->type_off = ft->offset;
	d->type_size = ft->size;
	if (fp && fp->size >= 1 && fp->size <= 8 && fp->offset >= 0) {
		d->pid_off = fp->offset;
		d->pid_size = fp->size;
	} else {
		d->pid_off = 1 << 30;	/* never inside a record: common_pid unknown */
		d->pid_size = 4;
	}
	d->flags_off = ff && ff->size == 1 && ff->offset >= 0 ? ff->offset : -1;
	file_swapped = tep_is_file_bigendian(d->tep) != tep_is_local_bigendian(d->tep);
	return 0;
}

/* the rest of dat_open() for the direct reader: the buffer, the info, the streams */
static int direct_open(struct sr_trace *t, struct dat_priv *d, const struct sr_trace_opts *opts,
		       char **cause)
{
	const struct sr_tracedat_buffer *b = NULL;
	struct stat st;
	int i, ret;

	d->in = d->top;
	d->tep = tracecmd_get_tep(d->top);
	d->big = tep_is_file_bigendian(d->tep);
	d->commit_size = tep_get_header_page_size(d->tep);
	if (d->commit_size != 4 && d->commit_size != 8)
		d->commit_size = tep_get_long_size(d->tep) == 4 ? 4 : 8;
	d->fd = open(t->info.path, O_RDONLY | O_CLOEXEC);
	if (d->fd < 0 || fstat(d->fd, &st) < 0) {
		sr_cause_set(cause, "cannot open: %s", strerror(errno));
		return -SR_E_IO;
	}
	d->lay_file_size = (uint64_t)st.st_size;
	if (d->lay.zname[0]) {
		d->z = tracecmd_compress_alloc(d->lay.zname, d->lay.zver, d->fd, d->tep, NULL);
		if (!d->z) {
			sr_cause_set(cause, "the data is compressed with %s %s, which this "
				     "libtracecmd cannot decompress", d->lay.zname, d->lay.zver);
			return -SR_E_UNSUPPORTED;
		}
	}
	ret = direct_pick(t, d, opts ? opts->buffer : NULL, &b, cause);
	if (ret < 0)
		return ret;
	d->ncpus = handle_cpus(d->top);
	if (b && b->name[0])
		d->ncpus = b->ncpus;
	for (i = 0; i < d->lay.ncpu; i++)
		if (!strcmp(d->lay.cpu[i].buffer, b ? b->name : "") && d->lay.cpu[i].cpu >= d->ncpus)
			d->ncpus = d->lay.cpu[i].cpu + 1;
	if (d->ncpus <= 0 || d->ncpus > 8192) {
		sr_cause_set(cause, "invalid cpu count %d in the header", d->ncpus);
		return -SR_E_CORRUPT;
	}
	if (b && b->clock[0])
		sr_strlcpy(d->clock, b->clock, sizeof(d->clock));
	fill_info(t, d);
	ret = common_fields(d, cause);
	if (ret < 0)
		return ret;
	if (!sr_trace_cpu_stats(t, d->ncpus - 1))
		return -SR_E_NOMEM;
	ret = parse_cpustats(t, d);
	if (ret < 0)
		return ret;
	ret = direct_streams(d, b ? b->name : "", cause);
	d->cur_cpu = -1;
	tep_last_msg[0] = '\0';
	return ret;
}

static int dat_open(struct sr_trace *t, const struct sr_trace_opts *opts, char **cause)
{
	struct dat_priv *d;
	struct stat st;
	int cpu, ret;

	d = calloc(1, sizeof(*d));
	if (!d)
		return -SR_E_NOMEM;
	t->priv = d;
	d->fd = -1;
	/* libtracecmd trusts the file's offsets and sizes: check them first */
	ret = sr_tracedat_check_layout(t->info.path, &d->lay, cause);
	if (ret < 0)
		return ret;
	/* the pages are read here unless libtracecmd must correct the timestamps */
	d->direct = !d->lay.ts_adjust && (!d->lay.zname[0] ||
		    (tracecmd_compress_alloc && tracecmd_compress_destroy &&
		     tracecmd_uncompress_chunk));
	if (!d->direct) {
		sr_tracedat_layout_free(&d->lay);
		ret = sr_tracedat_check(t->info.path, cause);
		if (ret < 0)
			return ret;
	}
	tep_last_msg[0] = '\0';
	tracecmd_set_loglevel(TEP_LOG_WARNING);
	keeping.on = 1;
	if (d->direct)
		d->top = tracecmd_open_head(t->info.path, TRACECMD_FL_LOAD_NO_PLUGINS |
					    TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
	else
		d->top = tracecmd_open(t->info.path, TRACECMD_FL_LOAD_NO_PLUGINS |
				       TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
	keeping.on = 0;
	d->kept = keeping.v;
	d->nkept = keeping.n;
	keeping.v = NULL;
	keeping.n = keeping.cap = 0;
	if (!d->top) {
		if (stat(t->info.path, &st) == 0 && st.st_size < 4096)
			sr_cause_set(cause, "not a valid trace.dat: headers end early (file is %lld "
				     "bytes)%s%s", (long long)st.st_size,
				     tep_last_msg[0] ? ": " : "", tep_last_msg);
		else
			sr_cause_set(cause, "not a valid trace.dat: %s",
				     tep_last_msg[0] ? tep_last_msg :
				     "libtracecmd could not read the headers");
		return -SR_E_CORRUPT;
	}
	if (d->direct)
		return direct_open(t, d, opts, cause);
	ret = pick_buffer(t, d, opts ? opts->buffer : NULL, cause);
	if (ret < 0)
		return ret;
	d->tep = tracecmd_get_tep(d->in);
	d->ncpus = handle_cpus(d->in);
	if (d->ncpus <= 0 || d->ncpus > 8192) {
		sr_cause_set(cause, "invalid cpu count %d in the header", d->ncpus);
		return -SR_E_CORRUPT;
	}
	fill_info(t, d);
	ret = common_fields(d, cause);
	if (ret < 0)
		return ret;
	if (d->ncpus > 0 && !sr_trace_cpu_stats(t, d->ncpus - 1))
		return -SR_E_NOMEM;
	ret = parse_cpustats(t, d);
	if (ret < 0)
		return ret;
	d->rec = calloc(d->ncpus, sizeof(*d->rec));
	d->heap = calloc(d->ncpus, sizeof(*d->heap));
	if (!d->rec || !d->heap)
		return -SR_E_NOMEM;
	for (cpu = 0; cpu < d->ncpus; cpu++) {
		/* read_cpu_first rewinds: buffer_has_data() may have moved the cursor */
		d->rec[cpu] = tracecmd_read_cpu_first(d->in, cpu);
		if (d->rec[cpu])
			d->heap[d->nheap++] = cpu;
	}
	heap_build(d);
	d->cur_cpu = -1;
	/* from here on, a message means that reading a cpu's data failed */
	tep_last_msg[0] = '\0';
	return 0;
}

/* a plain integer field's slot (size 0: absent or not plain) */
static void num_slot_of(const struct tep_format_field *f, struct num_slot *n)
{
	n->off = n->size = n->sign = 0;
	if (f && !(f->flags & TEP_FIELD_IS_DYNAMIC) && f->offset >= 0 &&
	    (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8)) {
		n->off = f->offset;
		n->size = f->size;
		n->sign = !!(f->flags & TEP_FIELD_IS_SIGNED);
	}
}

/* rqstat: c0load, c0util, ... for CPUs 0 up to the first without a load field */
static void rqstat_fields(struct dat_type *ty, struct tep_event *e)
{
	char name[32];
	int cpu, k;

	for (cpu = 0; cpu < SR_RQSTAT_MAX_CPUS; cpu++) {
		snprintf(name, sizeof(name), "c%dload", cpu);
		if (!field(e, name))
			break;
	}
	if (!cpu)
		return;
	ty->rq = calloc((size_t)cpu * SR_RQ_NFIELDS, sizeof(*ty->rq));
	if (!ty->rq) {
		ty->nrq = -1;	/* decode_rqstat(): out of memory */
		return;
	}
	ty->nrq = cpu;
	for (cpu = 0; cpu < ty->nrq; cpu++)
		for (k = 0; k < SR_RQ_NFIELDS; k++) {
			snprintf(name, sizeof(name), "c%d%s", cpu, sr_rqstat_field_name[k]);
			num_slot_of(field(e, name), &ty->rq[cpu * SR_RQ_NFIELDS + k]);
		}
}

static struct dat_type *lookup_type(struct dat_priv *d, int id)
{
	struct dat_type *ty;
	struct tep_event *e;
	int i;

	if (id < 0 || id > 0xffff)
		return NULL;
	if (id >= d->ntypes) {
		int n = id + 64;
		struct dat_type *nt = realloc(d->types, n * sizeof(*nt));

		if (!nt)
			return NULL;
		memset(nt + d->ntypes, 0, (n - d->ntypes) * sizeof(*nt));
		d->types = nt;
		d->ntypes = n;
	}
	ty = &d->types[id];
	if (ty->known)
		return ty;
	e = tep_find_event(d->tep, id);
	free(d->kept_cause);
	d->kept_cause = NULL;
	if (!e && parse_kept(d, id))
		e = tep_find_event(d->tep, id);
	if (!e)
		return NULL;
	ty->known = 1;
	ty->name = sr_intern(e->name);
	if (!strcmp(e->system, "sched") || !strcmp(e->system, "schedreplay"))
		ty->kind = sr_event_kind_from_name(e->name);
	else
		ty->kind = SR_EV_OTHER;
	/* trace_marker writes: the text, e.g. the recorder's metadata lines */
	if (ty->kind == SR_EV_OTHER && !strcmp(e->system, "ftrace") && !strcmp(e->name, "print"))
		ty->f[F_COMM] = field(e, "buf");
	switch (ty->kind) {
	case SR_EV_SELECT_RQ:
		/* the recorder's kprobe: a contract (schedreplay-record(1)) */
		ty->f[F_TARGET] = field(e, "prev_cpu");
		ty->f[F_STATE] = field(e, "wake_flags");
		ty->f[F_PID] = field(e, "pid");
		for (i = 0; i < SR_PROBE_NFIELDS; i++)
			ty->f[probe_slot[i]] = field(e, sr_probe_field_name[i]);
		break;
	case SR_EV_SELECT_RQ_RET:
		ty->f[F_DEST] = field(e, "cpu");
		break;
	case SR_EV_SETAFFINITY:
		ty->f[F_PID] = field(e, "pid");
		ty->f[F_STATE] = field(e, "mask");
		break;
	case SR_EV_BALANCE_RQ:
		ty->f[F_TARGET] = field(e, "cpu");
		ty->f[F_STATE] = field(e, "idle");
		ty->f[F_PID] = field(e, "level");
		break;
	case SR_EV_LB_TASK:
		ty->f[F_TARGET] = field(e, "dst");
		ty->f[F_STATE] = field(e, "idle");
		ty->f[F_PID] = field(e, "level");
		ty->f[F_DEST] = field(e, "mt");
		ty->f[F_PRIO] = field(e, "nbf");
		ty->f[F_PID2] = field(e, "imb");
		break;
	case SR_EV_RQSTAT:
	case SR_EV_LB_RQSTAT:
		rqstat_fields(ty, e);
		break;
	case SR_EV_SWITCH:
		ty->f[F_COMM] = field(e, "prev_comm");
		ty->f[F_PID] = field(e, "prev_pid");
		ty->f[F_PRIO] = field(e, "prev_prio");
		ty->f[F_STATE] = field(e, "prev_state");
		ty->f[F_COMM2] = field(e, "next_comm");
		ty->f[F_PID2] = field(e, "next_pid");
		ty->f[F_PRIO2] = field(e, "next_prio");
		break;
	case SR_EV_WAKING:
	case SR_EV_WAKEUP:
	case SR_EV_WAKEUP_NEW:
		ty->f[F_SUCCESS] = field(e, "success");
		ty->f[F_TARGET] = field(e, "target_cpu");
		/* fall through */
	case SR_EV_EXIT:
	case SR_EV_FREE:
		ty->f[F_COMM] = field(e, "comm");
		ty->f[F_PID] = field(e, "pid");
		ty->f[F_PRIO] = field(e, "prio");
		break;
	case SR_EV_MIGRATE:
		ty->f[F_COMM] = field(e, "comm");
		ty->f[F_PID] = field(e, "pid");
		ty->f[F_PRIO] = field(e, "prio");
		ty->f[F_TARGET] = field(e, "orig_cpu");
		ty->f[F_DEST] = field(e, "dest_cpu");
		break;
	case SR_EV_FORK:
		ty->f[F_COMM] = field(e, "parent_comm");
		ty->f[F_PID] = field(e, "parent_pid");
		ty->f[F_COMM2] = field(e, "child_comm");
		ty->f[F_PID2] = field(e, "child_pid");
		break;
	default:
		break;
	}
	/* size 0 marks "not a plain integer field": num() fails */
	for (i = 0; i < 9; i++)
		num_slot_of(ty->f[i], &ty->n[i]);
	return ty;
}

/*
 * Read an integer field straight from the record: the hot path of every
 * reader, so no call into libtraceevent per field (tep_read_number_field
 * costs several times this).  Sizes 1, 2, 4, 8; signed fields are
 * sign-extended.
 */
static inline int read_int(const unsigned char *p, int size, int is_signed, long long *v)
{
	uint64_t u;

	switch (size) {
	case 1:
		u = p[0];
		break;
	case 2: {
		uint16_t x;

		memcpy(&x, p, 2);
		u = file_swapped ? __builtin_bswap16(x) : x;
		break;
	}
	case 4: {
		uint32_t x;

		memcpy(&x, p, 4);
		u = file_swapped ? __builtin_bswap32(x) : x;
		break;
	}
	case 8: {
		uint64_t x;

		memcpy(&x, p, 8);
		u = file_swapped ? __builtin_bswap64(x) : x;
		break;
	}
	default:
		return -1;
	}
	if (is_signed && size < 8 && (u & (1ULL << (size * 8 - 1))))
		u |= ~0ULL << (size * 8);
	*v = (long long)u;
	return 0;
}

/*
 * Where a string field's bytes are: char[N] in place, or a __string /
 * __data_loc (newer kernels' comm fields, print's buf on some kernels): a
 * 32-bit "data_loc", offset in the low half and length in the high half,
 * counted from the end of the field for a __rel_loc.  A char[] declared with
 * size 0 (print's buf) runs to the end of the record.  Return: 0, or -1 when
 * the field lies outside the record.
 */
static int field_span(const struct tep_format_field *f, const struct tep_record *r,
		      const char **src, size_t *len)
{
	long long v;
	unsigned off, n;

	if (!f || f->offset < 0 || f->offset >= r->size)
		return -1;
	if (!(f->flags & TEP_FIELD_IS_DYNAMIC)) {
		if (f->size > 0 && (long long)f->offset + f->size > (long long)r->size)
			return -1;
		*src = (const char *)r->data + f->offset;
		*len = f->size > 0 ? (size_t)f->size : (size_t)(r->size - f->offset);
		return 0;
	}
	if (f->size != 4 || (long long)f->offset + 4 > (long long)r->size ||
	    read_int((const unsigned char *)r->data + f->offset, 4, 0, &v))
		return -1;
	off = (unsigned)v & 0xffff;
	n = ((unsigned)v >> 16) & 0xffff;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		off += (unsigned)(f->offset + f->size);
	if ((unsigned long long)off + n > (unsigned long long)r->size)
		return -1;
	*src = (const char *)r->data + off;
	*len = n;
	return 0;
}

static void get_comm(const struct tep_format_field *f, const struct tep_record *r, char *dst)
{
	const char *src;
	size_t n;

	dst[0] = '\0';
	if (field_span(f, r, &src, &n) < 0)
		return;
	if (n > SR_COMM_LEN - 1)
		n = SR_COMM_LEN - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* a string field (print's buf), bounded, without its trailing newline */
static const char *get_text(struct dat_priv *d, const struct tep_format_field *f,
			    const struct tep_record *r)
{
	const char *src;
	size_t n;

	if (field_span(f, r, &src, &n) < 0)
		return NULL;
	if (n >= sizeof(d->text))
		n = sizeof(d->text) - 1;
	memcpy(d->text, src, n);
	d->text[n] = '\0';
	n = strnlen(d->text, n);
	while (n && d->text[n - 1] == '\n')
		d->text[--n] = '\0';
	return d->text;
}

static inline int slot_read(const struct num_slot *n, const struct tep_record *r, long long *v)
{
	if (!n->size || n->off + n->size > r->size)
		return -1;
	return read_int((const unsigned char *)r->data + n->off, n->size, n->sign, v);
}

static inline int num(const struct dat_type *ty, const struct tep_record *r, int slot,
		      long long *v)
{
	return slot_read(&ty->n[slot], r, v);
}

static inline int need(const struct dat_type *ty, const struct tep_record *r, int slot, long long *v,
		const char *what, char **cause)
{
	if (num(ty, r, slot, v) == 0)
		return 0;
	sr_cause_set(cause, "cpu %d record at offset %llu: %s without a readable '%s' field",
		     r->cpu, r->offset, ty->name, what);
	return -SR_E_MISSING;
}

/*
 * rqstat's fields into d->rqstat; every CPU's load is required, the others
 * are -1 where absent.  Return: 0, 1 for an rqstat without c0load (not the
 * recorder's: no fields), -SR_E_NOMEM, or -1 on a record too short for its
 * fields.
 */
static int decode_rqstat(struct dat_priv *d, const struct dat_type *ty, const struct tep_record *r,
			 char **cause)
{
	int cpu, k;

	if (ty->nrq < 0) {
		sr_cause_set(cause, "out of memory for the fields of %s", ty->name);
		return -SR_E_NOMEM;
	}
	/* an rqstat of another shape (no c0load): no fields to read */
	if (!ty->nrq)
		return 1;
	d->rqstat.ncpus = ty->nrq;
	for (cpu = 0; cpu < ty->nrq; cpu++) {
		for (k = 0; k < SR_RQ_NFIELDS; k++) {
			long long *v = sr_rqstat_field(&d->rqstat.cpu[cpu], k);

			if (slot_read(&ty->rq[cpu * SR_RQ_NFIELDS + k], r, v))
				*v = -1;
		}
		if (d->rqstat.cpu[cpu].load < 0) {
			sr_cause_set(cause, "cpu %d record at offset %llu: %s without a readable "
				     "'c%dload' field", r->cpu, r->offset, ty->name, cpu);
			return -1;
		}
	}
	return 0;
}

static int decode(struct sr_trace *t, struct dat_priv *d, struct tep_record *r,
		  struct sr_event *ev, char **cause)
{
	struct dat_type *ty;
	long long v;
	int id, i;

	sr_event_reset(ev);
	ev->ts = r->ts;
	ev->cpu = r->cpu;
	if (r->size < 8) {
		sr_cause_set(cause, "cpu %d record at offset %llu: %d bytes, shorter than the "
			     "event header", r->cpu, r->offset, r->size);
		return -SR_E_CORRUPT;
	}
	if (d->type_off + d->type_size > r->size ||
	    read_int((const unsigned char *)r->data + d->type_off, d->type_size, 0, &v) < 0) {
		sr_cause_set(cause, "cpu %d record at offset %llu: no event type", r->cpu, r->offset);
		return -SR_E_CORRUPT;
	}
	id = (int)v;
	ty = lookup_type(d, id);
	if (!ty && d->kept_cause) {
		sr_cause_set(cause, "cpu %d record at offset %llu: %s", r->cpu, r->offset,
			     d->kept_cause);
		return -SR_E_CORRUPT;
	}
	if (!ty) {
		sr_cause_set(cause, "cpu %d record at offset %llu: unknown event id %d",
			     r->cpu, r->offset, id);
		return -SR_E_CORRUPT;
	}
	ev->kind = ty->kind;
	ev->name = ty->name;
	if (d->pid_off + d->pid_size <= r->size &&
	    !read_int((const unsigned char *)r->data + d->pid_off, d->pid_size, 1, &v))
		ev->common_pid = (int)v;
	/* TRACE_FLAG_HARDIRQ 0x08, TRACE_FLAG_SOFTIRQ 0x10, TRACE_FLAG_NMI 0x40 (trace.h) */
	if (d->flags_off >= 0 && d->flags_off < r->size) {
		unsigned char fl = ((const unsigned char *)r->data)[d->flags_off];

		ev->ctx = fl & 0x58 ? SR_CTX_IRQ : SR_CTX_TASK;
		ev->softirq = (fl & 0x58) == 0x10;
	}

	switch (ty->kind) {
	case SR_EV_SWITCH:
		get_comm(ty->f[F_COMM], r, ev->comm);
		get_comm(ty->f[F_COMM2], r, ev->comm2);
		if (need(ty, r, F_PID, &v, "prev_pid", cause))
			return -SR_E_MISSING;
		ev->pid = (int)v;
		if (need(ty, r, F_PID2, &v, "next_pid", cause))
			return -SR_E_MISSING;
		ev->pid2 = (int)v;
		if (need(ty, r, F_STATE, &v, "prev_state", cause))
			return -SR_E_MISSING;
		ev->prev_state_raw = v;
		ev->prev_state = sr_prev_state_decode(v, t->info.pstate_enc);
		if (!num(ty, r, F_PRIO, &v))
			ev->prio = (int)v;
		if (!num(ty, r, F_PRIO2, &v))
			ev->prio2 = (int)v;
		break;
	case SR_EV_WAKING:
	case SR_EV_WAKEUP:
	case SR_EV_WAKEUP_NEW:
		if (need(ty, r, F_TARGET, &v, "target_cpu", cause))
			return -SR_E_MISSING;
		ev->target_cpu = (int)v;
		if (!num(ty, r, F_SUCCESS, &v))
			ev->success = (int)v;
		/* fall through */
	case SR_EV_EXIT:
	case SR_EV_FREE:
		get_comm(ty->f[F_COMM], r, ev->comm);
		if (need(ty, r, F_PID, &v, "pid", cause))
			return -SR_E_MISSING;
		ev->pid = (int)v;
		if (!num(ty, r, F_PRIO, &v))
			ev->prio = (int)v;
		break;
	case SR_EV_MIGRATE:
		get_comm(ty->f[F_COMM], r, ev->comm);
		if (need(ty, r, F_PID, &v, "pid", cause))
			return -SR_E_MISSING;
		ev->pid = (int)v;
		if (!num(ty, r, F_PRIO, &v))
			ev->prio = (int)v;
		if (need(ty, r, F_TARGET, &v, "orig_cpu", cause))
			return -SR_E_MISSING;
		ev->target_cpu = (int)v;
		if (need(ty, r, F_DEST, &v, "dest_cpu", cause))
			return -SR_E_MISSING;
		ev->dest_cpu = (int)v;
		break;
	case SR_EV_SELECT_RQ:
		if (need(ty, r, F_TARGET, &v, "prev_cpu", cause))
			return -SR_E_MISSING;
		ev->target_cpu = (int)v;
		if (!num(ty, r, F_STATE, &v))
			ev->wake_flags = v;
		if (!num(ty, r, F_PID, &v))
			ev->pid = (int)v;
		/* typed by the kernel: a value out of range is taken as absent */
		for (i = 0; i < SR_PROBE_NFIELDS; i++)
			if (!num(ty, r, probe_slot[i], &v))
				sr_event_probe_set(ev, i, v);
		break;
	case SR_EV_SELECT_RQ_RET:
		if (need(ty, r, F_DEST, &v, "cpu", cause))
			return -SR_E_MISSING;
		ev->dest_cpu = (int)v;
		break;
	case SR_EV_SETAFFINITY:
		if (need(ty, r, F_PID, &v, "pid", cause))
			return -SR_E_MISSING;
		ev->pid = (int)v;
		if (need(ty, r, F_STATE, &v, "mask", cause))
			return -SR_E_MISSING;
		ev->cpumask = v;
		break;
	case SR_EV_BALANCE_RQ:
		if (need(ty, r, F_STATE, &v, "idle", cause))
			return -SR_E_MISSING;
		ev->lb_idle = (int)v;
		if (!num(ty, r, F_TARGET, &v))
			ev->target_cpu = (int)v;
		if (!num(ty, r, F_PID, &v))
			ev->lb_level = (int)v;
		break;
	case SR_EV_LB_TASK:
		/* the migration type and dst are what replay reads; the rest where present */
		if (need(ty, r, F_DEST, &v, "mt", cause))
			return -SR_E_MISSING;
		ev->lb_mt = v >= 0 && v <= 3 ? (int)v : -1;
		if (need(ty, r, F_TARGET, &v, "dst", cause))
			return -SR_E_MISSING;
		ev->target_cpu = v >= 0 && v <= INT_MAX ? (int)v : SR_CPU_NONE;
		if (!num(ty, r, F_STATE, &v))
			ev->lb_idle = (int)v;
		if (!num(ty, r, F_PID, &v) && v >= 0 && v <= INT_MAX)
			ev->lb_level = (int)v;
		if (!num(ty, r, F_PRIO, &v) && v >= 0 && v <= INT_MAX)
			ev->lb_nbf = (int)v;
		if (!num(ty, r, F_PID2, &v))
			ev->lb_imb = v;
		break;
	case SR_EV_OTHER:
		if (ty->f[F_COMM])
			ev->text = get_text(d, ty->f[F_COMM], r);
		break;
	case SR_EV_RQSTAT:
	case SR_EV_LB_RQSTAT:
		i = decode_rqstat(d, ty, r, cause);
		if (i < 0)
			return i == -SR_E_NOMEM ? i : -SR_E_MISSING;
		if (!i)
			ev->rqstat = &d->rqstat;
		break;
	case SR_EV_FORK:
		get_comm(ty->f[F_COMM], r, ev->comm);
		get_comm(ty->f[F_COMM2], r, ev->comm2);
		if (need(ty, r, F_PID, &v, "parent_pid", cause))
			return -SR_E_MISSING;
		ev->pid = (int)v;
		if (need(ty, r, F_PID2, &v, "child_pid", cause))
			return -SR_E_MISSING;
		ev->pid2 = (int)v;
		break;
	default:
		break;
	}
	return 1;
}

/*
 * libtracecmd ends a cpu's stream the same way at the end of its data and
 * when a page cannot be loaded; a compressed chunk that does not
 * decompress leaves no message.  At the real end it resets the cpu's page
 * offset to 0, so the cursor lies within the first page; after a failure it
 * names the page it could not load, which is at least two pages in (the
 * data starts a page or more into the file, and one page was read).
 */
static int stream_failed(struct dat_priv *d, int cpu)
{
	int ps;

	if (tep_last_msg[0])
		return 1;
	if (!tracecmd_get_cursor || !tracecmd_page_size)
		return 0;
	ps = tracecmd_page_size(d->in);
	return ps > 0 && tracecmd_get_cursor(d->in, cpu) >= 2ULL * (unsigned long long)ps;
}

static int direct_next(struct sr_trace *t, struct dat_priv *d, struct sr_event *ev, char **cause)
{
	struct dat_stream *s;
	struct tep_record *r;
	int i, ret, more;

	if (!d->nheap)
		return 0;
	i = d->heap[0];
	s = &d->st[i];
	r = &s->rec;
	/* the ring buffer dropped events before this page: say so first */
	if (r->missed_events && !d->lost_pending) {
		d->lost_pending = 1;
		sr_event_reset(ev);
		ev->kind = SR_EV_LOST;
		ev->ts = r->ts;
		ev->cpu = r->cpu;
		ev->lost = r->missed_events > 0 ? r->missed_events : -1;
		d->off = r->offset;
		d->cur_cpu = r->cpu;
		return 1;
	}
	d->lost_pending = 0;
	d->cur_cpu = r->cpu;
	d->off = r->offset;
	/* the record lives in the stream's pages: decode it before they move on */
	ret = decode(t, d, r, ev, cause);
	if (ret < 0)
		return ret;
	more = stream_next(d, s, cause);
	if (more < 0)
		return more;
	if (more) {
		if (d->nheap > 1 && (heap_less(d, d->heap[1], i) ||
				     (d->nheap > 2 && heap_less(d, d->heap[2], i))))
			heap_down(d, 0);
	} else {
		d->heap[0] = d->heap[--d->nheap];
		if (d->nheap)
			heap_down(d, 0);
	}
	return ret;
}

static int dat_next(struct sr_trace *t, struct sr_event *ev, char **cause)
{
	struct dat_priv *d = t->priv;
	struct tep_record *r;
	int cpu;

	if (d->direct)
		return direct_next(t, d, ev, cause);
	if (d->cur) {
		tracecmd_free_record(d->cur);
		d->cur = NULL;
	}
	if (!d->nheap)
		return 0;
	cpu = d->heap[0];
	r = d->rec[cpu];
	/* the ring buffer dropped events before this page: say so first */
	if (r->missed_events && !d->lost_pending) {
		d->lost_pending = 1;
		sr_event_reset(ev);
		ev->kind = SR_EV_LOST;
		ev->ts = r->ts;
		ev->cpu = cpu;
		ev->lost = r->missed_events > 0 ? r->missed_events : -1;
		d->off = r->offset;
		d->cur_cpu = cpu;
		return 1;
	}
	d->lost_pending = 0;
	d->cur = r;
	d->cur_cpu = cpu;
	d->off = r->offset;
	tep_last_msg[0] = '\0';
	d->rec[cpu] = tracecmd_read_data(d->in, cpu);
	if (d->rec[cpu]) {
		/* the common case: the same cpu is still the earliest */
		if (d->nheap > 1 && (heap_less(d, d->heap[1], cpu) ||
				     (d->nheap > 2 && heap_less(d, d->heap[2], cpu))))
			heap_down(d, 0);
	} else {
		d->heap[0] = d->heap[--d->nheap];
		if (d->nheap)
			heap_down(d, 0);
		if (stream_failed(d, cpu)) {
			if (tep_last_msg[0])
				sr_cause_set(cause, "cpu %d data after offset %llu: %s", cpu,
					     r->offset, tep_last_msg);
			else
				sr_cause_set(cause, "cpu %d data after offset %llu: cannot load the next "
					     "page (a compressed chunk that does not decompress, or "
					     "a read error)", cpu, r->offset);
			return -SR_E_CORRUPT;
		}
	}
	return decode(t, d, r, ev, cause);
}

static int dat_rewind(struct sr_trace *t, char **cause)
{
	struct dat_priv *d = t->priv;
	int i, ret;

	d->nheap = 0;
	d->lost_pending = 0;
	d->cur_cpu = -1;
	if (d->direct) {
		for (i = 0; i < d->nst; i++) {
			ret = stream_start(d, &d->st[i], d->st[i].lay, cause);
			if (ret < 0)
				return ret;
			if (ret > 0)
				d->heap[d->nheap++] = i;
		}
	} else {
		if (d->cur) {
			tracecmd_free_record(d->cur);
			d->cur = NULL;
		}
		for (i = 0; i < d->ncpus; i++) {
			if (d->rec[i])
				tracecmd_free_record(d->rec[i]);
			d->rec[i] = tracecmd_read_cpu_first(d->in, i);
			if (d->rec[i])
				d->heap[d->nheap++] = i;
		}
	}
	heap_build(d);
	tep_last_msg[0] = '\0';
	return 0;
}

static void dat_where(struct sr_trace *t, char *buf, size_t len)
{
	struct dat_priv *d = t->priv;

	snprintf(buf, len, "cpu %d record at offset %llu", d->cur_cpu, d->off);
}

static void dat_close(struct sr_trace *t)
{
	struct dat_priv *d = t->priv;
	int cpu, i;

	if (!d)
		return;
	if (d->cur)
		tracecmd_free_record(d->cur);
	if (d->rec && !d->direct)
		for (cpu = 0; cpu < d->ncpus; cpu++)
			if (d->rec[cpu])
				tracecmd_free_record(d->rec[cpu]);
	for (cpu = 0; d->st && cpu < d->nst; cpu++)
		stream_release(&d->st[cpu]);
	free(d->st);
	if (d->z)
		tracecmd_compress_destroy(d->z);
	if (d->fd >= 0)
		close(d->fd);
	sr_tracedat_layout_free(&d->lay);
	if (d->in && d->in != d->top)
		tracecmd_close(d->in);
	if (d->top)
		tracecmd_close(d->top);
	free(d->rec);
	free(d->heap);
	for (i = 0; i < d->ntypes; i++)
		free(d->types[i].rq);
	free(d->types);
	kept_free(d->kept, d->nkept);
	free(d->kept_cause);
	free(d);
	t->priv = NULL;
}

const struct sr_reader_ops sr_reader_tracedat = {
	.name	= "tracedat",
	.probe	= dat_probe,
	.open	= dat_open,
	.next	= dat_next,
	.rewind	= dat_rewind,
	.where	= dat_where,
	.close	= dat_close,
};
