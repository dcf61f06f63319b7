// SPDX-License-Identifier: GPL-2.0
/*
 * "schedreplay help [COMMAND]": the command list, or one command's usage.
 */
#include "cmd.h"

#include "banned.h"

static int help_exec(int argc, char **argv)
{
	const struct cmd_entry *c;

	if (argc < 2) {
		cmd_list(stdout);
		return EXIT_OK;
	}
	if (argc > 2) {
		sr_error("help takes at most one command name");
		return EXIT_USAGE;
	}
	c = cmd_find(argv[1], stderr);
	if (!c)
		return EXIT_USAGE;
	cmd_usage(c, stdout);
	return EXIT_OK;
}

const struct cmd_entry cmd_help = {
	.name = "help",
	.synopsis = "[COMMAND]",
	.summary = "list the commands, or show one command's usage",
	.exec = help_exec,
};
