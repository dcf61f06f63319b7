// SPDX-License-Identifier: GPL-2.0
/*
 * Structural check of trace.dat files (v6 and v7, see trace-cmd.dat.v6(5)
 * and trace-cmd.dat.v7(5)) before libtracecmd 1.3 reads them.  libtracecmd
 * trusts what it reads: it maps CPU data past the end of a truncated file,
 * strdup()s option strings that have no NUL, recurses through looping
 * option sections, and crashes in its own cleanup when a buffer fails to
 * open.  So every number from the file is checked here with pread() and
 * explicit bounds, and the first problem is reported with its place.
 *
 * The walk reads headers only: the per-cpu data descriptors, the chunk
 * headers of compressed data and the header of every page of each cpu,
 * never the events.  Compressed data is decompressed with libtracecmd's
 * own decompressor: the header sections (event formats, kallsyms, ...),
 * because zstd without checksums can turn a damaged section into
 * plausible garbage whose sizes libtracecmd then allocates, and every
 * chunk of cpu data, whose pages libtraceevent's kbuffer trusts as much
 * as plain ones.  The texts libtraceevent parses are checked as its
 * parsers read them: event formats must be text whose print fmt names only
 * their fields, printk lines must have what tep_parse_printk_formats()
 * copies; and since its event parser has more ways to crash than these,
 * the event formats are finally parsed in a child process that may die.
 *
 * Besides the layout itself, the checks mirror what libtracecmd 1.3.1
 * does with each field (trace-input.c), so that a file that passes cannot
 * reach one of its unchecked paths: a page header without an 8-byte
 * timestamp, a page whose commit exceeds its data, a CPUSTAT option
 * of size 0, a HOOK option it cannot parse, a GUEST option with a negative
 * cpu, latency data it cannot iterate.
 */
#include "tracedat-check.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event-parse.h>

#include "schedreplay/error.h"
#include "schedreplay/event.h"
#include "tracecmd-private.h"
#include "banned.h"

#define CHK_MAX_CPUS		8192
#define CHK_WINDOW		(64u << 10)	/* rd()'s window on the file */
#define CHK_MAX_COUNT		100000		/* formats, systems, events of a system */
#define CHK_MAX_NAME		1024		/* names and other short strings */
#define CHK_MAX_OPTSECS		4096		/* v7 options sections in the chain */
#define CHK_MAX_BUFFERS		4096		/* v6 buffer instances */
#define CHK_MAX_OPTION		(16u << 20)	/* option data we look into */
#define CHK_MAX_HEADER_PAGE	(64u << 10)	/* header_page text we parse */
#define CHK_MAX_CHUNK		(256u << 20)	/* uncompressed size of one chunk */
#define CHK_MAX_METADATA	(1u << 30)	/* decompressed header sections */
#define CHK_ABSURD		(1ULL << 50)	/* offsets and sizes no file reaches */
#define CHK_MAX_BLOCK		(1u << 20)	/* a header_page, header_event or format text */
#define CHK_MAX_CMDLINES	(1u << 30)	/* saved cmdlines */
#define CHK_COMMIT_MASK		((1u << 27) - 1)	/* kbuffer's COMMIT_MASK */
#define CHK_MISSING_EVENTS	(1ull << 31)		/* kbuffer's MISSING_EVENTS */
#define CHK_MISSING_STORED	(1ull << 30)		/* and MISSING_STORED */

/* option ids (v6, v7) and section ids (v7): trace-cmd's enum tracecmd_option_id */
enum {
	OPT_DONE, OPT_DATE, OPT_CPUSTAT, OPT_BUFFER, OPT_TRACECLOCK, OPT_UNAME, OPT_HOOK,
	OPT_OFFSET, OPT_CPUCOUNT, OPT_VERSION, OPT_PROCMAPS, OPT_TRACEID, OPT_TIME_SHIFT,
	OPT_GUEST, OPT_TSC2NSEC, OPT_STRINGS, OPT_HEADER_INFO, OPT_FTRACE_EVENTS,
	OPT_EVENT_FORMATS, OPT_KALLSYMS, OPT_PRINTK, OPT_CMDLINES, OPT_BUFFER_TEXT,
	OPT__COUNT
};

static const char *const opt_names[OPT__COUNT] = {
	"DONE", "DATE", "CPUSTAT", "BUFFER", "TRACECLOCK", "UNAME", "HOOK", "OFFSET",
	"CPUCOUNT", "VERSION", "PROCMAPS", "TRACEID", "TIME_SHIFT", "GUEST", "TSC2NSEC",
	"STRINGS", "HEADER_INFO", "FTRACE_EVENTS", "EVENT_FORMATS", "KALLSYMS", "PRINTK",
	"CMDLINES", "BUFFER_TEXT",
};

/* what a v7 section of each id holds, for messages */
static const char *const sec_names[OPT__COUNT] = {
	[OPT_DONE] = "options", [OPT_BUFFER] = "flyrecord", [OPT_STRINGS] = "strings",
	[OPT_HEADER_INFO] = "header info", [OPT_FTRACE_EVENTS] = "ftrace event formats",
	[OPT_EVENT_FORMATS] = "event formats", [OPT_KALLSYMS] = "kallsyms",
	[OPT_PRINTK] = "printk formats", [OPT_CMDLINES] = "saved cmdlines",
	[OPT_BUFFER_TEXT] = "latency",
};

#define SEC_FL_COMPRESS		1

/* a v6 buffer instance, from a BUFFER option of the top buffer */
struct chk_buffer {
	uint64_t off;
	char name[64];
};

struct chk {
	int fd;
	uint64_t size;			/* of the file */
	unsigned char win[CHK_WINDOW];	/* rd()'s window on the file */
	/* the event formats, parsed apart once the walk is done */
	struct chk_format *fmts;
	size_t nfmt, fmt_cap;
	char *fmt;
	size_t fmt_len, fmt_buf_cap;
	uint64_t win_off, win_len;
	int big;			/* numbers are big-endian */
	int long_size;
	uint32_t page_size;
	int compressed;			/* v7 and the compression is not "none" */
	char zname[CHK_MAX_NAME];	/* the compression */
	char zver[CHK_MAX_NAME];
	struct tracecmd_compression *z;	/* its decompressor, once needed */
	struct tep_handle *tep;		/* for the decompressor: the file's endianness */
	int z_failed;			/* no decompressor: compressed data unchecked */
	int commit_size;		/* of the ring-buffer page header, 0 = unknown */
	int have_header_info;		/* v7: a HEADER_INFO option was seen */
	char **cause;
	/* the region walked: the whole file, or the data of one v7 section */
	uint64_t end;
	char region[96];
	const unsigned char *mem;	/* the region is decompressed data, not the file */
	/* v7: options sections already walked, against loops */
	uint64_t optsec[CHK_MAX_OPTSECS];
	int noptsec;
	/* the layout of the cpu data, when asked for (pages then unchecked) */
	struct sr_tracedat_layout *lay;
	char cur_buffer[64];		/* the buffer whose cpu data is walked */
	/* v6: the top buffer's options */
	uint32_t ncpus;
	int trace_clock;
	struct chk_buffer *buffers;
	int nbuffers;
};

/* a region saved while a nested one is walked */
struct chk_region {
	uint64_t end;
	char region[96];
	const unsigned char *mem;
};

/* state of one run of options (v6 after "options  ", v7 in one section) */
struct chk_opts {
	uint32_t *ncpus;		/* v6: updated by CPUCOUNT, NULL in v7 */
	int top;			/* v6: the top buffer's options: collect BUFFERs */
	int done;			/* v7: DONE seen */
	uint64_t next;			/* v7: DONE's offset of the next options section */
};

static int fail(struct chk *c, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(struct chk *c, int err, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	/* offsets inside decompressed data: say which */
	if (c->mem && !strstr(buf, c->region))
		sr_cause_set(c->cause, "%s (offsets in %s)", buf, c->region);
	else
		sr_cause_set(c->cause, "%s", buf);
	return err;
}

static const char *opt_name(unsigned int id)
{
	return id < OPT__COUNT ? opt_names[id] : "unknown";
}

static const char *sec_name(unsigned int id)
{
	return id < OPT__COUNT && sec_names[id] ? sec_names[id] : "unknown";
}

/* copy @s for a message: printable ASCII only, at most @size - 1 bytes */
static void printable(char *dst, size_t size, const char *s)
{
	size_t i;

	for (i = 0; i + 1 < size && s[i]; i++)
		dst[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
	dst[i] = '\0';
}

/* is the region a part of the file or decompressed data, rather than the file's tail? */
static int in_section(const struct chk *c)
{
	return c->mem || c->end < c->size;
}

static int truncated(struct chk *c, uint64_t off, uint64_t len, const char *place)
{
	if (off >= c->size)
		return fail(c, -SR_E_TRUNCATED, "truncated before %s: it starts at offset 0x%llx, "
			    "file ends at 0x%llx", place, (unsigned long long)off,
			    (unsigned long long)c->size);
	return fail(c, -SR_E_TRUNCATED, "truncated in %s: needs %llu bytes from offset 0x%llx, "
		    "file ends at 0x%llx (%llu of them there)", place, (unsigned long long)len,
		    (unsigned long long)off, (unsigned long long)c->size,
		    (unsigned long long)(c->size - off));
}

/*
 * A section named at @off that is not inside the file: most likely the
 * file was cut before it, unless the offset is beyond any real file.
 */
static int past_end(struct chk *c, uint64_t off, const char *place)
{
	if (off >= CHK_ABSURD)
		return fail(c, -SR_E_CORRUPT, "%s: offset is implausible", place);
	return truncated(c, off, 16, place);
}

/*
 * [off, off + len) must lie inside the region walked: past the end of the
 * file that is a truncation, past the end of a section a corruption.
 */
static int need(struct chk *c, uint64_t off, uint64_t len, const char *place)
{
	if (off <= c->end && len <= c->end - off)
		return 0;
	if (in_section(c))
		return fail(c, -SR_E_CORRUPT, "%s at offset 0x%llx: %llu bytes run past the end of "
			    "%s at 0x%llx", place, (unsigned long long)off,
			    (unsigned long long)len, c->region, (unsigned long long)c->end);
	return truncated(c, off, len, place);
}

static int rd_file(struct chk *c, uint64_t off, void *buf, size_t len, const char *place)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(c->fd, (char *)buf + done, len - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail(c, -SR_E_IO, "%s at offset 0x%llx: %s", place,
				    (unsigned long long)off, strerror(errno));
		if (n == 0)	/* the file shrank under us */
			return truncated(c, off, len, place);
		done += (size_t)n;
	}
	return 0;
}

/*
 * [off, off + len) of the region into @buf.  Small reads of the file go
 * through a window of CHK_WINDOW bytes: the walk reads sizes, format texts
 * and the header of every page mostly forward, and one pread() per small
 * read would cost more than the check is worth.
 */
static int rd(struct chk *c, uint64_t off, void *buf, size_t len, const char *place)
{
	uint64_t wlen;
	int ret;

	ret = need(c, off, len, place);
	if (ret)
		return ret;
	if (c->mem) {
		memcpy(buf, c->mem + off, len);
		return 0;
	}
	if (len > CHK_WINDOW / 4)
		return rd_file(c, off, buf, len, place);
	if (off < c->win_off || off + len > c->win_off + c->win_len) {
		wlen = c->size - off < CHK_WINDOW ? c->size - off : CHK_WINDOW;
		c->win_len = 0;
		if (wlen < len)		/* past the end of the file: let pread() say so */
			return rd_file(c, off, buf, len, place);
		ret = rd_file(c, off, c->win, (size_t)wlen, place);
		if (ret)
			return ret;
		c->win_off = off;
		c->win_len = wlen;
	}
	memcpy(buf, c->win + (off - c->win_off), len);
	return 0;
}

static uint64_t num(const struct chk *c, const unsigned char *p, int n)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)p[c->big ? n - 1 - i : i] << (8 * i);
	return v;
}

