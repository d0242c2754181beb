//go:build cgo

package main

import (
	"fmt"
	"io"
	"math"
	"sort"
	"text/tabwriter"
)

// H100Measured is what an H100 measured of a baseline kernel (issue 35):
// its SM clock under load, the ALU pipe's busy share of the cycles of a
// steady launch at ALUBusyN, and whole counts' seconds by N.
type H100Measured struct {
	ClockHz  float64
	ALUBusy  float64
	ALUBusyN int
	Seconds  map[int]float64
}

// loopCost is one 10-step iteration of a kernel's step loop: its SASS
// issue, ALU-pipe and FMA-pipe (IMAD) instructions, and its PTX chain.
type loopCost struct {
	Insts, ALU, IMAD, Chain float64
}

// Serve is the cycles a scheduler needs for one iteration when nothing
// stalls: one issue a cycle, and the ALU and FMA pipes take a warp
// instruction every 2 cycles.
func (c loopCost) Serve() float64 { return math.Max(c.Insts, 2*math.Max(c.ALU, c.IMAD)) }

// calibration is the model's two ways to turn iterations into seconds,
// both fitted on the baseline's measurements.
type calibration struct {
	// Pipe-aware: a scheduler keeps the binding resource busy Eff of the
	// cycles (the baseline is ALU-bound: Eff is its measured ALU share).
	Eff float64
	// Latency-aware: mva with w warps, Serve and a think time Z (the
	// baseline's, fitted to its ALU share at ALUBusyN; another kernel's is
	// Z scaled by its chain against the baseline's).
	Z float64
	// Seconds = K * steady + C, K and C fitted through the measured N
	// (what the steady iterations leave out: the launch tails, the host's
	// share, the start), one pair per way.
	KPipe, CPipe, KLat, CLat float64
}

// h100Point is one N of the prediction: its warps per scheduler and
// iterations (warp steps / 10, all of N's nodes).
type h100Point struct {
	N     int
	Warps int
	Iters float64
}

// steady returns the seconds of pts' iterations at cycles per iteration
// per warp cyc (a function of the warps per scheduler).
func steady(p h100Point, clock float64, cyc func(w int) float64) float64 {
	return p.Iters / float64(SMs*Schedulers) * cyc(p.Warps) / clock
}

// calibrate fits the model on the baseline kernel base and the
// measurements me, at the points pts (which must hold ALUBusyN and the
// measured N).
func calibrate(base loopCost, me H100Measured, pts map[int]h100Point) (calibration, error) {
	var cal calibration
	if base.Serve() != 2*base.ALU {
		return cal, fmt.Errorf("the baseline is not ALU-bound (%v): its ALU share is not its efficiency", base)
	}
	cal.Eff = me.ALUBusy
	p0, ok := pts[me.ALUBusyN]
	if !ok {
		return cal, fmt.Errorf("no point for N=%d", me.ALUBusyN)
	}
	// ALU share = w * 2A / mva(w, Serve, Z): find Z.
	w := p0.Warps
	share := func(z float64) float64 { return float64(w) * 2 * base.ALU / mva(w, base.Serve(), z) }
	lo, hi := 0.0, 1e6
	if share(lo) < me.ALUBusy {
		return cal, fmt.Errorf("the ALU share %.3f is above what %d warps reach", me.ALUBusy, w)
	}
	for i := 0; i < 100; i++ {
		z := (lo + hi) / 2
		if share(z) > me.ALUBusy {
			lo = z
		} else {
			hi = z
		}
	}
	cal.Z = lo
	var ns []int
	for n := range me.Seconds {
		ns = append(ns, n)
	}
	sort.Ints(ns)
	if len(ns) == 0 || len(ns) > 2 {
		return cal, fmt.Errorf("want one or two measured N, have %d", len(ns))
	}
	var xp, xl, ys []float64
	for _, n := range ns {
		p, ok := pts[n]
		if !ok {
			return cal, fmt.Errorf("no point for N=%d", n)
		}
		xp = append(xp, steady(p, me.ClockHz, cal.pipeCycles(base)))
		xl = append(xl, steady(p, me.ClockHz, cal.latCycles(base, base)))
		ys = append(ys, me.Seconds[n])
	}
	if len(ns) == 1 { /* proportional */
		cal.KPipe, cal.KLat = ys[0]/xp[0], ys[0]/xl[0]
		return cal, nil
	}
	cal.CPipe, cal.KPipe = fitLine(xp, ys)
	cal.CLat, cal.KLat = fitLine(xl, ys)
	return cal, nil
}

// pipeCycles and latCycles return a kernel's cycles per iteration per warp
// under the two ways (latCycles scales the think time by k's chain
// against base's).
func (cal calibration) pipeCycles(k loopCost) func(int) float64 {
	return func(int) float64 { return k.Serve() / cal.Eff }
}

func (cal calibration) latCycles(k, base loopCost) func(int) float64 {
	z := cal.Z * k.Chain / base.Chain
	return func(w int) float64 { return mva(w, k.Serve(), z) / float64(w) }
}

// printCalibrated prints both ways' seconds for base and k at pts.
func printCalibrated(out io.Writer, base, k loopCost, me H100Measured, cal calibration, pts []h100Point) error {
	fmt.Fprintf(out, "\nH100 MODEL calibrated on the baseline's measurements (clock %.2f GHz; ALU pipe %.1f%% busy at N=%d; seconds %v):\n",
		me.ClockHz/1e9, 100*me.ALUBusy, me.ALUBusyN, me.Seconds)
	fmt.Fprintf(out, "  baseline: %.0f SASS, %.0f ALU, %.0f IMAD a 10-step iteration (serve %.0f cycles), PTX chain %.0f\n",
		base.Insts, base.ALU, base.IMAD, base.Serve(), base.Chain)
	fmt.Fprintf(out, "  this kernel: %.0f SASS, %.0f ALU, %.0f IMAD (serve %.0f cycles, %.3f of the baseline's), PTX chain %.0f\n",
		k.Insts, k.ALU, k.IMAD, k.Serve(), k.Serve()/base.Serve(), k.Chain)
	fmt.Fprintf(out, "  pipe-aware: efficiency %.3f; seconds = %.4f x steady + %.3f\n", cal.Eff, cal.KPipe, cal.CPipe)
	fmt.Fprintf(out, "  latency-aware: think time %.0f cycles an iteration (the baseline's); seconds = %.4f x steady + %.3f\n",
		cal.Z, cal.KLat, cal.CLat)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "N\twarps/scheduler\titerations\tbaseline s (pipe-aware)\tMODEL s (pipe-aware)\tbaseline s (latency-aware)\tMODEL s (latency-aware)\tmeasured baseline s\t")
	for _, p := range pts {
		bp := cal.KPipe*steady(p, me.ClockHz, cal.pipeCycles(base)) + cal.CPipe
		kp := cal.KPipe*steady(p, me.ClockHz, cal.pipeCycles(k)) + cal.CPipe
		bl := cal.KLat*steady(p, me.ClockHz, cal.latCycles(base, base)) + cal.CLat
		kl := cal.KLat*steady(p, me.ClockHz, cal.latCycles(k, base)) + cal.CLat
		meas := "-"
		if s, ok := me.Seconds[p.N]; ok {
			meas = fmt.Sprintf("%.3g", s)
		}
		fmt.Fprintf(tw, "%d\t%d\t%.3g\t%.3g\t%.3g\t%.3g\t%.3g\t%s\t\n", p.N, p.Warps, p.Iters, bp, kp, bl, kl, meas)
	}
	return tw.Flush()
}
