//go:build !cuda

package main

// cudaDetails: a build without the cuda tag has none.
func cudaDetails() cudaInfo { return cudaInfo{} }
