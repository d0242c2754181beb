package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

func TestParsePtxas(t *testing.T) {
	text, err := os.ReadFile("testdata/ptxas.txt")
	if err != nil {
		t.Fatal(err)
	}
	got := ParsePtxas(string(text))
	want := map[string]Resources{
		"toy_kernel": {Regs: 56, Stack: 336, SpillStores: 8, SpillLoads: 4, Smem: 768},
		"other":      {Regs: 22, Stack: 0, SpillStores: 0, SpillLoads: 0, Smem: 48640},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d entries, want %d", len(got), len(want))
	}
	for name, w := range want {
		if g := got[name]; g == nil || *g != w {
			t.Errorf("%s: got %+v, want %+v", name, g, w)
		}
	}
}

// toySpec is a spec for testdata/toy.h: push, dead, pop and the end.
func toySpec() *KernelSpec {
	node := Marker{"toy.h", "toy_step", `toy_node\(s\);`, ""}
	push := Marker{"toy.h", "toy_step", `toy_push\(s\);`, "STS"}
	pop := Marker{"toy.h", "toy_step", `return toy_pop`, "LDS"}
	return &KernelSpec{
		Loop: []Marker{node, pop},
		Paths: []PathSpec{
			{Class: "push", Need: []Marker{node, push}},
			{Class: "dead", Need: []Marker{node}, Avoid: []Marker{push}},
			{Class: "pop", Need: []Marker{pop}},
			{Class: "end", Exit: true},
			{Class: "never", Need: []Marker{node, pop}, Optional: true},
		},
		Mode: "rounds",
	}
}

