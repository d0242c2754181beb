package layers

import (
	"errors"
	"go/build"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/nqueens-gpu/nqueens-gpu"

// root is the module's directory, two levels up from this package.
const root = "../.."

// imports lists, for every package of the module built with tags, the
// module's packages it imports, and those its tests import. It reads the
// sources itself (go/build), so that the test cache sees every file it
// depends on.
func imports(t *testing.T, tags []string) (code, tests map[string][]string) {
	t.Helper()
	ctxt := build.Default
	ctxt.BuildTags = tags
	code, tests = map[string][]string{}, map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "bundle" || name == "vendor") {
			return filepath.SkipDir
		}
		p, err := ctxt.ImportDir(path, 0)
		var noGo *build.NoGoError
		if errors.As(err, &noGo) {
			return nil
		}
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		pkg := filepath.ToSlash(rel)
		own := func(list []string) []string {
			var out []string
			for _, imp := range list {
				if rest, ok := strings.CutPrefix(imp, module+"/"); ok {
					out = append(out, rest)
				}
			}
			return out
		}
		code[pkg] = own(p.Imports)
		tests[pkg] = own(append(append([]string(nil), p.TestImports...), p.XTestImports...))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return code, tests
}

// under reports whether pkg is dir or below it.
func under(pkg, dir string) bool { return pkg == dir || strings.HasPrefix(pkg, dir+"/") }

// upward says why pkg must not import imp ("" when it may). inTest is set
// for the imports of pkg's tests.
func upward(pkg, imp string, inTest bool) string {
	switch {
	case under(imp, "cmd"):
		return "nothing imports a command"
	case under(pkg, "internal") && (under(imp, "cpu") || under(imp, "gpu")):
		return "internal/* is below the backends"
	case !inTest && under(pkg, "gpu") && under(imp, "cpu"):
		// The GPU's tests may cross-check it with the CPU.
		return "gpu does not import cpu"
	}
	return ""
}

// TestLayers fails on an import that runs upward: internal/* importing
// cpu or gpu (in its code or its tests), gpu importing cpu, anything
// importing cmd, in the CPU build and in the cuda build.
func TestLayers(t *testing.T) {
	seen := 0
	for _, tags := range [][]string{nil, {"cuda"}} {
		code, tests := imports(t, tags)
		seen += len(code)
		for pkg, imps := range code {
			for _, imp := range imps {
				if why := upward(pkg, imp, false); why != "" {
					t.Errorf("tags %v: %s imports %s: %s", tags, pkg, imp, why)
				}
			}
		}
		for pkg, imps := range tests {
			for _, imp := range imps {
				if why := upward(pkg, imp, true); why != "" {
					t.Errorf("tags %v: the tests of %s import %s: %s", tags, pkg, imp, why)
				}
			}
		}
	}
	if seen < 20 {
		t.Errorf("found only %d packages under %s", seen, root)
	}
}

// TestUpward checks the rules themselves on the imports the module had
// before the device layer, which ran upward.
func TestUpward(t *testing.T) {
	tests := []struct {
		pkg, imp string
		inTest   bool
		bad      bool
	}{
		{"internal/job", "cpu", false, true},
		{"internal/job", "cpu", true, true},
		{"gpu", "cpu", false, true},
		{"gpu", "cpu", true, false},
		{"cpu", "internal/job", false, false},
		{"gpu", "internal/device", false, false},
		{"scripts/benchdoc", "cmd/nqueens-gpu", false, true},
		{"cmd/nqueens-gpu", "gpu", false, false},
	}
	for _, tt := range tests {
		if got := upward(tt.pkg, tt.imp, tt.inTest) != ""; got != tt.bad {
			t.Errorf("upward(%s, %s, test %v) = %v, want %v", tt.pkg, tt.imp, tt.inTest, got, tt.bad)
		}
	}
}
