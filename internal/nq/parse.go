package nq

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseSizes parses the sizes of a count: one size "N" or an inclusive
// range "A-B" of plain decimal numbers with MinN <= A <= B <= MaxN. Its
// errors say what is wrong with s without quoting it; callers add that.
func ParseSizes(s string) (lo, hi int, err error) {
	a, b, isRange := strings.Cut(s, "-")
	if !isRange {
		n, err := parseSize(s)
		return n, n, err
	}
	if a == "" {
		return 0, 0, fmt.Errorf("sizes are positive; a range is written A-B, as in 4-16")
	}
	if b == "" {
		return 0, 0, fmt.Errorf("the range has no upper end; write A-B, as in 4-16")
	}
	if lo, err = parseSize(a); err != nil {
		return 0, 0, err
	}
	if hi, err = parseSize(b); err != nil {
		return 0, 0, err
	}
	if lo > hi {
		return 0, 0, fmt.Errorf("the range is empty because %d > %d; write it as %d-%d", lo, hi, hi, lo)
	}
	return lo, hi, nil
}

// parseSize parses one board size of plain decimal digits.
func parseSize(s string) (int, error) {
	if s == "" || strings.Trim(s, "0123456789") != "" {
		return 0, fmt.Errorf("want a size N or a range A-B with %d <= A <= B <= %d", MinN, MaxN)
	}
	n, err := strconv.Atoi(s)
	if err != nil { // too many digits for an int
		return 0, fmt.Errorf("N must be between %d and %d", MinN, MaxN)
	}
	return n, CheckN(n)
}

// ParseAlgos parses a comma-separated list of algorithm names, each at
// most once, such as "eightfold,symmetry".
func ParseAlgos(s string) ([]Algo, error) {
	var out []Algo
	seen := map[Algo]bool{}
	for _, a := range strings.Split(s, ",") {
		algo, err := ParseAlgo(strings.TrimSpace(a))
		if err != nil {
			return nil, err
		}
		if seen[algo] {
			return nil, fmt.Errorf("%s is listed twice", algo)
		}
		seen[algo] = true
		out = append(out, algo)
	}
	return out, nil
}
