package report

import (
	"errors"
	"fmt"
	"math"

	"github.com/nqueens-gpu/nqueens-gpu/internal/benchstat"
)

// Comparison is one N of one series against the same N of a baseline.
type Comparison struct {
	Series, BaseSeries string // the labels
	N                  int
	Now, Before        benchstat.Summary
	// Welch is the test of Now's runs against Before's; nil when it could
	// not be run, with the reason in Note.
	Welch *benchstat.Welch
	Note  string
}

// Verdict says in a few words what the comparison shows.
func (c Comparison) Verdict() string {
	if c.Welch == nil {
		return "cannot test: " + c.Note
	}
	w := c.Welch
	dir := "slower"
	if w.Diff < 0 {
		dir = "faster"
	}
	if !w.Significant {
		return fmt.Sprintf("no significant difference at 5%% (%s)", formatP(w.P))
	}
	return fmt.Sprintf("%s, significant at 5%% (%s), %s effect", dir, formatP(w.P), benchstat.EffectWord(w.HedgesG))
}

func formatP(p float64) string {
	if p < 1e-4 {
		return "p<0.0001"
	}
	return fmt.Sprintf("p=%.4f", p)
}

// Pairing of series: what a series of the new document is compared with.
//
// A series is matched with the baseline series of the same backend and
// algorithm, the one on the same device if there are several. When each
// document has exactly one series they are compared whatever they are (for
// example this GPU against an earlier CPU run), and the note says so.
func pair(cur, base *Document) (pairs [][2]*Series, notes []string) {
	for i := range cur.Series {
		s := &cur.Series[i]
		var match *Series
		for j := range base.Series {
			b := &base.Series[j]
			if b.Backend != s.Backend || b.Algo != s.Algo {
				continue
			}
			if match == nil || (b.Device == s.Device && match.Device != s.Device) {
				match = b
			}
		}
		if match == nil && len(cur.Series) == 1 && len(base.Series) == 1 {
			match = &base.Series[0]
			notes = append(notes, fmt.Sprintf("comparing %q with the baseline's only series %q", s.Label, match.Label))
		}
		if match == nil {
			notes = append(notes, fmt.Sprintf("series %q: no baseline series with backend %s and algorithm %s", s.Label, s.Backend, s.Algo))
			continue
		}
		pairs = append(pairs, [2]*Series{s, match})
	}
	return pairs, notes
}

// Compare compares every N of every series of cur with the same N of the
// matching series of base. notes tell which series or N had no
// counterpart.
func Compare(cur, base *Document) (cs []Comparison, notes []string) {
	pairs, notes := pair(cur, base)
	for _, p := range pairs {
		s, b := p[0], p[1]
		for _, r := range s.Results {
			br, ok := b.Result(r.N)
			if !ok {
				notes = append(notes, fmt.Sprintf("series %q N=%d: not in the baseline", s.Label, r.N))
				continue
			}
			c := Comparison{Series: s.Label, BaseSeries: b.Label, N: r.N, Now: r.Stats, Before: br.Stats}
			if r.Total != br.Total || r.Unique != br.Unique {
				// Both were checked when they were measured; a baseline
				// with other counts was edited or is from a broken build.
				notes = append(notes, fmt.Sprintf("series %q N=%d: counts differ from the baseline (total %d, baseline %d)", s.Label, r.N, r.Total, br.Total))
			}
			w, err := benchstat.WelchTest(r.Seconds, br.Seconds)
			switch {
			case errors.Is(err, benchstat.ErrTooFew):
				c.Note = fmt.Sprintf("needs at least 2 runs on each side (have %d now, %d before)", len(r.Seconds), len(br.Seconds))
			case err != nil:
				c.Note = err.Error()
			case math.IsNaN(w.T) || math.IsNaN(w.P):
				// Read refuses the times that lead here; a verdict on
				// NaN would read "significant" or not at random.
				c.Note = "the times give no test statistic"
			default:
				c.Welch = &w
			}
			cs = append(cs, c)
		}
	}
	return cs, notes
}

// Ratio is Now's mean over Before's, NaN if Before's is 0.
func (c Comparison) Ratio() float64 {
	if c.Before.Mean == 0 {
		return math.NaN()
	}
	return c.Now.Mean / c.Before.Mean
}
