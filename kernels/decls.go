package kernels

import (
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Decl is a kernel as a .cu file of this folder declares it:
// extern "C" __global__ void NQ_KERNEL(name)(params), with or without
// __launch_bounds__(...) before NQ_KERNEL.
type Decl struct {
	Name   string  // the kernel's name, its PTX entry; name_nodes is its twin
	File   string  // the .cu file
	Params []Param // in order
}

// Param is one parameter of a kernel.
type Param struct {
	Name string // as in the .cu file, e.g. "rows"
	Type string // the C type, words joined by one space, e.g. "const uint32_t * __restrict__"
}

// Size is the parameter's size in bytes for the C types the kernels use: 8
// for a pointer, 4 or 8 for an integer or float; ok is false for another
// type.
func (p Param) Size() (size int, ok bool) {
	if strings.Contains(p.Type, "*") {
		return 8, true
	}
	switch strings.TrimPrefix(p.Type, "const ") {
	case "int", "unsigned int", "unsigned", "uint32_t", "int32_t", "float":
		return 4, true
	case "long long", "unsigned long long", "uint64_t", "int64_t", "double":
		return 8, true
	}
	return 0, false
}

var (
	cComment = regexp.MustCompile(`(?s)/\*.*?\*/|//[^\n]*`)
	cKernel  = regexp.MustCompile(`extern\s+"C"\s+__global__\s+void\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?NQ_KERNEL\s*\(\s*(\w+)\s*\)\s*\(([^)]*)\)`)
	cIdent   = regexp.MustCompile(`\w+$`)
)

// Decls returns the kernels that the .cu files of Sources declare, file by
// file in name order, each file's in source order. Comments are ignored.
// A kernel declared without NQ_KERNEL is not found: make ptx would give it
// the same name in NAME.ptx and NAME_nodes.ptx.
func Decls() ([]Decl, error) {
	files, err := fs.Glob(Sources, "*.cu")
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var ds []Decl
	for _, f := range files {
		b, err := fs.ReadFile(Sources, f)
		if err != nil {
			return nil, err
		}
		fds, err := ParseDecls(f, string(b))
		if err != nil {
			return nil, err
		}
		ds = append(ds, fds...)
	}
	return ds, nil
}

// ParseDecls returns the kernels that the CUDA source src (file name file)
// declares with NQ_KERNEL.
func ParseDecls(file, src string) ([]Decl, error) {
	src = cComment.ReplaceAllString(src, " ")
	var ds []Decl
	for _, m := range cKernel.FindAllStringSubmatch(src, -1) {
		d := Decl{Name: m[1], File: file}
		list := strings.TrimSpace(m[2])
		if list != "" && list != "void" {
			for _, p := range strings.Split(list, ",") {
				p = strings.Join(strings.Fields(strings.ReplaceAll(p, "*", " * ")), " ")
				name := cIdent.FindString(p)
				typ := strings.TrimSpace(strings.TrimSuffix(p, name))
				if name == "" || typ == "" {
					return nil, fmt.Errorf("%s: kernel %s: cannot read parameter %q", file, d.Name, p)
				}
				d.Params = append(d.Params, Param{Name: name, Type: typ})
			}
		}
		ds = append(ds, d)
	}
	return ds, nil
}

// Entry is a kernel entry of a PTX module.
type Entry struct {
	Name       string
	ParamSizes []int // bytes, in order
}

var (
	ptxEntry = regexp.MustCompile(`\.entry\s+(\w+)\s*\(([^)]*)\)`)
	ptxParam = regexp.MustCompile(`\.param\s+(?:\.align\s+\d+\s+)?\.[bsuf](8|16|32|64)\b[^,]*?(?:\[(\d+)\])?\s*$`)
)

// Entries returns the kernel entries (.entry) of a PTX text with the size
// of each parameter.
func Entries(ptx string) ([]Entry, error) {
	var es []Entry
	for _, m := range ptxEntry.FindAllStringSubmatch(ptx, -1) {
		e := Entry{Name: m[1]}
		if list := strings.TrimSpace(m[2]); list != "" {
			for _, p := range strings.Split(list, ",") {
				pm := ptxParam.FindStringSubmatch(strings.TrimSpace(p))
				if pm == nil {
					return nil, fmt.Errorf("entry %s: cannot read parameter %q", e.Name, strings.TrimSpace(p))
				}
				bits, _ := strconv.Atoi(pm[1])
				size := bits / 8
				if pm[2] != "" {
					k, _ := strconv.Atoi(pm[2])
					size *= k
				}
				e.ParamSizes = append(e.ParamSizes, size)
			}
		}
		es = append(es, e)
	}
	return es, nil
}
