package report

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/buildinfo"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

func TestFormatElapsed(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "00:00:00.000"},
		{-5 * time.Second, "00:00:00.000"},
		{999 * time.Microsecond, "00:00:00.000"},
		{time.Millisecond, "00:00:00.001"},
		{1999999 * time.Microsecond, "00:00:01.999"}, // truncated, not rounded
		{1500 * time.Millisecond, "00:00:01.500"},
		{59*time.Second + 999*time.Millisecond, "00:00:59.999"},
		{time.Minute, "00:01:00.000"},
		{61*time.Minute + 1*time.Second + 2*time.Millisecond, "01:01:01.002"},
		{23*time.Hour + 59*time.Minute + 59*time.Second + 999*time.Millisecond, "23:59:59.999"},
		{24 * time.Hour, "1d 00:00:00.000"},
		{25*time.Hour + 30*time.Minute + 15*time.Second + 250*time.Millisecond, "1d 01:30:15.250"},
		{99*24*time.Hour + 23*time.Hour, "99d 23:00:00.000"},
		{365 * 24 * time.Hour, "365d 00:00:00.000"},
		{math.MaxInt64, "106751d 23:47:16.854"},
	}
	for _, tt := range tests {
		if got := FormatElapsed(tt.d); got != tt.want {
			t.Errorf("FormatElapsed(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

// TestTableLayout checks that the columns line up for every N up to 28,
// with 20-digit counts and long elapsed times.
func TestTableLayout(t *testing.T) {
	big := nq.Counts{C2: 123456789012, C4: 123456789012, C8: math.MaxUint64 / 16}
	for _, verbose := range []bool{false, true} {
		var b bytes.Buffer
		tw := NewTable(&b, verbose)
		if err := tw.Header(); err != nil {
			t.Fatal(err)
		}
		tw.Row(1, nq.Counts{C1: 1}, 0)
		tw.Row(9, big, 2*time.Millisecond)
		tw.Row(28, big, 99*24*time.Hour+time.Second)
		ls := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		if len(ls) != 4 {
			t.Fatalf("got %d lines:\n%s", len(ls), b.String())
		}
		for _, l := range ls {
			if len(l) != len(ls[0]) {
				t.Errorf("verbose=%v: line %q has length %d, header %d", verbose, l, len(l), len(ls[0]))
			}
			if strings.TrimRight(l, " ") != l {
				t.Errorf("trailing spaces in %q", l)
			}
		}
		// Every line has its colon in the same place.
		for _, l := range ls {
			if l[2] != ':' {
				t.Errorf("line %q: no colon after N", l)
			}
		}
		if !strings.Contains(ls[1], " 1:  ") || len(strings.Fields(ls[1])) != len(strings.Fields(ls[0])) {
			t.Errorf("N=1 row %q does not match header %q", ls[1], ls[0])
		}
		f := strings.Fields(ls[1])
		if f[1] != "1" || f[2] != "1" {
			t.Errorf("N=1 row %q: want Total 1, Unique 1", ls[1])
		}
		if verbose && (f[3] != "0" || f[4] != "0" || f[5] != "0") {
			t.Errorf("N=1 row %q: want C2 = C4 = C8 = 0", ls[1])
		}
		if !strings.HasSuffix(ls[3], "99d 00:00:01.000") {
			t.Errorf("row %q lacks its elapsed time", ls[3])
		}
		wantHeader := []string{"N:", "Total", "Unique", "Elapsed"}
		if verbose {
			wantHeader = []string{"N:", "Total", "Unique", "C2", "C4", "C8", "Elapsed"}
		}
		if got := strings.Fields(ls[0]); strings.Join(got, " ") != strings.Join(wantHeader, " ") {
			t.Errorf("header %q, want the columns %v", ls[0], wantHeader)
		}
	}
}

// TestJSONBigNumbers checks that counts near the top of uint64 survive as
// exact JSON integers.
func TestJSONBigNumbers(t *testing.T) {
	var b bytes.Buffer
	j := NewJSON(&b, Origin{Backend: "gpu", Device: "1", DeviceName: "X", Algo: nq.CarryChain})
	c := nq.Counts{C8: math.MaxUint64 / 8}
	if err := j.Row(28, c, 90*time.Second); err != nil {
		t.Fatal(err)
	}
	want := `{"n":28,"total":18446744073709551608,"unique":2305843009213693951,"count1":0,"count2":0,"count4":0,` +
		`"count8":2305843009213693951,"seconds":90,"backend":"gpu","algo":"carrychain","device":"1","device_name":"X"}` + "\n"
	if b.String() != want {
		t.Errorf("got  %s\nwant %s", b.String(), want)
	}
}

// With the build, the CPU workers and a clock, each record says which
// program wrote it, with how many workers and when; the fields the
// records had before keep their names and places.
func TestJSONRecordBuild(t *testing.T) {
	var b bytes.Buffer
	build := buildinfo.Info{Version: "v0.0.0-20261130100000-0123456789ab+dirty", Commit: "0123456789abcdef0123456789abcdef01234567", Modified: true,
		Go: "go1.26.8", CUDA: "none"}
	j := NewJSON(&b, Origin{Backend: "cpu", Device: "cpu", Algo: nq.Eightfold, Workers: 16, Build: build})
	j.Now = func() time.Time { return time.Date(2026, 11, 30, 11, 12, 13, 500, time.FixedZone("CET", 3600)) }
	if err := j.Row(8, nq.Counts{C4: 1, C8: 11}, 250*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	want := `{"n":8,"total":92,"unique":12,"count1":0,"count2":0,"count4":1,"count8":11,"seconds":0.25,"backend":"cpu","algo":"eightfold","device":"cpu",` +
		`"version":"v0.0.0-20261130100000-0123456789ab+dirty","commit":"0123456789abcdef0123456789abcdef01234567","modified":true,` +
		`"workers":16,"finished":"2026-11-30T10:12:13.0000005Z"}` + "\n"
	if b.String() != want {
		t.Errorf("got  %s\nwant %s", b.String(), want)
	}
	var r Record
	if err := json.Unmarshal(b.Bytes(), &r); err != nil || r.Workers != 16 || r.Commit != build.Commit || !r.Finished.Equal(j.Now()) {
		t.Errorf("read back %+v, %v", r, err)
	}
}
