// SPDX-License-Identifier: GPL-2.0
/*
 * The one escaping of trace text for terminals and line-based formats, and
 * the one CSV writer (see escape.h for the rules).  Used by info --events,
 * sql (table, CSV, JSON), report and the TUI.
 */
#include "escape.h"

#include <stdlib.h>
#include <string.h>

#include "banned.h"

/*
 * The unit at @s: Return: its length in bytes, with @esc set to the text
 * that replaces it (NULL: the bytes are kept as they are).
 */
static size_t unit(const unsigned char *s, const char **esc, char hex[5])
{
	unsigned char c = s[0];
	size_t n, i;

	*esc = NULL;
	if (c >= 0x20 && c < 0x7f) {
		if (c == '\\')
			*esc = "\\\\";
		return 1;
	}
	switch (c) {
	case '\n':
		*esc = "\\n";
		return 1;
	case '\r':
		*esc = "\\r";
		return 1;
	case '\t':
		*esc = "\\t";
		return 1;
	}
	/* a valid UTF-8 sequence that is not a C1 control is kept */
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		n = 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			n = 0;
	if (n && !((c == 0xc2 && s[1] < 0xa0) ||		/* C1 control */
		   (c == 0xe0 && s[1] < 0xa0) ||		/* overlong */
		   (c == 0xed && s[1] > 0x9f) ||		/* surrogate */
		   (c == 0xf0 && s[1] < 0x90) ||		/* overlong */
		   (c == 0xf4 && s[1] > 0x8f)))		/* above U+10FFFF */
		return n;
	snprintf(hex, 5, "\\x%02x", c);
	*esc = hex;
	return 1;
}

int sr_escape_needed(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	const char *esc;
	char hex[5];

	while (p && *p) {
		p += unit(p, &esc, hex);
		if (esc)
			return 1;
	}
	return 0;
}

char *sr_escape_buf(char *buf, size_t len, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t o = 0, n, el;
	const char *esc;
	char hex[5];

	if (!len)
		return buf;
	while (*p) {
		n = unit(p, &esc, hex);
		el = esc ? strlen(esc) : n;
		if (o + el >= len)
			break;
		memcpy(buf + o, esc ? esc : (const char *)p, el);
		o += el;
		p += n;
	}
	buf[o] = '\0';
	return buf;
}

char *sr_escape_dup(const char *s)
{
	size_t len = (s ? strlen(s) : 0) * 4 + 1;	/* at most 4 bytes per byte */
	char *buf = malloc(len);

	return buf ? sr_escape_buf(buf, len, s) : NULL;
}

void sr_escape_fputs(const char *s, FILE *f)
{
	const unsigned char *p = (const unsigned char *)s, *run;
	const char *esc;
	char hex[5];
	size_t n;

	if (!p)
		return;
	/* runs of kept bytes are written at once: this is on info --events' path */
	for (run = p; *p; p += n) {
		n = unit(p, &esc, hex);
		if (!esc)
			continue;
		fwrite(run, 1, (size_t)(p - run), f);
		fputs(esc, f);
		run = p + n;
	}
	fwrite(run, 1, (size_t)(p - run), f);
}

void sr_json_fputs(const char *json, FILE *f)
{
	const unsigned char *p = (const unsigned char *)json, *run;

	if (!p)
		return;
	for (run = p; *p; p++) {
		if (*p == 0x7f) {
			fwrite(run, 1, (size_t)(p - run), f);
			fputs("\\u007f", f);
			run = p + 1;
		} else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
			fwrite(run, 1, (size_t)(p - run), f);
			fprintf(f, "\\u00%02x", p[1]);
			p++;
			run = p + 1;
		}
	}
	fwrite(run, 1, (size_t)(p - run), f);
}

void sr_json_string(const char *s, FILE *f)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	fputc('"', f);
	for (; *p; p++) {
		if (*p == '"' || *p == '\\') {
			fprintf(f, "\\%c", *p);
		} else if (*p < 0x20 || *p == 0x7f) {
			fprintf(f, "\\u%04x", *p);
		} else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
			/* a C1 control, which a terminal acts on as ESC does */
			fprintf(f, "\\u%04x", p[1]);
			p++;
		} else {
			fputc(*p, f);
		}
	}
	fputc('"', f);
}

/* one CSV field: @s escaped, then quoted when RFC 4180 or a blank at an end asks */
static void csv_text(FILE *out, const char *s)
{
	char *e = sr_escape_needed(s) ? sr_escape_dup(s) : NULL;
	const char *v = e ? e : s;
	size_t n = strlen(v);

	if (n && !strpbrk(v, ",\"\r\n") && v[0] != ' ' && v[n - 1] != ' ') {
		fputs(v, out);
	} else {
		fputc('"', out);
		for (; *v; v++) {
			if (*v == '"')
				fputc('"', out);
			fputc(*v, out);
		}
		fputc('"', out);
	}
	free(e);
}

long sr_csv_write(sqlite3_stmt *st, FILE *out, int header)
{
	int i, n = sqlite3_column_count(st), rc;
	long rows = 0;

	if (header) {
		for (i = 0; i < n; i++) {
			if (i)
				fputc(',', out);
			csv_text(out, sqlite3_column_name(st, i));
		}
		fputc('\n', out);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (i = 0; i < n; i++) {
			if (i)
				fputc(',', out);
			switch (sqlite3_column_type(st, i)) {
			case SQLITE_NULL:
				break;
			case SQLITE_BLOB: {
				const unsigned char *b = sqlite3_column_blob(st, i);
				int j, len = sqlite3_column_bytes(st, i);

				fputs("X'", out);
				for (j = 0; j < len; j++)
					fprintf(out, "%02X", b[j]);
				fputc('\'', out);
				break;
			}
			case SQLITE_TEXT:
				csv_text(out, (const char *)sqlite3_column_text(st, i));
				break;
			default:	/* a number, as SQLite writes it */
				fputs((const char *)sqlite3_column_text(st, i), out);
				break;
			}
		}
		fputc('\n', out);
		rows++;
	}
	return rc == SQLITE_DONE && !ferror(out) ? rows : -1;
}
