// SPDX-License-Identifier: GPL-2.0
/*
 * schedreplay's entry point: global options, dispatch to one command, and
 * the only place that decides the exit status (after checking that stdout
 * was written completely).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "version.h"
#include "banned.h"

#ifdef __SANITIZE_ADDRESS__
/*
 * The SANITIZE=1 build: the trace-cmd libraries leak a few bytes of their
 * own (tests/fuzz/lsan.supp says which), which LeakSanitizer can only tell
 * apart with full stacks through libc; so that build/schedreplay reports
 * nothing of theirs when run by hand, not only under the tests' options.
 */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "fast_unwind_on_malloc=0:print_suppressions=0";
}

const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:tracecmd_parse_trace_clock\nleak:tep_parse_event\n"
	       "leak:bt_graph_add_source_component_with_initialize_method_data\n";
}
#endif

static int finish(int ret)
{
	/* a full disk or a closed pipe must not look like success */
	if (fflush(stdout) || ferror(stdout)) {
		if (errno != EPIPE)
			sr_error("cannot write standard output: %s", strerror(errno));
		return EXIT_FAIL;
	}
	return ret;
}

static int run_cmd(const struct cmd_entry *c, int argc, char **argv)
{
	if (cmd_wants_help(c, argc, argv))
		return EXIT_OK;
	return c->exec(argc, argv);
}

int main(int argc, char **argv)
{
	const struct cmd_entry *c;

	if (argc < 2) {
		cmd_list(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("schedreplay %s\n", SR_VERSION);
		return finish(EXIT_OK);
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		cmd_list(stdout);
		return finish(EXIT_OK);
	}
	if (argv[1][0] == '-') {
		sr_error("unknown option '%s'", argv[1]);
		cmd_list(stderr);
		return EXIT_USAGE;
	}
	c = cmd_find(argv[1], stderr);
	if (!c)
		return EXIT_USAGE;
	return finish(run_cmd(c, argc - 1, argv + 1));
}
