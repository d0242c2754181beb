package layers

import (
	"errors"
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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

// layerOf maps each package of Order to its layer.
func layerOf() map[string]int {
	m := map[string]int{}
	for i, layer := range Order {
		for _, pkg := range layer {
			m[pkg] = i
		}
	}
	return m
}

// testLayer is the layer of the commands: a test may import any package
// below it (the cpu backend as a reference, the gpu one to run).
var testLayer = layerOf()["cmd/nqueens-gpu"]

// backendsOnly are the imports a backend's code must not make although
// they are lower: the backends count what the job hands them and know
// neither the job nor the device layer that runs them.
var backendsOnly = map[string][]string{
	"cpu": {"internal/job", "internal/device", "internal/app"},
	"gpu": {"internal/job", "internal/device", "internal/app"},
}

// upward says why pkg must not import imp ("" when it may); inTest is set
// for the imports of pkg's tests.
func upward(layer map[string]int, pkg, imp string, inTest bool) string {
	lp, okp := layer[pkg]
	li, oki := layer[imp]
	switch {
	case !okp:
		return pkg + " has no layer in layers.Order"
	case !oki:
		return imp + " has no layer in layers.Order"
	case inTest && li < testLayer:
		return ""
	case slices.Contains(backendsOnly[pkg], imp):
		return "a backend does not import the layers that run it"
	case li >= lp:
		return fmt.Sprintf("layer %d may import only lower layers, and %s is in layer %d", lp, imp, li)
	}
	return ""
}

// TestLayers fails on an import that runs upward or sideways, in the CPU
// build and in the cuda build, and on a package without a layer.
func TestLayers(t *testing.T) {
	layer := layerOf()
	seen := 0
	for _, tags := range [][]string{nil, {"cuda"}} {
		code, tests := imports(t, tags)
		seen += len(code)
		for pkg, imps := range code {
			if _, ok := layer[pkg]; !ok {
				t.Errorf("%s has no layer in layers.Order (and docs/architecture.md)", pkg)
			}
			for _, imp := range imps {
				if why := upward(layer, pkg, imp, false); why != "" {
					t.Errorf("tags %v: %s imports %s: %s", tags, pkg, imp, why)
				}
			}
		}
		for pkg, imps := range tests {
			for _, imp := range imps {
				if why := upward(layer, pkg, imp, true); why != "" {
					t.Errorf("tags %v: the tests of %s import %s: %s", tags, pkg, imp, why)
				}
			}
		}
	}
	if seen < 20 {
		t.Errorf("found only %d packages under %s", seen, root)
	}
}

// TestUpward checks the rules themselves on imports the module had, which
// ran upward, and on some it has.
func TestUpward(t *testing.T) {
	layer := layerOf()
	tests := []struct {
		pkg, imp string
		inTest   bool
		bad      bool
	}{
		{"internal/nq", "internal/tasks", false, true},
		{"cpu", "internal/job", false, true},
		{"gpu", "internal/job", false, true},
		{"gpu", "internal/device", false, true},
		{"internal/device", "internal/job", false, true},
		{"internal/job", "cpu", false, true},
		{"gpu", "cpu", false, true},
		{"gpu", "cpu", true, false},
		{"cpu", "internal/job/jobtest", true, false},
		{"internal/job", "internal/app", true, false},
		{"internal/app", "gpu", false, true},
		{"internal/device", "gpu", false, true},
		{"scripts/benchdoc", "cmd/nqueens-gpu", false, true},
		{"cmd/nqueens-gpu", "internal/app", false, false},
		{"internal/unknown", "internal/nq", false, true},
	}
	for _, tt := range tests {
		if got := upward(layer, tt.pkg, tt.imp, tt.inTest) != ""; got != tt.bad {
			t.Errorf("upward(%s, %s, test %v) = %v, want %v", tt.pkg, tt.imp, tt.inTest, got, tt.bad)
		}
	}
}

// TestArchitectureDoc checks that docs/architecture.md draws the layers of
// Order: its block after "## Layers" has one line per layer, the lowest
// first, listing its packages.
func TestArchitectureDoc(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "## Layers")
	_, block, ok2 := strings.Cut(rest, "```\n")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("docs/architecture.md has no code block after \"## Layers\"")
	}
	var got [][]string
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		_, pkgs, _ := strings.Cut(line, ":")
		got = append(got, strings.Fields(pkgs))
	}
	if fmt.Sprint(got) != fmt.Sprint(Order) {
		t.Errorf("docs/architecture.md's layers\n%v\nlayers.Order\n%v", got, Order)
	}
}
