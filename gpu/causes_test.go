package gpu

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Each cause has its own few words and its own fix, found through
// wrapping; other errors neither. Each fallback line stays short: the
// cause and the fix together within 72 bytes (docs/gpu.md).
func TestCauseAndFix(t *testing.T) {
	tests := []struct {
		err   error
		cause string
		fix   string // a word the fix must contain; "" for no fix
	}{
		{ErrNoCUDA, "built without CUDA", "make cuda-deps"},
		{fmt.Errorf("open GPU 0: %w", ErrNoCUDA), "built without CUDA", "make"},
		{fmt.Errorf("%w (libcuda.so.1: cannot open shared object file)", ErrNoDriver), "no NVIDIA driver", "install it"},
		{fmt.Errorf("%w: /lib/libcuda.so.1 is installed (cuInit: CUDA_ERROR_NO_DEVICE)", ErrNoModule), "NVIDIA kernel module not loaded", "nvidia-smi lists"},
		{fmt.Errorf("%w (cuInit: CUDA_ERROR_NO_DEVICE)", ErrNoDevice), "the NVIDIA driver sees no GPU", "CUDA_VISIBLE_DEVICES"},
		{&OrdinalError{Ordinal: 3, Count: 1}, "no GPU 3 (the driver sees GPU 0)", "nqueens-gpu devices"},
		{fmt.Errorf("%w: cuInit: CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", ErrDriver), "the NVIDIA driver failed to start", "reboot"},
		{errors.New("out of memory"), "", ""},
		{nil, "", ""},
	}
	seen := make(map[string]bool)
	for _, tt := range tests {
		if got := Cause(tt.err); got != tt.cause {
			t.Errorf("Cause(%v) = %q, want %q", tt.err, got, tt.cause)
		}
		got := Fix(tt.err)
		if tt.fix == "" {
			if got != "" {
				t.Errorf("Fix(%v) = %q, want none", tt.err, got)
			}
			continue
		}
		if !strings.Contains(got, tt.fix) || strings.Contains(got, "\n") || len(tt.cause)+len(got) > 72 {
			t.Errorf("Fix(%v) = %q, want one short line with %q", tt.err, got, tt.fix)
		}
		seen[got] = true
	}
	if len(seen) != len(causes) {
		t.Errorf("%d different fixes for the %d causes", len(seen), len(causes))
	}
}

func TestOrdinalError(t *testing.T) {
	tests := []struct {
		ordinal, count int
		want           string
	}{
		{3, 1, "no GPU 3 (the driver sees GPU 0)"},
		{8, 8, "no GPU 8 (the driver sees GPUs 0 to 7)"},
		{1, 0, "no GPU 1 (the driver sees none)"},
	}
	for _, tt := range tests {
		var err error = &OrdinalError{Ordinal: tt.ordinal, Count: tt.count}
		if err.Error() != tt.want {
			t.Errorf("%+v: %q, want %q", err, err.Error(), tt.want)
		}
		if !errors.Is(fmt.Errorf("open: %w", err), ErrNoSuchGPU) || errors.Is(err, ErrNoDevice) {
			t.Errorf("%v: errors.Is wrong", err)
		}
	}
}

func TestModuleVersion(t *testing.T) {
	tests := []struct{ text, want string }{
		{"NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.183.01  Sun May 12 19:39:15 UTC 2024\nGCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n", "535.183.01"},
		{"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.15  Release Build  (dvs-builder@U16-I3-A03-4-3)  Tue Mar  5 22:15:33 UTC 2024\n", "550.54.15"},
		{"NVRM version: NVIDIA UNIX aarch64 Kernel Module  570.86.10  Fri Jan 24 2025\n", "570.86.10"},
		{"GCC version: 12\n", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := moduleVersion(tt.text); got != tt.want {
			t.Errorf("moduleVersion(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestReadModuleVersion(t *testing.T) {
	saved := procVersion
	defer func() { procVersion = saved }()
	dir := t.TempDir()
	procVersion = filepath.Join(dir, "version")
	if v, ok := readModuleVersion(); ok || v != "" {
		t.Errorf("no file: %q, %v", v, ok)
	}
	if err := os.WriteFile(procVersion, []byte("NVRM version: NVIDIA UNIX x86_64 Kernel Module  560.35.03  Fri Aug 16\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if v, ok := readModuleVersion(); !ok || v != "560.35.03" {
		t.Errorf("file: %q, %v", v, ok)
	}
}

func TestCUDAVersion(t *testing.T) {
	for _, tt := range []struct {
		v    int
		want string
	}{{12020, "12.2"}, {11080, "11.8"}, {12090, "12.9"}, {13000, "13.0"}, {0, ""}} {
		if got := (DriverInfo{CUDA: tt.v}).CUDAVersion(); got != tt.want {
			t.Errorf("CUDA %d: %q, want %q", tt.v, got, tt.want)
		}
	}
}
