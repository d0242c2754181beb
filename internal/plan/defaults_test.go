package plan

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The defaults of a spec are decided in Normalize and nowhere else: no
// code outside this package and internal/tasks names the rules a default
// comes from, and the set-up of a count calls Normalize in one place
// (internal/device). The list below is every other use, each of which
// only reads a default (to show or model it) or sets up a test's count;
// a new use fails the test until it is judged and listed.
func TestDefaultsDecidedOnce(t *testing.T) {
	rules := map[string]bool{
		"plan.Normalize": true, "plan.Algo": true, "plan.DefaultAlgo": true, "plan.DefaultBatch": true, "plan.MinTasks": true,
		"tasks.DefaultDepth": true, "tasks.DefaultSplit": true, "tasks.DepthFor": true, "tasks.SplitFor": true,
	}
	allowed := map[string]string{
		"internal/device plan.Normalize":        "the set-up of every count, bench and check run (Devices.Spec)",
		"internal/device plan.Algo":             "the algorithm the devices report before a spec exists",
		"internal/job/jobtest plan.Normalize":   "the set-up of a test's count",
		"scripts/warpsim plan.Normalize":        "the model reads the depth of an H100 run",
		"cmd/nqueens-gpu plan.DefaultAlgo":      "the help text shows the default",
		"internal/checkpoint plan.DefaultBatch": "a message gives the size of the largest default checkpoint",
	}
	found := map[string]int{}
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "bundle") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		dir, _ := filepath.Rel(root, filepath.Dir(path))
		dir = filepath.ToSlash(dir)
		if dir == "internal/plan" || dir == "internal/tasks" {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && rules[x.Name+"."+sel.Sel.Name] {
					found[dir+" "+x.Name+"."+sel.Sel.Name]++
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var uses []string
	for use := range found {
		uses = append(uses, use)
	}
	sort.Strings(uses)
	for _, use := range uses {
		if _, ok := allowed[use]; !ok {
			t.Errorf("%s: a default decided outside plan.Normalize", use)
		}
	}
	if found["internal/device plan.Normalize"] != 1 {
		t.Errorf("internal/device calls plan.Normalize %d times, want once", found["internal/device plan.Normalize"])
	}
}
