// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in for NVIDIA's libcufile.so.0 (soname and all), for the check
 * that gpupath run puts gpupath's library in its place: its version is
 * one no real library has.
 */
#include "cufile.h"

#define STAND_IN_VERSION 99999

__attribute__((visibility("default"))) CUfileError_t cuFileGetVersion(int *version)
{
	CUfileError_t s = { CU_FILE_SUCCESS, 0 };

	*version = STAND_IN_VERSION;
	return s;
}
