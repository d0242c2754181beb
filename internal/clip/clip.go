// Package clip shortens text that comes from the user or from a file
// before a message repeats it, so that a 100 KB input line or argument
// never comes back as a 100 KB error line.
package clip

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Max is the number of bytes of an input that messages show by default.
const Max = 80

// String returns s if it has at most max bytes, else its first bytes (cut
// at a character boundary, at most max) followed by "... (N bytes)" with
// the full length.
func String(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "... (" + strconv.Itoa(len(s)) + " bytes)"
}

// Quote is strconv.Quote of s cut to max bytes as String does, the mark
// of the cut outside the quotes: "abc"... (100000 bytes).
func Quote(s string, max int) string {
	if len(s) <= max {
		return strconv.Quote(s)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%q... (%d bytes)", s[:cut], len(s))
}

// Line cuts a whole message to at most max bytes by keeping its head and
// its tail (where the advice usually is) with " ... " between them. It is
// the last guard of a one-line error message.
func Line(s string, max int) string {
	const mark = " ... "
	if len(s) <= max || max < 2*len(mark) {
		return s
	}
	keep := max - len(mark)
	head, tail := keep*2/3, keep-keep*2/3
	h := head
	for h > 0 && !utf8.RuneStart(s[h]) {
		h--
	}
	t := len(s) - tail
	for t < len(s) && !utf8.RuneStart(s[t]) {
		t++
	}
	return s[:h] + mark + s[t:]
}
