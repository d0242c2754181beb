package layers

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxCommentLines bounds a comment in Go and kernel source: a comment
// states a contract or why a trick works, and longer texts (designs,
// measurements, history) belong in docs/. A package's doc in its doc.go
// is exempt.
const maxCommentLines = 15

// maxFuncLines bounds a function of the packages that run a count's
// batches (internal/job) and drive the GPU (gpu), where a long function
// hid state that belongs in a struct.
const maxFuncLines = 60

// sourceFiles lists the module's files with one of exts, outside the
// folders of generated and third-party text.
func sourceFiles(t *testing.T, exts ...string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "bundle", "testdata", "ptx", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		for _, e := range exts {
			if strings.HasSuffix(path, e) {
				files = append(files, path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestCommentLength fails on a run of more than maxCommentLines comment
// lines in Go or kernel source (// lines, or a /* */ block). A cgo
// preamble (the C before import "C") and an example's "// Output:" are
// code, not comments.
func TestCommentLength(t *testing.T) {
	files := sourceFiles(t, ".go", ".cu", ".cuh", ".h", ".c")
	if len(files) < 50 {
		t.Fatalf("found only %d source files under %s", len(files), root)
	}
	for _, path := range files {
		if filepath.Base(path) == "doc.go" {
			continue
		}
		for _, r := range commentRuns(t, path) {
			if r.lines > maxCommentLines && !r.code {
				t.Errorf("%s:%d: a comment of %d lines, more than %d: move the text to docs/", path, r.start, r.lines, maxCommentLines)
			}
		}
	}
}

// commentRun is a run of comment lines; code is set for a cgo preamble
// and an example's output.
type commentRun struct {
	start, lines int
	code         bool
}

// commentRuns lists the runs of consecutive comment lines of path.
func commentRuns(t *testing.T, path string) []commentRun {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var runs []commentRun
	var cur commentRun
	inBlock := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		isComment := inBlock || strings.HasPrefix(s, "//") || strings.HasPrefix(s, "/*")
		if strings.HasPrefix(s, "/*") && !strings.Contains(s, "*/") {
			inBlock = true
		} else if inBlock && strings.Contains(s, "*/") {
			inBlock = false
		}
		switch {
		case isComment && cur.lines == 0:
			cur = commentRun{start: line, lines: 1}
		case isComment:
			cur.lines++
		case cur.lines > 0:
			cur.code = cur.code || s == `import "C"`
			runs = append(runs, cur)
			cur = commentRun{}
		}
		if s == "// Output:" || s == "// Unordered output:" {
			cur.code = true
		}
	}
	if cur.lines > 0 {
		runs = append(runs, cur)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return runs
}

// TestFunctionLength fails on a function of internal/job or gpu, tests
// aside, of more than maxFuncLines lines.
func TestFunctionLength(t *testing.T) {
	for _, dir := range []string{"internal/job", "gpu"} {
		paths, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
		if err != nil || len(paths) == 0 {
			t.Fatalf("no Go files in %s: %v", dir, err)
		}
		for _, path := range paths {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				start, end := fset.Position(fd.Pos()).Line, fset.Position(fd.End()).Line
				if n := end - start + 1; n > maxFuncLines {
					t.Errorf("%s:%d: %s has %d lines, more than %d", path, start, fd.Name.Name, n, maxFuncLines)
				}
			}
		}
	}
}
