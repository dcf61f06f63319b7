// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the input is a trace.dat file (seeds: the committed
 * v6 and v7 fixtures).
 */
#include "fuzz-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/trace.dat", fuzz_scratch_dir());
	if (fuzz_write(path, data, size) == 0)
		fuzz_read(path, "tracedat");
	return 0;
}
