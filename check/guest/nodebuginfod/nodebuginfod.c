// SPDX-License-Identifier: GPL-2.0
/*
 * libdebuginfod.so.1 that has no servers: what perf imports from it, as
 * if DEBUGINFOD_URLS were empty.  The guest tests put it before the real
 * one for perf.  The real one initializes libcurl when it is loaded and
 * cleans up at exit; perf 7.2 in the arm64 guest has crashed inside that
 * code (in libnghttp2, which only libcurl loads), and the guests have no
 * network for debuginfod anyway.
 */
#include <errno.h>

typedef struct debuginfod_client debuginfod_client;

debuginfod_client *debuginfod_begin(void)
{
	return 0;
}

void debuginfod_end(debuginfod_client *client)
{
}

int debuginfod_find_debuginfo(debuginfod_client *client,
			      const unsigned char *build_id, int len,
			      char **path)
{
	return -ENOSYS;
}

int debuginfod_find_executable(debuginfod_client *client,
			       const unsigned char *build_id, int len,
			       char **path)
{
	return -ENOSYS;
}

int debuginfod_find_source(debuginfod_client *client,
			   const unsigned char *build_id, int len,
			   const char *filename, char **path)
{
	return -ENOSYS;
}
