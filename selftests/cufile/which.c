// SPDX-License-Identifier: GPL-2.0
/*
 * cufile-which: prints the cuFile version of the library a program gets,
 * reached the ways programs reach it: "linked" (built against it, with a
 * DT_RPATH to its directory, as PyTorch's wheels are) or "dlopen" (opened
 * by soname, as KvikIO and DALI do).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "cufile.h"

typedef CUfileError_t (*version_fn)(int *version);

int main(int argc, char **argv)
{
	version_fn fn = cuFileGetVersion;
	int version = 0;
	void *lib;

	if (argc != 2 || (strcmp(argv[1], "linked") && strcmp(argv[1], "dlopen"))) {
		fprintf(stderr, "usage: cufile-which linked|dlopen\n");
		return 2;
	}
	if (!strcmp(argv[1], "dlopen")) {
		lib = dlopen("libcufile.so.0", RTLD_LAZY | RTLD_LOCAL);
		fn = lib ? (version_fn)dlsym(lib, "cuFileGetVersion") : NULL;
		if (!fn) {
			fprintf(stderr, "cufile-which: %s\n", dlerror());
			return 1;
		}
	}
	if (fn(&version).err)
		return 1;
	printf("%d\n", version);
	return 0;
}
