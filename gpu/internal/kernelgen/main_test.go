package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/nqueens-gpu/nqueens-gpu/kernels"
)

// The committed gpu/kernels_gen.go is what kernelgen makes of the sources
// now, under Go's generated-code header.
func TestCommittedOutputIsCurrent(t *testing.T) {
	want, err := generate("../..")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../kernels_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("gpu/kernels_gen.go differs from what kernelgen makes of the sources now: run go generate ./gpu and commit it")
	}
	if first, _, _ := strings.Cut(string(got), "\n"); !regexp.MustCompile(`^// Code generated .* DO NOT EDIT\.$`).MatchString(first) {
		t.Errorf("first line %q is not Go's generated-code header", first)
	}
	attrs, err := os.ReadFile("../../../.gitattributes")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^gpu/kernels_gen\.go linguist-generated=true$`).Match(attrs) {
		t.Errorf(".gitattributes does not mark gpu/kernels_gen.go as generated")
	}
}

// fields are groupArgs's fields as gpu declares them.
func fields(t *testing.T) map[string]string {
	t.Helper()
	f, err := groupArgs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func param(name, typ string) kernels.Param { return kernels.Param{Name: name, Type: typ} }

// A kernel's glue follows its parameter list, whatever fields of groupArgs
// it names: nq_eightfold without its frames parameter.
func TestRenderFollowsParameters(t *testing.T) {
	decls := []kernels.Decl{{Name: "nq_eightfold", File: "eightfold.cu", Params: []kernels.Param{
		param("count", "int"), param("left", "const unsigned long long * __restrict__"),
		param("meta", "const uint32_t * __restrict__"), param("out", "unsigned long long *"), param("next", "unsigned int *")}}}
	reg := []Kernel{{Name: "nq_eightfold", Algo: "nq.Eightfold", Variant: "Dynamic", Layout: "eightfoldLayout", Shared: "efStackBytes", Preferred: true}}
	src, err := render(decls, fields(t), reg)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"\t{algo: nq.Eightfold, variant: Dynamic, name: \"nq_eightfold\", layout: eightfoldLayout, fetch: true, sharedBytes: efStackBytes, launch: eightfoldLaunch, preferred: true},\n",
		"type eightfoldParams struct {\n\tcount                 int32\n\tleft, meta, out, next devPtr\n}\n",
		"\teightfoldArgs argBlock[eightfoldParams]\n",
		"func eightfoldLaunch(l launcher, f kernelFunc, shape launchShape, g *groupArgs) {\n" +
			"\teightfoldArgs.launch(l, f, shape, eightfoldParams{g.count, g.left, g.meta, g.out, g.next})\n}\n",
	} {
		if !strings.Contains(string(src), want) {
			t.Errorf("the output lacks\n%s\nit is:\n%s", want, src)
		}
	}
	if strings.Contains(string(src), "frames") {
		t.Errorf("the output names frames, which the declaration does not:\n%s", src)
	}
}

// Kernels with the same parameters share one parameter struct; a kernel
// without next does not fetch.
func TestRenderSharesParameterStructs(t *testing.T) {
	ps := []kernels.Param{param("n", "int"), param("count", "int"), param("out", "unsigned long long *")}
	decls := []kernels.Decl{{Name: "nq_a", File: "a.cu", Params: ps}, {Name: "nq_a_b", File: "a.cu", Params: ps}}
	reg := []Kernel{{Name: "nq_a", Algo: "nq.Symmetry", Variant: "Static", Layout: "boardLayout"},
		{Name: "nq_a_b", Algo: "nq.Symmetry", Variant: "Dynamic", Layout: "boardLayout"}}
	src, err := render(decls, fields(t), reg)
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	if got := strings.Count(s, "\ntype "); got != 1 {
		t.Errorf("%d parameter structs, want 1:\n%s", got, s)
	}
	for _, want := range []string{"aBArgs argBlock[aParams]", "aBArgs.launch(l, f, shape, aParams{g.n, g.count, g.out})",
		"// aParams are the parameters of nq_a and nq_a_b, in order."} {
		if !strings.Contains(s, want) {
			t.Errorf("the output lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "fetch") {
		t.Errorf("a kernel without next fetches:\n%s", s)
	}
}

func TestRenderErrors(t *testing.T) {
	k := func(params ...kernels.Param) []kernels.Decl {
		return []kernels.Decl{{Name: "nq_k", File: "k.cu", Params: params}}
	}
	line := []Kernel{{Name: "nq_k", Algo: "nq.Symmetry", Variant: "Static", Layout: "boardLayout"}}
	tests := []struct {
		name  string
		decls []kernels.Decl
		reg   []Kernel
		words string
	}{
		{"parameter not in groupArgs", k(param("n", "int"), param("stride", "int")), line, "k.cu: nq_k: parameter stride is not a field of groupArgs"},
		{"parameter of another size", k(param("n", "long long")), line, "parameter n (long long) is not of the size of groupArgs.n (int32)"},
		{"unknown C type", k(param("out", "struct s")), line, "parameter out (struct s)"},
		{"declared, no registry line", k(param("n", "int")), nil, "k.cu declares kernel nq_k, which has no line in kernelgen's registry"},
		{"registry line, not declared", nil, line, "registry line nq_k: no kernels/*.cu declares NQ_KERNEL(nq_k)"},
		{"two registry lines", k(param("n", "int")), append(line, line...), "registry: two lines for nq_k"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := render(tt.decls, fields(t), tt.reg)
			if err == nil || !strings.Contains(err.Error(), tt.words) {
				t.Errorf("error %v, want one saying %q", err, tt.words)
			}
		})
	}
}

func TestIdent(t *testing.T) {
	for in, want := range map[string]string{"nq_symmetry_boards_smem": "symmetryBoardsSmem", "nq_eightfold": "eightfold", "other_kernel": "otherKernel"} {
		if got := ident(in); got != want {
			t.Errorf("ident(%q) = %q, want %q", in, got, want)
		}
	}
}
