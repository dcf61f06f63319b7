// SPDX-License-Identifier: GPL-2.0
/*
 * The ftrace text reader: tracefs `trace` files (with or without the
 * irq-flags column and Android's TGID column) and `trace-cmd report` output
 * (field=value text, the -R raw form with numeric prev_state, and the compact
 * form of the sched_switch plugin; microsecond or nanosecond timestamps).
 *
 * Lines come from one bounded buffer and are parsed by hand, field by field
 * in the order each tracepoint prints them: a comm may hold spaces, dashes,
 * colons or '=', so a value ends where the next known field name starts, not
 * at the next space.  Nothing outlives the line it came from, so memory does
 * not grow with the length of the trace.
 */
#include "reader-local.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "schedreplay/error.h"
#include "strtab.h"
#include "banned.h"

#define TEXT_BUF_INIT	(256 * 1024)
#define TEXT_LINE_MAX	(4 * 1024 * 1024)	/* longer lines are corruption */
#define TEXT_MAX_CPU	65535			/* the core applies its own, lower limit; bad_line() says it */
#define TEXT_NAME_MAX	255
#define TEXT_MAX_NAMES	16384			/* distinct event names; interned for good */

enum text_flavor {
	TEXT_PLAIN,	/* event lines with no header (trace_pipe, cut files) */
	TEXT_TRACEFS,	/* "# tracer: nop" */
	TEXT_TRACECMD,	/* "version = 6" / "cpus=N" */
};

/* what the reader keeps of an event name, by its number in text_priv.names */
struct text_name {
	const char *name;	/* interned (sr_intern) */
	enum sr_event_kind kind;
};

struct text_priv {
	struct sr_rqstat rqstat;	/* the last rqstat line's fields */
	char rq_key[32];		/* the rqstat field an error names */
	int fd;
	char *buf;
	size_t cap;
	size_t start;		/* first unconsumed byte */
	size_t scan;		/* bytes from start already known to hold no '\n' */
	size_t end;		/* end of data in buf */
	int eof;

	unsigned long long lineno;	/* line number of the last line read */
	unsigned long long ev_line;	/* line of the last event handed out */

	/* the first event line, read by open() and handed to next() */
	/* a line to read again: the first event line open() saw, or a lost marker */
	int pending;
	const char *pline;
	size_t plen;

	/* the record read ahead to time a lost marker */
	int queued;
	struct sr_event qev;
	unsigned long long qev_line;

	uint64_t last_ts;
	int last_digits;
	int have_ts;

	struct sr_strtab names;		/* the event names seen */
	struct text_name *name_info;	/* by name number */
	size_t name_info_cap;
	size_t nnames;			/* names.n */

	char mark[1024];		/* the text of the last trace_marker write */
};

/* The common prefix of an event line, up to the event name. */
struct text_line {
	int pid;
	int cpu;
	int has_tgid;
	int ctx;		/* enum sr_event_ctx, from the irq-flags column */
	int softirq;		/* that column's 's': a softirq being served */
	uint64_t ts;
	int digits;		/* fraction digits of the timestamp */
	const char *name;
	size_t name_len;
	const char *body;	/* after "name:" and its padding */
	const char *end;	/* end of line, trailing blanks trimmed */
};

static inline int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static int has_prefix(const char *s, const char *e, const char *pfx)
{
	size_t n = strlen(pfx);

	return (size_t)(e - s) >= n && !memcmp(s, pfx, n);
}

static const char *skip_blanks(const char *p, const char *e)
{
	while (p < e && is_blank(*p))
		p++;
	return p;
}

/*
 * Parse a decimal (optionally negative) or 0x-hex integer filling [s, e)
 * exactly.  Return: 0, or -1 when it is not a number or overflows.
 */
static int parse_ll(const char *s, const char *e, long long *out)
{
	unsigned long long v = 0, lim;
	int neg = 0;

	if (s < e && *s == '-') {
		neg = 1;
		s++;
	}
	if (s >= e)
		return -1;
	lim = neg ? (unsigned long long)LLONG_MAX + 1 : (unsigned long long)LLONG_MAX;
	if (e - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		for (s += 2; s < e; s++) {
			unsigned d;

			if (is_digit(*s))
				d = *s - '0';
			else if (*s >= 'a' && *s <= 'f')
				d = *s - 'a' + 10;
			else if (*s >= 'A' && *s <= 'F')
				d = *s - 'A' + 10;
			else
				return -1;
			if (v > (lim - d) / 16)
				return -1;
			v = v * 16 + d;
		}
	} else {
		for (; s < e; s++) {
			unsigned d;

			if (!is_digit(*s))
				return -1;
			d = *s - '0';
			if (v > (lim - d) / 10)
				return -1;
			v = v * 10 + d;
		}
	}
	*out = neg ? (long long)(0 - v) : (long long)v;
	return 0;
}

static int parse_int(const char *s, const char *e, int *out)
{
	long long v;

	if (parse_ll(s, e, &v) || v < INT_MIN || v > INT_MAX)
		return -1;
	*out = (int)v;
	return 0;
}

/* "SSSS.FFFFFF" (any 1..9 fraction digits; more are truncated) or a bare count */
static int parse_ts(const char *s, const char *e, uint64_t *ns, int *digits)
{
	static const uint32_t scale[10] = {
		1000000000, 100000000, 10000000, 1000000, 100000,
		10000, 1000, 100, 10, 1
	};
	uint64_t sec = 0, frac = 0;
	const char *p = s;
	int n = 0;

	for (; p < e && is_digit(*p); p++) {
		if (sec > (UINT64_MAX - 9) / 10)
			return -1;
		sec = sec * 10 + (*p - '0');
	}
	if (p == s)
		return -1;
	if (p == e) {
		*ns = sec;
		*digits = 0;
		return 0;
	}
	if (*p != '.' || ++p == e)
		return -1;
	for (; p < e; p++) {
		if (!is_digit(*p))
			return -1;
		if (n < 9) {
			frac = frac * 10 + (*p - '0');
			n++;
		}
	}
	if (sec > (UINT64_MAX - 999999999ULL) / 1000000000ULL)
		return -1;
	*ns = sec * 1000000000ULL + frac * scale[n];
	*digits = n;
	return 0;
}