/* an @n-byte number in file endianness at *@off, which moves past it */
static int rdnum(struct chk *c, uint64_t *off, int n, uint64_t *v, const char *place)
{
	unsigned char b[8];
	int ret;

	ret = rd(c, *off, b, (size_t)n, place);
	if (ret)
		return ret;
	*v = num(c, b, n);
	*off += (uint64_t)n;
	return 0;
}

/* a NUL-terminated string of fewer than @max bytes at *@off into @buf */
static int rdstr(struct chk *c, uint64_t *off, char *buf, size_t max, const char *place)
{
	uint64_t avail = *off <= c->end ? c->end - *off : 0;
	size_t n = avail < max ? (size_t)avail : max;
	char *nul;
	int ret;

	if (!n)
		return need(c, *off, 1, place);
	ret = rd(c, *off, buf, n, place);
	if (ret)
		return ret;
	nul = memchr(buf, '\0', n);
	if (nul) {
		*off += (uint64_t)(nul - buf) + 1;
		return 0;
	}
	if (n == max)
		return fail(c, -SR_E_CORRUPT, "%s at offset 0x%llx: no NUL within %zu bytes", place,
			    (unsigned long long)*off, max);
	if (in_section(c))
		return fail(c, -SR_E_CORRUPT, "%s at offset 0x%llx: no NUL before the end of %s "
			    "at 0x%llx", place, (unsigned long long)*off, c->region,
			    (unsigned long long)c->end);
	return fail(c, -SR_E_TRUNCATED, "truncated in %s: no NUL in the %zu bytes from offset "
		    "0x%llx to the end of the file at 0x%llx", place, n,
		    (unsigned long long)*off, (unsigned long long)c->size);
}

/*
 * @len bytes of a block at *@off.  Past the end of a truncated file any
 * size is possible, so only a size beyond what such a block ever holds
 * (@max) or beyond a complete region is a corruption.
 */
static int skip(struct chk *c, uint64_t *off, uint64_t len, uint64_t max, const char *place)
{
	int ret;

	if (c->mem && len > c->end)
		return fail(c, -SR_E_CORRUPT, "%s at offset 0x%llx: size %llu is larger than %s "
			    "(%llu bytes)", place, (unsigned long long)*off, (unsigned long long)len,
			    c->region, (unsigned long long)c->end);
	if (len > max)
		return fail(c, -SR_E_CORRUPT, "%s at offset 0x%llx: size %llu is implausible",
			    place, (unsigned long long)*off, (unsigned long long)len);
	ret = need(c, *off, len, place);
	if (ret)
		return ret;
	*off += len;
	return 0;
}

/* a block preceded by its @n-byte size, at most @max bytes */
static int sized(struct chk *c, uint64_t *off, int n, uint64_t max, const char *what)
{
	char place[96];
	uint64_t len;
	int ret;

	snprintf(place, sizeof(place), "size of %s", what);
	ret = rdnum(c, off, n, &len, place);
	if (ret)
		return ret;
	return skip(c, off, len, max, what);
}

static int is_ident(int ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       ch == '_';
}

/* the name a "field:" line of an event format declares: the last word before '[' or ';' */
static void field_name(const char *p, const char *end, const char **name, size_t *len)
{
	const char *semi = memchr(p, ';', (size_t)(end - p)), *br, *e;

	*len = 0;
	if (!semi)
		return;
	br = memchr(p, '[', (size_t)(semi - p));
	e = br ? br : semi;
	while (e > p && !is_ident((unsigned char)e[-1]))
		e--;
	*name = e;
	while (*name > p && is_ident((unsigned char)(*name)[-1]))
		(*name)--;
	*len = (size_t)(e - *name);
}

/* the fields an event format declares, for bad_rec_field() */
struct chk_fields {
	struct { const char *name; size_t len; } f[64];
	int n, more;		/* more: past the 64th, not kept (looked up in the text) */
};

/*
 * the "field:" line at @p of an event format: its name in *@name, *@len
 * (0 on other lines); returns where the next line starts
 */
static const char *field_line(const char *p, const char *end, const char **name, size_t *len)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	if (!nl)
		nl = end;
	*len = 0;
	while (p < nl && (*p == ' ' || *p == '\t'))
		p++;
	if (nl - p >= 6 && !memcmp(p, "field:", 6))
		field_name(p + 6, nl, name, len);
	return nl < end ? nl + 1 : end;
}

static void collect_fields(const char *text, const char *end, struct chk_fields *fl)
{
	const char *p = text, *name;
	size_t len;

	fl->n = fl->more = 0;
	while (p < end) {
		p = field_line(p, end, &name, &len);
		if (!len)
			continue;
		if (fl->n == (int)(sizeof(fl->f) / sizeof(fl->f[0]))) {
			fl->more = 1;
			continue;
		}
		fl->f[fl->n].name = name;
		fl->f[fl->n].len = len;
		fl->n++;
	}
}

static int has_field(const char *text, const char *end, const struct chk_fields *fl,
		     const char *name, size_t len)
{
	const char *p = text, *f;
	size_t flen;
	int i;

	for (i = 0; i < fl->n; i++)
		if (fl->f[i].len == len && !memcmp(fl->f[i].name, name, len))
			return 1;
	while (fl->more && p < end) {
		p = field_line(p, end, &f, &flen);
		if (flen == len && !memcmp(f, name, len))
			return 1;
	}
	return 0;
}

/*
 * The print fmt of an event format: libtraceevent 1.7 looks up the field
 * of every "REC->name" and, for the first argument of __print_flags() and
 * __print_symbolic(), marks it without checking that it found one (a
 * crash in process_entry()).  Every REC->name outside quotes must name a
 * field the format declares.  Returns the offset of a bad name, or -1.
 */
static long bad_rec_field(const char *text, size_t len, size_t *namelen)
{
	const char *end = text + len, *p, *q, *name;
	struct chk_fields fl;

	p = memmem(text, len, "print fmt:", 10);
	if (!p)
		return -1;
	collect_fields(text, p, &fl);
	for (p += 10; p < end; p++) {
		if (*p == '"' || *p == '\'') {		/* a string or character constant */
			char quote = *p;

			for (p++; p < end && *p != quote; p++)
				if (*p == '\\')
					p++;
			continue;
		}
		if (*p != 'R' || end - p < 3 || memcmp(p, "REC", 3) ||
		    (p > text && is_ident((unsigned char)p[-1])) ||
		    (end - p > 3 && is_ident((unsigned char)p[3])))
			continue;
		q = p + 3;
		while (q < end && (*q == ' ' || *q == '\t' || *q == ')'))
			q++;
		if (end - q < 2 || memcmp(q, "->", 2))
			continue;
		for (q += 2; q < end && (*q == ' ' || *q == '\t'); q++)
			;
		for (name = q; q < end && is_ident((unsigned char)*q); q++)
			;
		if (q > name && !has_field(text, end, &fl, name, (size_t)(q - name))) {
			*namelen = (size_t)(q - name);
			return (long)(name - text);
		}
		p = q - 1;
	}
	return -1;
}

/* an event format kept for parse_formats_apart() */
struct chk_format {
	size_t off, len;	/* in chk.fmt */
	char sys[64];
	char place[224];	/* for the message */
};

static int keep_format(struct chk *c, const char *text, size_t len, const char *sys,
		       const char *what, uint64_t at)
{
	struct chk_format *f;

	if (c->nfmt == c->fmt_cap) {
		size_t cap = c->fmt_cap ? 2 * c->fmt_cap : 256;

		f = realloc(c->fmts, cap * sizeof(*f));
		if (!f)
			return -SR_E_NOMEM;
		c->fmts = f;
		c->fmt_cap = cap;
	}
	if (c->fmt_len + len + 1 > c->fmt_buf_cap) {
		size_t cap = 2 * (c->fmt_len + len + 1);
		char *nb = realloc(c->fmt, cap);

		if (!nb)
			return -SR_E_NOMEM;
		c->fmt = nb;
		c->fmt_buf_cap = cap;
	}
	f = &c->fmts[c->nfmt++];
	f->off = c->fmt_len;
	f->len = len;
	memcpy(c->fmt + c->fmt_len, text, len);
	c->fmt[c->fmt_len + len] = '\0';
	c->fmt_len += len + 1;
	printable(f->sys, sizeof(f->sys), sys);
	if (c->mem)
		snprintf(f->place, sizeof(f->place), "%s at offset 0x%llx (offsets in %s)", what,
			 (unsigned long long)at, c->region);
	else
		snprintf(f->place, sizeof(f->place), "%s at offset 0x%llx", what,
			 (unsigned long long)at);
	return 0;
}

/* the children of parse_formats_apart(), at most, and the formats below which one is enough */
#define CHK_PARSERS		4
#define CHK_FORMATS_PER_PARSER	256

