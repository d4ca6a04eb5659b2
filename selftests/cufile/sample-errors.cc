// SPDX-License-Identifier: GPL-2.0
/*
 * A C++ program that defines its own cuFileGetErrorString(), as NVIDIA's
 * cuFile samples do (templates returning std::string, for error numbers
 * and for statuses), and compares the texts: it must compile against
 * gpupath's cufile.h and pass against its library. Exit 0, or 1.
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>

#include <cufile.h>

template <typename T, typename std::enable_if<std::is_integral<T>::value, int>::type = 0>
static std::string cuFileGetErrorString(T status)
{
	int e = std::abs(static_cast<int>(status));

	return IS_CUFILE_ERR(e) ? std::string(CUFILE_ERRSTR(e)) : std::string(std::strerror(e));
}

template <typename T, typename std::enable_if<!std::is_integral<T>::value, int>::type = 0>
static std::string cuFileGetErrorString(T status)
{
	return cuFileGetErrorString(static_cast<int>(status.err));
}

int main()
{
	CUfileError_t s = cuFileDriverOpen();
	CUfileDescr_t d = {};
	CUfileHandle_t fh;
	int fails = 0;

	fails += cuFileGetErrorString(s).compare("Success") != 0;
	fails += cuFileGetErrorString(5022).compare("invalid arguments") != 0;
	fails += cuFileGetErrorString(-5018).compare("unsupported file type") != 0;
	fails += cuFileGetErrorString(5007).compare(
			 "GPUDirect Storage not supported on current platform") != 0;
	d.type = CU_FILE_HANDLE_TYPE_OPAQUE_FD;
	d.handle.fd = 0;	/* not a file gpupath reads: stdin */
	s = cuFileHandleRegister(&fh, &d);
	fails += s.err == CU_FILE_SUCCESS;
	std::printf("%s: %s\n", fails ? "FAIL" : "ok", cuFileGetErrorString(s).c_str());
	cuFileDriverClose();
	return fails ? 1 : 0;
}