static void fmt_ts(char *buf, size_t len, uint64_t ns, int digits)
{
	char *dot;

	if (digits <= 0) {
		snprintf(buf, len, "%llu", (unsigned long long)ns);
		return;
	}
	snprintf(buf, len, "%llu.%09llu", (unsigned long long)(ns / 1000000000ULL),
		 (unsigned long long)(ns % 1000000000ULL));
	dot = strchr(buf, '.');
	if (dot && digits < 9 && (size_t)(dot + 1 + digits - buf) < len)
		dot[1 + digits] = '\0';
}

/* how far a line got towards the shape of an event line */
enum {
	PFX_OK,
	PFX_NO_TASK = -1,	/* no "<comm>-<pid> [<cpu>]" */
	PFX_BAD_CPU = -2,	/* "[<cpu>]" above TEXT_MAX_CPU */
	PFX_BAD_PID = -3,	/* "-<pid>" above INT_MAX */
	PFX_NO_TS = -4,		/* no "<sec>.<frac>:" after the cpu */
	PFX_NO_NAME = -5,	/* no "<event>:" after the timestamp */
};

/*
 * From a '[' candidate, try to read "<comm>-<pid> [(<tgid>)] [<cpu>] [<flags>]
 * <ts>: <name>: <body>".  @s is the start of the line.
 */

static int parse_prefix_at(const char *s, const char *br, const char *e, struct text_line *l)
{
	const char *p, *q, *b, *d, *tok, *tend;
	int pid, cpu, i;

	/* [cpu] */
	for (q = br + 1; q < e && is_digit(*q); q++)
		;
	if (q == br + 1 || q >= e || *q != ']' || q - br > 8)
		return PFX_NO_TASK;
	if (parse_int(br + 1, q, &cpu) || cpu > TEXT_MAX_CPU)
		return PFX_BAD_CPU;

	/* back over blanks, the optional (tgid), blanks, then "-<pid>" */
	l->has_tgid = 0;
	b = br;
	while (b > s && is_blank(b[-1]))
		b--;
	if (b > s && b[-1] == ')') {
		const char *t = b - 1;

		while (t > s && t[-1] != '(') {
			char c = t[-1];

			if (!is_digit(c) && c != '-' && c != ' ')
				return PFX_NO_TASK;
			t--;
		}
		if (t == s)
			return PFX_NO_TASK;
		b = t - 1;
		while (b > s && is_blank(b[-1]))
			b--;
		l->has_tgid = 1;
	}
	for (d = b; d > s && is_digit(d[-1]); d--)
		;
	if (d == b || d == s || d[-1] != '-')
		return PFX_NO_TASK;
	if (parse_int(d, b, &pid))
		return PFX_BAD_PID;

	/* the irq-flags column is optional: the timestamp is the token ending in ':' */
	l->ctx = SR_CTX_UNKNOWN;
	l->softirq = 0;
	p = skip_blanks(q + 1, e);
	for (i = 0; i < 2; i++) {
		tok = p;
		while (p < e && !is_blank(*p))
			p++;
		tend = p;
		if (tend > tok && tend[-1] == ':' &&
		    !parse_ts(tok, tend - 1, &l->ts, &l->digits))
			break;
		if (i == 1 || tend == tok || tend - tok > 8)
			return PFX_NO_TS;
		/* "d.s2.": irqs-off, need-resched, then hardirq/softirq/NMI ('.' none) */
		if (tend - tok >= 4) {
			l->ctx = strchr("hsHzZ", tok[2]) && tok[2] ? SR_CTX_IRQ :
				 tok[2] == '.' ? SR_CTX_TASK : SR_CTX_UNKNOWN;
			l->softirq = tok[2] == 's';
		}
		p = skip_blanks(p, e);
	}

	/* "name:" then padding; a bare "func <-parent" is the function tracer */
	p = skip_blanks(p, e);
	tok = p;
	while (p < e && !is_blank(*p))
		p++;
	if (p > tok && p[-1] == ':') {
		l->name = tok;
		l->name_len = p - tok - 1;
		if (!l->name_len || l->name_len > TEXT_NAME_MAX)
			return PFX_NO_NAME;
	} else {
		const char *r = skip_blanks(p, e);

		if (p == tok || !has_prefix(r, e, "<-"))
			return PFX_NO_NAME;
		l->name = "function";
		l->name_len = 8;
		p = tok;
	}
	l->body = skip_blanks(p, e);
	l->end = e;
	l->pid = pid;
	l->cpu = cpu;
	return PFX_OK;
}

/* @e already has trailing blanks trimmed; Return: PFX_OK or how far it got */
static int parse_prefix(const char *s, const char *e, struct text_line *l)
{
	const char *br;
	int ret, best = PFX_NO_TASK;

	for (br = s; br < e && (br = memchr(br, '[', e - br)); br++) {
		ret = parse_prefix_at(s, br, e, l);
		if (ret == PFX_OK)
			return PFX_OK;
		if (ret < best)
			best = ret;
	}
	return best;
}

/* "CPU:N [LOST N EVENTS]", "CPU:N [N EVENTS DROPPED]", "CPU:N [EVENTS DROPPED]" */
static int parse_lost(const char *s, const char *e, int *cpu, long long *count)
{
	const char *p, *q;
	long long n;

	if (!has_prefix(s, e, "CPU:"))
		return -1;
	p = s + 4;
	for (q = p; q < e && is_digit(*q); q++)
		;
	if (q == p || parse_int(p, q, cpu) || *cpu > TEXT_MAX_CPU)
		return -1;
	p = skip_blanks(q, e);
	if (p >= e || *p++ != '[')
		return -1;
	if (has_prefix(p, e, "EVENTS DROPPED]")) {
		*count = -1;
		return 0;
	}
	if (has_prefix(p, e, "LOST "))
		p += 5;
	for (q = p; q < e && is_digit(*q); q++)
		;
	if (q == p || parse_ll(p, q, &n))
		return -1;
	if (has_prefix(q, e, " EVENTS]") || has_prefix(q, e, " EVENTS DROPPED]")) {
		*count = n;
		return 0;
	}
	return -1;
}

/* ---- field=value bodies ---------------------------------------------- */

enum { KV_STR, KV_INT, KV_STATE };

struct kv_field {
	const char *key;
	unsigned char len;
	unsigned char type;
	unsigned char opt;
	unsigned char slot;
};