/* a parse_formats_apart() child: formats [@from, @to), the one it is at in *@at */
static void parse_formats_child(const struct chk *c, size_t from, size_t to, volatile int *at)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL };
	struct tep_handle *tep;
	int fd = open("/dev/null", O_WRONLY);
	size_t i;

	if (fd >= 0) {
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
	}
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
	tep = tep_alloc();
	if (!tep)
		_exit(0);
	tep_set_file_bigendian(tep, c->big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, c->long_size);
	/* each on its own: the child exits before anything is freed */
	for (i = from; i < to; i++) {
		struct tep_event *ev = NULL;

		*at = (int)i;
		tep_parse_format(tep, &ev, c->fmt + c->fmts[i].off, c->fmts[i].len,
				 c->fmts[i].sys);
	}
	_exit(0);
}

/*
 * libtraceevent's event parser has more ways to crash on text than a
 * check can list (an expression cut short hands it a NULL token, ...):
 * every event format the walk accepted is parsed once more in a child
 * process, and one that takes the child down is refused with its place.
 * The child's output goes nowhere and it dies by the signal, not by the
 * handlers of a sanitizer or a fuzzer; the format it was at is in memory
 * shared with us.  A file of many formats (a whole tracefs has thousands)
 * is split between a child per online CPU (CHK_PARSERS at most), which
 * parse side by side; when several die, the first format that killed one
 * is the one reported, as a single child would have.
 */
