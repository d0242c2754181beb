// Package estimate says how long a count takes on the CPU, and writes a
// time the way a person reads it. It is the one estimate of a count's
// time: the line a GPU run prints when it falls back to the CPU
// (RangeSeconds, Text) and the progress reports' time left (package
// progress, from CPUSeconds before a rate is measured) say the same.
//
// The figures are one worker's measured times of the symmetry algorithm at
// N=14 to 17, grown above N=17 by a ratio that rises as the ratios of
// successive solution counts do, divided among K workers as 0.9·K, and
// scaled by a measured factor per algorithm. They were measured on the
// reference machine that docs/long-runs.md ("The CPU estimate") describes
// with the derivation; read them as "about", within a factor of two.
package estimate