#define KV(k, t, o, s) { k, sizeof(k) - 1, t, o, s }

struct kv_out {
	char str[2][SR_COMM_LEN];
	long long num[4];
	unsigned present;		/* bit per slot of num[] */
	long long state_raw;
	enum sr_prev_state state;
};

static const struct kv_field kv_switch[] = {
	KV("prev_comm", KV_STR, 0, 0),
	KV("prev_pid", KV_INT, 0, 0),
	KV("prev_prio", KV_INT, 0, 1),
	KV("prev_state", KV_STATE, 0, 0),
	KV("next_comm", KV_STR, 0, 1),
	KV("next_pid", KV_INT, 0, 2),
	KV("next_prio", KV_INT, 0, 3),
};

static const struct kv_field kv_wake[] = {
	KV("comm", KV_STR, 0, 0),
	KV("pid", KV_INT, 0, 0),
	KV("prio", KV_INT, 0, 1),
	KV("success", KV_INT, 1, 2),
	KV("target_cpu", KV_INT, 0, 3),
};

static const struct kv_field kv_migrate[] = {
	KV("comm", KV_STR, 0, 0),
	KV("pid", KV_INT, 0, 0),
	KV("prio", KV_INT, 0, 1),
	KV("orig_cpu", KV_INT, 0, 2),
	KV("dest_cpu", KV_INT, 0, 3),
};

/* the kernel prints the parent as comm/pid, trace-cmd -R by field name */
static const struct kv_field kv_fork_raw[] = {
	KV("parent_comm", KV_STR, 0, 0),
	KV("parent_pid", KV_INT, 0, 0),
	KV("child_comm", KV_STR, 0, 1),
	KV("child_pid", KV_INT, 0, 1),
};

static const struct kv_field kv_fork[] = {
	KV("comm", KV_STR, 0, 0),
	KV("pid", KV_INT, 0, 0),
	KV("child_comm", KV_STR, 0, 1),
	KV("child_pid", KV_INT, 0, 1),
};

/* sched_process_exit/free; v6.16 appends group_dead, ignored like any extra field */
static const struct kv_field kv_process[] = {
	KV("comm", KV_STR, 0, 0),
	KV("pid", KV_INT, 0, 0),
	KV("prio", KV_INT, 0, 1),
};

#define KV_N(a) (sizeof(a) / sizeof((a)[0]))