func loadToy(t *testing.T) *CFG {
	t.Helper()
	f, err := os.Open("testdata/toy.sass")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fns, err := ParseSASS(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(fns) != 1 || fns[0].Name != "toy_kernel" || len(fns[0].Insts) != 15 {
		t.Fatalf("parsed %d functions (want toy_kernel with 15 instructions)", len(fns))
	}
	in := fns[0].Insts[10] // 0x00a0: line 5 inlined at toy.cu:9
	if in.Addr != 0xa0 || len(in.Locs) != 2 || in.Locs[0] != (Loc{"toy.h", 5}) || in.Locs[1] != (Loc{"toy.cu", 9}) {
		t.Fatalf("instruction 10: %+v", in)
	}
	if in := fns[0].Insts[2]; in.Pred != "@!P0" || in.Op != "BRA" || in.Target != ".L_x_2" {
		t.Fatalf("instruction 2: %+v", in)
	}
	g, err := BuildCFG(fns[0])
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestCFG(t *testing.T) {
	g := loadToy(t)
	sizes := []int{1, 2, 3, 3, 3, 1, 1, 1}
	succ := [][]int{{1}, {4, 2}, {5, 3}, {5}, {6, 5}, {1}, nil, {7}}
	if len(g.Blocks) != len(sizes) {
		t.Fatalf("%d blocks, want %d", len(g.Blocks), len(sizes))
	}
	for i, b := range g.Blocks {
		if b.Size() != sizes[i] {
			t.Errorf("block %d: size %d, want %d", i, b.Size(), sizes[i])
		}
		if len(b.Succ) != len(succ[i]) {
			t.Errorf("block %d: successors %v, want %v", i, b.Succ, succ[i])
			continue
		}
		for j := range b.Succ {
			if b.Succ[j] != succ[i][j] {
				t.Errorf("block %d: successors %v, want %v", i, b.Succ, succ[i])
			}
		}
	}
	if !g.Blocks[6].Exit || g.Blocks[5].Exit {
		t.Errorf("exit blocks wrong")
	}
	if len(g.Loops) != 1 {
		t.Fatalf("%d loops, want 1 (the unreachable self-loop is no loop)", len(g.Loops))
	}
	l := g.Loops[0]
	if l.Header != 1 || len(l.Blocks) != 5 || len(l.Latches) != 1 || l.Latches[0] != 5 {
		t.Errorf("loop: header %d, latches %v, %d blocks", l.Header, l.Latches, len(l.Blocks))
	}
	if g.BottomTested(l) {
		t.Errorf("the toy loop leaves from its pop block, not its latch")
	}
}

func TestAnalyse(t *testing.T) {
	g := loadToy(t)
	kr, err := Analyse(g, toySpec(), &Sources{Dirs: []string{"testdata"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		class  string
		insts  int
		mem    string
		blocks []int
		absent bool
	}{
		{"push", 9, "STS 1", []int{1, 2, 3, 5}, false},
		{"dead", 6, "none", []int{1, 2, 5}, false},
		{"pop", 6, "LDS 1", []int{1, 4, 5}, false},
		{"end", 5, "LDS 1", []int{1, 4}, false},
		{"never", 0, "none", nil, true},
	}
	if len(kr.Paths) != len(want) {
		t.Fatalf("%d paths, want %d", len(kr.Paths), len(want))
	}
	for i, w := range want {
		p := kr.Paths[i]
		if p.Class != w.class || p.Path.Insts != w.insts || p.Mix.Mem() != w.mem || p.Absent != w.absent {
			t.Errorf("path %d: %s %d insts, mem %q, absent %v; want %s %d, %q, %v", i, p.Class, p.Path.Insts,
				p.Mix.Mem(), p.Absent, w.class, w.insts, w.mem, w.absent)
		}
		if len(p.Path.Blocks) != len(w.blocks) {
			t.Errorf("%s: blocks %v, want %v", w.class, p.Path.Blocks, w.blocks)
			continue
		}
		for j := range w.blocks {
			if p.Path.Blocks[j] != w.blocks[j] {
				t.Errorf("%s: blocks %v, want %v", w.class, p.Path.Blocks, w.blocks)
				break
			}
		}
	}
	if kr.Prologue.Insts != 1 || kr.Epilogue.Insts != 1 || kr.Next.Insts != 0 || kr.LoopInsts != 12 {
		t.Errorf("prologue %d, epilogue %d, next %d, loop %d; want 1, 1, 0, 12", kr.Prologue.Insts,
			kr.Epilogue.Insts, kr.Next.Insts, kr.LoopInsts)
	}
	var b bytes.Buffer
	kr.Name = "toy_kernel"
	writeTSV(&b, "sm_90", "test", []*KernelResult{kr})
	for _, line := range []string{
		"kernel\ttoy_kernel\t\t0\t0\t0\t0\t0\trounds\t12\t1\t0\t1\t0\t1\n",
		"block\ttoy_kernel\t2\t3\t2\t0\n", // IADD3 x2 and a BRA
		"path\ttoy_kernel\tpush\t9\tSTS 1\t1,2,3,5\n",
		"path\ttoy_kernel\tnever\tabsent\tnone\t-\n",
	} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("TSV lacks %q:\n%s", line, b.String())
		}
	}
}

func TestMarkerAnyFile(t *testing.T) {
	g := loadToy(t)
	src := &Sources{Dirs: []string{"testdata"}}
	got, err := src.MarkBlocks(g, Marker{Ops: "LDS|STS"})
	if err != nil {
		t.Fatal(err)
	}
	for b, want := range []bool{false, false, false, true, true, false, false, false} {
		if got[b] != want {
			t.Errorf("block %d: marked %v, want %v", b, got[b], want)
		}
	}
}

func TestMarkerErrors(t *testing.T) {
	g := loadToy(t)
	src := &Sources{Dirs: []string{"testdata"}}
	for _, m := range []Marker{
		{"toy.h", "toy_step", `no such line`, ""},
		{"toy.h", "no_such_func", `toy_node`, ""},
		{"missing.h", "toy_step", `toy_node`, ""},
		{"toy.h", "toy_step", `toy_node\(s\);`, "STS"}, // the line has no store
		{},             // neither a file nor opcodes
		{Ops: "ATOMG"}, // no such instruction
	} {
		if _, err := src.MarkBlocks(g, m); err == nil {
			t.Errorf("marker %v: no error", m)
		}
	}
}

// A spec's Step marker counts the steps of one loop iteration: the
// instructions of the loop that come from it (the push line's IADD3s
// and its STS: three), one by default.
func TestSteps(t *testing.T) {
	g := loadToy(t)
	src := &Sources{Dirs: []string{"testdata"}}
	for _, c := range []struct {
		step *Marker
		want int
	}{
		{nil, 1},
		{&Marker{"toy.h", "toy_step", `toy_push\(s\);`, ""}, 3},
		{&Marker{"toy.h", "toy_step", `toy_push\(s\);`, "STS"}, 1},
	} {
		spec := toySpec()
		spec.Step = c.step
		kr, err := Analyse(g, spec, src)
		if err != nil {
			t.Fatal(err)
		}
		if kr.Steps != c.want {
			t.Errorf("step marker %v: %d steps, want %d", c.step, kr.Steps, c.want)
		}
	}
	spec := toySpec()
	spec.Step = &Marker{"toy.h", "toy_step", `toy_node\(s\);`, "STS"} // no store on that line
	if _, err := Analyse(g, spec, src); err == nil {
		t.Error("a step marker with no instruction in the loop: no error")
	}
}
