package main

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

func TestTableRun(t *testing.T) {
	r := runFake(noCUDA(), "-n", "1-8")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	want := []string{
		" N:                 Total                Unique           Elapsed",
		" 1:                     1                     1      00:00:01.500",
		" 2:                     0                     0      00:00:01.500",
		" 3:                     0                     0      00:00:01.500",
		" 4:                     2                     1      00:00:01.500",
		" 5:                    10                     2      00:00:01.500",
		" 6:                     4                     1      00:00:01.500",
		" 7:                    40                     6      00:00:01.500",
		" 8:                    92                    12      00:00:01.500",
	}
	if got := lines(r.stdout); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestJSONRun(t *testing.T) {
	r := runFake(noCUDA(), "-n", "1-12", "-json", "-algo", "mirror")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	ls := lines(r.stdout)
	if len(ls) != 12 {
		t.Fatalf("%d lines, want 12", len(ls))
	}
	for i, l := range ls {
		var m map[string]any
		dec := json.NewDecoder(strings.NewReader(l))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		for _, k := range []string{"n", "total", "unique", "count1", "count2", "count4", "count8", "seconds"} {
			if _, ok := m[k].(json.Number); !ok {
				t.Errorf("line %d: %q is %T, want a JSON number", i+1, k, m[k])
			}
		}
		for k, v := range map[string]string{"backend": "cpu", "algo": "mirror", "device": "cpu"} {
			if m[k] != v {
				t.Errorf("line %d: %q = %v, want %q", i+1, k, m[k], v)
			}
		}
		if _, ok := m["device_name"]; ok {
			t.Errorf("line %d: device_name on the CPU", i+1)
		}
		if m["n"] != json.Number(strconv.Itoa(i+1)) {
			t.Errorf("line %d: n = %v", i+1, m["n"])
		}
		if m["seconds"] != json.Number("1.5") {
			t.Errorf("line %d: seconds = %v, want 1.5", i+1, m["seconds"])
		}
	}
	recs := decodeJSON(t, r.stdout)
	if c := recs[0]; c.Total != 1 || c.Unique != 1 || c.Count1 != 1 {
		t.Errorf("N=1: %+v", c)
	}
	for _, c := range recs {
		if c.Total != c.Count1+2*c.Count2+4*c.Count4+8*c.Count8 || c.Unique != c.Count1+c.Count2+c.Count4+c.Count8 {
			t.Errorf("N=%d: inconsistent record %+v", c.N, c)
		}
	}
}
