// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the input is ftrace text (tracefs "trace" file or
 * trace-cmd report output; seeds: the committed text fixtures).
 */
#include "fuzz-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/trace.txt", fuzz_scratch_dir());
	if (fuzz_write(path, data, size) == 0)
		fuzz_read(path, "text");
	return 0;
}
