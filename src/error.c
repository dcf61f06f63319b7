// SPDX-License-Identifier: GPL-2.0
/*
 * Error texts for enum sr_error and the cause-string helper used by every
 * library layer.
 */
#include "schedreplay/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "banned.h"

#define _SR(code, text) text,
static const char *const sr_error_text[] = { SR_ERRORS };
#undef _SR

const char *sr_strerror(int err)
{
	if (err < 0)
		err = -err;
	if (err >= SR_E__COUNT)
		return "unknown error";
	return sr_error_text[err];
}

int sr_cause_set(char **cause, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	if (!cause)
		return -1;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	free(*cause);
	*cause = s;
	return -1;
}
