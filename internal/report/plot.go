package report

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/nqueens-gpu/nqueens-gpu/internal/fsutil"
)

// PlotSeries is one line of a time-against-N plot.
type PlotSeries struct {
	Label  string
	Points []PlotPoint
}

// PlotPoint is one N: the median run time with the fastest and slowest
// runs (seconds).
type PlotPoint struct {
	N                int
	Median, Min, Max float64
}

// PlotSeriesOf turns documents into plot lines, one per series. With more
// than one document each label is prefixed by the document's name.
func PlotSeriesOf(docs []*Document, names []string) []PlotSeries {
	var out []PlotSeries
	for i, d := range docs {
		for _, s := range d.Series {
			ps := PlotSeries{Label: s.Label}
			if len(docs) > 1 {
				ps.Label = names[i] + ": " + s.Label
			}
			for _, r := range s.Results {
				ps.Points = append(ps.Points, PlotPoint{N: r.N, Median: r.Stats.Median, Min: r.Stats.Min, Max: r.Stats.Max})
			}
			out = append(out, ps)
		}
	}
	return out
}

// PlotFormat returns the image format for a file name: "png" or "svg".
func PlotFormat(path string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".png", ".svg":
		return ext[1:], nil
	}
	return "", fmt.Errorf("plot file %q: want a name ending in .png or .svg", path)
}

// Plot size.
const (
	plotWidth  = 7 * vg.Inch
	plotHeight = 4.5 * vg.Inch
)

// WritePlot draws the series as median time against N on a logarithmic
// time axis, with bars from the fastest to the slowest run, and writes the
// image in format ("png" or "svg") to w.
func WritePlot(w io.Writer, format, title string, series []PlotSeries) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "N"
	p.Y.Label.Text = "median time (bars: min-max)"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = secondsTicks{}
	p.X.Tick.Marker = intTicks{}
	p.Legend.Top, p.Legend.Left = true, true
	p.Add(plotter.NewGrid())

	lo, hi := math.Inf(1), math.Inf(-1)
	minN, maxN := math.MaxInt, math.MinInt
	drawn := 0
	for i, s := range series {
		var xys plotter.XYs
		var errs plotter.YErrors
		for _, pt := range s.Points {
			if !(pt.Median > 0) || !(pt.Min > 0) || pt.Max < pt.Median || pt.Min > pt.Median || math.IsInf(pt.Max, 0) {
				continue // a log axis has no place for it
			}
			xys = append(xys, plotter.XY{X: float64(pt.N), Y: pt.Median})
			errs = append(errs, struct{ Low, High float64 }{pt.Median - pt.Min, pt.Max - pt.Median})
			lo, hi = math.Min(lo, pt.Min), math.Max(hi, pt.Max)
			minN, maxN = min(minN, pt.N), max(maxN, pt.N)
		}
		if len(xys) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return err
		}
		line.Color = plotutil.Color(i)
		line.Width = vg.Points(1.5)
		points.Color = plotutil.Color(i)
		points.Shape = plotutil.Shape(i)
		bars, err := plotter.NewYErrorBars(struct {
			plotter.XYs
			plotter.YErrors
		}{xys, errs})
		if err != nil {
			return err
		}
		bars.Color = plotutil.Color(i)
		p.Add(line, points, bars)
		p.Legend.Add(s.Label, line, points)
		drawn++
	}
	if drawn == 0 {
		return errors.New("nothing to plot: no positive timings")
	}
	// The time axis starts at a whole decade and leaves room above the
	// data for the legend in the top left corner; N gets half a step of
	// padding.
	p.Y.Min = math.Pow(10, math.Floor(math.Log10(lo)))
	top := math.Max(hi, p.Y.Min*10)
	rows := float64(drawn) * 1.3 * float64(p.Legend.TextStyle.Font.Size)
	frac := math.Min(0.6, (rows+6)/float64(plotHeight-vg.Inch))
	p.Y.Max = math.Pow(10, math.Log10(p.Y.Min)+math.Log10(top/p.Y.Min)/(1-frac))
	p.X.Min, p.X.Max = float64(minN)-0.5, float64(maxN)+0.5

	wt, err := p.WriterTo(plotWidth, plotHeight, format)
	if err != nil {
		return err
	}
	_, err = wt.WriteTo(w)
	return err
}

// SavePlot writes the plot to path, in the format its extension names.
func SavePlot(path, title string, series []PlotSeries) error {
	format, err := PlotFormat(path)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := WritePlot(&buf, format, title, series); err != nil {
		return err
	}
	return fsutil.WriteAtomic(path, buf.Bytes(), 0o666)
}

// secondsTicks marks every power of ten with a label such as "10ms" and
// the multiples in between without one.
type secondsTicks struct{}

func (secondsTicks) Ticks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(min)); e <= math.Ceil(math.Log10(max)); e++ {
		v := math.Pow(10, e)
		ticks = append(ticks, plot.Tick{Value: v, Label: FormatSeconds(v)})
		for k := 2; k < 10; k++ {
			if m := v * float64(k); m <= max {
				ticks = append(ticks, plot.Tick{Value: m})
			}
		}
	}
	return ticks
}

// intTicks labels whole numbers, every one or every few when there are
// many.
type intTicks struct{}

func (intTicks) Ticks(min, max float64) []plot.Tick {
	lo, hi := int(math.Ceil(min)), int(math.Floor(max))
	step := 1
	for (hi-lo)/step > 14 {
		step *= 2
	}
	var ticks []plot.Tick
	for n := lo; n <= hi; n++ {
		t := plot.Tick{Value: float64(n)}
		if (n-lo)%step == 0 {
			t.Label = fmt.Sprint(n)
		}
		ticks = append(ticks, t)
	}
	return ticks
}
