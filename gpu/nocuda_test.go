//go:build !cuda

package gpu

import (
	"errors"
	"testing"
)

// Without CUDA every entry point says so with ErrNoCUDA, and Driver still
// reads the kernel module's version.
func TestNoCUDA(t *testing.T) {
	if _, err := Devices(); !errors.Is(err, ErrNoCUDA) {
		t.Errorf("Devices: %v", err)
	}
	if b, err := Open(0); b != nil || !errors.Is(err, ErrNoCUDA) {
		t.Errorf("Open(0): %v, %v", b, err)
	}
	d, err := Driver()
	if !errors.Is(err, ErrNoCUDA) || d.CUDA != 0 || d.Library != "" {
		t.Errorf("Driver: %+v, %v", d, err)
	}
	if want, _ := readModuleVersion(); d.Version != want {
		t.Errorf("Driver().Version = %q, want %q", d.Version, want)
	}
	if _, _, err := DriverVersion(); !errors.Is(err, ErrNoCUDA) {
		t.Errorf("DriverVersion: %v", err)
	}
	if Fix(ErrNoCUDA) == "" {
		t.Error("no fix for ErrNoCUDA")
	}
}
