package fsutiltest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStateNamesTree(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "f")
	if err := os.WriteFile(f, []byte("abc"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("f", filepath.Join(dir, "l")); err != nil {
		t.Fatal(err)
	}
	if s := StateOf(t, f); !s.Exists || s.Data != "abc" || s.Mode.Perm() != 0o640 || s.Link != "" {
		t.Errorf("StateOf(f) = %+v", s)
	}
	if s := StateOf(t, filepath.Join(dir, "l")); s.Link != "f" || s.Data != "" {
		t.Errorf("StateOf(l) = %+v", s)
	}
	if s := StateOf(t, filepath.Join(dir, "missing")); s != (File{}) {
		t.Errorf("StateOf(missing) = %+v", s)
	}
	if got := Names(t, dir); got != "f l" {
		t.Errorf("Names = %q", got)
	}
	tree := Tree(t, dir)
	if lines := strings.Split(tree, "\n"); len(lines) != 2 || !strings.HasPrefix(lines[0], "f -rw-r----- 3 ") || lines[1] != "l Lrwxrwxrwx -> f" {
		t.Errorf("Tree =\n%s", tree)
	}
}
