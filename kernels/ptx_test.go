package kernels

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestParseDecls(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []Decl
	}{
		{"two kernels, comments ignored", `
/* extern "C" __global__ void NQ_KERNEL(in_comment)(int x) */
// extern "C" __global__ void NQ_KERNEL(in_line_comment)(int y)
extern "C" __global__ void NQ_KERNEL(nq_a)(int n, int count,
		const uint32_t *__restrict__ rows, /* the rows */
		unsigned long long *out)
{
}
extern "C" __global__ void NQ_KERNEL(nq_b)(void) {}
`, []Decl{
			{"nq_a", "x.cu", []Param{{"n", "int"}, {"count", "int"}, {"rows", "const uint32_t * __restrict__"},
				{"out", "unsigned long long *"}}},
			{"nq_b", "x.cu", nil},
		}},
		{"launch bounds", `extern "C" __global__ void __launch_bounds__(1024, 2) NQ_KERNEL(nq_d)(int count) {}`,
			[]Decl{{"nq_d", "x.cu", []Param{{"count", "int"}}}}},
		{"without NQ_KERNEL: not a kernel of the registry", `extern "C" __global__ void nq_c(int n) {}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseDecls("x.cu", tt.src)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestEntries(t *testing.T) {
	tests := []struct {
		name string
		ptx  string
		want []Entry
	}{
		{"scalars, pointers, an array, .ptr", `
.visible .entry k1(
	.param .u32 k1_param_0,
	.param .u64 k1_param_1,
	.param .align 8 .b8 k1_param_2[24],
	.param .u64 .ptr .global .align 4 k1_param_3,
	.param .f32 k1_param_4
)
{
	ret;
}
.visible .entry k2()
{
}
`, []Entry{{"k1", []int{4, 8, 24, 8, 4}}, {"k2", nil}}},
		{"no entry", `.version 7.8`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Entries(tt.ptx)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestBuildSummary(t *testing.T) {
	tests := []struct{ in, want string }{
		{"nvcc: release 11.8\nflags: -ptx\n# comment\nboards.ptx: nvcc ...\nsha256: 00  boards.cu\n", "nvcc: release 11.8\nflags: -ptx"},
		{"nvcc: Build cuda_11.8\nflags: -arch=compute_70\n", "nvcc: Build cuda_11.8\nflags: -arch=compute_70"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := BuildSummary(tt.in); got != tt.want {
			t.Errorf("BuildSummary(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// committedDir reads kernels/ptx from disk. ok is false where the sources
// are not at hand (a test binary copied to a GPU host, which runs in
// another folder); a kernels folder without kernels/ptx is an error.
func committedDir(t *testing.T) (files map[string]string, ok bool) {
	t.Helper()
	entries, err := os.ReadDir("ptx")
	if errors.Is(err, fs.ErrNotExist) {
		if _, serr := os.Stat("sources.go"); serr == nil {
			t.Fatal("kernels/ptx is missing: run make ptx (nvcc) and commit it")
		}
		return nil, false
	}
	if err != nil {
		t.Fatal(err)
	}
	files = make(map[string]string)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("ptx", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = string(b)
	}
	return files, true
}

// committed reads kernels/ptx from disk; the test is skipped where the
// sources are not at hand.
func committed(t *testing.T) map[string]string {
	t.Helper()
	files, ok := committedDir(t)
	if !ok {
		t.Skip("not run in the kernels folder")
	}
	return files
}

// embeddedPTX is PTX in builds with the cuda tag (ptx_cuda_test.go sets
// it), the modules the binaries embed; nil without the tag.
var embeddedPTX func() map[string]string

// The committed PTX is what make ptx makes of the sources at hand: each
// source has the hash BUILD.txt records (else a kernel changed without
// make ptx), each NAME.cu has NAME.ptx and NAME_nodes.ptx, and their
// entries are the kernels NAME.cu declares, with the parameters' sizes.
// (make ptx-check, in CI, compares the PTX text itself with nvcc's.)
func TestCommittedPTX(t *testing.T) {
	files := committed(t)
	build, ok := files["BUILD.txt"]
	if !ok {
		t.Fatal("kernels/ptx/BUILD.txt is missing: run make ptx")
	}
	if s := BuildSummary(build); !strings.HasPrefix(s, "nvcc: ") || !strings.Contains(s, "\nflags: -ptx -arch=compute_") {
		t.Errorf("BUILD.txt has no nvcc and flags lines: %q", s)
	}

	recorded := make(map[string]string)
	for _, line := range strings.Split(build, "\n") {
		if rest, ok := strings.CutPrefix(line, "sha256: "); ok {
			f := strings.Fields(rest)
			if len(f) != 2 {
				t.Fatalf("BUILD.txt: bad line %q", line)
			}
			recorded[f[1]] = f[0]
		}
	}
	var sources []string
	for _, pat := range []string{"*.cu", "*.h", "*.cuh"} {
		m, _ := filepath.Glob(pat)
		sources = append(sources, m...)
	}
	for _, f := range sources {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		switch h, ok := recorded[f]; {
		case !ok:
			t.Errorf("kernels/%s is not in kernels/ptx/BUILD.txt: run make ptx and commit kernels/ptx", f)
		case h != hex.EncodeToString(sum[:]):
			t.Errorf("kernels/%s changed since kernels/ptx was built: run make ptx and commit kernels/ptx", f)
		}
		delete(recorded, f)
	}
	for f := range recorded {
		t.Errorf("kernels/ptx/BUILD.txt records kernels/%s, which is gone: run make ptx", f)
	}

	decls, err := Decls()
	if err != nil {
		t.Fatal(err)
	}
	owner := make(map[string]string) // entry -> module
	cus, _ := filepath.Glob("*.cu")
	var modules []string
	for _, cu := range cus {
		name := strings.TrimSuffix(cu, ".cu")
		var want []Decl
		for _, d := range decls {
			if d.File == cu {
				want = append(want, d)
			}
		}
		if len(want) == 0 {
			t.Errorf("%s declares no kernel as extern \"C\" __global__ void NQ_KERNEL(name)(...)", cu)
		}
		for _, suffix := range []string{"", "_nodes"} {
			module := name + suffix + ".ptx"
			modules = append(modules, module)
			text, ok := files[module]
			if !ok {
				t.Errorf("kernels/ptx/%s is missing: run make ptx", module)
				continue
			}
			if !strings.Contains(build, "\n"+module+": nvcc ") {
				t.Errorf("BUILD.txt has no command for %s", module)
			}
			entries, err := Entries(text)
			if err != nil {
				t.Fatalf("%s: %v", module, err)
			}
			var got, names []string
			for _, e := range entries {
				got = append(got, e.Name)
				if m, dup := owner[e.Name]; dup {
					t.Errorf("kernel %s is in %s and %s: declare it with NQ_KERNEL(name)", e.Name, m, module)
				}
				owner[e.Name] = module
			}
			for _, d := range want {
				names = append(names, d.Name+suffix)
				i := slices.IndexFunc(entries, func(e Entry) bool { return e.Name == d.Name+suffix })
				if i < 0 {
					continue
				}
				if len(d.Params) != len(entries[i].ParamSizes) {
					t.Errorf("%s: %s has %d parameters in %s, %d in the PTX: run make ptx",
						module, d.Name+suffix, len(d.Params), cu, len(entries[i].ParamSizes))
					continue
				}
				for j, p := range d.Params {
					size, ok := p.Size()
					if !ok {
						t.Errorf("%s: parameter %s of %s: unknown C type %q (add it to Param.Size)", cu, p.Name, d.Name, p.Type)
					} else if size != entries[i].ParamSizes[j] {
						t.Errorf("%s: parameter %s of %s is %d bytes in the PTX, %s is %d", module, p.Name, d.Name+suffix,
							entries[i].ParamSizes[j], p.Type, size)
					}
				}
			}
			slices.Sort(got)
			slices.Sort(names)
			if !slices.Equal(got, names) {
				t.Errorf("%s has the entries %v, %s declares %v: run make ptx", module, got, cu, names)
			}
		}
	}
	for f := range files {
		if strings.HasSuffix(f, ".ptx") && !slices.Contains(modules, f) {
			t.Errorf("kernels/ptx/%s has no kernels/*.cu: run make ptx", f)
		}
	}
}

// The committed PTX must not depend on the folder it was built in: nvcc
// names the shared arrays of functions with internal linkage after a hash
// of the build directory (_INTERNAL_<hash>), so a static function with a
// __shared__ array makes make ptx-check fail on every other checkout. The
// test reads kernels/ptx where it runs in the kernels folder and the
// embedded modules in a cuda build, so the test binary of make bundle
// checks what it carries wherever it runs.
func TestPTXHasNoBuildPathHash(t *testing.T) {
	modules := make(map[string]string) // where -> PTX
	if files, ok := committedDir(t); ok {
		for name, text := range files {
			if strings.HasSuffix(name, ".ptx") {
				modules["kernels/ptx/"+name] = text
			}
		}
		if len(modules) == 0 {
			t.Fatal("kernels/ptx holds no PTX: run make ptx (nvcc) and commit it")
		}
	}
	if embeddedPTX != nil {
		embedded := embeddedPTX()
		if len(embedded) == 0 {
			t.Fatal("no PTX embedded in a cuda build")
		}
		for name, text := range embedded {
			modules["embedded "+name+".ptx"] = text
		}
	}
	if len(modules) == 0 {
		t.Skip("not run in the kernels folder, and no PTX embedded (a build without the cuda tag)")
	}
	for where, text := range modules {
		if i := strings.Index(text, "_INTERNAL_"); i >= 0 {
			end := min(len(text), i+60)
			t.Errorf("%s names %q, which depends on the build folder: drop static from the function that owns that __shared__ array", where, text[i:end])
		}
	}
	t.Logf("%d modules checked", len(modules))
}

func TestParamSize(t *testing.T) {
	tests := []struct {
		typ  string
		size int
		ok   bool
	}{
		{"int", 4, true}, {"unsigned int", 4, true}, {"const uint32_t", 4, true},
		{"unsigned long long", 8, true}, {"const uint64_t * __restrict__", 8, true}, {"unsigned char *", 8, true},
		{"short", 0, false}, {"struct nq_task", 0, false},
	}
	for _, tt := range tests {
		if size, ok := (Param{Name: "x", Type: tt.typ}).Size(); size != tt.size || ok != tt.ok {
			t.Errorf("Param{Type: %q}.Size() = %d, %v; want %d, %v", tt.typ, size, ok, tt.size, tt.ok)
		}
	}
}
