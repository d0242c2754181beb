//go:build cuda

// cudashim.h declares the helpers of cudashim.c beyond the CUDA driver API.

#ifndef NQUEENS_CUDASHIM_H
#define NQUEENS_CUDASHIM_H

// nqshim_load opens the driver library (once, thread-safe) and returns NULL
// when it is open, or why it could not be opened.
const char *nqshim_load(void);

// nqshim_libpath returns the path the loader found the driver library at,
// or NULL when it is not open.
const char *nqshim_libpath(void);

#endif
