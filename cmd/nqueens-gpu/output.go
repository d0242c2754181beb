package main

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/device"
	"github.com/nqueens-gpu/nqueens-gpu/internal/job"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// resultWriter writes the result of each N as soon as it is known.
type resultWriter interface {
	write(n int, res job.Result, elapsed time.Duration) error
}

// Column widths of the table. uint64 has at most 20 digits, which covers
// Total and Unique for every N up to 28 (Total(28) has 19 digits); C8 is
// about Total/8. C2 and C4 stay far smaller: numbers wider than a column
// still print in full, only the alignment suffers. Elapsed fits
// "99d hh:mm:ss.mmm".
const (
	widthN       = 2
	widthTotal   = 20
	widthUnique  = 20
	widthC2      = 12
	widthC4      = 12
	widthC8      = 20
	widthElapsed = 16
)

// tableWriter writes the human-readable table:
//
//	N:                 Total                Unique           Elapsed
//	8:                    92                    12      00:00:00.001
type tableWriter struct {
	w       io.Writer
	verbose bool
	started bool // the header is out
}

func newTableWriter(w io.Writer, verbose bool) *tableWriter {
	return &tableWriter{w: w, verbose: verbose}
}

func (t *tableWriter) header() error {
	t.started = true
	var err error
	if t.verbose {
		_, err = fmt.Fprintf(t.w, "%*s:  %*s  %*s  %*s  %*s  %*s  %*s\n",
			widthN, "N", widthTotal, "Total", widthUnique, "Unique",
			widthC2, "C2", widthC4, "C4", widthC8, "C8", widthElapsed, "Elapsed")
	} else {
		_, err = fmt.Fprintf(t.w, "%*s:  %*s  %*s  %*s\n",
			widthN, "N", widthTotal, "Total", widthUnique, "Unique", widthElapsed, "Elapsed")
	}
	return err
}

// write writes the row of one N, after the header when it is the first:
// a count that fails before its first row leaves stdout empty.
func (t *tableWriter) write(n int, res job.Result, elapsed time.Duration) error {
	if !t.started {
		if err := t.header(); err != nil {
			return err
		}
	}
	return t.row(n, res.Counts, elapsed)
}

func (t *tableWriter) row(n int, c nq.Counts, elapsed time.Duration) error {
	var err error
	if t.verbose {
		_, err = fmt.Fprintf(t.w, "%*d:  %*d  %*d  %*d  %*d  %*d  %*s\n",
			widthN, n, widthTotal, c.Total(), widthUnique, c.Unique(),
			widthC2, c.C2, widthC4, c.C4, widthC8, c.C8, widthElapsed, formatElapsed(elapsed))
	} else {
		_, err = fmt.Fprintf(t.w, "%*d:  %*d  %*d  %*s\n",
			widthN, n, widthTotal, c.Total(), widthUnique, c.Unique(), widthElapsed, formatElapsed(elapsed))
	}
	return err
}

// formatElapsed writes d as hh:mm:ss.mmm, truncated to the millisecond, with
// a "Nd " prefix when d is a day or more. A negative d reads as zero.
func formatElapsed(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	ms := int64(d / time.Millisecond)
	const (
		second = 1000
		minute = 60 * second
		hour   = 60 * minute
		day    = 24 * hour
	)
	s := fmt.Sprintf("%02d:%02d:%02d.%03d", ms%day/hour, ms%hour/minute, ms%minute/second, ms%second)
	if days := ms / day; days > 0 {
		s = fmt.Sprintf("%dd %s", days, s)
	}
	return s
}

// jsonRecord is one line of -json output. The field names are part of the
// program's interface; see the -h text.
type jsonRecord struct {
	N int `json:"n"`
	nq.CountsJSON
	Seconds    float64 `json:"seconds"`
	Backend    string  `json:"backend"`               // "cpu" or "gpu"
	Algo       string  `json:"algo"`                  // the algorithm that ran
	Device     string  `json:"device"`                // "cpu" or the GPU ordinal
	DeviceName string  `json:"device_name,omitempty"` // the GPU's name
}

// origin is where counts come from, as the JSON records say it.
type origin struct {
	backend    string // "cpu", "gpu" or "gpu+cpu"
	device     string // "cpu", the GPU ordinals ("0", "0,1,cpu")
	deviceName string // the GPUs' names
	algo       nq.Algo
}

// originOf describes the devices of a count.
func originOf(d *device.Devices) origin {
	return origin{backend: d.Kind, device: d.Device, deviceName: d.DeviceName, algo: d.Algo}
}

// jsonWriter writes one JSON object per N and line.
type jsonWriter struct {
	enc *json.Encoder
	o   origin
}

func newJSONWriter(w io.Writer, o origin) *jsonWriter {
	return &jsonWriter{enc: json.NewEncoder(w), o: o}
}

func (j *jsonWriter) write(n int, res job.Result, elapsed time.Duration) error {
	return j.row(n, res.Counts, elapsed)
}

func (j *jsonWriter) row(n int, c nq.Counts, elapsed time.Duration) error {
	return j.enc.Encode(jsonRecord{
		N:          n,
		CountsJSON: c.JSON(),
		Seconds:    elapsed.Seconds(),
		Backend:    j.o.backend,
		Algo:       string(j.o.algo),
		Device:     j.o.device,
		DeviceName: j.o.deviceName,
	})
}

// shardWriter writes the result of a -shard run: with -json the shard
// result that merge reads (job.ShardResult), otherwise a line that says
// what was counted.
type shardWriter struct {
	w     io.Writer
	json  bool
	o     origin
	shard job.Shard
}

func (s *shardWriter) write(n int, res job.Result, elapsed time.Duration) error {
	m := max(s.shard.Count, 1)
	r := job.ShardResult{
		Kind:        job.ShardKind,
		N:           n,
		Algo:        s.o.algo,
		Shard:       s.shard.Index,
		Shards:      m,
		Batches:     res.Batches,
		JobBatches:  res.Plan.Batches,
		Fingerprint: res.Plan.Fingerprint(),
		Sums:        job.SumsOf(res.Partial),
		Version:     programVersion(),
		Backend:     s.o.backend,
		Device:      s.o.device,
		DeviceName:  s.o.deviceName,
		Seconds:     elapsed.Seconds(),
	}
	if s.json {
		return json.NewEncoder(s.w).Encode(r)
	}
	_, err := fmt.Fprintf(s.w, "N=%d %s shard %d/%d: its %d of the job's %d batches counted in %s; partial sums %d %d %d %d by orbit size 1 2 4 8 (not counts: merge the -json results of all %d shards with '%s merge')\n",
		n, s.o.algo, s.shard.Index, m, res.Batches, res.Plan.Batches, formatElapsed(elapsed),
		r.Sums.Orbit1, r.Sums.Orbit2, r.Sums.Orbit4, r.Sums.Orbit8, m, progName)
	return err
}
