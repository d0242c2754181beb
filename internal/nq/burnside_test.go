package nq

import (
	"strings"
	"testing"
)

func TestFromBurnside(t *testing.T) {
	tests := []struct {
		name             string
		total, s180, s90 uint64
		want             Counts
		wantErr          string // a part of the error; empty: no error
	}{
		// NOTES §6: N=8 has T=92, S180=4, S90=0.
		{name: "N=8", total: 92, s180: 4, s90: 0, want: Counts{C4: 1, C8: 11}},
		{name: "N=4", total: 2, s180: 2, s90: 2, want: Counts{C2: 1}},
		{name: "N=12", total: 14200, s180: 80, s90: 8, want: Counts{C2: 4, C4: 18, C8: 1765}},
		{name: "N=2, no solutions", want: Counts{}},
		{name: "S180 > Total", total: 92, s180: 100, s90: 0, wantErr: "S90=0 S180=100 Total=92"},
		{name: "S90 > S180", total: 92, s180: 4, s90: 8, wantErr: "S90=8 S180=4 Total=92"},
		{name: "odd S90", total: 14200, s180: 80, s90: 7, wantErr: "S90=7 is odd"},
		{name: "C4 not whole", total: 92, s180: 6, s90: 0, wantErr: "6-0 = 6 is not a multiple of 4"},
		{name: "C8 not whole", total: 93, s180: 4, s90: 0, wantErr: "93-4 = 89 is not a multiple of 8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := FromBurnside(tt.total, tt.s180, tt.s90)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("FromBurnside(%d, %d, %d) = %v, %v; want an error with %q", tt.total, tt.s180, tt.s90, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("FromBurnside(%d, %d, %d) = %v, %v; want %v", tt.total, tt.s180, tt.s90, got, err, tt.want)
			}
			if got.Total() != tt.total {
				t.Errorf("Total() = %d, want %d", got.Total(), tt.total)
			}
		})
	}
}
