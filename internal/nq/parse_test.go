package nq

import (
	"strings"
	"testing"
)

func TestParseSizes(t *testing.T) {
	tests := []struct {
		in     string
		lo, hi int
		err    string
	}{
		{"8", 8, 8, ""},
		{"08", 8, 8, ""},
		{"4-16", 4, 16, ""},
		{"1-28", 1, 28, ""},
		{"5-5", 5, 5, ""},
		{"", 0, 0, "want a size N"},
		{"0", 0, 0, "out of range"},
		{"29", 0, 0, "out of range"},
		{"99999999999999999999999", 0, 0, "between 1 and 28"},
		{"-5", 0, 0, "sizes are positive"},
		{"5-", 0, 0, "no upper end"},
		{"10-5", 0, 0, "the range is empty because 10 > 5; write it as 5-10"},
		{"4--8", 0, 0, "want a size N"},
		{"+8", 0, 0, "want a size N"},
		{"٨", 0, 0, "want a size N"},
	}
	for _, tt := range tests {
		lo, hi, err := ParseSizes(tt.in)
		if tt.err == "" && (err != nil || lo != tt.lo || hi != tt.hi) || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("ParseSizes(%q) = %d, %d, %v; want %d, %d, %q", tt.in, lo, hi, err, tt.lo, tt.hi, tt.err)
		}
	}
}

func TestParseAlgos(t *testing.T) {
	got, err := ParseAlgos("eightfold, symmetry")
	if err != nil || len(got) != 2 || got[0] != Eightfold || got[1] != Symmetry {
		t.Errorf("ParseAlgos = %v, %v", got, err)
	}
	for _, bad := range []string{"", "fast", "symmetry,symmetry"} {
		if _, err := ParseAlgos(bad); err == nil {
			t.Errorf("ParseAlgos(%q) accepted", bad)
		}
	}
}