static void copy_comm(char *dst, const char *s, const char *e)
{
	size_t n = e - s;

	if (n > SR_COMM_LEN - 1)
		n = SR_COMM_LEN - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

/*
 * Where a string value starting at @v ends: at " <key>=" of the next field.
 * A comm is at most 15 bytes, so the last such marker within that reach is
 * the real one even if the comm itself contains the marker; a longer value
 * (not from the kernel) ends at the first marker.
 */
static const char *str_value_end(const char *v, const char *e, const struct kv_field *next)
{
	char pat[40];
	size_t plen = next->len + 2;
	const char *p, *m, *best = NULL;

	pat[0] = ' ';
	memcpy(pat + 1, next->key, next->len);
	pat[plen - 1] = '=';
	for (p = v; p < e && (m = memmem(p, e - p, pat, plen)); p = m + 1) {
		if (m - v > SR_COMM_LEN - 1)
			return best ? best : m;
		best = m;
	}
	return best;
}

struct kv_err {
	const char *what;	/* "missing" or "bad value for" */
	const char *key;
	const char *val;
	int val_len;
};

static int parse_state(const char *s, const char *e, struct kv_out *o)
{
	char txt[32];
	long long v;

	if (s == e)
		return -1;
	if (is_digit(*s) || (*s == '-' && e - s > 1)) {
		if (parse_ll(s, e, &v))
			return -1;
		o->state_raw = v;
		o->state = sr_prev_state_decode(v, SR_PSTATE_REPORT);
		return 0;
	}
	if ((size_t)(e - s) >= sizeof(txt))
		return -1;
	memcpy(txt, s, e - s);
	txt[e - s] = '\0';
	o->state_raw = -1;
	o->state = sr_prev_state_parse(txt, &o->state_raw);
	return 0;
}

static int kv_parse(const struct kv_field *f, size_t n, const char *p, const char *e,
		    struct kv_out *o, struct kv_err *err)
{
	size_t i;

	o->present = 0;
	for (i = 0; i < n; i++) {
		const char *v, *ve = NULL;

		if ((size_t)(e - p) <= f[i].len || memcmp(p, f[i].key, f[i].len) ||
		    p[f[i].len] != '=') {
			if (f[i].opt)
				continue;
			err->what = "missing";
			err->key = f[i].key;
			return -1;
		}
		v = p + f[i].len + 1;
		switch (f[i].type) {
		case KV_STR:
			/* a string field is always followed by a required one */
			ve = str_value_end(v, e, &f[i + 1]);
			if (!ve) {
				err->what = "missing";
				err->key = f[i + 1].key;
				return -1;
			}
			copy_comm(o->str[f[i].slot], v, ve);
			p = ve + 1;
			continue;
		case KV_INT:
			for (ve = v; ve < e && !is_blank(*ve); ve++)
				;
			if (parse_ll(v, ve, &o->num[f[i].slot]) ||
			    o->num[f[i].slot] < INT_MIN || o->num[f[i].slot] > INT_MAX)
				goto bad;
			o->present |= 1u << f[i].slot;
			break;
		case KV_STATE:
			for (ve = v; ve < e && !is_blank(*ve); ve++)
				;
			if (parse_state(v, ve, o))
				goto bad;
			ve = skip_blanks(ve, e);
			if (has_prefix(ve, e, "==>"))
				ve += 3;
			break;
		}
		p = skip_blanks(ve, e);
		continue;
bad:
		err->what = "bad value for";
		err->key = f[i].key;
		err->val = v;
		err->val_len = (int)(ve - v > 32 ? 32 : ve - v);
		return -1;
	}
	return 0;
}

/* ---- trace-cmd's sched plugin: "comm:pid [prio] S ==> comm:pid [prio]" -- */

/* the plugin prints the low 8 bits of prev_state as these letters, 0 as R */
static int plugin_state(const char *s, const char *e, struct kv_out *o)
{
	static const char letters[] = "SDTtZXxW";
	long long raw = 0;
	const char *p, *c;

	if (e - s == 1 && *s == 'R') {
		o->state_raw = 0;
		o->state = SR_PREV_RUNNABLE;
		return 0;
	}
	for (p = s; p < e; p++) {
		if (*p == '|')
			continue;
		c = memchr(letters, *p, sizeof(letters) - 1);
		if (!c)
			return parse_state(s, e, o);
		raw |= 1LL << (c - letters);
	}
	if (!raw)
		return -1;
	o->state_raw = raw;
	o->state = sr_prev_state_decode(raw, SR_PSTATE_REPORT);
	return 0;
}

/* "comm:pid" filling [s, e) */
static int plugin_comm_pid(const char *s, const char *e, char *comm, long long *pid)
{
	const char *d = e;
	int v;

	while (d > s && is_digit(d[-1]))
		d--;
	if (d == e || d == s || d[-1] != ':' || parse_int(d, e, &v))
		return -1;
	*pid = v;
	copy_comm(comm, s, d - 1);
	return 0;
}

/* a trailing " [prio]" of [s, *e); moves *e before it */
static int plugin_prio(const char *s, const char **e, long long *prio)
{
	const char *q = *e, *b;
	int v;

	if (q - s < 4 || q[-1] != ']')
		return -1;
	for (b = q - 1; b > s && b[-1] != '['; b--)
		;
	if (b - s < 2 || b[-2] != ' ' || parse_int(b, q - 1, &v))
		return -1;
	*prio = v;
	*e = b - 2;
	return 0;
}

static int plugin_switch(const char *s, const char *e, struct kv_out *o)
{
	const char *m, *p;

	for (p = s; p < e && (m = memmem(p, e - p, " ==> ", 5)); p = m + 1) {
		const char *le, *st = m, *re = e;

		while (st > s && st[-1] != ' ')
			st--;
		if (st == m || st == s || plugin_state(st, m, o))
			continue;
		le = st - 1;
		if (plugin_prio(s, &le, &o->num[1]) ||
		    plugin_comm_pid(s, le, o->str[0], &o->num[0]))
			continue;
		if (plugin_prio(m + 5, &re, &o->num[3]) ||
		    plugin_comm_pid(m + 5, re, o->str[1], &o->num[2]))
			continue;
		o->present = 0xf;
		return 0;
	}
	return -1;
}

/* "comm:pid [prio] success=N CPU:NNN" (sched_wakeup, sched_wakeup_new) */
static int plugin_wake(const char *s, const char *e, struct kv_out *o)
{
	const char *p = e, *d;
	int v;

	o->present = 0;
	for (d = p; d > s && is_digit(d[-1]); d--)
		;
	if (d == p || d - s < 5 || memcmp(d - 5, " CPU:", 5) || parse_int(d, p, &v))
		return -1;
	o->num[3] = v;
	o->present |= 1u << 3;
	p = d - 5;
	for (d = p; d > s && is_digit(d[-1]); d--)
		;
	if (d < p && d - s >= 9 && !memcmp(d - 9, " success=", 9)) {
		if (parse_int(d, p, &v))
			return -1;
		o->num[2] = v;
		o->present |= 1u << 2;
		p = d - 9;
	}
	if (plugin_prio(s, &p, &o->num[1]) || plugin_comm_pid(s, p, o->str[0], &o->num[0]))
		return -1;
	o->present |= 3;
	return 0;
}

/* ---- event names ----------------------------------------------------- */

/* Return: the cached name, or NULL on allocation failure or too many names. */
static const struct text_name *name_lookup(struct text_priv *tp, const char *s, size_t len)
{
	struct text_name *n;
	long i = sr_strtab_find(&tp->names, s, len);

	if (i >= 0)
		return &tp->name_info[i];
	if (tp->nnames >= TEXT_MAX_NAMES)
		return NULL;
	if (tp->nnames == tp->name_info_cap) {
		size_t cap = tp->name_info_cap ? tp->name_info_cap * 2 : 64;
		struct text_name *ni = realloc(tp->name_info, cap * sizeof(*ni));

		if (!ni)
			return NULL;
		tp->name_info = ni;
		tp->name_info_cap = cap;
	}
	i = sr_strtab_add(&tp->names, s, len, NULL);
	if (i < 0)
		return NULL;
	n = &tp->name_info[i];
	n->name = sr_intern(sr_strtab_str(&tp->names, i));
	n->kind = sr_event_kind_from_name(n->name);
	tp->nnames++;
	return n;
}

/* ---- line input ------------------------------------------------------ */

/*
 * Next line, without its '\n', trailing blanks and '\r'.  The pointer stays
 * valid until the next call.  Return: 1 line, 0 end of file, <0 error.
 */
static int get_line(struct text_priv *tp, const char **line, size_t *len, char **cause)
{
	char *nl;
	size_t n;

	if (tp->pending) {
		tp->pending = 0;
		tp->lineno++;
		*line = tp->pline;
		*len = tp->plen;
		return 1;
	}
	for (;;) {
		nl = memchr(tp->buf + tp->start + tp->scan, '\n', tp->end - tp->start - tp->scan);
		if (nl) {
			n = nl - (tp->buf + tp->start);
			break;
		}
		tp->scan = tp->end - tp->start;
		if (tp->eof) {
			if (tp->start == tp->end)
				return 0;
			n = tp->end - tp->start;
			break;
		}
		if (tp->start) {
			memmove(tp->buf, tp->buf + tp->start, tp->end - tp->start);
			tp->end -= tp->start;
			tp->start = 0;
		}
		if (tp->end == tp->cap) {
			char *b;

			if (tp->cap >= TEXT_LINE_MAX) {
				sr_cause_set(cause, "line %llu: line longer than %d bytes",
					     tp->lineno + 1, TEXT_LINE_MAX);
				return -SR_E_CORRUPT;
			}
			b = realloc(tp->buf, tp->cap * 2);
			if (!b)
				return -SR_E_NOMEM;
			tp->buf = b;
			tp->cap *= 2;
		}
		for (;;) {
			ssize_t r = read(tp->fd, tp->buf + tp->end, tp->cap - tp->end);

			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0) {
				sr_cause_set(cause, "read error at line %llu: %s",
					     tp->lineno + 1, strerror(errno));
				return -SR_E_IO;
			}
			if (r == 0)
				tp->eof = 1;
			tp->end += r;
			break;
		}
	}
	*line = tp->buf + tp->start;
	tp->start += n + (tp->start + n < tp->end);	/* and the '\n' */
	tp->scan = 0;
	tp->lineno++;
	if (memchr(*line, '\0', n)) {
		sr_cause_set(cause, "line %llu: binary data (NUL byte) in text trace",
			     tp->lineno);
		return -SR_E_FORMAT;
	}
	while (n && (is_blank((*line)[n - 1]) || (*line)[n - 1] == '\r'))
		n--;
	*len = n;
	return 1;
}

