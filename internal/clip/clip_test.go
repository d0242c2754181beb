package clip

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClip(t *testing.T) {
	long := strings.Repeat("x", 100000)
	tests := []struct {
		name, got, want string
	}{
		{"short", String("abc", 3), "abc"},
		{"long", String(long, 5), "xxxxx... (100000 bytes)"},
		{"rune boundary", String("ééé", 3), "é... (6 bytes)"},
		{"quote short", Quote("a\nb", 10), `"a\nb"`},
		{"quote long", Quote(long, 4), `"xxxx"... (100000 bytes)`},
		{"line short", Line("short message", 100), "short message"},
		{"line long", Line("head "+long+" tail", 40), "head xxxxxxxxxxxxxxxxxx ... xxxxxxx tail"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, tt.got, tt.want)
		}
	}
	for _, s := range []string{strings.Repeat("é", 1000), strings.Repeat("日本", 500)} {
		for max := 0; max < 50; max++ {
			for _, out := range []string{String(s, max), Quote(s, max), Line(s, max+20)} {
				if !utf8.ValidString(out) {
					t.Fatalf("max %d: invalid UTF-8 %q", max, out)
				}
			}
			if l := Line(s, max+20); len(l) > max+20 {
				t.Errorf("Line(%d) has %d bytes", max+20, len(l))
			}
		}
	}
}
