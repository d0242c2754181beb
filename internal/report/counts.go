package report

// The output of a count: the table, the JSON records and shard results,
// one N at a time as each is counted.

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/buildinfo"
	"github.com/nqueens-gpu/nqueens-gpu/internal/job"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
	"github.com/nqueens-gpu/nqueens-gpu/internal/shard"
)

// ResultWriter writes the result of each N as soon as it is known.
type ResultWriter interface {
	Write(n int, res job.Result, elapsed time.Duration) error
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

// Table writes the human-readable table of a count:
//
//	N:                 Total                Unique           Elapsed
//	8:                    92                    12      00:00:00.001
//
// with Verbose, C2, C4 and C8 columns after Unique.
type Table struct {
	w       io.Writer
	verbose bool
	started bool // the header is out
}

// NewTable starts a table on w.
func NewTable(w io.Writer, verbose bool) *Table { return &Table{w: w, verbose: verbose} }

// Header writes the column titles.
func (t *Table) Header() error {
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

// Write writes the row of one N, after the header when it is the first:
// a count that fails before its first row leaves the output empty.
func (t *Table) Write(n int, res job.Result, elapsed time.Duration) error {
	if !t.started {
		if err := t.Header(); err != nil {
			return err
		}
	}
	return t.Row(n, res.Counts, elapsed)
}

// Row writes the row of counts c of n, counted in elapsed.
func (t *Table) Row(n int, c nq.Counts, elapsed time.Duration) error {
	var err error
	if t.verbose {
		_, err = fmt.Fprintf(t.w, "%*d:  %*d  %*d  %*d  %*d  %*d  %*s\n",
			widthN, n, widthTotal, c.Total(), widthUnique, c.Unique(),
			widthC2, c.C2, widthC4, c.C4, widthC8, c.C8, widthElapsed, FormatElapsed(elapsed))
	} else {
		_, err = fmt.Fprintf(t.w, "%*d:  %*d  %*d  %*s\n",
			widthN, n, widthTotal, c.Total(), widthUnique, c.Unique(), widthElapsed, FormatElapsed(elapsed))
	}
	return err
}

// FormatElapsed writes d as hh:mm:ss.mmm, truncated to the millisecond,
// with a "Nd " prefix when d is a day or more. A negative d reads as zero.
func FormatElapsed(d time.Duration) string {
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

// Record is one line of a count's -json output. The field names are part
// of the program's interface (see nqueens-gpu -h).
type Record struct {
	N int `json:"n"`
	nq.CountsJSON
	Seconds    float64 `json:"seconds"`
	Backend    string  `json:"backend"`               // "cpu", "gpu" or "gpu+cpu"
	Algo       string  `json:"algo"`                  // the algorithm that ran
	Device     string  `json:"device"`                // "cpu" or the GPU ordinal(s)
	DeviceName string  `json:"device_name,omitempty"` // the GPUs' names
	// Version, Commit and Modified are the program's build
	// (buildinfo.Info).
	Version  string `json:"version,omitempty"`
	Commit   string `json:"commit,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	// Workers is the number of CPU worker goroutines, 0 for none.
	Workers int `json:"workers,omitempty"`
	// Finished is when the count of N ended, in UTC.
	Finished time.Time `json:"finished,omitzero"`
}

// Origin is where counts come from, as the records say it.
type Origin struct {
	Backend    string // "cpu", "gpu" or "gpu+cpu"
	Device     string // "cpu", the GPU ordinals ("0", "0,1,cpu")
	DeviceName string // the GPUs' names
	Algo       nq.Algo
	Workers    int            // CPU worker goroutines; 0: none
	Build      buildinfo.Info // the program's (buildinfo.Read)
}

// JSON writes one Record per N and line.
type JSON struct {
	// Now, when set, stamps each record with the time it is written
	// (Record.Finished).
	Now func() time.Time
	enc *json.Encoder
	o   Origin
}

// NewJSON writes the records of counts from o on w.
func NewJSON(w io.Writer, o Origin) *JSON { return &JSON{enc: json.NewEncoder(w), o: o} }

// Write writes the record of one N.
func (j *JSON) Write(n int, res job.Result, elapsed time.Duration) error {
	return j.Row(n, res.Counts, elapsed)
}

// Row writes the record of counts c of n, counted in elapsed.
func (j *JSON) Row(n int, c nq.Counts, elapsed time.Duration) error {
	r := Record{
		N:          n,
		CountsJSON: c.JSON(),
		Seconds:    elapsed.Seconds(),
		Backend:    j.o.Backend,
		Algo:       string(j.o.Algo),
		Device:     j.o.Device,
		DeviceName: j.o.DeviceName,
		Version:    j.o.Build.Version,
		Commit:     j.o.Build.Commit,
		Modified:   j.o.Build.Modified,
		Workers:    j.o.Workers,
	}
	if j.Now != nil {
		r.Finished = j.Now().UTC()
	}
	return j.enc.Encode(r)
}

// Shard writes the result of a -shard run: with JSON the shard result
// that merge reads (shard.Result), with the version (buildinfo.Info.Short)
// and commit of Origin.Build, otherwise a line that says what was
// counted.
type Shard struct {
	W       io.Writer
	JSON    bool
	Origin  Origin
	Shard   plan.Shard
	Program string // the program's name, for the merge hint
}

// Write writes the shard's result for n.
func (s *Shard) Write(n int, res job.Result, elapsed time.Duration) error {
	m := max(s.Shard.Count, 1)
	// The record states the job's plan (N, algorithm, depth, batch
	// size) so that merge can make it again, and carries a checksum
	// (shard.Result.MarshalJSON).
	r := shard.NewResult(res.Plan, s.Shard, res.Batches, res.Partial)
	r.Version, r.Commit = s.Origin.Build.Short(), s.Origin.Build.Commit
	r.Backend, r.Device, r.DeviceName = s.Origin.Backend, s.Origin.Device, s.Origin.DeviceName
	r.Seconds = elapsed.Seconds()
	if s.JSON {
		return json.NewEncoder(s.W).Encode(r)
	}
	_, err := fmt.Fprintf(s.W, "N=%d %s shard %d/%d: its %d of the job's %d batches counted in %s; partial sums %d %d %d %d by orbit size 1 2 4 8 (not counts: merge the -json results of all %d shards with '%s merge')\n",
		n, s.Origin.Algo, s.Shard.Index, m, res.Batches, res.Plan.Batches, FormatElapsed(elapsed),
		r.Sums.Orbit1, r.Sums.Orbit2, r.Sums.Orbit4, r.Sums.Orbit8, m, s.Program)
	return err
}