/* ---- header ---------------------------------------------------------- */

enum hdr_kind {
	HDR_BLANK,
	HDR_COMMENT,
	HDR_TRACER,	/* "# tracer: nop" */
	HDR_VERSION,	/* "version = 6" */
	HDR_CPUS,	/* "cpus=6" */
	HDR_EMPTY_CPU,	/* "CPU 3 is empty" */
	HDR_OTHER,	/* anything else: an event line, a lost marker or junk */
};

static enum hdr_kind classify(const char *s, const char *e, int *num)
{
	const char *p, *q;

	p = skip_blanks(s, e);
	if (p == e)
		return HDR_BLANK;
	if (*p == '#') {
		if (has_prefix(p, e, "# tracer:"))
			return HDR_TRACER;
		return HDR_COMMENT;
	}
	if (has_prefix(p, e, "version = ")) {
		p += 10;
		for (q = p; q < e && is_digit(*q); q++)
			;
		if (q > p && q == e && !parse_int(p, q, num))
			return HDR_VERSION;
	}
	if (has_prefix(p, e, "cpus=")) {
		p += 5;
		for (q = p; q < e && is_digit(*q); q++)
			;
		if (q > p && q == e && !parse_int(p, q, num))
			return HDR_CPUS;
	}
	if (has_prefix(p, e, "CPU ") && e - p > 13 && !memcmp(e - 9, " is empty", 9))
		return HDR_EMPTY_CPU;
	return HDR_OTHER;
}

/* "#P:4" in "# entries-in-buffer/entries-written: 109218/109218   #P:4" */
static int comment_ncpus(const char *s, const char *e)
{
	const char *p = memmem(s, e - s, "#P:", 3), *q;
	int n;

	if (!p)
		return -1;
	p += 3;
	for (q = p; q < e && is_digit(*q); q++)
		;
	if (q == p || parse_int(p, q, &n))
		return -1;
	return n;
}

/* the CPU count a header line declares, at most SR_MAX_CPUS */
static int declare_cpus(struct sr_trace *t, const struct text_priv *tp, int num,
			const char *what, char **cause)
{
	if (num > SR_MAX_CPUS) {
		sr_cause_set(cause, "line %llu: %s declares %d CPUs, more than the %d supported",
			     tp->lineno, what, num, SR_MAX_CPUS);
		return -SR_E_UNSUPPORTED;
	}
	t->info.ncpus_declared = num;
	return 0;
}

static int text_probe(const char *path, int is_dir, const unsigned char *head, size_t len)
{
	const char *s = (const char *)head, *e = s + len, *nl, *le;
	int num, cpu, version = 0;
	struct text_line l;
	long long cnt;

	(void)path;
	if (is_dir || !head || !len)
		return 0;
	if (memchr(head, '\0', len))
		return 0;	/* binary: trace.dat ("\x17\x08\x44tracing"), CTF streams */
	for (; s < e; s = nl + 1) {
		nl = memchr(s, '\n', e - s);
		if (!nl)
			nl = e;	/* maybe cut short by the end of @head */
		le = nl;
		while (le > s && (is_blank(le[-1]) || le[-1] == '\r'))
			le--;
		switch (classify(s, le, &num)) {
		case HDR_TRACER:
		case HDR_CPUS:
			return 60;
		case HDR_VERSION:
			version = 1;
			continue;
		case HDR_BLANK:
		case HDR_COMMENT:
		case HDR_EMPTY_CPU:
			continue;
		case HDR_OTHER:
			if (!parse_prefix(s, le, &l) || !parse_lost(s, le, &cpu, &cnt))
				return 40;
			if (nl == e)
				break;
			return version ? 30 : 0;
		}
	}
	return version ? 30 : 0;
}

static int bad_line(struct text_priv *tp, char **cause, int shape)
{
	sr_cause_set(cause, "line %llu: not an ftrace event line (%s)", tp->lineno,
		     shape == PFX_NO_TASK ? "no '<task>-<pid> [<cpu>]'" :
		     shape == PFX_BAD_CPU ? "its [<cpu>] is above 65535" :
		     shape == PFX_BAD_PID ? "its <task>-<pid> is above 2147483647" :
		     shape == PFX_NO_TS ? "bad timestamp" : "no event name");
	return -SR_E_CORRUPT;
}

static void text_close(struct sr_trace *t)
{
	struct text_priv *tp = t->priv;

	if (!tp)
		return;
	if (tp->fd >= 0)
		close(tp->fd);
	free(tp->buf);
	sr_strtab_release(&tp->names);
	free(tp->name_info);
	free(tp);
	t->priv = NULL;
}

