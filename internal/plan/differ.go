package plan

import "fmt"

// ShowDiff shows two strings that should be equal, such as fingerprints
// or task hashes, so that a reader sees where they differ: a few
// characters before the first difference and a few after, from each, and
// the position. Printing the first 12 characters of each would show the
// same text twice when they differ further on.
//
//	ShowDiff("2353c709ab67", "2353c709ab99") == `…09ab67 and …09ab99, which differ from character 11`
func ShowDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	if i == len(a) && i == len(b) {
		return excerpt(a, 0) + " twice, the same"
	}
	return fmt.Sprintf("%s and %s, which differ from character %d", excerpt(a, i), excerpt(b, i), i+1)
}

// excerpt is s around position i: 4 bytes before, 8 from i on, with "…"
// where s goes on.
func excerpt(s string, i int) string {
	start, end := max(0, i-4), min(len(s), i+8)
	out := s[start:end]
	if start > 0 {
		out = "…" + out
	}
	if end < len(s) {
		out += "…"
	}
	if out == "" {
		out = `""`
	}
	return out
}