static int parse_formats_apart(struct chk *c)
{
	volatile int *at;
	int status[CHK_PARSERS], ret = 0;
	pid_t pid[CHK_PARSERS];
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	size_t i, n, from, per;

	if (!c->nfmt)
		return 0;
	n = (c->nfmt + CHK_FORMATS_PER_PARSER - 1) / CHK_FORMATS_PER_PARSER;
	if (online > 0 && n > (size_t)online)
		n = (size_t)online;
	if (n > CHK_PARSERS)
		n = CHK_PARSERS;
	if (!n)
		n = 1;
	per = (c->nfmt + n - 1) / n;
	at = mmap(NULL, CHK_PARSERS * sizeof(*at), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (at == MAP_FAILED)
		return fail(c, -SR_E_NOMEM, "cannot check the event formats: %s", strerror(errno));
	fflush(NULL);
	for (i = 0, from = 0; i < n; i++, from += per) {
		size_t to = from + per < c->nfmt ? from + per : c->nfmt;

		at[i] = -1;
		status[i] = 0;
		pid[i] = from < to ? fork() : 0;
		if (pid[i] < 0) {
			ret = fail(c, -SR_E_IO, "cannot check the event formats: %s",
				   strerror(errno));
			break;
		}
		if (from >= to)
			pid[i] = -1;
		else if (!pid[i])
			parse_formats_child(c, from, to, &at[i]);
	}
	for (n = i, i = 0; i < n; i++) {
		if (pid[i] <= 0)
			continue;
		while (waitpid(pid[i], &status[i], 0) < 0 && errno == EINTR)
			;
	}
	/* the children cover the formats in order: the first to die names the first bad one */
	for (i = 0; i < n && !ret; i++) {
		if (pid[i] <= 0 || (WIFEXITED(status[i]) && !WEXITSTATUS(status[i])) ||
		    at[i] < 0 || (size_t)at[i] >= c->nfmt)
			continue;
		ret = fail(c, -SR_E_CORRUPT, "%s: libtraceevent's parser crashes on it (%s)",
			   c->fmts[at[i]].place, WIFSIGNALED(status[i]) ?
			   strsignal(WTERMSIG(status[i])) : "it exits");
	}
	munmap((void *)at, CHK_PARSERS * sizeof(*at));
	return ret;
}

/*
 * A format text (header_page, header_event, an event format) as
 * libtraceevent's tokenizer reads it: a byte that is neither printable
 * ASCII nor white space becomes a token without text, which its parser
 * then passes to strcmp() (a crash in tep_parse_event), and so does a NUL.
 * An event format's print fmt must also name only its own fields
 * (bad_rec_field()).  @what names the block, its text is [@at, @at + @len).
 */
static int format_text(struct chk *c, uint64_t at, uint64_t len, const char *what,
		       const char *sys)
{
	/* printable ASCII and \t \n \v \f \r */
	static const unsigned char is_text[256] = {
		['\t'] = 1, ['\n'] = 1, ['\v'] = 1, ['\f'] = 1, ['\r'] = 1,
		[0x20 ... 0x7e] = 1,
	};
	char *buf, shown[48];
	uint64_t i;
	long bad;
	size_t n = 0;
	int ret;

	buf = malloc(len ? len : 1);
	if (!buf)
		return -SR_E_NOMEM;
	ret = rd(c, at, buf, len, what);
	for (i = 0; !ret && i < len; i++) {
		unsigned char ch = (unsigned char)buf[i];

		if (is_text[ch])
			continue;
		ret = fail(c, -SR_E_CORRUPT, "%s at offset 0x%llx: byte 0x%02x at offset 0x%llx is "
			   "not text", what, (unsigned long long)at, ch, (unsigned long long)(at + i));
	}
	if (!ret && sys && (bad = bad_rec_field(buf, len, &n)) >= 0) {
		memcpy(shown, buf + bad, n < sizeof(shown) ? n : sizeof(shown) - 1);
		shown[n < sizeof(shown) ? n : sizeof(shown) - 1] = '\0';
		ret = fail(c, -SR_E_CORRUPT, "%s at offset 0x%llx: its print fmt refers to REC->%s "
			   "at offset 0x%llx, which is not one of its fields", what,
			   (unsigned long long)at, shown, (unsigned long long)(at + (uint64_t)bad));
	}
	/* the others are parsed when the reader meets their first record (sr_tracedat_format_check) */
	if (!ret && sys && sr_tracedat_parsed_at_open(sys))
		ret = keep_format(c, buf, (size_t)len, sys, what, at);
	free(buf);
	return ret;
}

/* an event format preceded by its @n-byte size, at most @max bytes */
static int sized_format(struct chk *c, uint64_t *off, int n, uint64_t max, const char *what,
			const char *sys)
{
	uint64_t at = *off + (uint64_t)n;
	int ret;

	ret = sized(c, off, n, max, what);
	if (ret)
		return ret;
	return format_text(c, at, *off - at, what, sys);
}

/*
 * sized(), then the block as a NUL-terminated text in *@text (the caller
 * frees it), read from *@at; *@text stays NULL for a block over @rmax bytes
 */
static int sized_text(struct chk *c, uint64_t *off, int n, uint64_t max, uint64_t rmax,
		      const char *what, uint64_t *at, char **text)
{
	uint64_t len;
	char *buf;
	int ret;

	*text = NULL;
	*at = *off + (uint64_t)n;
	ret = sized(c, off, n, max, what);
	if (ret)
		return ret;
	len = *off - *at;
	if (len > rmax)
		return 0;
	buf = malloc(len + 1);
	if (!buf)
		return -SR_E_NOMEM;
	ret = rd(c, *at, buf, len, what);
	if (ret) {
		free(buf);
		return ret;
	}
	buf[len] = '\0';
	*text = buf;
	return 0;
}

static int count(struct chk *c, uint64_t *off, uint64_t *v, const char *what)
{
	uint64_t at = *off;
	int ret;

	ret = rdnum(c, off, 4, v, what);
	if (ret)
		return ret;
	if (*v > CHK_MAX_COUNT)
		return fail(c, -SR_E_CORRUPT, "%s at offset 0x%llx: %llu is implausible (more "
			    "than %d)", what, (unsigned long long)at, (unsigned long long)*v,
			    CHK_MAX_COUNT);
	return 0;
}

/* sets the region walked, returning the previous one in @save */
static void region_enter(struct chk *c, struct chk_region *save, uint64_t end, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void region_enter(struct chk *c, struct chk_region *save, uint64_t end, const char *fmt, ...)
{
	va_list ap;

	save->end = c->end;
	save->mem = c->mem;
	memcpy(save->region, c->region, sizeof(save->region));
	c->end = end;
	c->mem = NULL;
	va_start(ap, fmt);
	vsnprintf(c->region, sizeof(c->region), fmt, ap);
	va_end(ap);
}

static void region_leave(struct chk *c, const struct chk_region *save)
{
	c->end = save->end;
	c->mem = save->mem;
	memcpy(c->region, save->region, sizeof(c->region));
}

/*
 * libtracecmd reads ring-buffer pages with the layout of this text and
 * fails (then crashes cleaning up) unless the timestamp has 8 bytes: parse
 * it with the same parser.
 */
static int header_page(struct chk *c, uint64_t off, uint64_t len)
{
	struct tep_handle *tep;
	char *buf;
	int ret, ts;

	if (!len || len > CHK_MAX_HEADER_PAGE)
		return 0;
	buf = malloc(len);
	if (!buf)
		return -SR_E_NOMEM;
	ret = rd(c, off, buf, len, "header_page block");
	if (ret)
		goto out;
	tep = tep_alloc();
	if (!tep) {
		ret = -SR_E_NOMEM;
		goto out;
	}
	tep_set_file_bigendian(tep, c->big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, c->long_size);
	tep_parse_header_page(tep, buf, len, c->long_size);
	ts = tep_get_header_timestamp_size(tep);
	c->commit_size = tep_get_header_page_size(tep);
	tep_free(tep);
	if (ts != 8)
		ret = fail(c, -SR_E_CORRUPT, "header_page block at offset 0x%llx: the page header "
			   "has no 8-byte timestamp field", (unsigned long long)off);
out:
	free(buf);
	return ret;
}

static int walk_header_info(struct chk *c, uint64_t *off)
{
	unsigned char b[13];
	uint64_t len;
	int ret;

	ret = rd(c, *off, b, 12, "header_page block");
	if (ret)
		return ret;
	if (memcmp(b, "header_page", 12))
		return fail(c, -SR_E_CORRUPT, "header_page block at offset 0x%llx: does not start "
			    "with the string \"header_page\"", (unsigned long long)*off);
	*off += 12;
	ret = rdnum(c, off, 8, &len, "size of header_page block");
	if (ret)
		return ret;
	ret = skip(c, off, len, CHK_MAX_BLOCK, "header_page block");
	if (!ret)
		ret = format_text(c, *off - len, len, "header_page block", NULL);
	if (ret)
		return ret;
	ret = header_page(c, *off - len, len);
	if (ret)
		return ret;

	ret = rd(c, *off, b, 13, "header_event block");
	if (ret)
		return ret;
	if (memcmp(b, "header_event", 13))
		return fail(c, -SR_E_CORRUPT, "header_event block at offset 0x%llx: does not start "
			    "with the string \"header_event\"", (unsigned long long)*off);
	*off += 13;
	return sized_format(c, off, 8, CHK_MAX_BLOCK, "header_event block", NULL);
}

static int walk_ftrace_events(struct chk *c, uint64_t *off)
{
	char what[96];
	uint64_t n, i;
	int ret;

	ret = count(c, off, &n, "count of ftrace event formats");
	for (i = 0; !ret && i < n; i++) {
		snprintf(what, sizeof(what), "ftrace event format %llu of %llu",
			 (unsigned long long)i + 1, (unsigned long long)n);
		ret = sized_format(c, off, 8, CHK_MAX_BLOCK, what, "ftrace");
	}
	return ret;
}

static int walk_event_formats(struct chk *c, uint64_t *off)
{
	char what[192], name[256], shown[64];
	uint64_t nsys, nev, s, e;
	int ret;

	ret = count(c, off, &nsys, "count of event systems");
	for (s = 0; !ret && s < nsys; s++) {
		snprintf(what, sizeof(what), "name of event system %llu of %llu",
			 (unsigned long long)s + 1, (unsigned long long)nsys);
		ret = rdstr(c, off, name, sizeof(name), what);
		if (ret)
			return ret;
		printable(shown, sizeof(shown), name);
		snprintf(what, sizeof(what), "count of events of system '%s'", shown);
		ret = count(c, off, &nev, what);
		for (e = 0; !ret && e < nev; e++) {
			snprintf(what, sizeof(what), "event format %llu of %llu of system '%s'",
				 (unsigned long long)e + 1, (unsigned long long)nev, shown);
			ret = sized_format(c, off, 8, CHK_MAX_BLOCK, what, name);
		}
	}
	return ret;
}

/*
 * One line of the printk formats, "addr : fmt", as libtraceevent 1.7's
 * tep_parse_printk_formats() splits it: the address up to the first ':'
 * (leading ':'s skipped), one character skipped after it, the rest
 * strdup()ed; tep_register_print_string() then drops a leading '"' and
 * looks at the last three characters.  A line without a character after
 * its ':' makes the first strdup() read past the line (past the heap
 * block on the last line), a format shorter than three characters makes
 * the second look before its copy: the line must have both.  Returns
 * NULL or what is wrong.
 */
static const char *printk_line_bad(const char *line)
{
	const char *colon, *fmt;

	while (*line == ':')
		line++;
	if (!*line)
		return NULL;	/* the library stops at an empty entry: harmless */
	colon = strchr(line, ':');
	if (!colon)
		return "has no ':'";
	if (!colon[1])
		return "ends at its ':'";
	fmt = colon + 2;
	if (*fmt == '"')
		fmt++;
	if (strnlen(fmt, 3) < 3)
		return "has a format shorter than 3 characters";
	return NULL;
}

/*
 * printk formats, "addr : fmt" lines, up to the first NUL as libtraceevent
 * reads them
 */
static int walk_printk(struct chk *c, uint64_t *off)
{
	static const char what[] = "printk formats";
	const char *bad = NULL;
	uint64_t at;
	char *buf, *line, *save = NULL;
	int ret;

	ret = sized_text(c, off, 4, UINT32_MAX, CHK_MAX_OPTION, what, &at, &buf);
	if (ret || !buf)
		return ret;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		bad = printk_line_bad(line);
		if (bad)
			break;
	}
	if (bad) {
		char shown[48];

		printable(shown, sizeof(shown), line);
		ret = fail(c, -SR_E_CORRUPT, "%s at offset 0x%llx: the line at 0x%llx %s: '%s'", what,
			   (unsigned long long)at, (unsigned long long)(at + (uint64_t)(line - buf)),
			   bad, shown);
	}
	free(buf);
	return ret;
}

/* the v6 header part, also the content of the matching v7 sections */
static int walk_block(struct chk *c, unsigned int id, uint64_t *off)
{
	switch (id) {
	case OPT_HEADER_INFO:
		return walk_header_info(c, off);
	case OPT_FTRACE_EVENTS:
		return walk_ftrace_events(c, off);
	case OPT_EVENT_FORMATS:
		return walk_event_formats(c, off);
	case OPT_KALLSYMS:
		return sized(c, off, 4, UINT32_MAX, "kallsyms");
	case OPT_PRINTK:
		return walk_printk(c, off);
	case OPT_CMDLINES:
		return sized(c, off, 8, CHK_MAX_CMDLINES, "saved cmdlines");
	}
	return 0;
}

/*
 * A ring-buffer page: an 8-byte timestamp, then the commit (a long: 4 or 8
 * bytes as the header_page text says), then the data.  libtraceevent's
 * kbuffer takes the commit's low 27 bits as the size of the data and walks
 * events up to it, and with the "missing events stored" flags it reads a
 * long right after the data: both must stay inside the page, or it reads
 * past the buffer that holds the page (a crash in kbuffer_load_subbuffer).
 * libtracecmd also fails to open a buffer whose first page is bad, and its
 * cleanup then crashes.  @b holds the page header, @n the page's number.
 */
static int page_header_ok(struct chk *c, const unsigned char *b, const char *place, uint64_t off,
			  uint64_t n, uint32_t page_size)
{
	int lsize = c->commit_size == 8 || (!c->commit_size && c->long_size == 8) ? 8 : 4;
	uint64_t flags = num(c, b + 8, lsize), commit = flags & CHK_COMMIT_MASK;
	uint64_t room = page_size - 8 - (uint64_t)lsize;

	if (commit > room)
		return fail(c, -SR_E_CORRUPT, "page %llu of %s at offset 0x%llx: commit %llu is "
			    "larger than the %llu data bytes of a %u-byte page",
			    (unsigned long long)n, place, (unsigned long long)off,
			    (unsigned long long)commit, (unsigned long long)room, page_size);
	if ((flags & CHK_MISSING_EVENTS) && (flags & CHK_MISSING_STORED) &&
	    commit + (uint64_t)lsize > room)
		return fail(c, -SR_E_CORRUPT, "page %llu of %s at offset 0x%llx: the count of missing "
			    "events after its %llu data bytes lies outside the %u-byte page",
			    (unsigned long long)n, place, (unsigned long long)off,
			    (unsigned long long)commit, page_size);
	return 0;
}

/* the header of every page of uncompressed cpu data: 16 bytes a page, never the events */
static int every_page(struct chk *c, const char *place, uint64_t off, uint64_t size,
		      uint32_t page_size)
{
	unsigned char b[16];
	uint64_t n;
	int ret;

	for (n = 0; n < size / page_size; n++) {
		ret = rd(c, off + n * page_size, b, sizeof(b), place);
		if (!ret)
			ret = page_header_ok(c, b, place, off + n * page_size, n, page_size);
		if (ret)
			return ret;
	}
	return 0;
}

/* libtracecmd's decompressor for the file's compression, NULL if there is none */
static struct tracecmd_compression *decompressor(struct chk *c)
{
	unsigned int one = 1;

	if (c->z || c->z_failed)
		return c->z;
	c->z_failed = 1;
	if (!tracecmd_compress_alloc || !tracecmd_compress_destroy)
		return NULL;
	/* it reads the sizes in block headers through a tep handle */
	c->tep = tep_alloc();
	if (!c->tep)
		return NULL;
	tep_set_file_bigendian(c->tep, c->big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(c->tep, *(unsigned char *)&one ? TEP_LITTLE_ENDIAN : TEP_BIG_ENDIAN);
	/* NULL if libtracecmd lacks the algorithm: it then refuses the file itself */
	c->z = tracecmd_compress_alloc(c->zname, c->zver, c->fd, c->tep, NULL);
	c->z_failed = !c->z;
	return c->z;
}

/*
 * Compressed data hides its pages in chunks: decompress each chunk with
 * libtracecmd's decompressor, which fails the way libtracecmd will when it
 * reads the buffer, and check the header of every page in it.  @first is
 * the number of the chunk's first page in the cpu's data; *@buf (of
 * *@cap bytes) is reused from chunk to chunk.
 */
static int chunk_pages(struct chk *c, const char *place, const char *what, uint64_t zoff,
		       uint32_t z, uint32_t u, uint64_t first, uint32_t page_size, char **buf,
		       size_t *cap)
{
	struct tracecmd_compress_chunk chunk = {
		.size = u, .zsize = z, .zoffset = (off_t)zoff, .offset = 0,
	};
	char in[192];
	uint64_t n;
	int ret;

	if (!tracecmd_uncompress_chunk || !decompressor(c))
		return 0;
	if (*cap < u) {
		char *nb = realloc(*buf, u);

		if (!nb)
			return -SR_E_NOMEM;
		*buf = nb;
		*cap = u;
	}
	if (tracecmd_uncompress_chunk(c->z, &chunk, *buf) < 0)
		return fail(c, -SR_E_CORRUPT, "%s at offset 0x%llx: %u compressed bytes do not "
			    "decompress to %u bytes", what, (unsigned long long)zoff, z, u);
	snprintf(in, sizeof(in), "%s (in %s at offset 0x%llx)", place, what,
		 (unsigned long long)zoff);
	for (n = 0; n < u / page_size; n++) {
		ret = page_header_ok(c, (unsigned char *)*buf + n * page_size, in,
				     n * page_size, first + n, page_size);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Compressed cpu data: a chunk count, then per chunk its compressed and
 * uncompressed sizes and the compressed bytes.  trace-cmd 3.x records the
 * data size without the 4-byte count, so accept the list ending at either.
 */
static int chunks(struct chk *c, const char *place, uint64_t off, uint64_t size,
		  uint32_t page_size)
{
	uint64_t p = off, end = off + size, n, i, pages = 0;
	char what[160], *buf = NULL;
	size_t cap = 0;
	int ret;

	snprintf(what, sizeof(what), "chunk count of %s", place);
	ret = rdnum(c, &p, 4, &n, what);
	if (ret)
		return ret;
	if (n > (size + 4) / 8)
		return fail(c, -SR_E_CORRUPT, "%s at offset 0x%llx: %llu chunks cannot fit in its "
			    "%llu bytes", place, (unsigned long long)off, (unsigned long long)n,
			    (unsigned long long)size);
	for (i = 0; !ret && i < n; i++) {
		unsigned char b[8];
		uint64_t z, u;

		snprintf(what, sizeof(what), "chunk %llu of %llu of %s", (unsigned long long)i + 1,
			 (unsigned long long)n, place);
		if (p + 8 > end + 4) {
			ret = fail(c, -SR_E_CORRUPT, "%s at offset 0x%llx: header runs past the end "
				   "of the cpu data at 0x%llx", what, (unsigned long long)p,
				   (unsigned long long)end);
			break;
		}
		ret = rd(c, p, b, 8, what);
		if (ret)
			break;
		z = num(c, b, 4);
		u = num(c, b + 4, 4);
		p += 8;
		if (!z)
			ret = fail(c, -SR_E_CORRUPT, "%s at offset 0x%llx: compressed size is 0", what,
				   (unsigned long long)p - 8);
		else if (!u || u % page_size || u > CHK_MAX_CHUNK)
			ret = fail(c, -SR_E_CORRUPT, "%s at offset 0x%llx: uncompressed size %llu is "
				   "not a whole number of %u-byte pages up to %u", what,
				   (unsigned long long)p - 8, (unsigned long long)u, page_size,
				   CHK_MAX_CHUNK);
		else if (z > end + 4 - p)
			ret = fail(c, -SR_E_CORRUPT, "%s at offset 0x%llx: %llu compressed bytes run "
				   "past the end of the cpu data at 0x%llx", what,
				   (unsigned long long)(p - 8), (unsigned long long)z,
				   (unsigned long long)end);
		else if (p + z > c->size)
			ret = truncated(c, p, z, what);
		else if (!c->lay)	/* a layout's reader checks the pages it decompresses */
			ret = chunk_pages(c, place, what, p - 8, (uint32_t)z, (uint32_t)u, pages,
					  page_size, &buf, &cap);
		pages += u / page_size;
		p += z;
	}
	free(buf);
	if (ret)
		return ret;
	if (p != end && p != end + 4)
		return fail(c, -SR_E_CORRUPT, "%s at offset 0x%llx: its %llu chunks end at 0x%llx, "
			    "the data at 0x%llx", place, (unsigned long long)off,
			    (unsigned long long)n, (unsigned long long)p, (unsigned long long)end);
	return 0;
}

/* the data of one cpu: [off, off + size) inside the file, and sane inside */
/* remember where a cpu's data lies, for sr_tracedat_check_layout() */
static int lay_add(struct chk *c, int cpu, uint64_t off, uint64_t size, int zipped,
		   uint32_t page_size)
{
	struct sr_tracedat_layout *l = c->lay;
	struct sr_tracedat_cpu *n;

	if ((l->ncpu & (l->ncpu - 1)) == 0) {
		n = realloc(l->cpu, (size_t)(l->ncpu ? l->ncpu * 2 : 8) * sizeof(*n));
		if (!n)
			return -SR_E_NOMEM;
		l->cpu = n;
	}
	n = &l->cpu[l->ncpu++];
	memset(n, 0, sizeof(*n));
	memcpy(n->buffer, c->cur_buffer, sizeof(n->buffer));
	n->cpu = cpu;
	n->off = off;
	n->size = size;
	n->zipped = zipped;
	n->page_size = page_size;
	return 0;
}

static int lay_buffer(struct chk *c, const char *name, uint64_t ncpus, const char *clock)
{
	struct sr_tracedat_layout *l = c->lay;
	struct sr_tracedat_buffer *n;

	if (!l)
		return 0;
	if ((l->nbuf & (l->nbuf - 1)) == 0) {
		n = realloc(l->buf, (size_t)(l->nbuf ? l->nbuf * 2 : 4) * sizeof(*n));
		if (!n)
			return -SR_E_NOMEM;
		l->buf = n;
	}
	n = &l->buf[l->nbuf++];
	memset(n, 0, sizeof(*n));
	snprintf(n->name, sizeof(n->name), "%s", name);
	snprintf(n->clock, sizeof(n->clock), "%s", clock);
	n->ncpus = (int)ncpus;
	return 0;
}

static int cpu_data(struct chk *c, const char *place, int cpu, uint64_t off, uint64_t size,
		    int zipped, uint32_t page_size)
{
	struct chk_region save;
	int ret;

	if (!size)		/* libtracecmd ignores the offset of empty data */
		return 0;
	if (c->lay) {
		ret = lay_add(c, cpu, off, size, zipped, page_size);
		if (ret)
			return ret;
	}
	if (off >= CHK_ABSURD || size >= CHK_ABSURD)
		return fail(c, -SR_E_CORRUPT, "%s: offset 0x%llx and size %llu are implausible",
			    place, (unsigned long long)off, (unsigned long long)size);
	region_enter(c, &save, c->size, "the file");
	ret = need(c, off, size, place);
	if (!ret && !zipped) {
		if (off % page_size)
			ret = fail(c, -SR_E_CORRUPT, "%s at offset 0x%llx: not aligned to the %u-byte "
				   "page size", place, (unsigned long long)off, page_size);
		else if (size % page_size)
			ret = fail(c, -SR_E_CORRUPT, "%s at offset 0x%llx: size %llu is not a whole "
				   "number of %u-byte pages", place, (unsigned long long)off,
				   (unsigned long long)size, page_size);
		else
			ret = every_page(c, place, off, size, page_size);
	} else if (!ret) {
		ret = chunks(c, place, off, size, page_size);
	}
	region_leave(c, &save);
	return ret;
}

static int page_size_ok(uint64_t ps)
{
	return ps >= 1024 && ps <= (1u << 20) && !(ps & (ps - 1));
}

static int has_nul(const unsigned char *d, uint64_t len)
{
	return memchr(d, '\0', len) != NULL;
}

/* libtracecmd's trace-clock parser passes NULL to sscanf() on "[]" */
static int clock_ok(const char *s)
{
	char *copy = strdup(s), *tok, *save = NULL, *save2 = NULL;
	int ok = 1;

	if (!copy)
		return 1;
	for (tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		if (*tok == '[') {
			ok = strtok_r(tok, "[]", &save2) != NULL;
			break;
		}
	}
	free(copy);
	return ok;
}

/*
 * libtracecmd dereferences the result of its hook parser without a check:
 * accept only what tracecmd_create_event_hook() parses (the same steps).
 */
static int hook_ok(const char *arg)
{
	char *str = strdup(arg), *tok, *save = NULL;
	size_t index;
	int ok = 0;

	if (!str)
		return 1;
	tok = strtok_r(str, ":,", &save);
	if (!tok)
		goto out;
	index = strlen(tok);
	if (arg[index] == ':' && !strtok_r(NULL, ",", &save))
		goto out;
	tok = strtok_r(NULL, ",/", &save);
	if (!tok)
		goto out;
	index = strlen(tok) + (size_t)(tok - str);
	if (arg[index] == ',' && !strtok_r(NULL, "/", &save))
		goto out;
	tok = strtok_r(NULL, ":,", &save);
	if (!tok)
		goto out;
	index = strlen(tok) + (size_t)(tok - str);
	if (arg[index] == ':' && !strtok_r(NULL, ",", &save))
		goto out;
	tok = strtok_r(NULL, ",", &save);
	if (!tok)
		goto out;
	index = strlen(tok) + (size_t)(tok - str);
	if (arg[index] == ',' && !strtok_r(NULL, "", &save))
		goto out;
	ok = 1;
out:
	free(str);
	return ok;
}

/* TIME_SHIFT: trace id, flags, cpu count, per cpu n + 3 arrays of n, then fractions */
static int time_shift_ok(const struct chk *c, const unsigned char *d, uint64_t len)
{
	uint64_t p = 12, ncpu, i, n, total = 0;

	if (len < 16)		/* libtracecmd ignores it */
		return 1;
	ncpu = num(c, d + p, 4);
	p += 4;
	if (ncpu > CHK_MAX_CPUS)
		return 0;
	for (i = 0; i < ncpu; i++) {
		if (len - p < 4)
			return 0;
		n = num(c, d + p, 4);
		p += 4;
		/* a cpu without samples makes libtracecmd read sample 0 of nothing */
		if (!n || n > (len - p) / 24)
			return 0;
		p += n * 24;
		total += n;
	}
	return p == len || len - p == total * 8;
}

/* GUEST: name, trace id, cpu count, (cpu, pid) pairs with 0 <= cpu < count */
static int guest_ok(const struct chk *c, const unsigned char *d, uint64_t len)
{
	const unsigned char *nul = memchr(d, '\0', len);
	uint64_t p, n, i;

	if (!nul)
		return 0;
	p = (uint64_t)(nul - d) + 1;
	if (len - p < 12)
		return 0;
	p += 8;
	n = num(c, d + p, 4);
	p += 4;
	if (n > CHK_MAX_CPUS || n > (len - p) / 8)
		return 0;
	for (i = 0; i < n; i++, p += 8)
		if (num(c, d + p, 4) >= n)
			return 0;
	return 1;
}

/*
 * PROCMAPS: "pid count name" and count lines; libtracecmd allocates the
 * count it reads before looking for the lines.
 */
static int procmaps_ok(const unsigned char *d, uint64_t len)
{
	unsigned int pid, n;
	uint64_t lines = 0, i;

	if (d[len - 1] != '\0')	/* libtracecmd then ignores it */
		return 1;
	if (sscanf((const char *)d, "%x %x", &pid, &n) != 2)
		return 1;
	for (i = 0; i < len; i++)
		lines += d[i] == '\n';
	return n <= lines;
}

static int check_section_ref(struct chk *c, unsigned int id, uint64_t soff, uint64_t from);
static int check_buffer_v7(struct chk *c, const char *bname, uint64_t boff, uint32_t page_size,
			   const unsigned char *ent, uint64_t ncpu);

/* v7 BUFFER / BUFFER_TEXT: offset, name, clock, [page size, cpu count, cpus] */
static int buffer_option_v7(struct chk *c, unsigned int id, const unsigned char *d, uint64_t len,
			    const char *place)
{
	const unsigned char *name, *clock, *nul;
	char shown[64];
	uint64_t p, boff, ps, ncpu;

	if (len < 9 || !(nul = memchr(d + 8, '\0', len - 8)))
		return fail(c, -SR_E_CORRUPT, "%s: no NUL-terminated buffer name", place);
	boff = num(c, d, 8);
	name = d + 8;
	p = (uint64_t)(nul - d) + 1;
	printable(shown, sizeof(shown), (const char *)name);
	if (p >= len || !(nul = memchr(d + p, '\0', len - p)))
		return fail(c, -SR_E_CORRUPT, "%s: no NUL-terminated trace clock after the buffer "
			    "name '%s'", place, shown);
	clock = d + p;
	p = (uint64_t)(nul - d) + 1;
	if (id == OPT_BUFFER_TEXT)
		return fail(c, -SR_E_UNSUPPORTED, "%s: buffer '%s' holds latency-format data, which "
			    "is not supported (only flyrecord data is)", place, shown);
	if (!clock_ok((const char *)clock))
		return fail(c, -SR_E_CORRUPT, "%s: trace clock of buffer '%s' is malformed", place,
			    shown);
	if (len - p < 8)
		return fail(c, -SR_E_CORRUPT, "%s: buffer '%s' has no page size and cpu count",
			    place, shown);
	ps = num(c, d + p, 4);
	ncpu = num(c, d + p + 4, 4);
	p += 8;
	if (ncpu > CHK_MAX_CPUS || ncpu > (len - p) / 20)
		return fail(c, -SR_E_CORRUPT, "%s: buffer '%s' declares %llu cpus, which do not "
			    "fit in the option's %llu bytes", place, shown, (unsigned long long)ncpu,
			    (unsigned long long)len);
	if (ncpu && !page_size_ok(ps))
		return fail(c, -SR_E_CORRUPT, "%s: buffer '%s' has page size %llu (not a power of "
			    "two from 1K to 1M)", place, shown, (unsigned long long)ps);
	/* the top buffer is read with the file's page size, instances with their own */
	snprintf(c->cur_buffer, sizeof(c->cur_buffer), "%s", (const char *)name);
	if (lay_buffer(c, c->cur_buffer, ncpu, (const char *)clock))
		return -SR_E_NOMEM;
	return check_buffer_v7(c, shown, boff, *name ? (uint32_t)ps : c->page_size, d + p, ncpu);
}

/*
 * One option: @id, its data at @off with @len bytes.  The data must lie in
 * the region (the file in v6, the options section in v7); known options
 * are read and checked the way libtracecmd will use them.
 */
static int check_option(struct chk *c, int v7, unsigned int id, uint64_t off, uint64_t len,
			struct chk_opts *o)
{
	unsigned char *d = NULL;
	char place[96];
	uint64_t v;
	int ret = 0;

	snprintf(place, sizeof(place), "option %s (id %u) at offset 0x%llx", opt_name(id), id,
		 (unsigned long long)off - 6);
	if (id < OPT__COUNT && id != OPT_STRINGS && len > CHK_MAX_OPTION)
		return fail(c, -SR_E_CORRUPT, "%s: size %llu is implausible", place,
			    (unsigned long long)len);
	ret = need(c, off, len, place);
	if (ret)
		return ret;
	if (id >= OPT__COUNT || id == OPT_STRINGS)
		return 0;		/* unknown: skipped by size */
	d = malloc(len ? len : 1);
	if (!d)
		return -SR_E_NOMEM;
	ret = rd(c, off, d, len, place);
	if (ret)
		goto out;

	/* options that make libtracecmd correct the timestamps it reads */
	if (c->lay && (id == OPT_OFFSET || id == OPT_TSC2NSEC || id == OPT_TIME_SHIFT ||
		       id == OPT_GUEST))
		c->lay->ts_adjust = 1;
	switch (id) {
	case OPT_DONE:		/* v7 only: v6 ends at id 0 without a size */
		if (len < 8) {
			ret = fail(c, -SR_E_CORRUPT, "%s: %llu bytes, needs 8 for the offset of the "
				   "next options section", place, (unsigned long long)len);
			break;
		}
		o->done = 1;
		o->next = num(c, d, 8);
		break;
	case OPT_DATE:
	case OPT_OFFSET:
	case OPT_UNAME:
	case OPT_VERSION:
	case OPT_TRACECLOCK:
	case OPT_HOOK:
		if (!has_nul(d, len))
			ret = fail(c, -SR_E_CORRUPT, "%s: the string is not NUL-terminated", place);
		else if (id == OPT_TRACECLOCK && !clock_ok((char *)d))
			ret = fail(c, -SR_E_CORRUPT, "%s: malformed trace clock list", place);
		else if (id == OPT_HOOK && !hook_ok((char *)d))
			ret = fail(c, -SR_E_CORRUPT, "%s: malformed event hook", place);
		if (id == OPT_TRACECLOCK)
			c->trace_clock = 1;
		break;
	case OPT_CPUSTAT:
		if (!len)
			ret = fail(c, -SR_E_CORRUPT, "%s: empty", place);
		break;
	case OPT_PROCMAPS:
		if (!len)
			ret = fail(c, -SR_E_CORRUPT, "%s: empty", place);
		else if (!procmaps_ok(d, len))
			ret = fail(c, -SR_E_CORRUPT, "%s: declares more libraries than it lists",
				   place);
		break;
	case OPT_CPUCOUNT:
		if (len < 4) {
			ret = fail(c, -SR_E_CORRUPT, "%s: %llu bytes, needs 4", place,
				   (unsigned long long)len);
			break;
		}
		v = num(c, d, 4);
		if (v > CHK_MAX_CPUS)
			ret = fail(c, -SR_E_CORRUPT, "%s: %llu cpus (more than %d)", place,
				   (unsigned long long)v, CHK_MAX_CPUS);
		else if (o->ncpus)
			*o->ncpus = (uint32_t)v;
		break;
	case OPT_TIME_SHIFT:
		if (!time_shift_ok(c, d, len))
			ret = fail(c, -SR_E_CORRUPT, "%s: malformed time-shift samples", place);
		break;
	case OPT_GUEST:
		if (!guest_ok(c, d, len))
			ret = fail(c, -SR_E_CORRUPT, "%s: malformed guest description", place);
		break;
	case OPT_BUFFER:
	case OPT_BUFFER_TEXT:
		if (v7) {
			ret = buffer_option_v7(c, id, d, len, place);
			break;
		}
		/* v6: offset, name; libtracecmd handles both ids alike */
		if (len < 9 || !memchr(d + 8, '\0', len - 8)) {
			ret = fail(c, -SR_E_CORRUPT, "%s: no NUL-terminated buffer name", place);
			break;
		}
		if (o->top) {
			struct chk_buffer *nb;

			if (c->nbuffers >= CHK_MAX_BUFFERS) {
				ret = fail(c, -SR_E_CORRUPT, "%s: more than %d buffer instances",
					   place, CHK_MAX_BUFFERS);
				break;
			}
			nb = realloc(c->buffers, (size_t)(c->nbuffers + 1) * sizeof(*nb));
			if (!nb) {
				ret = -SR_E_NOMEM;
				break;
			}
			c->buffers = nb;
			nb[c->nbuffers].off = num(c, d, 8);
			printable(nb[c->nbuffers].name, sizeof(nb->name), (const char *)d + 8);
			c->nbuffers++;
		}
		break;
	case OPT_HEADER_INFO:
	case OPT_FTRACE_EVENTS:
	case OPT_EVENT_FORMATS:
	case OPT_KALLSYMS:
	case OPT_PRINTK:
	case OPT_CMDLINES:
		if (!v7 || len < 8)	/* libtracecmd ignores these */
			break;
		ret = check_section_ref(c, id, num(c, d, 8), off - 6);
		if (!ret && id == OPT_HEADER_INFO)
			c->have_header_info = 1;
		break;
	default:
		break;
	}
out:
	free(d);
	return ret;
}

/* v6 options after "options  \0": id, size, data; id 0 ends them */
static int options_v6(struct chk *c, uint64_t *off, struct chk_opts *o)
{
	uint64_t id, len;
	int ret;

	for (;;) {
		ret = rdnum(c, off, 2, &id, "option id");
		if (ret || !id)
			return ret;
		ret = rdnum(c, off, 4, &len, "option size");
		if (ret)
			return ret;
		ret = check_option(c, 0, (unsigned int)id, *off, len, o);
		if (ret)
			return ret;
		*off += len;
	}
}

/*
 * v6 buffer data: ["options  \0" options] then "flyrecord\0" and per cpu
 * an 8-byte offset and size (or "latency  \0" and text).  libtracecmd
 * compares only the first 7 or 9 characters.
 */
static int flyrecord_v6(struct chk *c, uint64_t *off, const char *bname, uint32_t *ncpus, int top)
{
	struct chk_opts o = { .ncpus = ncpus, .top = top };
	char tag[10], place[128];
	uint64_t i, coff, csize;
	int ret;

	snprintf(place, sizeof(place), "flyrecord marker of %s", bname);
	ret = rd(c, *off, tag, sizeof(tag), place);
	if (ret)
		return ret;
	if (!strncmp(tag, "options", 7)) {
		*off += 10;
		ret = options_v6(c, off, &o);
		if (ret)
			return ret;
		ret = rd(c, *off, tag, sizeof(tag), place);
		if (ret)
			return ret;
	}
	if (!strncmp(tag, "latency", 7))
		return fail(c, -SR_E_UNSUPPORTED, "%s at offset 0x%llx: latency-format trace data is "
			    "not supported (only flyrecord data is)", bname, (unsigned long long)*off);
	if (strncmp(tag, "flyrecord", 9))
		return fail(c, -SR_E_CORRUPT, "%s at offset 0x%llx: expected the string "
			    "\"flyrecord\"%s", place, (unsigned long long)*off,
			    top ? ", \"options\" or \"latency\"" : " or \"options\"");
	*off += 10;
	ret = lay_buffer(c, c->cur_buffer, *ncpus, "");
	if (ret)
		return ret;
	for (i = 0; i < *ncpus; i++) {
		snprintf(place, sizeof(place), "cpu %llu data descriptor of %s",
			 (unsigned long long)i, bname);
		ret = rdnum(c, off, 8, &coff, place);
		if (!ret)
			ret = rdnum(c, off, 8, &csize, place);
		if (ret)
			return ret;
		snprintf(place, sizeof(place), "cpu %llu data of %s", (unsigned long long)i, bname);
		ret = cpu_data(c, place, (int)i, coff, csize, 0, c->page_size);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * With a TRACECLOCK option, libtracecmd parses the clock text that follows
 * the top buffer's cpu descriptors (an 8-byte size, then the text), and
 * its parser passes NULL to sscanf() on a "[" without a name.
 */
static int trace_clock_v6(struct chk *c, uint64_t *off)
{
	static const char what[] = "trace clock after the cpu descriptors";
	uint64_t at;
	char *buf;
	int ret;

	ret = sized_text(c, off, 8, CHK_MAX_BLOCK, CHK_MAX_BLOCK, what, &at, &buf);
	if (ret || !buf)
		return ret;
	if (!clock_ok(buf))
		ret = fail(c, -SR_E_CORRUPT, "%s at offset 0x%llx: malformed trace clock list",
			   what, (unsigned long long)at);
	free(buf);
	return ret;
}

static int check_v6(struct chk *c, uint64_t off)
{
	static const unsigned int blocks[] = {
		OPT_HEADER_INFO, OPT_FTRACE_EVENTS, OPT_EVENT_FORMATS, OPT_KALLSYMS, OPT_PRINTK,
		OPT_CMDLINES,
	};
	char bname[96];
	uint64_t v;
	size_t i;
	int ret;

	for (i = 0; i < sizeof(blocks) / sizeof(blocks[0]); i++) {
		ret = walk_block(c, blocks[i], &off);
		if (ret)
			return ret;
	}
	ret = rdnum(c, &off, 4, &v, "cpu count");
	if (ret)
		return ret;
	if (v > CHK_MAX_CPUS)
		return fail(c, -SR_E_CORRUPT, "cpu count at offset 0x%llx: %llu (more than %d)",
			    (unsigned long long)off - 4, (unsigned long long)v, CHK_MAX_CPUS);
	c->ncpus = (uint32_t)v;
	c->cur_buffer[0] = '\0';
	ret = flyrecord_v6(c, &off, "the top buffer", &c->ncpus, 1);
	if (ret)
		return ret;
	if (c->trace_clock) {
		ret = trace_clock_v6(c, &off);
		if (ret)
			return ret;
	}
	for (i = 0; i < (size_t)c->nbuffers; i++) {
		uint32_t ncpus = c->ncpus;	/* an instance starts as a copy of the top */
		uint64_t boff = c->buffers[i].off;

		snprintf(bname, sizeof(bname), "buffer '%s'", c->buffers[i].name);
		memcpy(c->cur_buffer, c->buffers[i].name, sizeof(c->cur_buffer));
		if (boff >= CHK_ABSURD)
			return fail(c, -SR_E_CORRUPT, "%s: offset 0x%llx is implausible", bname,
				    (unsigned long long)boff);
		ret = flyrecord_v6(c, &boff, bname, &ncpus, 0);
		if (ret)
			return ret;
	}
	return 0;
}

/* a v7 section header at @off: id, flags, string id, size; its data inside the file */
static int section_header(struct chk *c, uint64_t off, const char *place, unsigned int *id,
			  unsigned int *flags, uint64_t *size)
{
	unsigned char h[16];
	int ret;

	ret = rd(c, off, h, sizeof(h), place);
	if (ret)
		return ret;
	*id = (unsigned int)num(c, h, 2);
	*flags = (unsigned int)num(c, h + 2, 2);
	*size = num(c, h + 8, 8);
	if (*size >= CHK_ABSURD)
		return fail(c, -SR_E_CORRUPT, "%s: size %llu is implausible", place,
			    (unsigned long long)*size);
	return need(c, off + 16, *size, place);
}

/* a compressed section starts with its compressed and uncompressed sizes */
static int compress_header(struct chk *c, uint64_t off, uint64_t size, const char *place)
{
	unsigned char b[8];
	uint64_t z;
	int ret;

	if (size < 8)
		return fail(c, -SR_E_CORRUPT, "%s: compressed, but its %llu bytes cannot hold the "
			    "compression header", place, (unsigned long long)size);
	ret = rd(c, off + 16, b, sizeof(b), place);
	if (ret)
		return ret;
	z = num(c, b, 4);
	if (z > size - 8)
		return fail(c, -SR_E_CORRUPT, "%s: %llu compressed bytes do not fit in the section's "
			    "%llu bytes", place, (unsigned long long)z, (unsigned long long)size);
	return 0;
}

/*
 * A compressed header section: zstd frames carry no checksum here, so a
 * damaged section can decompress to plausible garbage whose sizes
 * libtracecmd then allocates.  Decompress it as libtracecmd will (the
 * sections are a few megabytes) and walk the result.
 */
static int walk_compressed(struct chk *c, unsigned int id, uint64_t soff, const char *place)
{
	struct chk_region save;
	unsigned char b[8];
	uint64_t u, p = 0;
	char *data;
	int n, ret;

	if (!tracecmd_uncompress_block || !tracecmd_compress_buffer_read || !decompressor(c))
		return 0;
	ret = rd(c, soff + 16, b, sizeof(b), place);
	if (ret)
		return ret;
	u = num(c, b + 4, 4);
	if (u > CHK_MAX_METADATA)
		return fail(c, -SR_E_CORRUPT, "%s: uncompressed size %llu is implausible", place,
			    (unsigned long long)u);
	data = malloc(u ? u : 1);
	if (!data)
		return -SR_E_NOMEM;
	/* libtracecmd's buffers: a failed malloc() is not a damaged section */
	errno = 0;
	if (lseek(c->fd, (off_t)(soff + 16), SEEK_SET) == (off_t)-1 ||
	    tracecmd_uncompress_block(c->z) < 0) {
		free(data);
		if (errno == ENOMEM)
			return -SR_E_NOMEM;
		return fail(c, -SR_E_CORRUPT, "%s: does not decompress", place);
	}
	n = u ? tracecmd_compress_buffer_read(c->z, data, (int)u) : 0;
	if (n < 0)
		n = 0;
	region_enter(c, &save, (uint64_t)n, "the decompressed %s section at 0x%llx", sec_name(id),
		     (unsigned long long)soff);
	c->mem = (unsigned char *)data;
	ret = walk_block(c, id, &p);
	region_leave(c, &save);
	free(data);
	return ret;
}

/* a section named by option @id (16..21) at @soff; @from: where the option is */
static int check_section_ref(struct chk *c, unsigned int id, uint64_t soff, uint64_t from)
{
	unsigned int sid, flags;
	char place[128];
	struct chk_region save, inner;
	uint64_t size, p;
	int ret;

	snprintf(place, sizeof(place), "%s section at offset 0x%llx (option %s at 0x%llx)",
		 sec_name(id), (unsigned long long)soff, opt_name(id), (unsigned long long)from);
	if (soff >= c->size || c->size - soff < 16)
		return past_end(c, soff, place);
	/* the option lies in an options section; the section it names is elsewhere */
	region_enter(c, &save, c->size, "the file");
	ret = section_header(c, soff, place, &sid, &flags, &size);
	if (!ret && sid != id)
		ret = fail(c, -SR_E_CORRUPT, "%s: section id is %u (%s), expected %u", place, sid,
			   sec_name(sid), id);
	if (!ret && (flags & SEC_FL_COMPRESS) && c->compressed) {
		ret = compress_header(c, soff, size, place);
		if (!ret)
			ret = walk_compressed(c, id, soff, place);
	} else if (!ret) {
		/* plain: walk it as the v6 header part, inside the section */
		region_enter(c, &inner, soff + 16 + size, "the %s section at 0x%llx",
			     sec_name(id), (unsigned long long)soff);
		p = soff + 16;
		ret = walk_block(c, id, &p);
		region_leave(c, &inner);
	}
	region_leave(c, &save);
	return ret;
}

/* a v7 flyrecord section and the data of each of its cpus; @bname "" is the top buffer */
static int check_buffer_v7(struct chk *c, const char *bname, uint64_t boff, uint32_t page_size,
			   const unsigned char *ent, uint64_t ncpu)
{
	unsigned char seen[CHK_MAX_CPUS / 8] = { 0 };
	char who[96], place[160];
	unsigned int id, flags;
	struct chk_region save;
	uint64_t size, i;
	int ret, zipped;

	if (*bname)
		snprintf(who, sizeof(who), "buffer '%s'", bname);
	else
		snprintf(who, sizeof(who), "the top buffer");
	snprintf(place, sizeof(place), "flyrecord section of %s at offset 0x%llx", who,
		 (unsigned long long)boff);
	if (boff >= c->size || c->size - boff < 16)
		return past_end(c, boff, place);
	region_enter(c, &save, c->size, "the file");
	ret = section_header(c, boff, place, &id, &flags, &size);
	region_leave(c, &save);
	if (ret)
		return ret;
	if (id != OPT_BUFFER)
		return fail(c, -SR_E_CORRUPT, "%s: section id is %u (%s), expected %u", place, id,
			    sec_name(id), OPT_BUFFER);
	zipped = !!(flags & SEC_FL_COMPRESS);
	if (zipped && !c->compressed)
		return fail(c, -SR_E_CORRUPT, "%s: marked compressed in a file without compression",
			    place);
	for (i = 0; i < ncpu; i++, ent += 20) {
		uint64_t cpu = num(c, ent, 4), coff = num(c, ent + 4, 8), csize = num(c, ent + 12, 8);

		if (cpu >= CHK_MAX_CPUS)
			return fail(c, -SR_E_CORRUPT, "cpu entry %llu of %s: cpu id %llu is not below "
				    "%d", (unsigned long long)i, who, (unsigned long long)cpu,
				    CHK_MAX_CPUS);
		if (seen[cpu / 8] & (1u << (cpu % 8)))
			return fail(c, -SR_E_CORRUPT, "cpu entry %llu of %s: cpu %llu is described "
				    "twice", (unsigned long long)i, who, (unsigned long long)cpu);
		seen[cpu / 8] |= (unsigned char)(1u << (cpu % 8));
		snprintf(place, sizeof(place), "cpu %llu data of %s", (unsigned long long)cpu, who);
		ret = cpu_data(c, place, (int)cpu, coff, csize, zipped, page_size);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Every v7 section follows the previous one up to the end of the file
 * (libtracecmd walks them this way to find the strings sections): a
 * section that runs past the end is where a truncated file was cut.
 */
static int walk_sections(struct chk *c, uint64_t off)
{
	uint64_t prev = 0, size;
	unsigned int id, flags, prev_id = 0;
	unsigned char h[16];
	char place[160];
	int ret;

	while (off < c->size) {
		if (prev)
			snprintf(place, sizeof(place), "section header at offset 0x%llx (after the %s "
				 "section at 0x%llx)", (unsigned long long)off, sec_name(prev_id),
				 (unsigned long long)prev);
		else
			snprintf(place, sizeof(place), "section header at offset 0x%llx",
				 (unsigned long long)off);
		ret = rd(c, off, h, sizeof(h), place);
		if (ret)
			return ret;
		id = (unsigned int)num(c, h, 2);
		flags = (unsigned int)num(c, h + 2, 2);
		size = num(c, h + 8, 8);
		/* a damaged size sends the walk into data: say where it came from */
		if (size >= CHK_ABSURD)
			return fail(c, -SR_E_CORRUPT, "%s: id %u, size %llu is implausible", place, id,
				    (unsigned long long)size);
		snprintf(place, sizeof(place), "%s section (id %u) at offset 0x%llx", sec_name(id),
			 id, (unsigned long long)off);
		ret = need(c, off + 16, size, place);
		if (ret)
			return ret;
		if ((flags & SEC_FL_COMPRESS) && c->compressed && size && id != OPT_BUFFER &&
		    id != OPT_BUFFER_TEXT) {
			ret = compress_header(c, off, size, place);
			if (ret)
				return ret;
		}
		prev = off;
		prev_id = id;
		off += 16 + size;
	}
	return 0;
}

/* the chain of v7 options sections, each ending with DONE and the next offset */
static int options_chain_v7(struct chk *c, uint64_t off, uint64_t from)
{
	char place[160];
	unsigned int id, flags;
	struct chk_region save;
	uint64_t size, p, at, oid, len;
	int i, ret;

	while (off) {
		struct chk_opts o = { 0 };

		snprintf(place, sizeof(place), "options section at offset 0x%llx (pointed to from "
			 "0x%llx)", (unsigned long long)off, (unsigned long long)from);
		for (i = 0; i < c->noptsec; i++)
			if (c->optsec[i] == off)
				return fail(c, -SR_E_CORRUPT, "%s: reached a second time, the options "
					    "sections form a loop", place);
		if (c->noptsec == CHK_MAX_OPTSECS)
			return fail(c, -SR_E_CORRUPT, "%s: more than %d options sections", place,
				    CHK_MAX_OPTSECS);
		c->optsec[c->noptsec++] = off;
		if (off >= c->size || c->size - off < 16)
			return past_end(c, off, place);
		ret = section_header(c, off, place, &id, &flags, &size);
		if (ret)
			return ret;
		if (id != OPT_DONE)
			return fail(c, -SR_E_CORRUPT, "%s: section id is %u (%s), expected 0 "
				    "(options)", place, id, sec_name(id));
		if ((flags & SEC_FL_COMPRESS) && c->compressed)
			return fail(c, -SR_E_UNSUPPORTED, "%s: compressed options sections cannot be "
				    "checked and are not supported", place);
		region_enter(c, &save, off + 16 + size, "the options section at 0x%llx",
			     (unsigned long long)off);
		p = at = off + 16;
		ret = 0;
		while (!ret && !o.done) {
			at = p;
			if (p == c->end) {
				ret = fail(c, -SR_E_CORRUPT, "%s: ends at 0x%llx without a DONE option",
					   place, (unsigned long long)p);
				break;
			}
			ret = rdnum(c, &p, 2, &oid, "option id");
			if (!ret)
				ret = rdnum(c, &p, 4, &len, "option size");
			if (!ret)
				ret = check_option(c, 1, (unsigned int)oid, p, len, &o);
			p += len;
		}
		region_leave(c, &save);
		if (ret)
			return ret;
		from = at;
		off = o.next;
	}
	return 0;
}

static int check_v7(struct chk *c, uint64_t off)
{
	char name[CHK_MAX_NAME], ver[CHK_MAX_NAME], sn[64], sv[64];
	uint64_t opts;
	int ret;

	ret = rdstr(c, &off, name, sizeof(name), "compression name");
	if (!ret)
		ret = rdstr(c, &off, ver, sizeof(ver), "compression version");
	if (ret)
		return ret;
	printable(sn, sizeof(sn), name);
	printable(sv, sizeof(sv), ver);
	memcpy(c->zname, name, sizeof(c->zname));
	memcpy(c->zver, ver, sizeof(c->zver));
	if (!strcmp(name, "none"))
		c->compressed = 0;
	else if (!strcmp(name, "zstd") || !strcmp(name, "zlib"))
		c->compressed = 1;
	else
		return fail(c, -SR_E_UNSUPPORTED, "compression name at offset 0x%llx: '%s' (version "
			    "'%s') is not supported", (unsigned long long)(off - strlen(name) -
									 strlen(ver) - 2), sn, sv);
	ret = rdnum(c, &off, 8, &opts, "offset of the first options section");
	if (ret)
		return ret;
	ret = walk_sections(c, off);
	if (ret)
		return ret;
	if (!opts)
		return fail(c, -SR_E_CORRUPT, "offset of the first options section at 0x%llx: 0, "
			    "the file has no options", (unsigned long long)off - 8);
	ret = options_chain_v7(c, opts, off - 8);
	if (ret)
		return ret;
	if (!c->have_header_info)
		return fail(c, -SR_E_CORRUPT, "no HEADER_INFO option: the file does not say where "
			    "its ring-buffer header formats are");
	return 0;
}

static int check_fd(struct chk *c)
{
	static const unsigned char magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	unsigned char b[16];
	char ver[16], *end;
	uint64_t off = 0, v;
	long version;
	int ret;

	ret = rd(c, off, b, sizeof(magic), "magic");
	if (ret)
		return ret;
	if (memcmp(b, magic, sizeof(magic)))
		return fail(c, -SR_E_FORMAT, "not a trace.dat file: no trace.dat magic at offset 0");
	off += sizeof(magic);
	ret = rdstr(c, &off, ver, sizeof(ver), "version string");
	if (ret)
		return ret;
	errno = 0;
	version = strtol(ver, &end, 10);
	if (!ver[0] || *end || errno || version < 0) {
		char shown[16];

		printable(shown, sizeof(shown), ver);
		return fail(c, -SR_E_CORRUPT, "version string at offset 0x%zx: '%s' is not a number",
			    sizeof(magic), shown);
	}
	if (version != 6 && version != 7)
		return fail(c, -SR_E_UNSUPPORTED, "version string at offset 0x%zx: trace.dat version "
			    "%ld is not supported (6 and 7 are)", sizeof(magic), version);
	ret = rd(c, off, b, 2, "endianness and long size");
	if (ret)
		return ret;
	if (b[0] > 1)
		return fail(c, -SR_E_CORRUPT, "endianness byte at offset 0x%llx: %u (0 = little, "
			    "1 = big endian)", (unsigned long long)off, b[0]);
	if (b[1] != 4 && b[1] != 8)
		return fail(c, -SR_E_CORRUPT, "long size at offset 0x%llx: %u (4 or 8)",
			    (unsigned long long)off + 1, b[1]);
	c->big = b[0];
	c->long_size = b[1];
	off += 2;
	ret = rdnum(c, &off, 4, &v, "page size");
	if (ret)
		return ret;
	if (!page_size_ok(v))
		return fail(c, -SR_E_CORRUPT, "page size at offset 0x%llx: %llu (not a power of two "
			    "from 1K to 1M)", (unsigned long long)off - 4, (unsigned long long)v);
	c->page_size = (uint32_t)v;
	if (c->lay)
		c->lay->version = (int)version;
	return version == 6 ? check_v6(c, off) : check_v7(c, off);
}

static int check_path(const char *path, struct sr_tracedat_layout *lay, char **cause)
{
	struct stat st;
	struct chk *c;
	int ret;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -SR_E_NOMEM;
	c->cause = cause;
	c->lay = lay;
	c->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (c->fd < 0) {
		ret = fail(c, -SR_E_IO, "cannot open: %s", strerror(errno));
		free(c);
		return ret;
	}
	if (fstat(c->fd, &st) < 0) {
		ret = fail(c, -SR_E_IO, "cannot stat: %s", strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		ret = fail(c, -SR_E_FORMAT, "not a regular file: its structure cannot be checked");
	} else {
		c->size = (uint64_t)st.st_size;
		c->end = c->size;
		snprintf(c->region, sizeof(c->region), "the file");
		ret = check_fd(c);
		if (!ret)
			ret = parse_formats_apart(c);
		if (lay && c->compressed) {
			sr_strlcpy(lay->zname, c->zname, sizeof(lay->zname));
			sr_strlcpy(lay->zver, c->zver, sizeof(lay->zver));
		}
	}
	if (c->z)
		tracecmd_compress_destroy(c->z);
	if (c->tep)
		tep_free(c->tep);
	close(c->fd);
	free(c->buffers);
	free(c->fmts);
	free(c->fmt);
	free(c);
	return ret;
}

int sr_tracedat_parsed_at_open(const char *sys)
{
	return !strcmp(sys, "sched") || !strcmp(sys, "schedreplay") || !strcmp(sys, "ftrace");
}

int sr_tracedat_format_check(const char *text, size_t len, const char *sys, int id, int big,
			     int long_size, char **cause)
{
	struct chk *c = calloc(1, sizeof(*c));
	int ret;

	if (!c)
		return -SR_E_NOMEM;
	c->cause = cause;
	c->big = big;
	c->long_size = long_size;
	ret = keep_format(c, text, len, sys, "", 0);
	if (!ret) {
		char shown[64];

		printable(shown, sizeof(shown), sys);
		snprintf(c->fmts[0].place, sizeof(c->fmts[0].place),
			 "event format of id %d of system '%s'", id, shown);
		ret = parse_formats_apart(c);
	}
	free(c->fmts);
	free(c->fmt);
	free(c);
	return ret;
}

int sr_tracedat_check(const char *path, char **cause)
{
	return check_path(path, NULL, cause);
}

int sr_tracedat_check_layout(const char *path, struct sr_tracedat_layout *lay, char **cause)
{
	memset(lay, 0, sizeof(*lay));
	return check_path(path, lay, cause);
}

void sr_tracedat_layout_free(struct sr_tracedat_layout *lay)
{
	free(lay->cpu);
	free(lay->buf);
	memset(lay, 0, sizeof(*lay));
}

int sr_tracedat_page_ok(const unsigned char *page, unsigned page_size, int commit_size, int big,
			const char **why)
{
	uint64_t flags = 0, commit, room;
	int lsize = commit_size == 8 ? 8 : 4, i;

	for (i = 0; i < lsize; i++)
		flags |= (uint64_t)page[8 + (big ? lsize - 1 - i : i)] << (8 * i);
	commit = flags & CHK_COMMIT_MASK;
	room = page_size - 8 - (uint64_t)lsize;
	if (commit > room) {
		*why = "its commit is larger than the page's data";
		return -1;
	}
	if ((flags & CHK_MISSING_EVENTS) && (flags & CHK_MISSING_STORED) &&
	    commit + (uint64_t)lsize > room) {
		*why = "its count of missing events lies outside the page";
		return -1;
	}
	return 0;
}