static int text_open(struct sr_trace *t, const struct sr_trace_opts *opts, char **cause)
{
	enum text_flavor flavor = TEXT_PLAIN;
	struct text_priv *tp;
	int version = -1, tgid = 0, ret, num;

	(void)opts;
	tp = calloc(1, sizeof(*tp));
	if (!tp)
		return -SR_E_NOMEM;
	t->priv = tp;
	tp->fd = open(t->info.path, O_RDONLY | O_CLOEXEC);
	if (tp->fd < 0) {
		sr_cause_set(cause, "cannot open: %s", strerror(errno));
		return -SR_E_IO;
	}
	posix_fadvise(tp->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	tp->cap = TEXT_BUF_INIT;
	tp->buf = malloc(tp->cap);
	if (!tp->buf)
		return -SR_E_NOMEM;
	t->info.ncpus_declared = -1;
	t->info.pstate_enc = SR_PSTATE_REPORT;
	t->info.has_waking = 0;

	/* the header runs up to the first line that is not one of its lines */
	for (;;) {
		const char *line, *le;
		struct text_line l;
		size_t len;
		int cpu, shape;
		long long cnt;

		ret = get_line(tp, &line, &len, cause);
		if (ret < 0)
			return ret;
		if (!ret)
			break;
		le = line + len;
		switch (classify(line, le, &num)) {
		case HDR_BLANK:
		case HDR_EMPTY_CPU:
			continue;
		case HDR_TRACER:
			flavor = TEXT_TRACEFS;
			continue;
		case HDR_COMMENT:
			num = comment_ncpus(line, le);
			if (num > 0 && (ret = declare_cpus(t, tp, num, "'#P:'", cause)))
				return ret;
			if (memmem(line, len, " TGID ", 6) && memmem(line, len, "TASK-PID", 8))
				tgid = 1;
			continue;
		case HDR_VERSION:
			version = num;
			if (flavor == TEXT_PLAIN)
				flavor = TEXT_TRACECMD;
			continue;
		case HDR_CPUS:
			if (num > 0 && (ret = declare_cpus(t, tp, num, "'cpus='", cause)))
				return ret;
			if (flavor == TEXT_PLAIN)
				flavor = TEXT_TRACECMD;
			continue;
		case HDR_OTHER:
			break;
		}
		shape = parse_prefix(line, le, &l);
		if (shape == PFX_OK)
			tgid |= l.has_tgid;
		else if (parse_lost(line, le, &cpu, &cnt))
			return bad_line(tp, cause, shape);
		tp->pending = 1;
		tp->pline = line;
		tp->plen = len;
		tp->lineno--;	/* counted again when next() takes it */
		break;
	}

	switch (flavor) {
	case TEXT_TRACEFS:
		snprintf(t->info.format, sizeof(t->info.format), "ftrace text (tracefs trace)%s",
			 tgid ? " with tgid" : "");
		break;
	case TEXT_TRACECMD:
		if (version >= 0)
			snprintf(t->info.format, sizeof(t->info.format),
				 "ftrace text (trace-cmd report v%d)%s", version,
				 tgid ? " with tgid" : "");
		else
			snprintf(t->info.format, sizeof(t->info.format),
				 "ftrace text (trace-cmd report)%s", tgid ? " with tgid" : "");
		break;
	case TEXT_PLAIN:
		snprintf(t->info.format, sizeof(t->info.format), "ftrace text%s",
			 tgid ? " with tgid" : "");
		break;
	}
	return 0;
}

/* ---- events ---------------------------------------------------------- */

static int body_error(struct text_priv *tp, char **cause, const char *name,
		      const struct kv_err *err)
{
	if (err->val)
		sr_cause_set(cause, "line %llu: malformed %s: %s %s: '%.*s'", tp->lineno, name,
			     err->what, err->key, err->val_len, err->val);
	else
		sr_cause_set(cause, "line %llu: malformed %s: %s %s", tp->lineno, name,
			     err->what, err->key);
	return -SR_E_CORRUPT;
}

/*
 * The value of @key in a kprobe body: "(func+0x0/0x320) prev_cpu=1
 * wake_flags=0x18 pid=42"; fields in any order.  Return: 0, -1 if absent,
 * -2 if not a number.
 */
static int probe_field(const char *p, const char *e, const char *key, long long *out)
{
	size_t kl = strlen(key);

	while (p < e) {
		const char *t = p, *te;

		for (te = t; te < e && !is_blank(*te); te++)
			;
		if ((size_t)(te - t) > kl && !memcmp(t, key, kl) && t[kl] == '=')
			return parse_ll(t + kl + 1, te, out) ? -2 : 0;
		p = skip_blanks(te, e);
	}
	return -1;
}

/*
 * "mask=0x..." as an unsigned 64-bit value (all 64 CPUs is
 * 0xffffffffffffffff).  Return: 0, -1 when absent, -2 when not a mask.
 */
static int probe_mask(const char *p, const char *e, uint64_t *out)
{
	while (p < e) {
		const char *t = p, *te;
		uint64_t v = 0;

		for (te = t; te < e && !is_blank(*te); te++)
			;
		if (te - t > 5 && !memcmp(t, "mask=", 5)) {
			if (te - t <= 7 || memcmp(t, "mask=0x", 7) || te - t > 7 + 16)
				return -2;
			for (t += 7; t < te; t++) {
				int d = is_digit(*t) ? *t - '0' : (*t >= 'a' && *t <= 'f') ?
					*t - 'a' + 10 : (*t >= 'A' && *t <= 'F') ? *t - 'A' + 10 : -1;

				if (d < 0)
					return -2;
				v = v << 4 | (uint64_t)d;
			}
			*out = v;
			return 0;
		}
		p = skip_blanks(te, e);
	}
	return -1;
}

/* a kprobe body's fields: past the "(symbol+off/size [<- caller])" part */
static const char *probe_args(const struct text_line *l)
{
	const char *b = l->body, *e = l->end;

	if (b < e && *b == '(') {
		while (b < e && *b != ')')
			b++;
		if (b < e)
			b++;
	}
	return b;
}

static int parse_probe(const struct text_line *l, struct sr_event *ev, struct kv_err *err)
{
	const char *b = probe_args(l), *e = l->end;
	long long v;
	int i;

	if (ev->kind == SR_EV_SETAFFINITY) {
		if (probe_field(b, e, "pid", &v) || v < INT_MIN || v > INT_MAX) {
			err->what = "missing";
			err->key = "pid";
			return -1;
		}
		ev->pid = (int)v;
		switch (probe_mask(b, e, &ev->cpumask)) {
		case 0:
			return 0;
		case -2:
			err->what = "bad value for";
			err->key = "mask";
			return -1;
		default:
			err->what = "missing";
			err->key = "mask";
			return -1;
		}
	}
	if (ev->kind == SR_EV_LB_TASK) {
		if (probe_field(b, e, "mt", &v) || v < 0 || v > 3) {
			err->what = "missing";
			err->key = "mt";
			return -1;
		}
		ev->lb_mt = (int)v;
		if (probe_field(b, e, "dst", &v) || v < 0 || v > INT_MAX) {
			err->what = "missing";
			err->key = "dst";
			return -1;
		}
		ev->target_cpu = (int)v;
		if (!probe_field(b, e, "idle", &v) && v >= INT_MIN && v <= INT_MAX)
			ev->lb_idle = (int)v;
		if (!probe_field(b, e, "level", &v) && v >= 0 && v <= INT_MAX)
			ev->lb_level = (int)v;
		if (!probe_field(b, e, "nbf", &v) && v >= 0 && v <= INT_MAX)
			ev->lb_nbf = (int)v;
		if (!probe_field(b, e, "imb", &v))
			ev->lb_imb = v;
		return 0;
	}
	if (ev->kind == SR_EV_BALANCE_RQ) {
		if (probe_field(b, e, "idle", &v) || v < INT_MIN || v > INT_MAX) {
			err->what = "missing";
			err->key = "idle";
			return -1;
		}
		ev->lb_idle = (int)v;
		if (!probe_field(b, e, "cpu", &v) && v >= 0 && v <= INT_MAX)
			ev->target_cpu = (int)v;
		if (!probe_field(b, e, "level", &v) && v >= 0 && v <= INT_MAX)
			ev->lb_level = (int)v;
		return 0;
	}
	if (ev->kind == SR_EV_SELECT_RQ) {
		if (probe_field(b, e, "prev_cpu", &v) || v < INT_MIN || v > INT_MAX) {
			err->what = "missing";
			err->key = "prev_cpu";
			return -1;
		}
		ev->target_cpu = (int)v;
		if (!probe_field(b, e, "wake_flags", &v))
			ev->wake_flags = v;
		if (!probe_field(b, e, "pid", &v) && v >= 0 && v <= INT_MAX)
			ev->pid = (int)v;
		for (i = 0; i < SR_PROBE_NFIELDS; i++) {
			int r = probe_field(b, e, sr_probe_field_name[i], &v);

			if (r == -1)
				continue;
			if (r || sr_event_probe_set(ev, i, v)) {
				err->what = "bad value for";
				err->key = sr_probe_field_name[i];
				return -1;
			}
		}
		return 0;
	}
	if (probe_field(b, e, "cpu", &v) || v < INT_MIN || v > INT_MAX) {
		err->what = "missing";
		err->key = "cpu";
		return -1;
	}
	ev->dest_cpu = (int)v;
	return 0;
}

/*
 * rqstat's "c<i>load=... c<i>util=..." for CPUs 0 up to the first without a
 * load field; the other fields are -1 where absent
 */
static int parse_rqstat(struct text_priv *tp, const struct text_line *l, struct sr_event *ev,
			struct kv_err *err)
{
	char *key = tp->rq_key;
	const char *b = probe_args(l), *e = l->end;
	int cpu, k;

	for (cpu = 0; cpu < SR_RQSTAT_MAX_CPUS; cpu++) {
		for (k = 0; k < SR_RQ_NFIELDS; k++) {
			long long *v = sr_rqstat_field(&tp->rqstat.cpu[cpu], k);
			int r;

			snprintf(key, sizeof(tp->rq_key), "c%d%s", cpu, sr_rqstat_field_name[k]);
			r = probe_field(b, e, key, v);
			/* nr_idle_scan is signed; the others are counts and averages */
			if (r == -2 || (r == 0 && *v < 0 && k != SR_RQ_SCAN)) {
				err->what = "bad value for";
				err->key = key;
				return -1;
			}
			if (r == -1) {
				if (!k)
					break;
				*v = -1;
			}
		}
		if (k == 0)
			break;
	}
	/* an rqstat of another shape (no c0load): no fields to read */
	if (!cpu)
		return 0;
	tp->rqstat.ncpus = cpu;
	ev->rqstat = &tp->rqstat;
	return 0;
}

static int parse_body(struct text_priv *tp, const struct text_line *l, const char *name,
		      struct sr_event *ev, char **cause)
{
	struct kv_err err = { 0 };
	struct kv_out o;
	const char *b = l->body, *e = l->end;
	int ret = 0;

	switch (ev->kind) {
	case SR_EV_SWITCH:
		o.state_raw = -1;
		o.state = SR_PREV_UNKNOWN;
		if (has_prefix(b, e, "prev_comm=")) {
			ret = kv_parse(kv_switch, KV_N(kv_switch), b, e, &o, &err);
		} else if (plugin_switch(b, e, &o)) {
			err.what = "missing";
			err.key = "prev_comm";
			ret = -1;
		}
		if (ret)
			break;
		sr_strlcpy(ev->comm, o.str[0], sizeof(ev->comm));
		sr_strlcpy(ev->comm2, o.str[1], sizeof(ev->comm2));
		ev->pid = (int)o.num[0];
		ev->prio = (int)o.num[1];
		ev->pid2 = (int)o.num[2];
		ev->prio2 = (int)o.num[3];
		ev->prev_state_raw = o.state_raw;
		ev->prev_state = o.state;
		return 0;
	case SR_EV_WAKING:
	case SR_EV_WAKEUP:
	case SR_EV_WAKEUP_NEW:
		if (has_prefix(b, e, "comm=")) {
			ret = kv_parse(kv_wake, KV_N(kv_wake), b, e, &o, &err);
		} else if (plugin_wake(b, e, &o)) {
			err.what = "missing";
			err.key = "comm";
			ret = -1;
		}
		if (ret)
			break;
		sr_strlcpy(ev->comm, o.str[0], sizeof(ev->comm));
		ev->pid = (int)o.num[0];
		ev->prio = (int)o.num[1];
		ev->success = o.present & (1u << 2) ? (int)o.num[2] : -1;
		ev->target_cpu = (int)o.num[3];
		return 0;
	case SR_EV_MIGRATE:
		ret = kv_parse(kv_migrate, KV_N(kv_migrate), b, e, &o, &err);
		if (ret)
			break;
		sr_strlcpy(ev->comm, o.str[0], sizeof(ev->comm));
		ev->pid = (int)o.num[0];
		ev->prio = (int)o.num[1];
		ev->target_cpu = (int)o.num[2];
		ev->dest_cpu = (int)o.num[3];
		return 0;
	case SR_EV_FORK:
		if (has_prefix(b, e, "parent_comm="))
			ret = kv_parse(kv_fork_raw, KV_N(kv_fork_raw), b, e, &o, &err);
		else
			ret = kv_parse(kv_fork, KV_N(kv_fork), b, e, &o, &err);
		if (ret)
			break;
		sr_strlcpy(ev->comm, o.str[0], sizeof(ev->comm));
		sr_strlcpy(ev->comm2, o.str[1], sizeof(ev->comm2));
		ev->pid = (int)o.num[0];
		ev->pid2 = (int)o.num[1];
		return 0;
	case SR_EV_EXIT:
	case SR_EV_FREE:
		ret = kv_parse(kv_process, KV_N(kv_process), b, e, &o, &err);
		if (ret)
			break;
		sr_strlcpy(ev->comm, o.str[0], sizeof(ev->comm));
		ev->pid = (int)o.num[0];
		ev->prio = (int)o.num[1];
		return 0;
	case SR_EV_SELECT_RQ:
	case SR_EV_SELECT_RQ_RET:
	case SR_EV_SETAFFINITY:
	case SR_EV_BALANCE_RQ:
	case SR_EV_LB_TASK:
		ret = parse_probe(l, ev, &err);
		if (ret)
			break;
		return 0;
	case SR_EV_RQSTAT:
	case SR_EV_LB_RQSTAT:
		ret = parse_rqstat(tp, l, ev, &err);
		if (ret)
			break;
		return 0;
	default:
		return 0;
	}
	return body_error(tp, cause, name, &err);
}

/*
 * Read the next record: an event or a lost-events marker (whose ts is left
 * for the caller).  Return: 1, 0 at the end, <0 error.
 */
static int read_record(struct sr_trace *t, struct sr_event *ev, char **cause)
{
	struct text_priv *tp = t->priv;
	const struct text_name *nm;
	struct text_line l;
	const char *line, *le;
	size_t len;
	int ret, num, cpu, shape;
	long long cnt;

	for (;;) {
		ret = get_line(tp, &line, &len, cause);
		if (ret <= 0)
			return ret;
		if (!len)
			continue;
		le = line + len;
		if (*line == '#')
			continue;
		tp->pline = line;	/* for text_next() to push a marker back */
		tp->plen = len;
		shape = parse_prefix(line, le, &l);
		if (shape == PFX_OK)
			break;
		if (!parse_lost(line, le, &cpu, &cnt)) {
			sr_event_reset(ev);
			ev->kind = SR_EV_LOST;
			ev->cpu = cpu;
			ev->lost = cnt;
			return 1;
		}
		switch (classify(line, le, &num)) {
		case HDR_BLANK:
		case HDR_COMMENT:
		case HDR_EMPTY_CPU:
			continue;
		default:
			break;
		}
		return bad_line(tp, cause, shape);
	}

	if (tp->have_ts && l.ts < tp->last_ts) {
		char now[48], prev[48];
		fmt_ts(now, sizeof(now), l.ts, l.digits);
		fmt_ts(prev, sizeof(prev), tp->last_ts, tp->last_digits);
		sr_cause_set(cause, "line %llu: timestamp %s before previous %s",
			     tp->lineno, now, prev);
		return -SR_E_ORDER;
	}
	tp->have_ts = 1;
	tp->last_ts = l.ts;
	tp->last_digits = l.digits;

	nm = name_lookup(tp, l.name, l.name_len);
	if (!nm) {
		if (tp->nnames >= TEXT_MAX_NAMES) {
			sr_cause_set(cause, "line %llu: more than %d distinct event names",
				     tp->lineno, TEXT_MAX_NAMES);
			return -SR_E_CORRUPT;
		}
		return -SR_E_NOMEM;
	}

	sr_event_reset(ev);
	ev->kind = nm->kind;
	ev->ts = l.ts;
	ev->cpu = l.cpu;
	ev->common_pid = l.pid;
	ev->ctx = (enum sr_event_ctx)l.ctx;
	ev->softirq = l.softirq;
	if (nm->kind == SR_EV_OTHER) {
		ev->name = nm->name;
		/* trace_marker writes: the text, e.g. the recorder's metadata lines */
		if (!strcmp(nm->name, "tracing_mark_write") || !strcmp(nm->name, "print")) {
			const char *b = l.body;
			size_t n;

			if ((size_t)(l.end - b) > 20 && !strncmp(b, "tracing_mark_write: ", 20))
				b += 20;
			n = (size_t)(l.end - b) < sizeof(tp->mark) - 1 ? (size_t)(l.end - b) :
			    sizeof(tp->mark) - 1;
			memcpy(tp->mark, b, n);
			tp->mark[n] = '\0';
			ev->text = tp->mark;
		}
		return 1;
	}
	if (nm->kind == SR_EV_WAKING)
		t->info.has_waking = 1;
	if (sr_event_kind_is_probe(nm->kind))
		ev->name = nm->name;
	ret = parse_body(tp, &l, nm->name, ev, cause);
	return ret < 0 ? ret : 1;
}

static int text_next(struct sr_trace *t, struct sr_event *ev, char **cause)
{
	struct text_priv *tp = t->priv;
	unsigned long long lost_line;
	int ret;

	if (tp->queued) {
		tp->queued = 0;
		*ev = tp->qev;
		tp->ev_line = tp->qev_line;
		return 1;
	}
	ret = read_record(t, ev, cause);
	if (ret <= 0)
		return ret;
	tp->ev_line = tp->lineno;
	if (ev->kind != SR_EV_LOST)
		return 1;

	/*
	 * Both tracefs and trace-cmd print a lost marker just before the next
	 * record of that cpu, so it takes the time of the record that follows.
	 */
	lost_line = tp->lineno;
	ret = read_record(t, &tp->qev, cause);
	if (ret < 0)
		return ret;
	if (ret == 0) {
		ev->ts = tp->last_ts;
	} else if (tp->qev.kind == SR_EV_LOST) {
		ev->ts = tp->last_ts;
		tp->pending = 1;	/* the line is still in the buffer */
		tp->lineno--;
	} else {
		ev->ts = tp->qev.ts;
		tp->queued = 1;
		tp->qev_line = tp->lineno;
	}
	tp->ev_line = lost_line;
	return 1;
}

static void text_where(struct sr_trace *t, char *buf, size_t len)
{
	struct text_priv *tp = t->priv;

	snprintf(buf, len, "line %llu", tp ? tp->ev_line : 0ULL);
}

const struct sr_reader_ops sr_reader_text = {
	.name	= "text",
	.probe	= text_probe,
	.open	= text_open,
	.next	= text_next,
	.where	= text_where,
	.close	= text_close,
};
